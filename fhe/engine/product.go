package engine

import (
	"fmt"
	"math/big"

	"github.com/tuneinsight/lattigo/v6/ring"
)

// TensorJob is one limb of BGV's ciphertext × ciphertext tensor product
// (Lattigo v6.2.0's bgv.Evaluator tensorStandard without relinearisation):
// with τ = TMont (Lattigo's tMontgomery limb, t·2^128 mod q, so that a
// Montgomery product by it multiplies by t and leaves the Montgomery
// domain's 2^64 in place),
//
//	Out0 = t·A0·B0,  Out1 = t·(A0·B1 + A1·B0),  Out2 = t·A1·B1   (mod q)
//
// every word the canonical residue in [0, q) — which is what Lattigo's
// MulRNSScalarMontgomery / MulCoeffsMontgomery(ThenAdd) leave, since each
// of those reduces fully (MRed of a product below q·2^64, CRed of a sum
// below 2q), for a product and for a square alike. An output may alias an
// input at the same index (Lattigo's Mul into one of its operands); all
// slices have S.N words.
type TensorJob struct {
	S                *ring.SubRing
	A0, A1, B0, B1   []uint64
	Out0, Out1, Out2 []uint64
	TMont            uint64
}

// T returns the job's plain multiplier t mod q (TMont·2^{-128} mod q).
func (j TensorJob) T() uint64 {
	s := j.S
	return ring.MRed(ring.MRed(j.TMont, 1, s.Modulus, s.MRedConstant), 1, s.Modulus, s.MRedConstant)
}

// Finish writes words [from, S.N) of the outputs with Lattigo's own
// per-word arithmetic (MRed, CRed: the operations of tensorStandard's
// vector loops, word by word). A router that stops part way — an input
// word outside its kernel's bounds — finishes the job with it; the first
// `from` words must already hold the canonical residues.
func (j TensorJob) Finish(from int) {
	q, mc := j.S.Modulus, j.S.MRedConstant
	for x := from; x < j.S.N; x++ {
		a0, a1, b0, b1 := j.A0[x], j.A1[x], j.B0[x], j.B1[x]
		c00, c01 := ring.MRed(a0, j.TMont, q, mc), ring.MRed(a1, j.TMont, q, mc)
		j.Out0[x] = ring.MRed(c00, b0, q, mc)
		j.Out2[x] = ring.MRed(c01, b1, q, mc)
		j.Out1[x] = ring.CRed(ring.MRed(c00, b1, q, mc)+ring.MRed(c01, b0, q, mc), q)
	}
}

// MulAddJob is one limb of BGV's ciphertext × scalar multiply-add
// (bgv.Evaluator.MulThenAdd with an integer operand, Ring.MulScalarBigintThenAdd):
// Out = Out + A·W mod q with W < q the scalar's residue in plain form.
// Lattigo computes CRed(Out + MRed(A, W·2^64 mod q)), the canonical
// residue whenever Out < q. Out may alias A; both have S.N words.
type MulAddJob struct {
	S      *ring.SubRing
	A, Out []uint64
	W      uint64
}

// Finish writes words [from, S.N) of Out with Lattigo's per-word
// arithmetic (see TensorJob.Finish).
func (j MulAddJob) Finish(from int) {
	q, mc := j.S.Modulus, j.S.MRedConstant
	wm := ring.MForm(j.W, q, j.S.BRedConstant)
	for x := from; x < j.S.N; x++ {
		j.Out[x] = ring.CRed(j.Out[x]+ring.MRed(j.A[x], wm, q, mc), q)
	}
}

// ProductRouter is a Router that also runs the BGV evaluator's
// coefficient-wise products outside the key switch: the tensor of a
// ciphertext product and the multiply-add by an integer constant (the
// polynomial evaluator's baby steps). A call reports true when every
// output word of every job holds the canonical residue (Finish may
// complete words a kernel could not take), or false having written
// nothing; the engine then runs Lattigo's loops.
type ProductRouter interface {
	Router
	Tensor(jobs []TensorJob) bool
	MulAdd(jobs []MulAddJob) bool
}

