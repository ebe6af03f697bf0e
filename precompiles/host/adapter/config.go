package adapter

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/fhegate/fhegate/precompiles"
)

// HexBytes is a byte string in JSON as 0x-prefixed hex, with go-ethereum's
// hexutil.Bytes rules (so the chain config JSON reads the same on every
// host): marshalled as lowercase "0x…"; unmarshalled only from a JSON string
// that is empty or 0x/0X-prefixed even-length hex.
type HexBytes []byte

// MarshalText renders b as 0x-prefixed lowercase hex.
func (b HexBytes) MarshalText() ([]byte, error) {
	out := make([]byte, 2+2*len(b))
	copy(out, "0x")
	hex.Encode(out[2:], b)
	return out, nil
}

// UnmarshalJSON reads a JSON string of 0x-prefixed hex (JSON escapes are not
// decoded, as in hexutil.Bytes).
func (b *HexBytes) UnmarshalJSON(in []byte) error {
	if len(in) < 2 || in[0] != '"' || in[len(in)-1] != '"' {
		return errors.New("json: cannot unmarshal non-string into Go value of type hex bytes")
	}
	return b.UnmarshalText(in[1 : len(in)-1])
}

// UnmarshalText reads 0x-prefixed hex; the empty string is an empty value.
func (b *HexBytes) UnmarshalText(in []byte) error {
	if len(in) > 0 {
		if len(in) < 2 || in[0] != '0' || (in[1] != 'x' && in[1] != 'X') {
			return errors.New("hex string without 0x prefix")
		}
		in = in[2:]
		if len(in)%2 != 0 {
			return errors.New("hex string of odd length")
		}
	}
	dec := make([]byte, len(in)/2)
	if _, err := hex.Decode(dec, in); err != nil {
		return errors.New("invalid hex string")
	}
	*b = dec
	return nil
}

// Member is one committee member's BLS key with its proof of possession.
type Member struct {
	PublicKey         HexBytes `json:"publicKey"`         // 48-byte compressed G1 point
	ProofOfPossession HexBytes `json:"proofOfPossession"` // 96-byte compressed G2 point
}

// Committee is the committee registry installed at activation.
type Committee struct {
	Epoch     uint64   `json:"epoch"`
	Threshold uint32   `json:"threshold"`
	Members   []Member `json:"members"`
}

// Config converts c to the core's committee config (nil for a nil c).
func (c *Committee) Config() *precompiles.CommitteeConfig {
	if c == nil {
		return nil
	}
	cc := &precompiles.CommitteeConfig{Epoch: c.Epoch, Threshold: c.Threshold}
	for _, m := range c.Members {
		cc.PubKeys = append(cc.PubKeys, []byte(m.PublicKey))
		cc.PoPs = append(cc.PoPs, []byte(m.ProofOfPossession))
	}
	return cc
}

// Equal reports whether c and o install the same committee (both nil, or the
// same epoch, threshold and member keys and proofs in order).
func (c *Committee) Equal(o *Committee) bool {
	if c == nil || o == nil {
		return c == o
	}
	if c.Epoch != o.Epoch || c.Threshold != o.Threshold || len(c.Members) != len(o.Members) {
		return false
	}
	for i := range c.Members {
		if !bytes.Equal(c.Members[i].PublicKey, o.Members[i].PublicKey) || !bytes.Equal(c.Members[i].ProofOfPossession, o.Members[i].ProofOfPossession) {
			return false
		}
	}
	return true
}

// Module is the host-neutral part of the activation config of FHEInput,
// FHEPolicy or FHECRDT: its key (they have no settings beyond the host's
// upgrade). A host's Config embeds it beside the host's precompileconfig.Upgrade.
type Module struct{ key string }

// NewModule returns the module part of key's config.
func NewModule(key string) Module { return Module{key: key} }

// Key is the module's config key.
func (m Module) Key() string { return m.key }

func (Module) isModule() {}

// Verdict is the host-neutral part of FHEVerdict's activation config: the
// governance address (may call setCommittee) and, optionally, the initial
// committee. A host's VerdictConfig returns it from VerdictSettings.
type Verdict struct {
	Governance precompiles.Address
	Committee  *Committee
}

// Verify checks v before the chain starts: a committee must install (keys
// checked with their proofs of possession, threshold in range); without one,
// an enabled config needs a governance address.
func (v Verdict) Verify(disabled bool) error {
	if v.Committee == nil {
		if v.Governance == (precompiles.Address{}) && !disabled {
			return errors.New(VerdictConfigKey + ": needs a committee or a governance address")
		}
		return nil
	}
	if err := precompiles.ConfigureVerdict(&discard{}, v.Governance, v.Committee.Config()); err != nil {
		return fmt.Errorf("%s: %w", VerdictConfigKey, err)
	}
	return nil
}

// Equal reports whether v and o configure the same governance and committee.
func (v Verdict) Equal(o Verdict) bool {
	return v.Governance == o.Governance && v.Committee.Equal(o.Committee)
}

// discard is a StateStore that keeps nothing (validation without a StateDB).
type discard struct{}

func (*discard) GetState(precompiles.Hash) precompiles.Hash { return precompiles.Hash{} }
func (*discard) SetState(_, _ precompiles.Hash)             {}

// Configure activates module key at self in state, with cfg the host config
// its registry unmarshalled (a Config embedding Module for the input, policy
// and CRDT modules; for the verdict module one with a VerdictSettings method).
// It fails if the precompiles cannot run (no backends; a ChainIDAtStartup host
// without its chain id). It sets the account's nonce to 1 if it is 0: an
// account with no nonce, code or balance is deleted when touched (EIP-158),
// with its storage. The verdict module's committee and governance are written
// to its storage.
func Configure[A ~[20]byte, H ~[32]byte](h *Host, key string, cfg any, state AccountDB[A, H], self A) error {
	if s, why := h.ready(); s == nil {
		return errors.New(why)
	}
	if state.GetNonce(self) == 0 {
		state.SetNonce(self, 1)
	}
	if key != VerdictConfigKey {
		if _, ok := cfg.(interface{ isModule() }); !ok {
			return fmt.Errorf("%s: expected *Config, got %T", key, cfg)
		}
		return nil
	}
	vc, ok := cfg.(interface{ VerdictSettings() Verdict })
	if !ok {
		return fmt.Errorf("%s: expected *VerdictConfig, got %T", key, cfg)
	}
	v := vc.VerdictSettings()
	return precompiles.ConfigureVerdict(store[A, H]{state: state, addr: self}, v.Governance, v.Committee.Config())
}
