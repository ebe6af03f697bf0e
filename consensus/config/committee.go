package config

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
)

// MemberInfo is one member's public identity in the committee config.
type MemberInfo struct {
	ID     uint32 `json:"id"`
	Addr   string `json:"addr"`   // host:port of its committee transport
	TLSKey string `json:"tlsKey"` // hex ed25519 public key, pinned by every peer
	BLSKey string `json:"blsKey"` // hex 48-byte compressed BLS12-381 public key
	BLSPoP string `json:"blsPop"` // hex proof of possession of BLSKey
}

// CommitteeConfig is the public committee description every member (and
// the chain, through FHEVerdict.setCommittee) agrees on.
type CommitteeConfig struct {
	ChainID      string       `json:"chainId"` // decimal
	Epoch        uint64       `json:"epoch"`
	Preset       string       `json:"preset"`
	Threshold    int          `json:"threshold"`
	Rotations    []int        `json:"rotations,omitempty"`    // Galois keys the plans need
	FloodingBits int          `json:"floodingBits,omitempty"` // log2(σ_flood / B_ct), 0: noise.DefaultFloodingBits
	Members      []MemberInfo `json:"members"`
}

// MemberSecrets are one member's private keys: a 0600 file on its machine,
// encrypted under a passphrase or key file (SaveMemberSecrets,
// LoadMemberSecrets).
type MemberSecrets struct {
	ID     uint32 `json:"id"`
	TLSKey string `json:"tlsKey"` // hex ed25519 seed (32 bytes)
	BLSKey string `json:"blsKey"` // hex BLS secret scalar (32 bytes)
}

// Validate checks the config and returns the preset parameters.
func (c *CommitteeConfig) Validate() (*fhe.Params, error) {
	n := len(c.Members)
	if n < 1 || n > noise.MaxMembers {
		return nil, fmt.Errorf("consensus: committee of %d members (1..%d)", n, noise.MaxMembers)
	}
	if c.Threshold < 1 || c.Threshold > n {
		return nil, fmt.Errorf("consensus: threshold %d outside 1..%d", c.Threshold, n)
	}
	if need := protocol.CheckedMembers(c.Threshold); n < need {
		return nil, fmt.Errorf("consensus: a %d-of-%d committee cannot cross-check its decryptions and refreshes: t−1 members could set any value, so it needs n ≥ max(t+1, 2t−1) = %d members (docs/committee.md, \"Verified refresh and decryption\")", c.Threshold, n, need)
	}
	if _, ok := new(big.Int).SetString(c.ChainID, 10); !ok {
		return nil, fmt.Errorf("consensus: chainId %q is not a decimal integer", c.ChainID)
	}
	for i, m := range c.Members {
		if m.ID != uint32(i+1) {
			return nil, fmt.Errorf("consensus: member %d has id %d; ids must be 1..n in order", i, m.ID)
		}
		if k, err := hex.DecodeString(m.TLSKey); err != nil || len(k) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("consensus: member %d: tlsKey must be 32 hex bytes", m.ID)
		}
		if err := m.verifyBLS(); err != nil {
			return nil, err
		}
	}
	preset, err := fhe.PresetByName(c.Preset)
	if err != nil {
		return nil, err
	}
	p, err := fhe.NewParams(preset.ID)
	if err != nil {
		return nil, err
	}
	if _, err := protocol.PlanNoise(p, n, c.Threshold, c.FloodingBits); err != nil {
		return nil, err
	}
	return p, nil
}

// ChainIDBig returns the chain id.
func (c *CommitteeConfig) ChainIDBig() *big.Int {
	v, _ := new(big.Int).SetString(c.ChainID, 10)
	if v == nil {
		return new(big.Int)
	}
	return v
}

// IDs returns the member IDs, ascending.
func (c *CommitteeConfig) IDs() []transport.MemberID {
	out := make([]transport.MemberID, len(c.Members))
	for i, m := range c.Members {
		out[i] = transport.MemberID(m.ID)
	}
	return out
}

// Peers returns the transport identities.
func (c *CommitteeConfig) Peers() ([]transport.Peer, error) {
	out := make([]transport.Peer, len(c.Members))
	for i, m := range c.Members {
		k, err := hex.DecodeString(m.TLSKey)
		if err != nil || len(k) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("consensus: member %d tlsKey", m.ID)
		}
		out[i] = transport.Peer{ID: transport.MemberID(m.ID), Addr: m.Addr, PubKey: ed25519.PublicKey(k)}
	}
	return out, nil
}