// TensorBGV is the tensor of Lattigo's bgv.Evaluator.Mul for degree-1
// operands a and b into the degree-2 out, over ringQ's limbs (its level),
// with tMont bgv's tMontgomery (NewRNSScalarFromBigint(t·2^64) in
// Montgomery form, TMontgomery). The limbs go to the installed
// ProductRouter as one batch; without one, or when it declines, they run
// Lattigo's loop in Lattigo's order. Byte-identical to Lattigo either way
// (test/fhecheck's TestTensorBGVByteIdentical). out may alias a or b (as Lattigo's Mul
// into an operand).
func TensorBGV(ringQ *ring.Ring, tMont ring.RNSScalar, a, b, out []ring.Poly) {
	if same(out[0], b[0]) {
		a, b = b, a // Lattigo's swap: the operand scaled first is the aliased one
	}
	square := same(a[0], b[0])
	subs := ringQ.SubRings[:ringQ.Level()+1]
	jobs := make([]TensorJob, len(subs))
	for i, s := range subs {
		jobs[i] = TensorJob{S: s, A0: a[0].Coeffs[i], A1: a[1].Coeffs[i], B0: b[0].Coeffs[i], B1: b[1].Coeffs[i],
			Out0: out[0].Coeffs[i], Out1: out[1].Coeffs[i], Out2: out[2].Coeffs[i], TMont: tMont[i]}
	}
	if r, ok := CurrentRouter().(ProductRouter); ok && r.Tensor(jobs) {
		return
	}
	LattigoTensor(jobs, square)
}

// LattigoTensor runs jobs with tensorStandard's own loop (Lattigo's
// SubRing calls in Lattigo's order, two scratch limbs): what the engine
// runs when no router takes them. square: every job's B is its A (then an
// output may alias both, and Lattigo doubles the cross product instead of
// adding it).
func LattigoTensor(jobs []TensorJob, square bool) {
	if len(jobs) == 0 {
		return
	}
	sc := newScratch(jobs[0].S.N)
	defer sc.release()
	c00, c01 := sc.limb(), sc.limb()
	for _, j := range jobs {
		s := j.S
		s.MulScalarMontgomery(j.A0, j.TMont, c00)
		s.MulScalarMontgomery(j.A1, j.TMont, c01)
		s.MulCoeffsMontgomery(c00, j.B0, j.Out0)
		s.MulCoeffsMontgomery(c01, j.B1, j.Out2)
		s.MulCoeffsMontgomery(c00, j.B1, j.Out1)
		if square { // B0 may be Out0 by now: Lattigo doubles instead
			s.Add(j.Out1, j.Out1, j.Out1)
		} else {
			s.MulCoeffsMontgomeryThenAdd(c01, j.B0, j.Out1)
		}
	}
}

// LattigoMulAdd runs jobs with Lattigo's MulScalarMontgomeryThenAdd (the
// call Ring.MulScalarBigintThenAdd makes per limb).
func LattigoMulAdd(jobs []MulAddJob) {
	for _, j := range jobs {
		j.S.MulScalarMontgomeryThenAdd(j.A, ring.MForm(j.W, j.S.Modulus, j.S.BRedConstant), j.Out)
	}
}

// same reports whether p and q share their first limb's memory.
func same(p, q ring.Poly) bool {
	return len(p.Coeffs) > 0 && len(q.Coeffs) > 0 && len(p.Coeffs[0]) > 0 && len(q.Coeffs[0]) > 0 &&
		&p.Coeffs[0][0] == &q.Coeffs[0][0]
}

// TMontgomery returns bgv's tMontgomery for plaintext modulus t over ringQ:
// t·2^64 as an RNS scalar, in Montgomery form (Lattigo's
// newEvaluatorPrecomp).
func TMontgomery(ringQ *ring.Ring, t uint64) ring.RNSScalar {
	tm := ringQ.NewRNSScalarFromBigint(new(big.Int).Lsh(new(big.Int).SetUint64(t), 64))
	ringQ.MFormRNSScalar(tm, tm)
	return tm
}

