package fhe

import (
	"errors"
	"fmt"
	"sync"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/ring/ringqp"

	"github.com/fhegate/fhegate/fhe/engine"
)

// Fast evaluation paths: hoisted and lazy key switching.
//
// A key switch (rotation or relinearisation) at level ℓ with one special
// prime P costs an INTT of c1, the extension of each of its ℓ+1 digits to
// the ℓ+2 primes of Q∪P (NTTs), a multiply-accumulate with the key, and a
// ModDown from Q∪P back to Q (INTTs of the P part, NTTs into Q). Two
// standard savings (Halevi–Shoup, "Faster homomorphic linear
// transformations in HElib", CRYPTO 2018; Bossuat et al., Eurocrypt 2021):
//
//   - hoisting: rotations of the SAME ciphertext share the decomposition of
//     its c1, because the automorphism commutes with the decomposition;
//   - lazy ModDown: a sum of rotated ciphertexts can be accumulated in Q∪P
//     (scaled by P) and brought down once.
//
// HoistedRotationSum does both; SumSlots chains it in baby-step/giant-step
// stages (64 = 8·8: two decompositions and two ModDowns for 14 rotations
// instead of six full key switches).

// RotationScratch holds the Q∪P buffers of HoistedRotationSum so that
// repeated calls do not allocate. Not safe for concurrent use.
type RotationScratch struct {
	params rlwe.Parameters
	decomp []ringqp.Poly
	acc    *rlwe.Element[ringqp.Poly]
	tmp    *rlwe.Element[ringqp.Poly]
	c0     ring.Poly
}

// NewRotationScratch allocates scratch space for parameters p (any level).
func NewRotationScratch(p rlwe.Parameters) *RotationScratch {
	s := &RotationScratch{params: p}
	n := p.BaseRNSDecompositionVectorSize(p.MaxLevelQ(), p.MaxLevelP())
	rqp := p.RingQP()
	s.decomp = make([]ringqp.Poly, n)
	for i := range s.decomp {
		s.decomp[i] = rqp.NewPoly()
	}
	s.acc = rlwe.NewElementExtended(p, 1, p.MaxLevelQ(), p.MaxLevelP())
	s.tmp = rlwe.NewElementExtended(p, 1, p.MaxLevelQ(), p.MaxLevelP())
	s.c0 = p.RingQ().NewPoly()
	return s
}

// HoistedRotationSum sets out = [ct if withSelf] + Σ_i φ_{galEls[i]}(ct)
// (an element 1 — the identity — adds ct once more, without a key switch),
// the sum of the automorphisms (slot rotations) of one ciphertext, with a
// single decomposition of ct's c1 and a single ModDown. ct must be of degree
// 1 in the NTT domain; out is resized to ct's level and may not alias ct.
// The evaluator must hold the Galois keys (each with one special-prime
// level, as every key fhe generates). Deterministic; reads no randomness.
// This is the Lattigo-level building block of Evaluator.SumSlots, exported
// for fhe subpackages.
func HoistedRotationSum(ev *rlwe.Evaluator, ct *rlwe.Ciphertext, galEls []uint64, withSelf bool, out *rlwe.Ciphertext, s *RotationScratch) error {
	p, s, err := checkHoisted(ev, ct, out, s)
	if err != nil {
		return err
	}
	self, galEls := splitIdentity(galEls, withSelf)
	levelQ, levelP := ct.Level(), p.MaxLevelP()
	rq := p.RingQP().AtLevel(levelQ, levelP).RingQ

	out.Resize(1, levelQ)
	*out.MetaData = *ct.MetaData
	if len(galEls) == 0 {
		out.Value[0].Zero()
		out.Value[1].Zero()
	} else {
		engine.DecomposeNTT(ev, levelQ, levelP, levelP+1, ct.Value[1], true, s.decomp) // Lattigo's DecomposeNTT, transforms batched
		if err := s.accumulate(ev, p, ct, galEls); err != nil {
			return err
		}
		out.IsNTT = true
		engine.ModDown(ev, levelQ, levelP, s.acc, out) // Lattigo's ModDown, transforms batched
		rq.Add(out.Value[0], s.c0, out.Value[0])
	}
	for range self {
		rq.Add(out.Value[0], ct.Value[0], out.Value[0])
		rq.Add(out.Value[1], ct.Value[1], out.Value[1])
	}
	return nil
}

