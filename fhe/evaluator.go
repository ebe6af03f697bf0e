package fhe

import (
	"errors"
	"fmt"
	"sync"

	bgvpoly "github.com/tuneinsight/lattigo/v6/circuits/bgv/polynomial"
	ckkspoly "github.com/tuneinsight/lattigo/v6/circuits/ckks/polynomial"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/schemes/ckks"
	"github.com/tuneinsight/lattigo/v6/utils/bignum"

	"github.com/fhegate/fhegate/fhe/engine"
)

// ErrLevel is returned when a ciphertext has too few levels left for an
// operation (the plan needs a refresh, which only the committee can do).
var ErrLevel = errors.New("fhe: not enough levels left")

// EvaluationKeys are the public keys an evaluator needs.
type EvaluationKeys struct {
	Relin  *RelinKey
	Galois *GaloisKeys
}

// Evaluator is the deterministic evaluation facade. It is safe for concurrent
// use: each call borrows a private Lattigo evaluator from a pool. It reads no
// randomness; every method returns a new ciphertext and never modifies its
// inputs, and reports bad input as an error, never a panic.
type Evaluator struct {
	p    *Params
	evk  *rlwe.MemEvaluationKeySet
	gal  map[uint64]bool
	pool *sync.Pool
	// router, when set (WithRouter), receives the engine's transforms of
	// this evaluator's operations instead of the installed router.
	router engine.Router
}

type worker struct {
	bgv   *bgv.Evaluator
	ckks  *ckks.Evaluator
	ecd   *encoder
	bpoly *bgvpoly.Evaluator
	cpoly *ckkspoly.Evaluator
	rbgv  routedBGV           // w.bgv with the engine's products (fhe/routed.go)
	ks    *engine.KeySwitcher // fhegate's key switch (routed transforms); built on first use
	// router is the router of the operation w runs (Evaluator.WithRouter;
	// nil: the installed one).
	router engine.Router
}

// keySwitcher returns w's engine key switcher, routing to w.router.
func (w *worker) keySwitcher() *engine.KeySwitcher {
	if w.ks == nil {
		w.ks = engine.NewKeySwitcher(w.ecd.p.rlwe, w.rlweEval())
	}
	w.ks.SetRouter(w.router)
	return w.ks
}

// relinearize relinearises the degree-2 ct in place (the caller owns it)
// with the engine's key switch: byte-identical to Lattigo's Relinearize
// (fhe/engine's tests prove it), with the key switch's transforms batched
// through the engine's router.
func (w *worker) relinearize(ct *rlwe.Ciphertext, rlk *rlwe.RelinearizationKey) (*rlwe.Ciphertext, error) {
	if err := w.keySwitcher().Relinearize(ct, rlk, ct); err != nil {
		return nil, err
	}
	return ct, nil
}

// NewEvaluator returns an evaluator for p with the given keys (either may be
// nil; operations needing a missing key return an error).
func NewEvaluator(p *Params, keys EvaluationKeys) (*Evaluator, error) {
	var rlk *rlwe.RelinearizationKey
	if keys.Relin != nil {
		if keys.Relin.params != p {
			return nil, fmt.Errorf("fhe: relinearization key is for %s, evaluator for %s", keys.Relin.params.Preset.Name, p.Preset.Name)
		}
		rlk = keys.Relin.rlk
	}
	var gks []*rlwe.GaloisKey
	gal := map[uint64]bool{}
	if keys.Galois != nil {
		if keys.Galois.params != p {
			return nil, fmt.Errorf("fhe: galois keys are for %s, evaluator for %s", keys.Galois.params.Preset.Name, p.Preset.Name)
		}
		gks = keys.Galois.keys
		for _, g := range gks {
			gal[g.GaloisElement] = true
		}
	}
	e := &Evaluator{p: p, evk: rlwe.NewMemEvaluationKeySet(rlk, gks...), gal: gal, pool: &sync.Pool{}}
	e.pool.New = func() any {
		w := &worker{ecd: newEncoder(p)}
		// The polynomial evaluators relinearise through the engine.
		if p.Scheme() == SchemeBGV {
			w.bgv = bgv.NewEvaluator(p.bgv, e.evk)
			w.bpoly = bgvpoly.NewEvaluator(p.bgv, w.bgv)
			w.rbgv = newRoutedBGV(w.bgv, w, rlk)
			w.bpoly.Evaluator.Evaluator = w.rbgv
		} else {
			w.ckks = ckks.NewEvaluator(p.ckks, e.evk)
			w.cpoly = ckkspoly.NewEvaluator(p.ckks, w.ckks)
			w.cpoly.Evaluator.Evaluator = routedCKKS{Evaluator: w.ckks, w: w, rlk: rlk}
		}
		return w
	}
	return e, nil
}