// MulScalarThenAdd is Lattigo's Ring.MulScalarBigintThenAdd for every
// (a[i], out[i]) pair over ringQ's limbs: out[i] += a[i]·scalar. The limbs
// go to the installed ProductRouter as one batch; without one, or when it
// declines, Lattigo's own call runs. Byte-identical either way.
func MulScalarThenAdd(ringQ *ring.Ring, a []ring.Poly, scalar *big.Int, out []ring.Poly) {
	if r, ok := CurrentRouter().(ProductRouter); ok {
		subs := ringQ.SubRings[:ringQ.Level()+1]
		jobs := make([]MulAddJob, 0, len(subs)*len(a))
		w, qi := new(big.Int), new(big.Int)
		for x, s := range subs {
			w.Mod(scalar, qi.SetUint64(s.Modulus))
			for i := range a {
				jobs = append(jobs, MulAddJob{S: s, A: a[i].Coeffs[x], Out: out[i].Coeffs[x], W: w.Uint64()})
			}
		}
		if r.MulAdd(jobs) {
			return
		}
	}
	for i := range a {
		ringQ.MulScalarBigintThenAdd(a[i], scalar, out[i])
	}
}

// LinCombJob is one limb of a sum of BGV multiply-adds into one output —
// the polynomial evaluator's baby step Σ_k c_k·X^k, term by term
// bgv.Evaluator.MulThenAdd with an integer: Out = Out + Σ_k W[k]·A[k] mod q,
// each W[k] < q the scalar's residue in plain form. Lattigo runs it as one
// MulAddJob per term, in order; each leaves the canonical residue when Out
// held one, so the result is the canonical residue of the whole sum in any
// order, and a kernel may read every A[k] once and write Out once instead
// of reading and writing Out per term (the step is bound by memory
// traffic: a third of it for many terms). Out aliases no A[k]; all have
// S.N words.
type LinCombJob struct {
	S   *ring.SubRing
	A   [][]uint64
	W   []uint64
	Out []uint64
}

// Check reports a malformed job: short limbs, A and W of different
// lengths, a W ≥ q or an A aliasing Out.
func (j LinCombJob) Check() error {
	if j.S == nil {
		return fmt.Errorf("linear combination: nil SubRing")
	}
	n := j.S.N
	if len(j.A) != len(j.W) || len(j.Out) < n || n == 0 {
		return fmt.Errorf("linear combination: %d terms, %d scalars, output of %d words, N = %d", len(j.A), len(j.W), len(j.Out), n)
	}
	for k, a := range j.A {
		if len(a) < n || j.W[k] >= j.S.Modulus {
			return fmt.Errorf("linear combination: term %d: %d words (N = %d), w = %d (q = %d)", k, len(a), n, j.W[k], j.S.Modulus)
		}
		if &a[0] == &j.Out[0] {
			return fmt.Errorf("linear combination: term %d aliases the output", k)
		}
	}
	return nil
}

// Finish writes words [from, S.N) of Out with Lattigo's arithmetic, term
// after term (MulAddJob.Finish).
func (j LinCombJob) Finish(from int) {
	for k := range j.A {
		MulAddJob{S: j.S, A: j.A[k], Out: j.Out, W: j.W[k]}.Finish(from)
	}
}

// LinCombRouter is a ProductRouter that also runs whole linear
// combinations (LinCombJob) in one call; true when every output word holds
// the canonical residue, false (nothing written) to decline.
type LinCombRouter interface {
	ProductRouter
	LinComb(jobs []LinCombJob) bool
}

// LinComb runs jobs through the installed LinCombRouter as one batch; when
// there is none or it declines, each job's terms go to MulAdd (the
// ProductRouter's, else Lattigo's loop) in order. Byte-identical to
// Lattigo's term-by-term MulThenAdd either way (test/fhecheck's
// TestLinCombByteIdentical).
func LinComb(jobs []LinCombJob) {
	if len(jobs) == 0 {
		return
	}
	rt := CurrentRouter()
	if r, ok := rt.(LinCombRouter); ok && r.LinComb(jobs) {
		return
	}
	terms := 0
	for _, j := range jobs {
		terms = max(terms, len(j.A))
	}
	pr, _ := rt.(ProductRouter)
	for k := range terms { // term k of every job, as one MulAdd batch
		var ma []MulAddJob
		for _, j := range jobs {
			if k < len(j.A) {
				ma = append(ma, MulAddJob{S: j.S, A: j.A[k], Out: j.Out, W: j.W[k]})
			}
		}
		if pr == nil || !pr.MulAdd(ma) {
			LattigoMulAdd(ma)
		}
	}
}