// checkHoisted validates the operands of HoistedRotationSum and returns the
// evaluator's parameters and the scratch space (a fresh one when s is nil).
func checkHoisted(ev *rlwe.Evaluator, ct, out *rlwe.Ciphertext, s *RotationScratch) (rlwe.Parameters, *RotationScratch, error) {
	if ct == nil || out == nil || ev == nil {
		return rlwe.Parameters{}, nil, errors.New("fhe: nil operand")
	}
	if ct == out {
		return rlwe.Parameters{}, nil, errors.New("fhe: HoistedRotationSum: out aliases the input")
	}
	if ct.Degree() != 1 || !ct.IsNTT {
		return rlwe.Parameters{}, nil, fmt.Errorf("fhe: HoistedRotationSum: want a degree-1 NTT ciphertext, have degree %d", ct.Degree())
	}
	p := *ev.GetRLWEParameters()
	if s == nil {
		s = NewRotationScratch(p)
	}
	if p.MaxLevelP() < 0 {
		return p, nil, errors.New("fhe: HoistedRotationSum needs a special prime P")
	}
	if !s.params.Equal(&p) {
		return p, nil, errors.New("fhe: HoistedRotationSum: scratch space is for other parameters")
	}
	if ct.Level() > p.MaxLevelQ() || ct.Value[0].N() != p.N() {
		return p, nil, errors.New("fhe: HoistedRotationSum: ciphertext does not match the evaluator's parameters")
	}
	return p, s, nil
}

// splitIdentity counts the identity (Galois element 1, which needs no key
// switch) with the input itself: self is how many times ct is added as is,
// els the Galois elements that need a key switch.
func splitIdentity(galEls []uint64, withSelf bool) (self int, els []uint64) {
	if withSelf {
		self = 1
	}
	els = make([]uint64, 0, len(galEls))
	for _, g := range galEls {
		if g == 1 {
			self++
		} else {
			els = append(els, g)
		}
	}
	return self, els
}

// accumulate sets s.acc to Σ φ_g(P·c0 + KS_g(c1)) in Q∪P over galEls
// (non-empty, no identity) and s.c0 to Σ φ_g(c0) in Q, from the
// decomposition of ct's c1 already in s.decomp. Lazy additions: the key
// products (P-scaled, in Q∪P) are permuted and added without reduction, the
// c0 parts are permuted and added in Q and joined after the single ModDown —
// which saves the per-rotation P·c0 product of Lattigo's
// AutomorphismHoistedLazy. Both accumulators leave reduced.
func (s *RotationScratch) accumulate(ev *rlwe.Evaluator, p rlwe.Parameters, ct *rlwe.Ciphertext, galEls []uint64) error {
	levelQ, levelP := ct.Level(), p.MaxLevelP()
	rqp := p.RingQP().AtLevel(levelQ, levelP)
	rq, rp := rqp.RingQ, rqp.RingP
	acc, tmp, c0acc := s.acc, s.tmp, s.c0
	acc.MetaData = &rlwe.MetaData{}
	acc.IsNTT = true
	tmp.MetaData = &rlwe.MetaData{}
	tmp.IsNTT = true
	qOver := max(p.QiOverflowMargin(levelQ)-1, 1) // lazy sums of values < q that fit in 64 bits
	pOver := max(p.PiOverflowMargin(levelP)-1, 1)
	reduceQ := func() {
		rq.Reduce(acc.Value[0].Q, acc.Value[0].Q)
		rq.Reduce(acc.Value[1].Q, acc.Value[1].Q)
		rq.Reduce(c0acc, c0acc)
	}
	reduceP := func() {
		rp.Reduce(acc.Value[0].P, acc.Value[0].P)
		rp.Reduce(acc.Value[1].P, acc.Value[1].P)
	}
	for i, g := range galEls {
		index, err := s.keyProduct(ev, g, levelQ, levelP)
		if err != nil {
			return err
		}
		if i == 0 {
			rqp.AutomorphismNTTWithIndex(tmp.Value[0], index, acc.Value[0])
			rqp.AutomorphismNTTWithIndex(tmp.Value[1], index, acc.Value[1])
			rq.AutomorphismNTTWithIndex(ct.Value[0], index, c0acc)
			continue
		}
		rqp.AutomorphismNTTWithIndexThenAddLazy(tmp.Value[0], index, acc.Value[0])
		rqp.AutomorphismNTTWithIndexThenAddLazy(tmp.Value[1], index, acc.Value[1])
		rq.AutomorphismNTTWithIndexThenAddLazy(ct.Value[0], index, c0acc)
		if i%qOver == qOver-1 {
			reduceQ()
		}
		if i%pOver == pOver-1 {
			reduceP()
		}
	}
	reduceQ()
	reduceP()
	return nil
}