// Params returns the evaluator's parameters.
func (e *Evaluator) Params() *Params { return e.p }

// WithRouter returns a view of e (same parameters, keys and worker pool)
// whose operations hand the engine's batched transforms to r instead of
// the process's installed router (nil: the installed one). Results are
// the same bytes whatever the router, as long as it keeps the
// engine.Router contract. With an engine.Gather, the view's operations
// must run inside the Gather's participants, and EvalPolyInts forks the
// independent products of its power basis as participants.
func (e *Evaluator) WithRouter(r engine.Router) *Evaluator {
	v := *e
	v.router = r
	return &v
}

// do runs f with a pooled worker, turning any panic from below into an error.
func (e *Evaluator) do(op string, f func(w *worker) (*rlwe.Ciphertext, error), in ...*Ciphertext) (out *Ciphertext, err error) {
	for i, c := range in {
		if c == nil || c.ct == nil {
			return nil, fmt.Errorf("fhe: %s: operand %d is nil", op, i)
		}
		if c.params != e.p {
			return nil, fmt.Errorf("fhe: %s: operand %d is %s, evaluator is %s", op, i, c.params.Preset.Name, e.p.Preset.Name)
		}
	}
	w := e.pool.Get().(*worker)
	w.router = e.router
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("fhe: %s: %v", op, r)
			return // a worker that panicked may hold inconsistent buffers: drop it
		}
		w.router = nil
		e.pool.Put(w)
	}()
	ct, err := f(w)
	if err != nil {
		return nil, fmt.Errorf("fhe: %s: %w", op, err)
	}
	return &Ciphertext{params: e.p, ct: ct}, nil
}

func (w *worker) add(a *rlwe.Ciphertext, b rlwe.Operand) (*rlwe.Ciphertext, error) {
	if w.bgv != nil {
		return w.bgv.AddNew(a, b)
	}
	return w.ckks.AddNew(a, b)
}

func (w *worker) sub(a *rlwe.Ciphertext, b rlwe.Operand) (*rlwe.Ciphertext, error) {
	if w.bgv != nil {
		return w.bgv.SubNew(a, b)
	}
	return w.ckks.SubNew(a, b)
}

func (w *worker) rescale(ct *rlwe.Ciphertext) (*rlwe.Ciphertext, error) {
	if ct.Level() == 0 {
		return nil, ErrLevel
	}
	out := rlwe.NewCiphertext(w.ecd.p.rlwe, 1, ct.Level()-1)
	return out, w.rescaleInto(ct, out)
}

// rescaleInto is Lattigo's bgv/ckks Evaluator.Rescale (checks, metadata,
// scale) with the division by the last prime done by
// engine.DivRoundByLastModulusNTT (through w's router), whose forward transforms are routed:
// byte-identical to Lattigo's (fhe/engine's tests and
// TestMulEngineMatchesLattigo). Cases the engine does not cover (BGV
// scale-invariant, CKKS consuming several primes per rescale) run Lattigo's.
func (w *worker) rescaleInto(op0, opOut *rlwe.Ciphertext) error {
	if op0.MetaData == nil || opOut.MetaData == nil {
		return errors.New("cannot Rescale: op0.MetaData or opOut.MetaData is nil")
	}
	level := op0.Level()
	if level == 0 {
		return errors.New("cannot rescale: op0 already at level 0")
	}
	ringQ := w.ecd.p.rlwe.RingQ().AtLevel(level)
	qL := ringQ.SubRings[level].Modulus
	if w.bgv != nil {
		if w.bgv.ScaleInvariant {
			return w.bgv.Rescale(op0, opOut)
		}
		if opOut.Level() < level-1 {
			return errors.New("cannot rescale: opOut.Level() < op0.Level()-1")
		}
		n := len(opOut.Value)
		if len(op0.Value) < n {
			return w.bgv.Rescale(op0, opOut) // let Lattigo report it
		}
		w.keySwitcher().DivRoundByLastModulusNTT(ringQ, op0.Value[:n], opOut.Value)
		opOut.Resize(opOut.Degree(), level-1)
		*opOut.MetaData = *op0.MetaData
		opOut.Scale = op0.Scale.Div(w.ecd.p.bgv.NewScale(qL))
		return nil
	}
	if w.ecd.p.ckks.LevelsConsumedPerRescaling() != 1 || !op0.IsNTT {
		return w.ckks.Rescale(op0, opOut)
	}
	if op0 != opOut {
		opOut.Resize(op0.Degree(), level-1)
	}
	*opOut.MetaData = *op0.MetaData
	opOut.Scale = opOut.Scale.Div(rlwe.NewScale(qL))
	w.keySwitcher().DivRoundByLastModulusNTT(ringQ, op0.Value[:len(opOut.Value)], opOut.Value)
	if op0 == opOut {
		opOut.Resize(op0.Degree(), level-1)
	}
	return nil
}

