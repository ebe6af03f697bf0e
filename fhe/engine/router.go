package engine

import (
	"fmt"
	"sync/atomic"

	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/internal/par"
)

// Job is one per-limb transform of a batch: S's NTT (or INTT) of Src into
// Dst. Dst may alias Src; distinct jobs of one batch never overlap.
type Job struct {
	S        *ring.SubRing
	Src, Dst []uint64
}

// Router receives the batched transforms of the engine. A batch is every
// independent per-limb transform of one step of a key switch (all
// decomposition digits × all moduli of Q∪P), in one direction — or,
// through a Gather, of that step of every key switch and rescale its
// participants have reached together.
//
// inverse selects SubRing.INTT (else SubRing.NTT). lazy means the engine
// consumes the outputs only through lazy Montgomery multiply-accumulates
// that end in a full reduction, so any output congruent mod q that is no
// larger than Lattigo's lazy output is acceptable: Lattigo's
// NTTLazy/INTTLazy, or the reduced transform (in [0, q)) that an accelerator proved
// byte-identical to SubRing.NTT/INTT computes. Both give the same bytes once
// the engine reduces (test/fhecheck's TestRelinearizeByteIdentical checks it on every preset
// and level). A router must write every
// Dst before it returns, and must not keep the slices.
type Router interface {
	Transform(inverse, lazy bool, jobs []Job)
}

type routerBox struct{ r Router }

var current atomic.Pointer[routerBox]

// SetRouter installs r as the process's router (nil: Lattigo's own per-limb
// transforms). It is safe to call while evaluations run; a batch in flight
// finishes on the router it started with.
func SetRouter(r Router) {
	if r == nil {
		current.Store(nil)
		return
	}
	current.Store(&routerBox{r})
}

// CurrentRouter returns the installed router, or nil.
func CurrentRouter() Router {
	if b := current.Load(); b != nil {
		return b.r
	}
	return nil
}

// BatchWanter is a Router that says whether whole-step batches (a
// Gather's rounds) are worth their scheduling to it: an accelerator that
// pays a fixed cost per call gains from them; a router that leaves every
// transform to the CPU does not, and a gathered evaluation waits at each
// round for its slowest participant.
type BatchWanter interface {
	WantsBatches() bool
}

// WantsBatches reports whether evaluations should gather their transforms
// for the installed router: false with none installed, the router's answer
// if it is a BatchWanter, else true.
func WantsBatches() bool {
	r := CurrentRouter()
	if r == nil {
		return false
	}
	if w, ok := r.(BatchWanter); ok {
		return w.WantsBatches()
	}
	return true
}

// RunLattigo runs jobs exactly as Lattigo does when no router is installed:
// one SubRing.NTT/NTTLazy/INTT/INTTLazy per job. The jobs of a batch are
// independent (distinct outputs, read-only tables), so a batch of at
// least parallelMinJobs jobs of N ≥ parallelMinN is spread over up to
// GOMAXPROCS goroutines, one job at a time each: every Dst gets the bytes
// the sequential loop writes, whatever the number of goroutines
// (TestRunLattigoParallel). This is what lets one key switch — a packed
// batch's one evaluation — use a member's cores.
func RunLattigo(inverse, lazy bool, jobs []Job) {
	run := func(_, i int) error {
		j := jobs[i]
		switch {
		case !inverse && !lazy:
			j.S.NTT(j.Src, j.Dst)
		case !inverse && lazy:
			j.S.NTTLazy(j.Src, j.Dst)
		case inverse && !lazy:
			j.S.INTT(j.Src, j.Dst)
		default:
			j.S.INTTLazy(j.Src, j.Dst)
		}
		return nil
	}
	workers := 1
	if len(jobs) >= parallelMinJobs && jobs[0].S.N >= parallelMinN {
		workers = par.Workers(len(jobs), 0)
	}
	_ = par.ForEach(len(jobs), workers, run)
}

// A batch is spread over goroutines when it has at least parallelMinJobs
// jobs of N ≥ parallelMinN coefficients (an N = 2^12 NTT takes ≈ 20 µs,
// well above the cost of handing it to another goroutine).
const (
	parallelMinJobs = 2
	parallelMinN    = 1 << 12
)

// transform hands jobs to r, or (r nil) runs them as Lattigo does.
func transform(r Router, inverse, lazy bool, jobs []Job) {
	if len(jobs) == 0 {
		return
	}
	if r != nil {
		r.Transform(inverse, lazy, jobs)
		return
	}
	RunLattigo(inverse, lazy, jobs)
}

