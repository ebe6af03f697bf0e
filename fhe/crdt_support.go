package fhe

// Facade additions for fhe/crdt (owned by the CRDT area). They follow the
// facade's rules: deterministic, no panics across the boundary, inputs never
// modified.

import (
	"fmt"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
)

// ScaleModT returns a BGV ciphertext's plaintext scale (an element of Z_t; 1
// for a fresh encryption). It returns 0 for CKKS ciphertexts.
func (c *Ciphertext) ScaleModT() uint64 {
	if c == nil || c.ct == nil || c.params.Scheme() != SchemeBGV || c.ct.MetaData == nil {
		return 0
	}
	return c.ct.Scale.Uint64()
}

// LinearSum returns Σ plus − Σ minus with a single allocation. All operands
// must be degree-1 ciphertexts of the evaluator's preset at the same level and
// with the same scale: the result is then exact arithmetic mod Q (no
// rescaling, no scale matching), so it is independent of the order and
// grouping of the operands, bit for bit. plus must not be empty.
func (e *Evaluator) LinearSum(plus, minus []*Ciphertext) (*Ciphertext, error) {
	if len(plus) == 0 {
		return nil, fmt.Errorf("fhe: linear-sum: no positive operand")
	}
	all := make([]*Ciphertext, 0, len(plus)+len(minus))
	all = append(all, plus...)
	all = append(all, minus...)
	first := plus[0]
	return e.do("linear-sum", func(w *worker) (*rlwe.Ciphertext, error) {
		level := first.ct.Level()
		for i, c := range all {
			if c.ct.Degree() != 1 {
				return nil, fmt.Errorf("operand %d has degree %d", i, c.ct.Degree())
			}
			if c.ct.Level() != level {
				return nil, fmt.Errorf("operand %d at level %d, operand 0 at level %d", i, c.ct.Level(), level)
			}
			if c.ct.MetaData == nil || first.ct.MetaData == nil || c.ct.Scale.Cmp(first.ct.Scale) != 0 || !c.ct.IsNTT {
				return nil, fmt.Errorf("operand %d: scale or domain differs from operand 0", i)
			}
		}
		out := first.ct.CopyNew()
		// Lazy accumulation: per prime q, add up to ⌊(2^64−1)/q⌋−1 terms
		// (each < q; a subtraction adds q − x) without reducing, then one
		// Barrett reduction. The result is the exact residue, as with
		// reduced additions.
		r := e.p.rlwe.RingQ().AtLevel(level)
		for k := 0; k < 2; k++ {
			for i := 0; i <= level; i++ {
				sr := r.SubRings[i]
				budget := ^uint64(0)/sr.Modulus - 1
				acc := out.Value[k].Coeffs[i]
				used := uint64(0)
				step := func() {
					used++
					if used == budget {
						sr.Reduce(acc, acc)
						used = 0
					}
				}
				for _, c := range plus[1:] {
					sr.AddLazy(acc, c.ct.Value[k].Coeffs[i], acc)
					step()
				}
				for _, c := range minus {
					sr.SubLazy(acc, c.ct.Value[k].Coeffs[i], acc)
					step()
				}
				sr.Reduce(acc, acc)
			}
		}
		return out, nil
	}, all...)
}

// MaskSelect returns a ⊙ m + b ⊙ (1 − m) for the 0/1 slot mask m given by
// maskA (true: take the slot from a), as two plaintext products WITHOUT a
// rescale. The noise of each product grows by about t·√N (≈ 2^24 at N=2^14),
// so chains of such merges are bounded by the level's noise budget; fhe/crdt
// uses it only as the measured baseline against its slot-disjoint layout.
func (e *Evaluator) MaskSelect(a, b *Ciphertext, maskA []bool) (*Ciphertext, error) {
	return e.do("mask-select", func(w *worker) (*rlwe.Ciphertext, error) {
		if w.bgv == nil {
			return nil, fmt.Errorf("mask select needs BGV")
		}
		if a.ct.Level() != b.ct.Level() || a.ct.Degree() != 1 || b.ct.Degree() != 1 {
			return nil, fmt.Errorf("operands must be degree 1 at the same level")
		}
		if len(maskA) > e.p.Slots() {
			return nil, fmt.Errorf("mask of %d slots exceeds %d", len(maskA), e.p.Slots())
		}
		va := make([]int64, e.p.Slots())
		vb := make([]int64, e.p.Slots())
		for i := range vb {
			if i < len(maskA) && maskA[i] {
				va[i] = 1
			} else {
				vb[i] = 1
			}
		}
		pa, err := w.ecd.encodeInts(va, a.ct.Level(), nil)
		if err != nil {
			return nil, err
		}
		pb, err := w.ecd.encodeInts(vb, b.ct.Level(), nil)
		if err != nil {
			return nil, err
		}
		out, err := w.bgv.MulNew(a.ct, pa)
		if err != nil {
			return nil, err
		}
		tmp, err := w.bgv.MulNew(b.ct, pb)
		if err != nil {
			return nil, err
		}
		if err := w.bgv.Add(out, tmp, out); err != nil {
			return nil, err
		}
		return out, nil
	}, a, b)
}

// GenGaloisKeys generates Galois keys for explicit Galois elements (e.g. the
// row rotation an InnerSum over all N BGV slots needs, which GenKeys' column
// rotations do not cover). Reads crypto/rand; for tests and single-party use.
func GenGaloisKeys(sk *SecretKey, elements []uint64) (*GaloisKeys, error) {
	if sk == nil {
		return nil, fmt.Errorf("fhe: nil secret key")
	}
	kgen := rlwe.NewKeyGenerator(sk.params.rlwe)
	return WrapGaloisKeys(sk.params, kgen.GenGaloisKeysNew(dedupe(elements), sk.sk)), nil
}

// JoinGaloisKeys returns the union of key sets of one preset.
func JoinGaloisKeys(sets ...*GaloisKeys) (*GaloisKeys, error) {
	if len(sets) == 0 {
		return nil, fmt.Errorf("fhe: no galois keys")
	}
	var all []*rlwe.GaloisKey
	var p *Params
	for _, s := range sets {
		if s == nil {
			continue
		}
		if p == nil {
			p = s.params
		}
		if s.params != p {
			return nil, fmt.Errorf("fhe: galois keys of different presets")
		}
		all = append(all, s.keys...)
	}
	if p == nil {
		return nil, fmt.Errorf("fhe: no galois keys")
	}
	return WrapGaloisKeys(p, all), nil
}

// EncryptIntsAtLevel encrypts integers (BGV; reduced mod t) at a given level
// (0 ≤ level ≤ MaxLevel). A CRDT writer whose contribution lives at level ℓ
// only needs level ℓ+1, which makes its ciphertext (MaxLevel+1)/(ℓ+2) times
// smaller than a top-level one.
func (e *Encryptor) EncryptIntsAtLevel(values []int64, level int) (*Ciphertext, error) {
	if level < 0 || level > e.p.MaxLevel() {
		return nil, fmt.Errorf("fhe: level %d outside [0, %d]", level, e.p.MaxLevel())
	}
	pt, err := e.ecd.encodeInts(values, level, nil)
	if err != nil {
		return nil, err
	}
	return e.encrypt(pt)
}
