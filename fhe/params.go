package fhe

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/schemes/ckks"
)

// Scheme identifies the homomorphic scheme of a preset.
type Scheme uint8

// Schemes. The numeric values are part of the wire format.
const (
	SchemeBGV  Scheme = 1
	SchemeCKKS Scheme = 2
)

func (s Scheme) String() string {
	switch s {
	case SchemeBGV:
		return "BGV"
	case SchemeCKKS:
		return "CKKS"
	}
	return fmt.Sprintf("Scheme(%d)", uint8(s))
}

// PresetID names a parameter set on the wire. IDs below 0x80 are public,
// 128-bit-secure presets; IDs from 0x80 are reserved for fhe/fhetest's
// insecure test presets.
type PresetID uint8

// Public presets. The numeric values are part of the wire format and of
// on-chain state: never renumber.
const (
	// BGVN13 — BGV, N=2^13 (4096×2 slots), t=65537, logQ=[44,32,32,32,32]
	// logP=[45] (log2 QP ≈ 217 ≤ 218). Depth 4: four multiplications, each
	// followed by a modulus switch, before the last prime is reached.
	BGVN13 PresetID = 1
	// BGVN14 — BGV, N=2^14 (8192×2 slots), t=65537, logQ=[50, 34×9]
	// logP=[40,40] (log2 QP = 436 ≤ 438). Depth 9: 30-bit primes do not
	// absorb the noise of a product at this N (measured by TestPresetDepth).
	BGVN14 PresetID = 2
	// CKKSN13 — CKKS, N=2^13 (4096 complex slots), Δ=2^40, logQ=[50,40,40,40]
	// logP=[45] (log2 QP = 215 ≤ 218). Depth 3; inputs |x| ≤ 2^9.
	CKKSN13 PresetID = 3
	// CKKSN14 — CKKS, N=2^14 (8192 complex slots), Δ=2^45,
	// logQ=[55,45×7] logP=[61] (log2 QP = 431 ≤ 438). Depth 7.
	CKKSN14 PresetID = 4
)

// Preset is a named, versioned parameter set.
type Preset struct {
	ID     PresetID
	Name   string
	Scheme Scheme
	// Depth is the number of multiplications (each followed by a rescale) a
	// fresh ciphertext supports: MaxLevel. A test checks the claim by
	// decrypting after Depth chained squarings.
	Depth int
	// Doc explains the preset in one line.
	Doc string

	bgvLit  *bgv.ParametersLiteral
	ckksLit *ckks.ParametersLiteral
}

// Insecure reports whether the preset is a test-only preset.
func (p *Preset) Insecure() bool { return p.ID >= 0x80 }

var (
	presetMu     sync.RWMutex
	presetByID   = map[PresetID]*Preset{}
	paramsCache  = map[PresetID]*Params{}
	paramsErrors = map[PresetID]error{}
)

func init() {
	for _, p := range []*Preset{
		{ID: BGVN13, Name: "bgv-n13-t65537", Scheme: SchemeBGV, Depth: 4,
			Doc:    "BGV N=2^13, t=65537, 8192 integer slots, depth 4, 128-bit",
			bgvLit: &bgv.ParametersLiteral{LogN: 13, LogQ: []int{44, 32, 32, 32, 32}, LogP: []int{45}, PlaintextModulus: 65537}},
		{ID: BGVN14, Name: "bgv-n14-t65537", Scheme: SchemeBGV, Depth: 9,
			Doc:    "BGV N=2^14, t=65537, 16384 integer slots, depth 9, 128-bit",
			bgvLit: &bgv.ParametersLiteral{LogN: 14, LogQ: []int{50, 34, 34, 34, 34, 34, 34, 34, 34, 34}, LogP: []int{40, 40}, PlaintextModulus: 65537}},
		{ID: CKKSN13, Name: "ckks-n13-s40", Scheme: SchemeCKKS, Depth: 3,
			Doc:     "CKKS N=2^13, scale 2^40, 4096 slots, depth 3, 128-bit",
			ckksLit: &ckks.ParametersLiteral{LogN: 13, LogQ: []int{50, 40, 40, 40}, LogP: []int{45}, LogDefaultScale: 40}},
		{ID: CKKSN14, Name: "ckks-n14-s45", Scheme: SchemeCKKS, Depth: 7,
			Doc:     "CKKS N=2^14, scale 2^45, 8192 slots, depth 7, 128-bit",
			ckksLit: &ckks.ParametersLiteral{LogN: 14, LogQ: []int{55, 45, 45, 45, 45, 45, 45, 45}, LogP: []int{61}, LogDefaultScale: 45}},
	} {
		mustRegister(p)
	}
}

