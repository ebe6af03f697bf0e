package subnetevm

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/subnet-evm/params"
	"github.com/ava-labs/subnet-evm/precompile/precompileconfig"

	"github.com/fhegate/fhegate/precompiles"
)

// Config activates FHEInput, FHEPolicy or FHECRDT (no settings beyond the upgrade).
type Config struct {
	precompileconfig.Upgrade
	key string
}

var _ precompileconfig.Config = (*Config)(nil)

// NewConfig returns the activation config for one of InputConfigKey,
// PolicyConfigKey, CRDTConfigKey at blockTimestamp.
func NewConfig(key string, blockTimestamp *uint64) *Config {
	return &Config{Upgrade: precompileconfig.Upgrade{BlockTimestamp: blockTimestamp}, key: key}
}

func (c *Config) Key() string                               { return c.key }
func (c *Config) Verify(precompileconfig.ChainConfig) error { return nil }
func (c *Config) Equal(o precompileconfig.Config) bool {
	x, ok := o.(*Config)
	return ok && x.key == c.key && c.Upgrade.Equal(&x.Upgrade)
}

// Member is one committee member's BLS key with its proof of possession.
type Member struct {
	PublicKey         hexutil.Bytes `json:"publicKey"`         // 48-byte compressed G1 point
	ProofOfPossession hexutil.Bytes `json:"proofOfPossession"` // 96-byte compressed G2 point
}

// Committee is the committee registry installed at activation.
type Committee struct {
	Epoch     uint64   `json:"epoch"`
	Threshold uint32   `json:"threshold"`
	Members   []Member `json:"members"`
}

// VerdictConfig activates FHEVerdict with a governance address (may call
// setCommittee) and, optionally, the initial committee.
type VerdictConfig struct {
	precompileconfig.Upgrade
	Governance common.Address `json:"governance"`
	Committee  *Committee     `json:"committee,omitempty"`
}

var _ precompileconfig.Config = (*VerdictConfig)(nil)

func (c *VerdictConfig) Key() string { return VerdictConfigKey }

func (c *VerdictConfig) committeeConfig() (*precompiles.CommitteeConfig, error) {
	if c.Committee == nil {
		return nil, nil
	}
	cc := &precompiles.CommitteeConfig{Epoch: c.Committee.Epoch, Threshold: c.Committee.Threshold}
	for _, m := range c.Committee.Members {
		cc.PubKeys = append(cc.PubKeys, []byte(m.PublicKey))
		cc.PoPs = append(cc.PoPs, []byte(m.ProofOfPossession))
	}
	return cc, nil
}

func (c *VerdictConfig) Verify(precompileconfig.ChainConfig) error {
	if c.Committee == nil {
		if c.Governance == (common.Address{}) && !c.Disable {
			return errors.New("fheVerdictConfig: needs a committee or a governance address")
		}
		return nil
	}
	cc, _ := c.committeeConfig()
	st := &memStore{}
	if err := precompiles.ConfigureVerdict(st, precompiles.Address(c.Governance), cc); err != nil {
		return fmt.Errorf("fheVerdictConfig: %w", err)
	}
	return nil
}

func (c *VerdictConfig) Equal(o precompileconfig.Config) bool {
	x, ok := o.(*VerdictConfig)
	if !ok || !c.Upgrade.Equal(&x.Upgrade) || c.Governance != x.Governance {
		return false
	}
	if (c.Committee == nil) != (x.Committee == nil) {
		return false
	}
	if c.Committee == nil {
		return true
	}
	a, b := c.Committee, x.Committee
	if a.Epoch != b.Epoch || a.Threshold != b.Threshold || len(a.Members) != len(b.Members) {
		return false
	}
	for i := range a.Members {
		if !bytes.Equal(a.Members[i].PublicKey, b.Members[i].PublicKey) || !bytes.Equal(a.Members[i].ProofOfPossession, b.Members[i].ProofOfPossession) {
			return false
		}
	}
	return true
}

// memStore is a throwaway store for Verify (validation without a StateDB).
type memStore struct{ m []precompiles.Hash }

func (s *memStore) GetState(precompiles.Hash) precompiles.Hash { return precompiles.Hash{} }
func (s *memStore) SetState(_, v precompiles.Hash)             { s.m = append(s.m, v) }

// Configs returns activation configs for all four precompiles at blockTimestamp.
func Configs(blockTimestamp *uint64, governance common.Address, committee *Committee) []precompileconfig.Config {
	return []precompileconfig.Config{
		NewConfig(InputConfigKey, blockTimestamp),
		NewConfig(PolicyConfigKey, blockTimestamp),
		NewConfig(CRDTConfigKey, blockTimestamp),
		&VerdictConfig{Upgrade: precompileconfig.Upgrade{BlockTimestamp: blockTimestamp}, Governance: governance, Committee: committee},
	}
}

// Enable activates all four precompiles from genesis in chainConfig
// (params.GetExtra(chainConfig).GenesisPrecompiles).
func Enable(chainConfig *params.ChainConfig, governance common.Address, committee *Committee) {
	extra := params.GetExtra(chainConfig)
	// copy: params.Copy shares the map with the config it was copied from
	m := make(map[string]precompileconfig.Config, len(extra.GenesisPrecompiles)+4)
	for k, v := range extra.GenesisPrecompiles {
		m[k] = v
	}
	zero := uint64(0)
	for _, c := range Configs(&zero, governance, committee) {
		m[c.Key()] = c
	}
	extra.GenesisPrecompiles = m
}