// keyProduct sets s.tmp to the (P-scaled, Q∪P) product of the decomposed c1
// in s.decomp with the Galois key of g, and returns g's automorphism index.
func (s *RotationScratch) keyProduct(ev *rlwe.Evaluator, g uint64, levelQ, levelP int) ([]uint64, error) {
	evk, err := ev.CheckAndGetGaloisKey(g)
	if err != nil {
		return nil, fmt.Errorf("fhe: HoistedRotationSum: %w", err)
	}
	if evk.LevelP() != levelP || evk.BaseTwoDecomposition != 0 {
		return nil, fmt.Errorf("fhe: HoistedRotationSum: Galois key %d has an unsupported gadget", g)
	}
	index := ev.AutomorphismIndex(g)
	if index == nil {
		return nil, fmt.Errorf("fhe: HoistedRotationSum: no automorphism index for %d", g)
	}
	if err := ev.GadgetProductHoistedLazy(levelQ, s.decomp, &evk.GadgetCiphertext, s.tmp); err != nil {
		return nil, fmt.Errorf("fhe: HoistedRotationSum: %w", err)
	}
	return index, nil
}

// SumSlotsSplit returns the baby-step/giant-step stages SumSlots uses for n
// (a power of two): factors whose product is n, each ≤ 16.
func SumSlotsSplit(n int) []int {
	var out []int
	for n > 1 {
		f := 8
		switch {
		case n <= 16:
			f = n
		case n == 32:
			f = 4 // 4·8
		}
		out = append(out, f)
		n /= f
	}
	return out
}

// SumSlotsRotations returns the rotation steps whose Galois keys SumSlots(·, n) needs.
func SumSlotsRotations(n int) []int {
	var steps []int
	stride := 1
	for _, f := range SumSlotsSplit(n) {
		for j := 1; j < f; j++ {
			steps = append(steps, j*stride)
		}
		stride *= f
	}
	return steps
}

// sumSlots is the Lattigo-level SumSlots: Σ_{k<n} rot_k(ct) into out, with
// one HoistedRotationSum per stage of SumSlotsSplit(n). rotEl maps a step to
// its Galois element; tmp is a scratch ciphertext.
func sumSlots(ev *rlwe.Evaluator, ct *rlwe.Ciphertext, n int, rotEl func(int) uint64, out, tmp *rlwe.Ciphertext, s *RotationScratch) error {
	if n < 1 || n&(n-1) != 0 {
		return fmt.Errorf("fhe: SumSlots: n=%d is not a power of two", n)
	}
	if n == 1 {
		out.Copy(ct)
		return nil
	}
	split := SumSlotsSplit(n)
	in := ct
	stride := 1
	for i, f := range split {
		els := make([]uint64, 0, f-1)
		for j := 1; j < f; j++ {
			els = append(els, rotEl(j*stride))
		}
		dst := out
		if (len(split)-1-i)%2 == 1 {
			dst = tmp // alternate so that the last stage writes out
		}
		if err := HoistedRotationSum(ev, in, els, true, dst, s); err != nil {
			return err
		}
		in = dst
		stride *= f
	}
	return nil
}