func mustRegister(p *Preset) {
	if err := registerPreset(p); err != nil {
		panic(err) // programming error in a built-in preset table
	}
}

func registerPreset(p *Preset) error {
	if (p.bgvLit == nil) == (p.ckksLit == nil) {
		return fmt.Errorf("fhe: preset %q must have exactly one literal", p.Name)
	}
	presetMu.Lock()
	defer presetMu.Unlock()
	if _, dup := presetByID[p.ID]; dup {
		return fmt.Errorf("fhe: preset id %d registered twice", p.ID)
	}
	presetByID[p.ID] = p
	return nil
}

// RegisterTestPreset registers an insecure preset for tests. It is meant to
// be called only by fhe/fhetest; it refuses IDs below 0x80 and names that do
// not start with "Insecure".
func RegisterTestPreset(id PresetID, name string, scheme Scheme, depth int, logN int, logQ, logP []int, logScale int) error {
	if id < 0x80 || !strings.HasPrefix(name, "Insecure") {
		return fmt.Errorf("fhe: test preset %q (id %d) must have id ≥ 0x80 and a name starting with Insecure", name, id)
	}
	p := &Preset{ID: id, Name: name, Scheme: scheme, Depth: depth, Doc: "INSECURE test preset"}
	switch scheme {
	case SchemeBGV:
		p.bgvLit = &bgv.ParametersLiteral{LogN: logN, LogQ: logQ, LogP: logP, PlaintextModulus: 65537}
	case SchemeCKKS:
		p.ckksLit = &ckks.ParametersLiteral{LogN: logN, LogQ: logQ, LogP: logP, LogDefaultScale: logScale}
	default:
		return fmt.Errorf("fhe: unknown scheme %v", scheme)
	}
	return registerPreset(p)
}