// BLSCommittee returns the validated BLS keys in member order.
func (c *CommitteeConfig) BLSCommittee() (*bls.Committee, [][]byte, error) {
	keys := make([]*bls.PublicKey, len(c.Members))
	raw := make([][]byte, len(c.Members))
	for i, m := range c.Members {
		b, err := hex.DecodeString(m.BLSKey)
		if err != nil {
			return nil, nil, err
		}
		pk, err := bls.ParsePublicKey(b)
		if err != nil {
			return nil, nil, fmt.Errorf("member %d: %w", m.ID, err)
		}
		keys[i], raw[i] = pk, b
	}
	return &bls.Committee{Keys: keys}, raw, nil
}

// GaloisElements returns the Galois elements for the configured rotations
// (default: every power of two below the row length, which covers
// InnerSum and the rotations of the bundled plans), followed by the
// elements FHECRDT value reads need that are not already listed
// (CRDTGaloisElements: for BGV the power-of-two rotations and the row
// rotation).
func (c *CommitteeConfig) GaloisElements(p *fhe.Params) []uint64 {
	out := c.rotationElements(p)
	have := make(map[uint64]bool, len(out))
	for _, g := range out {
		have[g] = true
	}
	for _, g := range circuit.CRDTGaloisElements(p) {
		if !have[g] {
			have[g] = true
			out = append(out, g)
		}
	}
	return out
}

func (c *CommitteeConfig) rotationElements(p *fhe.Params) []uint64 {
	rot := c.Rotations
	if len(rot) == 0 {
		row := p.Slots()
		if p.Scheme() == fhe.SchemeBGV {
			row /= 2
		}
		for k := 1; k < row; k <<= 1 {
			rot = append(rot, k)
		}
	}
	return p.GaloisElementsForRotations(rot)
}

// verifyBLS decodes the member's BLS key and proof of possession and checks
// the proof (a key without one could be a rogue-key attack on the
// aggregate).
func (m MemberInfo) verifyBLS() error {
	pk, err := hex.DecodeString(m.BLSKey)
	if err != nil {
		return fmt.Errorf("consensus: member %d: blsKey: %w", m.ID, err)
	}
	pop, err := hex.DecodeString(m.BLSPoP)
	if err != nil {
		return fmt.Errorf("consensus: member %d: blsPop: %w", m.ID, err)
	}
	if err := bls.PopVerify(pk, pop); err != nil {
		return fmt.Errorf("consensus: member %d: BLS proof of possession: %w", m.ID, err)
	}
	return nil
}

// TLSPrivateKey decodes the member's TLS identity key.
func (s *MemberSecrets) TLSPrivateKey() (ed25519.PrivateKey, error) {
	b, err := hex.DecodeString(s.TLSKey)
	if err != nil || len(b) != ed25519.SeedSize {
		return nil, errors.New("consensus: tlsKey must be a 32-byte hex seed")
	}
	return ed25519.NewKeyFromSeed(b), nil
}

// BLSSecretKey decodes the member's BLS key.
func (s *MemberSecrets) BLSSecretKey() (*bls.SecretKey, error) {
	b, err := hex.DecodeString(s.BLSKey)
	if err != nil {
		return nil, err
	}
	return bls.SecretKeyFromBytes(b)
}

// GenerateCommittee creates a committee config and every member's secrets
// on one machine: development only (`fhegate committee init`, in-process
// committees). Production committees generate each member's secrets on its
// own machine (GenerateMemberSecrets, `fhegate committee keygen`) and
// assemble the config from the public parts (AssembleCommittee). addrs[i]
// is member i+1's transport address.
func GenerateCommittee(chainID *big.Int, epoch uint64, preset string, t int, addrs []string) (*CommitteeConfig, []*MemberSecrets, error) {
	cfg := &CommitteeConfig{ChainID: chainID.String(), Epoch: epoch, Preset: preset, Threshold: t}
	var secrets []*MemberSecrets
	for i, addr := range addrs {
		sec, info, err := GenerateMemberSecrets(uint32(i+1), addr)
		if err != nil {
			return nil, nil, err
		}
		cfg.Members = append(cfg.Members, info)
		secrets = append(secrets, sec)
	}
	if _, err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	return cfg, secrets, nil
}

// LoadJSON reads a JSON file into v.
func LoadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// SaveJSON writes v as indented JSON with the given mode.
func SaveJSON(path string, v any, mode os.FileMode) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), mode)
}

// DefaultPreset is the preset a committee is created with unless told
// otherwise (fhegate committee init, fhegate devnet): BGV N=2^14, t=65537,
// depth 9. Every plan FHEPolicy.registerPolicy accepts compiles for it —
// the on-chain compiler picks BGVN13 or BGVN14 by depth and places refresh
// points for BGVN14 beyond depth 8 (the levels above its refresh floor,
// policy.PresetInfo.RefreshFloor), and a plan that fits BGVN13 fits BGVN14
// with the same plaintext modulus — so no shipped or registered policy is
// answered "unevaluable" (docs/committee.md, "Request flow", on
// unevaluable policies).
const DefaultPreset = "bgv-n14-t65537"