// SumSlotsLattigo is sumSlots for fhe subpackages: Σ_{k<n} rot_k(ct) with
// CKKS slot rotations (bgv=false) or BGV column rotations (bgv=true), into
// out; tmp is a scratch ciphertext of degree 1. ct, out and tmp must be
// distinct.
func SumSlotsLattigo(p *Params, ev *rlwe.Evaluator, ct *rlwe.Ciphertext, n int, out, tmp *rlwe.Ciphertext, s *RotationScratch) error {
	if ct == out || ct == tmp || out == tmp {
		return errors.New("fhe: SumSlots: ct, out and tmp must be distinct")
	}
	return sumSlots(ev, ct, n, func(k int) uint64 { return p.GaloisElementsForRotations([]int{k})[0] }, out, tmp, s)
}

// ---------------------------------------------------------------------------
// Facade methods. Same rules as evaluator.go: deterministic, safe for
// concurrent use (each call borrows a pooled worker), inputs never modified,
// errors instead of panics.

// scratchPools keeps one pool of RotationScratch per parameter set.
var scratchPools sync.Map // *Params → *sync.Pool

func getScratch(p *Params) (*RotationScratch, func()) {
	v, _ := scratchPools.LoadOrStore(p, &sync.Pool{New: func() any { return NewRotationScratch(p.rlwe) }})
	pool := v.(*sync.Pool)
	s := pool.Get().(*RotationScratch)
	return s, func() { pool.Put(s) }
}

func (w *worker) rlweEval() *rlwe.Evaluator {
	if w.bgv != nil {
		return w.bgv.Evaluator
	}
	return w.ckks.Evaluator
}

func (e *Evaluator) checkRotations(steps []int) error {
	for _, k := range steps {
		if el := e.p.GaloisElementsForRotations([]int{k})[0]; el != 1 && !e.gal[el] {
			return fmt.Errorf("no galois key for rotation %d (element %d)", k, el)
		}
	}
	return nil
}

// SumSlots returns Σ_{k<n} rot_k(a): slot i of the result holds
// a[i] + a[i+1] + … + a[i+n-1] (indices cyclic within a row; BGV rows are
// the two halves of N slots). n must be a power of two ≤ the row length.
// It evaluates the sum in baby-step/giant-step stages of hoisted, lazily
// moded-down rotations (SumSlotsSplit), about twice as fast as the
// log2(n)-step rotate-and-add tree of InnerSum(1, n); it needs the Galois
// keys of SumSlotsRotations(n). The result keeps a's level: drop levels
// first (DropLevels) when the sum is the last step — a key switch at level 0
// costs a fraction of one at the top level.
func (e *Evaluator) SumSlots(a *Ciphertext, n int) (*Ciphertext, error) {
	return e.do("sum-slots", func(w *worker) (*rlwe.Ciphertext, error) {
		row := e.p.Slots()
		if e.p.Scheme() == SchemeBGV {
			row /= 2
		}
		if n < 1 || n > row || n&(n-1) != 0 {
			return nil, fmt.Errorf("n=%d must be a power of two ≤ %d", n, row)
		}
		if a.Degree() != 1 {
			return nil, fmt.Errorf("operand of degree %d: relinearise first", a.Degree())
		}
		if err := e.checkRotations(SumSlotsRotations(n)); err != nil {
			return nil, err
		}
		s, done := getScratch(e.p)
		defer done()
		out := rlwe.NewCiphertext(e.p.rlwe, 1, a.Level())
		tmp := rlwe.NewCiphertext(e.p.rlwe, 1, a.Level())
		if err := SumSlotsLattigo(e.p, w.rlweEval(), a.ct, n, out, tmp, s); err != nil {
			return nil, err
		}
		return out, nil
	}, a)
}

