package fhe

// Slot packing for the committee's cross-request batches (issue 13).
//
// A batch of requests r = 0 … B−1 of one policy is evaluated on one set of
// packed input ciphertexts: packed_j = Σ_r L_{s_r} ⊙ ct_{r,j}, where L_s is
// the 0/1 plaintext with a 1 in slot s only and ct_{r,j} is request r's j-th
// input. Whatever a request's input holds in its other slots is multiplied by
// 0 there, so it cannot reach another request's slot (the cross-talk attack).
//
// Cost. The product is computed in the NTT domain at a low level ℓ (the input
// is only read on its first ℓ+1 limbs: dropping levels costs nothing), with
// the mask's NTT form obtained from L_0's by a Galois automorphism: in the
// NTT domain an automorphism X → X^g is a permutation of the evaluation
// points, and σ_g(L_0) = L_s for the g that moves slot 0 to slot s (the
// slots are the evaluations of the plaintext at the primitive 2N-th roots of
// unity mod t, on which the Galois group acts transitively; a centred lift
// to Z_Q commutes with σ_g, a signed permutation of the coefficients). So
// each (request, input) pair costs 2·(ℓ+1)·N modular multiply-adds and no
// NTT; L_0 is encoded once per (preset, level). The result is exact
// arithmetic mod Q_ℓ, independent of the order in which requests are added.
//
// Noise: ‖L_s‖∞ < t (Lattigo lifts the plaintext coefficients from [0, t)), so
// a product's noise is at most N·t times the input's, and a sum of B
// products at most B·N·t times the largest input noise. The caller chooses ℓ
// so that this bound stays below Q_ℓ/2 for the worst noise an input proof
// accepts (consensus.PackLevel writes the bound out).

import (
	"fmt"
	"sync"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
)

// maskKey names the cached NTT-domain Montgomery form of L_0 at one level.
type maskKey struct {
	p     *Params
	level int
}

var slotMasks sync.Map // maskKey → [][]uint64 (per limb)

// slotMask0 returns lift(L_0) at level, per limb, in the NTT domain and in
// Montgomery form (so MRed(mask, c) = L_0·c mod q).
func slotMask0(p *Params, level int) ([][]uint64, error) {
	k := maskKey{p, level}
	if v, ok := slotMasks.Load(k); ok {
		return v.([][]uint64), nil
	}
	// EmbedScale without the scale-up: the plaintext is lift(L_0) itself,
	// not the t⁻¹·m an encryption carries (bgv.Encoder.Encode).
	pt := bgv.NewPlaintext(p.bgv, level)
	v := make([]uint64, p.Slots())
	v[0] = 1
	if err := bgv.NewEncoder(p.bgv).EmbedScale(v, false, pt.MetaData, pt.Value); err != nil {
		return nil, fmt.Errorf("fhe: slot mask: %w", err)
	}
	if !pt.IsNTT || pt.IsMontgomery {
		return nil, fmt.Errorf("fhe: slot mask not in the plain NTT domain")
	}
	r := p.rlwe.RingQ().AtLevel(level)
	out := make([][]uint64, level+1)
	for i := 0; i <= level; i++ {
		sr := r.SubRings[i]
		out[i] = make([]uint64, p.N())
		for j, c := range pt.Value.Coeffs[i] {
			out[i][j] = ring.MForm(c, sr.Modulus, sr.BRedConstant)
		}
	}
	cached, _ := slotMasks.LoadOrStore(k, out)
	return cached.([][]uint64), nil
}

// SlotGaloisElement returns the Galois element g with σ_g(L_0) = L_s: a
// column rotation by −s within the first row, composed with the row swap
// for the slots of the second row (BGV's 2 × N/2 slot layout).
func (p *Params) SlotGaloisElement(s int) (uint64, error) {
	if p.Scheme() != SchemeBGV {
		return 0, fmt.Errorf("fhe: slot packing needs a BGV preset")
	}
	if s < 0 || s >= p.Slots() {
		return 0, fmt.Errorf("fhe: slot %d outside [0, %d)", s, p.Slots())
	}
	half := p.Slots() / 2
	if s < half {
		return p.rlwe.GaloisElement(-s), nil
	}
	nth := p.rlwe.RingQ().NthRoot()
	return p.rlwe.GaloisElementOrderTwoOrthogonalSubgroup() * p.rlwe.GaloisElement(-(s - half)) % nth, nil
}

// SlotPacker accumulates Width packed ciphertexts at one level:
// acc_j = Σ L_{s} ⊙ ct_j over the (slot, inputs) pairs added. Not safe for
// concurrent use.
type SlotPacker struct {
	p     *Params
	level int
	mask  [][]uint64
	acc   []*rlwe.Ciphertext
	meta  *rlwe.MetaData
	used  map[int]bool
}