// Add returns a + b.
func (e *Evaluator) Add(a, b *Ciphertext) (*Ciphertext, error) {
	return e.do("add", func(w *worker) (*rlwe.Ciphertext, error) { return w.add(a.ct, b.ct) }, a, b)
}

// Sub returns a − b.
func (e *Evaluator) Sub(a, b *Ciphertext) (*Ciphertext, error) {
	return e.do("sub", func(w *worker) (*rlwe.Ciphertext, error) { return w.sub(a.ct, b.ct) }, a, b)
}

// Neg returns −a.
func (e *Evaluator) Neg(a *Ciphertext) (*Ciphertext, error) {
	return e.do("neg", func(w *worker) (*rlwe.Ciphertext, error) {
		out := a.ct.CopyNew()
		r := e.p.rlwe.RingQ().AtLevel(out.Level())
		for i := range out.Value {
			r.Neg(out.Value[i], out.Value[i])
		}
		return out, nil
	}, a)
}

// AddInts returns a + v slot-wise (BGV).
func (e *Evaluator) AddInts(a *Ciphertext, v []int64) (*Ciphertext, error) {
	return e.do("add-plain", func(w *worker) (*rlwe.Ciphertext, error) {
		pt, err := w.ecd.encodeInts(v, a.Level(), &a.ct.Scale)
		if err != nil {
			return nil, err
		}
		return w.add(a.ct, pt)
	}, a)
}

// AddFloats returns a + v slot-wise (CKKS).
func (e *Evaluator) AddFloats(a *Ciphertext, v []float64) (*Ciphertext, error) {
	return e.do("add-plain", func(w *worker) (*rlwe.Ciphertext, error) {
		pt, err := w.ecd.encodeFloats(v, a.Level(), &a.ct.Scale)
		if err != nil {
			return nil, err
		}
		return w.add(a.ct, pt)
	}, a)
}

// MulInts returns a ⊙ v slot-wise followed by a rescale (BGV; one level).
func (e *Evaluator) MulInts(a *Ciphertext, v []int64) (*Ciphertext, error) {
	return e.do("mul-plain", func(w *worker) (*rlwe.Ciphertext, error) {
		pt, err := w.ecd.encodeInts(v, a.Level(), nil)
		if err != nil {
			return nil, err
		}
		if a.Level() == 0 {
			return nil, ErrLevel
		}
		prod, err := w.bgv.MulNew(a.ct, pt)
		if err != nil {
			return nil, err
		}
		return w.rescale(prod)
	}, a)
}

// MulFloats returns a ⊙ v slot-wise followed by a rescale (CKKS; one level).
func (e *Evaluator) MulFloats(a *Ciphertext, v []float64) (*Ciphertext, error) {
	return e.do("mul-plain", func(w *worker) (*rlwe.Ciphertext, error) {
		if a.Level() == 0 {
			return nil, ErrLevel
		}
		scale := rlwe.NewScale(e.p.Q()[a.Level()])
		pt, err := w.ecd.encodeFloats(v, a.Level(), &scale)
		if err != nil {
			return nil, err
		}
		prod, err := w.ckks.MulNew(a.ct, pt)
		if err != nil {
			return nil, err
		}
		return w.rescale(prod)
	}, a)
}