// RotateMany returns rot_k(a) for every k in steps (in order) with hoisting:
// one decomposition of a's c1 is shared by all the key switches, so k
// rotations cost much less than k calls to Rotate. Needs the Galois key of
// every step (step 0 returns a copy).
func (e *Evaluator) RotateMany(a *Ciphertext, steps []int) (outs []*Ciphertext, err error) {
	if a == nil || a.ct == nil {
		return nil, errors.New("fhe: rotate-many: operand is nil")
	}
	if a.params != e.p {
		return nil, fmt.Errorf("fhe: rotate-many: operand is %s, evaluator is %s", a.params.Preset.Name, e.p.Preset.Name)
	}
	if a.Degree() != 1 {
		return nil, fmt.Errorf("fhe: rotate-many: operand of degree %d: relinearise first", a.Degree())
	}
	if err := e.checkRotations(steps); err != nil {
		return nil, fmt.Errorf("fhe: rotate-many: %w", err)
	}
	w := e.pool.Get().(*worker)
	defer func() {
		if r := recover(); r != nil {
			outs, err = nil, fmt.Errorf("fhe: rotate-many: %v", r)
			return // drop the worker
		}
		e.pool.Put(w)
	}()
	s, done := getScratch(e.p)
	defer done()
	ev := w.rlweEval()
	level := a.Level()
	levelP := e.p.rlwe.MaxLevelP()
	els := e.p.GaloisElementsForRotations(steps)
	decomposed := false
	outs = make([]*Ciphertext, len(steps))
	for i, el := range els {
		out := rlwe.NewCiphertext(e.p.rlwe, 1, level)
		if el == 1 {
			out.Copy(a.ct)
		} else {
			if !decomposed {
				engine.DecomposeNTT(ev, level, levelP, levelP+1, a.ct.Value[1], a.ct.IsNTT, s.decomp)
				decomposed = true
			}
			if err := ev.AutomorphismHoisted(level, a.ct, s.decomp, el, out); err != nil {
				return nil, fmt.Errorf("fhe: rotate-many: %w", err)
			}
		}
		outs[i] = &Ciphertext{params: e.p, ct: out}
	}
	return outs, nil
}

// InnerProduct returns Σ_i as[i] ⊙ bs[i] with lazy relinearisation: the
// products are accumulated in degree 2 (MulThenAdd, no key switch), then
// relinearised once and rescaled once (one level), instead of one
// relinearisation and one rescale per product. All operands must share one
// level.
func (e *Evaluator) InnerProduct(as, bs []*Ciphertext) (*Ciphertext, error) {
	if len(as) == 0 || len(as) != len(bs) {
		return nil, fmt.Errorf("fhe: inner-product: %d × %d operands", len(as), len(bs))
	}
	all := append(append([]*Ciphertext{}, as...), bs...)
	return e.do("inner-product", func(w *worker) (*rlwe.Ciphertext, error) {
		if e.evk.RelinearizationKey == nil {
			return nil, errors.New("no relinearization key")
		}
		level := as[0].Level()
		for _, c := range all {
			if c.Level() != level {
				return nil, fmt.Errorf("operands at levels %d and %d: align them with DropLevels", level, c.Level())
			}
			if c.Degree() != 1 {
				return nil, fmt.Errorf("operand of degree %d", c.Degree())
			}
		}
		if level == 0 {
			return nil, ErrLevel
		}
		acc := rlwe.NewCiphertext(e.p.rlwe, 2, level)
		for i := range as {
			var err error
			if w.bgv != nil {
				if i == 0 {
					err = w.bgv.Mul(as[i].ct, bs[i].ct, acc)
				} else {
					err = w.bgv.MulThenAdd(as[i].ct, bs[i].ct, acc)
				}
			} else {
				if i == 0 {
					err = w.ckks.Mul(as[i].ct, bs[i].ct, acc)
				} else {
					err = w.ckks.MulThenAdd(as[i].ct, bs[i].ct, acc)
				}
			}
			if err != nil {
				return nil, err
			}
		}
		lin, err := w.relinearize(acc, e.evk.RelinearizationKey)
		if err != nil {
			return nil, err
		}
		return w.rescale(lin)
	}, all...)
}