// NewSlotPacker returns a packer of width packed ciphertexts at level.
func NewSlotPacker(p *Params, level, width int) (*SlotPacker, error) {
	if p.Scheme() != SchemeBGV {
		return nil, fmt.Errorf("fhe: slot packing needs a BGV preset, %s is %v", p.Preset.Name, p.Scheme())
	}
	if level < 0 || level > p.MaxLevel() {
		return nil, fmt.Errorf("fhe: packing level %d outside [0, %d]", level, p.MaxLevel())
	}
	if width < 1 || width > 1<<10 {
		return nil, fmt.Errorf("fhe: packing width %d outside [1, 1024]", width)
	}
	mask, err := slotMask0(p, level)
	if err != nil {
		return nil, err
	}
	sp := &SlotPacker{p: p, level: level, mask: mask, acc: make([]*rlwe.Ciphertext, width), used: map[int]bool{}}
	for j := range sp.acc {
		sp.acc[j] = rlwe.NewCiphertext(p.rlwe, 1, level)
	}
	return sp, nil
}

// Level returns the level of the packed ciphertexts.
func (sp *SlotPacker) Level() int { return sp.level }

// Add puts slot s of L_s ⊙ ins[j] into packed ciphertext j, for every j.
// Each input must be a degree-1 NTT-domain ciphertext of the packer's preset
// at a level ≥ the packer's, with the scale of the first input added; a slot
// is used at most once.
func (sp *SlotPacker) Add(s int, ins []*Ciphertext) error {
	if len(ins) != len(sp.acc) {
		return fmt.Errorf("fhe: pack: %d inputs, packer width %d", len(ins), len(sp.acc))
	}
	if sp.used[s] {
		return fmt.Errorf("fhe: pack: slot %d used twice", s)
	}
	for j, c := range ins {
		if err := sp.check(c); err != nil {
			return fmt.Errorf("fhe: pack: input %d: %w", j, err)
		}
	}
	g, err := sp.p.SlotGaloisElement(s)
	if err != nil {
		return err
	}
	r := sp.p.rlwe.RingQ().AtLevel(sp.level)
	idx, err := ring.AutomorphismNTTIndex(r.N(), r.NthRoot(), g)
	if err != nil {
		return err
	}
	if sp.meta == nil {
		sp.meta = ins[0].ct.MetaData.CopyNew()
	}
	for j, c := range ins {
		for k := 0; k < 2; k++ {
			for i := 0; i <= sp.level; i++ {
				sr := r.SubRings[i]
				mulAddPermuted(sp.acc[j].Value[k].Coeffs[i], c.ct.Value[k].Coeffs[i], sp.mask[i], idx, sr.Modulus, sr.MRedConstant)
			}
		}
	}
	sp.used[s] = true
	return nil
}

// check validates one input of Add.
func (sp *SlotPacker) check(c *Ciphertext) error {
	switch {
	case c == nil || c.ct == nil || c.ct.MetaData == nil:
		return fmt.Errorf("nil ciphertext")
	case c.params != sp.p:
		return fmt.Errorf("preset %s, packer %s", c.params.Preset.Name, sp.p.Preset.Name)
	case c.ct.Degree() != 1:
		return fmt.Errorf("degree %d", c.ct.Degree())
	case c.ct.Level() < sp.level:
		return fmt.Errorf("level %d below the packing level %d", c.ct.Level(), sp.level)
	case !c.ct.IsNTT || c.ct.IsMontgomery:
		return fmt.Errorf("not in the plain NTT domain")
	case sp.meta != nil && c.ct.Scale.Cmp(sp.meta.Scale) != 0:
		return fmt.Errorf("scale differs from the first input's")
	}
	return nil
}

// mulAddPermuted sets acc[j] += mask[idx[j]]·c[j] mod q for every j (mask in
// Montgomery form; acc and c reduced).
func mulAddPermuted(acc, c, mask, idx []uint64, q, mredConst uint64) {
	c = c[:len(acc)]
	idx = idx[:len(acc)]
	for j := range acc {
		v := acc[j] + ring.MRed(mask[idx[j]], c[j], q, mredConst)
		if v >= q {
			v -= q
		}
		acc[j] = v
	}
}

// Ciphertexts returns the packed ciphertexts (copies: the packer may go on).
// With nothing added they encrypt nothing (zero ciphertexts) and fail.
func (sp *SlotPacker) Ciphertexts() ([]*Ciphertext, error) {
	if sp.meta == nil {
		return nil, fmt.Errorf("fhe: pack: no input added")
	}
	out := make([]*Ciphertext, len(sp.acc))
	for j, a := range sp.acc {
		c := a.CopyNew()
		*c.MetaData = *sp.meta.CopyNew()
		out[j] = &Ciphertext{params: sp.p, ct: c}
	}
	return out, nil
}