// MulConst returns c·a. BGV: c is reduced mod t, no level is used (noise
// grows by |c|). CKKS: c is a real, one level is used.
func (e *Evaluator) MulConst(a *Ciphertext, c float64) (*Ciphertext, error) {
	return e.do("mul-const", func(w *worker) (*rlwe.Ciphertext, error) {
		if w.bgv != nil {
			if c != float64(int64(c)) {
				return nil, fmt.Errorf("BGV constant %v is not an integer", c)
			}
			return keepScale(a.ct)(w.bgv.MulNew(a.ct, e.reduceModT(c)))
		}
		if a.Level() == 0 {
			return nil, ErrLevel
		}
		prod, err := w.ckks.MulNew(a.ct, c)
		if err != nil {
			return nil, err
		}
		return w.rescale(prod)
	}, a)
}

// reduceModT maps an integral constant into [0, t).
func (e *Evaluator) reduceModT(c float64) uint64 {
	t := int64(e.p.PlaintextModulus())
	k := int64(c) % t
	if k < 0 {
		k += t
	}
	return uint64(k)
}

// keepScale restores the input's metadata on the result of a BGV scalar
// operation: Lattigo allocates the output with the default scale, but a
// scalar add or multiply leaves the plaintext scale of the input unchanged
// (after a rescale it is q_l^-1 mod t, not 1).
func keepScale(in *rlwe.Ciphertext) func(*rlwe.Ciphertext, error) (*rlwe.Ciphertext, error) {
	return func(out *rlwe.Ciphertext, err error) (*rlwe.Ciphertext, error) {
		if err != nil {
			return nil, err
		}
		*out.MetaData = *in.MetaData.CopyNew()
		return out, nil
	}
}

// AddConst returns a + c in every slot.
func (e *Evaluator) AddConst(a *Ciphertext, c float64) (*Ciphertext, error) {
	return e.do("add-const", func(w *worker) (*rlwe.Ciphertext, error) {
		if w.bgv != nil {
			if c != float64(int64(c)) {
				return nil, fmt.Errorf("BGV constant %v is not an integer", c)
			}
			return keepScale(a.ct)(w.bgv.AddNew(a.ct, e.reduceModT(c)))
		}
		return w.ckks.AddNew(a.ct, c)
	}, a)
}

// Mul returns a ⊙ b slot-wise: tensor, relinearise, rescale (one level).
func (e *Evaluator) Mul(a, b *Ciphertext) (*Ciphertext, error) {
	return e.do("mul", func(w *worker) (*rlwe.Ciphertext, error) {
		if e.evk.RelinearizationKey == nil {
			return nil, errors.New("no relinearization key")
		}
		if a.Level() == 0 || b.Level() == 0 {
			return nil, ErrLevel
		}
		// Tensor (degree 2), then relinearise with the engine: the same
		// bytes as Lattigo's MulRelinNew, with the key switch routed.
		var prod *rlwe.Ciphertext
		var err error
		if w.bgv != nil {
			prod, err = w.rbgv.MulNew(a.ct, b.ct)
		} else {
			prod, err = w.ckks.MulNew(a.ct, b.ct)
		}
		if err != nil {
			return nil, err
		}
		lin, err := w.relinearize(prod, e.evk.RelinearizationKey)
		if err != nil {
			return nil, err
		}
		return w.rescale(lin)
	}, a, b)
}

// Square returns a ⊙ a.
func (e *Evaluator) Square(a *Ciphertext) (*Ciphertext, error) { return e.Mul(a, a) }

// Rotate cyclically rotates the slots left by k (BGV: within each of the two
// rows of N/2 slots). Needs the Galois key for k.
func (e *Evaluator) Rotate(a *Ciphertext, k int) (*Ciphertext, error) {
	return e.do("rotate", func(w *worker) (*rlwe.Ciphertext, error) {
		if el := e.p.GaloisElementsForRotations([]int{k})[0]; !e.gal[el] && el != 1 {
			return nil, fmt.Errorf("no galois key for rotation %d (element %d)", k, el)
		}
		// Lattigo's RotateColumnsNew / RotateNew (Automorphism by
		// GaloisElement(k)), with the engine's key switch.
		out := rlwe.NewCiphertext(e.p.rlwe, a.ct.Degree(), a.ct.Level())
		if err := w.keySwitcher().Automorphism(a.ct, e.p.rlwe.GaloisElement(k), out); err != nil {
			return nil, err
		}
		return out, nil
	}, a)
}