// keySwitchRouter returns the KeySwitchRouter that runs r's key-switch
// loops: r itself, or for a Gather the router it hands its rounds to (a
// Gather merges transforms only).
func keySwitchRouter(r Router) (KeySwitchRouter, bool) {
	if g, ok := r.(*Gather); ok {
		r = g.target()
	}
	ks, ok := r.(KeySwitchRouter)
	return ks, ok
}

// MulAccJob is one modulus of the gadget product's multiply-accumulate:
// Out0 = Σ_i K0[i]·D[i]·2^{-64} mod q and Out1 likewise with K1 (q =
// S.Modulus), every word of the outputs reduced into [0, q). K0[i], K1[i]
// are the gadget ciphertext's limbs of digit i (Montgomery form, < q), D[i]
// the digit's limb in the NTT domain (< 2q: Lattigo's NTTLazy bound). All
// slices have S.N words; the outputs never alias an input.
type MulAccJob struct {
	S          *ring.SubRing
	K0, K1, D  [][]uint64
	Out0, Out1 []uint64
}

// Check reports a malformed job — no SubRing, no digits, key or digit limbs
// that do not match, any slice shorter than N — before a backend reads it.
// It says nothing of the words' bounds, which each kernel checks itself.
func (j MulAccJob) Check() error {
	if j.S == nil {
		return fmt.Errorf("gadget multiply-accumulate: nil SubRing")
	}
	n, digits := j.S.N, len(j.D)
	switch {
	case n <= 0:
		return fmt.Errorf("gadget multiply-accumulate: N = %d", n)
	case digits == 0 || len(j.K0) != digits || len(j.K1) != digits:
		return fmt.Errorf("gadget multiply-accumulate: %d digits, %d and %d key limbs", digits, len(j.K0), len(j.K1))
	case len(j.Out0) < n || len(j.Out1) < n:
		return fmt.Errorf("gadget multiply-accumulate: outputs of %d and %d words, N = %d", len(j.Out0), len(j.Out1), n)
	}
	for i := range digits {
		if len(j.D[i]) < n || len(j.K0[i]) < n || len(j.K1[i]) < n {
			return fmt.Errorf("gadget multiply-accumulate: digit %d shorter than N = %d", i, n)
		}
	}
	return nil
}

// KeySwitchRouter is a Router that can also run the key switch's
// multiply-accumulate. The canonical residue is what Lattigo's lazy
// schedule (MulCoeffsMontgomeryLazy, …ThenAddLazy, Reduce at the overflow
// margins and at the end) ends in, so an answer that meets MulAccJob's
// contract is byte-identical to it.
type KeySwitchRouter interface {
	Router
	// GadgetMulAcc runs every job and reports true, or reports false (the
	// engine then runs Lattigo's loop, which overwrites every output).
	GadgetMulAcc(jobs []MulAccJob) bool
	// ModUp runs every basis extension (ModUpJob) and reports true, or
	// reports false (the engine then runs Lattigo's, which writes every
	// output).
	ModUp(jobs []ModUpJob) bool
	// ScaleDiff runs every ScaleDiffJob and reports true, or reports false
	// (the engine then runs Lattigo's SubThenMulScalarMontgomeryTwoModulus).
	ScaleDiff(jobs []ScaleDiffJob) bool
}

// ScaleDiffJob is the last step of ModDown and of the rescale for one limb:
// Out = (X − Y)·W mod q in [0, q), q = S.Modulus, W < q in plain form, X and
// Y words < 2q (Lattigo's lazy bounds). Lattigo's
// SubThenMulScalarMontgomeryTwoModulus(X, Y, m, Out) computes the same
// residue with W = m·2^{-64} mod q and reduces fully, so the bytes agree.
// Out may alias Y (the rescale works in place); it never aliases X.
type ScaleDiffJob struct {
	S         *ring.SubRing
	X, Y, Out []uint64
	W         uint64
}

// scaleDiff runs jobs — built with W in Lattigo's Montgomery form — on
// r's KeySwitchRouter (W converted to plain form first), or with
// Lattigo's SubThenMulScalarMontgomeryTwoModulus.
func scaleDiff(rt Router, jobs []ScaleDiffJob) {
	if r, ok := keySwitchRouter(rt); ok {
		plain := make([]ScaleDiffJob, len(jobs))
		for i, j := range jobs {
			j.W = plainOf(j.S, j.W)
			plain[i] = j
		}
		if r.ScaleDiff(plain) {
			return
		}
	}
	for _, j := range jobs {
		j.S.SubThenMulScalarMontgomeryTwoModulus(j.X, j.Y, j.W, j.Out)
	}
}

// plainOf is m·2^{-64} mod s.Modulus: the plain value of a Montgomery-form
// scalar.
func plainOf(s *ring.SubRing, m uint64) uint64 {
	return ring.MRed(m, 1, s.Modulus, s.MRedConstant)
}