// Presets returns every registered preset, ordered by ID.
func Presets() []*Preset {
	presetMu.RLock()
	defer presetMu.RUnlock()
	out := make([]*Preset, 0, len(presetByID))
	for _, p := range presetByID {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// PresetByID returns a registered preset.
func PresetByID(id PresetID) (*Preset, error) {
	presetMu.RLock()
	defer presetMu.RUnlock()
	p, ok := presetByID[id]
	if !ok {
		return nil, fmt.Errorf("fhe: unknown preset id %d", id)
	}
	return p, nil
}

// PresetByName returns a registered preset by its name.
func PresetByName(name string) (*Preset, error) {
	for _, p := range Presets() {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("fhe: unknown preset %q", name)
}

// Params are instantiated parameters of a preset. They are immutable and
// shared: NewParams returns the same *Params for the same preset.
type Params struct {
	Preset *Preset
	bgv    bgv.Parameters
	ckks   ckks.Parameters
	rlwe   rlwe.Parameters
}

// NewParams instantiates (once, then from a cache) the parameters of a preset.
func NewParams(id PresetID) (*Params, error) {
	presetMu.RLock()
	pp, ok := paramsCache[id]
	perr := paramsErrors[id]
	presetMu.RUnlock()
	if ok {
		return pp, nil
	}
	if perr != nil {
		return nil, perr
	}
	preset, err := PresetByID(id)
	if err != nil {
		return nil, err
	}
	p := &Params{Preset: preset}
	switch preset.Scheme {
	case SchemeBGV:
		p.bgv, err = bgv.NewParametersFromLiteral(*preset.bgvLit)
		p.rlwe = p.bgv.Parameters
	case SchemeCKKS:
		p.ckks, err = ckks.NewParametersFromLiteral(*preset.ckksLit)
		p.rlwe = p.ckks.Parameters
	}
	presetMu.Lock()
	defer presetMu.Unlock()
	if err != nil {
		err = fmt.Errorf("fhe: preset %s: %w", preset.Name, err)
		paramsErrors[id] = err
		return nil, err
	}
	if cached, ok := paramsCache[id]; ok {
		return cached, nil
	}
	paramsCache[id] = p
	return p, nil
}

// MustParams is NewParams for built-in presets in tests and examples.
func MustParams(id PresetID) *Params {
	p, err := NewParams(id)
	if err != nil {
		panic(err)
	}
	return p
}

// Scheme returns the preset's scheme.
func (p *Params) Scheme() Scheme { return p.Preset.Scheme }

// LogN returns log2 of the ring degree.
func (p *Params) LogN() int { return p.rlwe.LogN() }

// N returns the ring degree.
func (p *Params) N() int { return p.rlwe.N() }

// MaxLevel is the level of a fresh ciphertext (number of primes in Q minus one).
func (p *Params) MaxLevel() int { return p.rlwe.MaxLevel() }

// Slots is the number of plaintext slots: N for BGV (two rows of N/2), N/2 for CKKS.
func (p *Params) Slots() int {
	if p.Scheme() == SchemeBGV {
		return p.bgv.MaxSlots()
	}
	return p.ckks.MaxSlots()
}

// PlaintextModulus returns t (BGV only; 0 for CKKS).
func (p *Params) PlaintextModulus() uint64 {
	if p.Scheme() == SchemeBGV {
		return p.bgv.PlaintextModulus()
	}
	return 0
}

// LogQP is log2 of the full modulus Q·P, the quantity bounded by the security standard.
func (p *Params) LogQP() float64 { return p.rlwe.LogQP() }

// Q returns the ciphertext primes q_0 … q_L.
func (p *Params) Q() []uint64 { return p.rlwe.Q() }

// P returns the key-switching primes.
func (p *Params) P() []uint64 { return p.rlwe.P() }

// BGV returns the Lattigo BGV parameters (for fhe/ subpackages, gpu/ and consensus/).
func (p *Params) BGV() bgv.Parameters { return p.bgv }

// CKKS returns the Lattigo CKKS parameters.
func (p *Params) CKKS() ckks.Parameters { return p.ckks }

// RLWE returns the Lattigo RLWE parameters.
func (p *Params) RLWE() rlwe.Parameters { return p.rlwe }

// GaloisElementsForRotations returns the Galois elements needed to rotate the
// slots by each of the given steps (BGV: column rotations).
func (p *Params) GaloisElementsForRotations(steps []int) []uint64 {
	out := make([]uint64, 0, len(steps))
	for _, k := range steps {
		if p.Scheme() == SchemeBGV {
			out = append(out, p.bgv.GaloisElementForColRotation(k))
		} else {
			out = append(out, p.ckks.GaloisElementForRotation(k))
		}
	}
	return out
}

// GaloisElementsForInnerSum returns the Galois elements InnerSum(batch, n) needs.
func (p *Params) GaloisElementsForInnerSum(batch, n int) []uint64 {
	if p.Scheme() == SchemeBGV {
		return p.bgv.GaloisElementsForInnerSum(batch, n)
	}
	return p.ckks.GaloisElementsForInnerSum(batch, n)
}

// HESecurityBound128 returns the HomomorphicEncryption.org 128-bit classical
// bound on log2(QP) for a ternary secret at ring degree 2^logN (0 if unknown).
func HESecurityBound128(logN int) float64 {
	switch logN {
	case 10:
		return 27
	case 11:
		return 54
	case 12:
		return 109
	case 13:
		return 218
	case 14:
		return 438
	case 15:
		return 881
	}
	return math.NaN()
}

func (p *Params) logMaxDimensions() ring.Dimensions {
	if p.Scheme() == SchemeBGV {
		return p.bgv.LogMaxDimensions()
	}
	return p.ckks.LogMaxDimensions()
}