// InnerSum sums n consecutive blocks of batch slots: slot i (i < batch) of the
// result holds Σ_j a[i + j·batch]. Needs the Galois keys of
// Params.GaloisElementsForInnerSum(batch, n).
func (e *Evaluator) InnerSum(a *Ciphertext, batch, n int) (*Ciphertext, error) {
	return e.do("inner-sum", func(w *worker) (*rlwe.Ciphertext, error) {
		if batch < 1 || n < 1 || batch*n > e.p.Slots() {
			return nil, fmt.Errorf("inner sum batch %d × n %d exceeds %d slots", batch, n, e.p.Slots())
		}
		for _, el := range e.p.GaloisElementsForInnerSum(batch, n) {
			if !e.gal[el] {
				return nil, fmt.Errorf("no galois key %d for inner sum (%d, %d)", el, batch, n)
			}
		}
		out := rlwe.NewCiphertext(e.p.rlwe, 1, a.Level())
		var err error
		if w.bgv != nil {
			err = w.bgv.InnerSum(a.ct, batch, n, out)
		} else {
			err = w.ckks.InnerSum(a.ct, batch, n, out)
		}
		return out, err
	}, a)
}

// DropLevels discards k levels (cheaper later operations, smaller encoding).
func (e *Evaluator) DropLevels(a *Ciphertext, k int) (*Ciphertext, error) {
	return e.do("drop-level", func(w *worker) (*rlwe.Ciphertext, error) {
		if k < 0 || k > a.Level() {
			return nil, fmt.Errorf("cannot drop %d of %d levels", k, a.Level())
		}
		out := a.ct.CopyNew()
		if w.bgv != nil {
			w.bgv.DropLevel(out, k)
		} else {
			w.ckks.DropLevel(out, k)
		}
		return out, nil
	}, a)
}

// EvalPolyInts evaluates Σ c_i x^i slot-wise (BGV, coefficients mod t) with
// Lattigo's baby-step giant-step evaluator in ⌈log2(deg+1)⌉ levels. The
// result keeps a's scale.
func (e *Evaluator) EvalPolyInts(a *Ciphertext, coeffs []int64) (*Ciphertext, error) {
	return e.do("eval-poly", func(w *worker) (*rlwe.Ciphertext, error) {
		if w.bgv == nil {
			return nil, errors.New("integer polynomial needs BGV")
		}
		if len(coeffs) == 0 {
			return nil, errors.New("empty polynomial")
		}
		if need := PolyDepth(len(coeffs) - 1); need > a.Level() {
			return nil, fmt.Errorf("%w: degree %d needs %d levels, ciphertext has %d", ErrLevel, len(coeffs)-1, need, a.Level())
		}
		t := int64(e.p.PlaintextModulus())
		c := make([]uint64, len(coeffs))
		for i, x := range coeffs {
			x %= t
			if x < 0 {
				x += t
			}
			c[i] = uint64(x)
		}
		poly := bgvpoly.NewPolynomial(c)
		if g, ok := e.router.(*engine.Gather); ok && len(c) > 1 {
			return e.evalPolyGathered(g, w, a.ct, poly)
		}
		return w.bpoly.Evaluate(a.ct, poly, a.ct.Scale)
	}, a)
}

// EvalPolyFloats evaluates Σ c_i x^i slot-wise (CKKS, monomial basis).
func (e *Evaluator) EvalPolyFloats(a *Ciphertext, coeffs []float64) (*Ciphertext, error) {
	return e.do("eval-poly", func(w *worker) (*rlwe.Ciphertext, error) {
		if w.ckks == nil {
			return nil, errors.New("real polynomial needs CKKS")
		}
		if len(coeffs) == 0 {
			return nil, errors.New("empty polynomial")
		}
		if need := PolyDepth(len(coeffs) - 1); need > a.Level() {
			return nil, fmt.Errorf("%w: degree %d needs %d levels, ciphertext has %d", ErrLevel, len(coeffs)-1, need, a.Level())
		}
		poly := bignum.NewPolynomial(bignum.Monomial, coeffs, nil)
		return w.cpoly.Evaluate(a.ct, ckkspoly.NewPolynomial(poly), a.ct.Scale)
	}, a)
}

// PolyDepth is the multiplicative depth of evaluating a degree-d polynomial
// with baby-step giant-step: ⌈log2(d+1)⌉.
func PolyDepth(d int) int {
	depth := 0
	for (1 << depth) < d+1 {
		depth++
	}
	return depth
}
