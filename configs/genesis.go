package configs

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
)

// devnetGenesis is the subnet-evm genesis used by `fhegate devnet` and by the
// end-to-end test's subnet: chain id 1337, a 30M gas limit, a 1 gwei minimum
// base fee, and 1,000,000 native tokens for each well-known development key
// (the ten Hardhat/Anvil accounts and Avalanche's "ewoq" key).
//
//go:embed genesis-devnet.json
var devnetGenesis []byte

// DevnetGenesis returns a copy of the embedded development genesis
// (configs/genesis-devnet.json).
func DevnetGenesis() []byte {
	return append([]byte(nil), devnetGenesis...)
}

// ErrBadGenesis is returned when a genesis document is not a JSON object with
// a "config" object.
var ErrBadGenesis = errors.New("configs: genesis must be a JSON object with a \"config\" object")

// EditGenesisConfig decodes genesis, lets edit change the chain-config object
// (the "config" member: chainId, feeConfig, precompile configs keyed by their
// config keys), and re-encodes the document. Members it does not touch keep
// their values; the output is indented JSON.
func EditGenesisConfig(genesis []byte, edit func(config map[string]json.RawMessage) error) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(genesis, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadGenesis, err)
	}
	raw, ok := doc["config"]
	if !ok {
		return nil, ErrBadGenesis
	}
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(raw, &cfg); err != nil || cfg == nil {
		return nil, ErrBadGenesis
	}
	if err := edit(cfg); err != nil {
		return nil, err
	}
	enc, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	doc["config"] = enc
	return json.MarshalIndent(doc, "", "  ")
}

// WithChainID returns genesis with config.chainId replaced by id.
func WithChainID(genesis []byte, id uint64) ([]byte, error) {
	if id == 0 {
		return nil, errors.New("configs: chain id must be positive")
	}
	return EditGenesisConfig(genesis, func(cfg map[string]json.RawMessage) error {
		cfg["chainId"] = json.RawMessage(fmt.Sprintf("%d", id))
		return nil
	})
}

// WithPrecompileConfig returns genesis with config[key] set to the JSON
// encoding of value — the way a stateful precompile is enabled in subnet-evm
// (e.g. key "fheVerdictConfig", value {"blockTimestamp": 0, …}).
func WithPrecompileConfig(genesis []byte, key string, value any) ([]byte, error) {
	if key == "" {
		return nil, errors.New("configs: empty precompile config key")
	}
	enc, err := json.Marshal(value)
	if err != nil {
		return nil, fmt.Errorf("configs: encoding %s: %w", key, err)
	}
	return EditGenesisConfig(genesis, func(cfg map[string]json.RawMessage) error {
		cfg[key] = enc
		return nil
	})
}

// VerdictConfigKey is FHEVerdict's chain-config key (subnetevm.VerdictConfigKey).
const VerdictConfigKey = "fheVerdictConfig"

// WithCommittee returns genesis with fheVerdictConfig.committee set to the
// JSON encoding of committee (epoch, threshold, members' BLS keys and proofs
// of possession), keeping fheVerdictConfig's other members (blockTimestamp,
// governance); blockTimestamp defaults to 0.
func WithCommittee(genesis []byte, committee any) ([]byte, error) {
	return withVerdictMember(genesis, "committee", committee)
}

// WithGovernance returns genesis with fheVerdictConfig.governance set to
// address (0x-prefixed hex), keeping the other members.
func WithGovernance(genesis []byte, address string) ([]byte, error) {
	return withVerdictMember(genesis, "governance", address)
}

// withVerdictMember sets one member of the fheVerdictConfig object (created
// with blockTimestamp 0 if absent).
func withVerdictMember(genesis []byte, member string, value any) ([]byte, error) {
	enc, err := json.Marshal(value)
	if err != nil {
		return nil, fmt.Errorf("configs: encoding %s.%s: %w", VerdictConfigKey, member, err)
	}
	return EditGenesisConfig(genesis, func(cfg map[string]json.RawMessage) error {
		v := map[string]json.RawMessage{}
		if raw, ok := cfg[VerdictConfigKey]; ok {
			if err := json.Unmarshal(raw, &v); err != nil || v == nil {
				return fmt.Errorf("%w: %s is not an object", ErrBadGenesis, VerdictConfigKey)
			}
		}
		if _, ok := v["blockTimestamp"]; !ok {
			v["blockTimestamp"] = json.RawMessage("0")
		}
		v[member] = enc
		out, err := json.Marshal(v)
		if err != nil {
			return err
		}
		cfg[VerdictConfigKey] = out
		return nil
	})
}
