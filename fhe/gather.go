package fhe

import (
	"fmt"
	"math/bits"
	"slices"

	bgvpoly "github.com/tuneinsight/lattigo/v6/circuits/bgv/polynomial"
	"github.com/tuneinsight/lattigo/v6/circuits/common/polynomial"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/utils/bignum"

	"github.com/fhegate/fhegate/fhe/engine"
)

// powerPlan lists the powers X^n (n ≥ 2) that Lattigo's polynomial
// evaluator (circuits/common/polynomial Evaluator.Evaluate, v6.2.0)
// generates for poly: every power of two up to 2^(logDegree−1), then each
// i from 2^logSplit − 1 down to 3 of the parity the polynomial needs, each
// with the powers its recursion X^n = X^a · X^b needs (a, b =
// polynomial.SplitDegree(n), the split PowerBasis.GenPower uses).
//
// rounds groups the powers up to the giant step 2^logSplit by product
// depth: the powers of one round depend only on earlier rounds, so they
// are independent. late lists, ascending, the powers of two above the
// giant step (X^{2^k} = X^{2^{k−1}} squared, a chain): no power of rounds
// depends on them, and the Paterson–Stockmeyer recombination needs them
// only from its giant steps on, so they can be computed while the baby
// steps and the first giant steps run.
func powerPlan(p polynomial.Polynomial) (rounds [][]int, late []int) {
	deg := p.Degree()
	logDegree := bits.Len64(uint64(deg))
	logSplit := bignum.OptimalSplit(logDegree)
	depth := map[int]int{1: 0}
	var need func(n int) int
	need = func(n int) int {
		if d, ok := depth[n]; ok {
			return d
		}
		a, b := polynomial.SplitDegree(n)
		d := 1 + max(need(a), need(b))
		depth[n] = d
		return d
	}
	need(1 << (logDegree - 1))
	odd, even := p.IsOdd, p.IsEven
	for i := (1 << logSplit) - 1; i > 2; i-- {
		if !(even || odd) || (i&1 == 0 && even) || (i&1 == 1 && odd) {
			need(i)
		}
	}
	ns := make([]int, 0, len(depth))
	for n := range depth {
		if n > 1 {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns) // a fixed order within a round
	for _, n := range ns {
		if n > 1<<logSplit && n&(n-1) == 0 {
			late = append(late, n)
			continue
		}
		d := depth[n]
		for len(rounds) < d {
			rounds = append(rounds, nil)
		}
		rounds[d-1] = append(rounds[d-1], n)
	}
	return rounds, late
}

// mulPower is one product of the power basis as PowerBasis.GenPower
// leaves it: Rescale(MulRelin(X^a, X^b)) — GenPower rescales every power
// right after generating it, before any other use — through the routed
// scheme evaluator of a worker of its own (routedBGV: Lattigo's tensor,
// the engine's relinearisation and rescale).
func (e *Evaluator) mulPower(xa, xb *rlwe.Ciphertext) (*rlwe.Ciphertext, error) {
	c, err := e.do("eval-poly power", func(w *worker) (*rlwe.Ciphertext, error) {
		ev := w.bpoly.Evaluator.Evaluator
		x, err := ev.MulRelinNew(xa, xb)
		if err != nil {
			return nil, err
		}
		return x, ev.Rescale(x, x)
	})
	if err != nil {
		return nil, err
	}
	return c.ct, nil
}

// powerBasisGathered computes the powers of rounds (powerPlan) on ct, the
// products of each round forked as participants of g, so one round's key
// switches and rescales reach the GPU gate as one batch per step. Every
// power is the ciphertext GenPower leaves in Lattigo's basis (mulPower).
func (e *Evaluator) powerBasisGathered(g *engine.Gather, ct *rlwe.Ciphertext, basis bignum.Basis, rounds [][]int) (polynomial.PowerBasis, error) {
	pb := polynomial.PowerBasis{Basis: basis, Value: map[int]*rlwe.Ciphertext{1: ct.CopyNew()}}
	for _, round := range rounds {
		outs := make([]*rlwe.Ciphertext, len(round))
		errs := make([]error, len(round))
		fs := make([]func(), len(round))
		for k, n := range round {
			a, b := polynomial.SplitDegree(n)
			xa, xb := pb.Value[a], pb.Value[b]
			fs[k] = func() { outs[k], errs[k] = e.mulPower(xa, xb) }
		}
		g.Fork(fs...)
		for k, n := range round {
			if errs[k] != nil {
				return pb, fmt.Errorf("power %d: %w", n, errs[k])
			}
			pb.Value[n] = outs[k]
		}
	}
	return pb, nil
}

// evalPolyGathered is EvalPolyInts's evaluation — Lattigo v6.2.0's
// circuits/common/polynomial Evaluator.Evaluate for a BGV polynomial in
// the monomial basis, step for step — with the independent parts run as
// participants of g:
//
//   - the powers up to the giant step, round by round (powerBasisGathered);
//   - the chain of larger powers of two (one participant, each power
//     published by an Event) beside the Paterson–Stockmeyer recombination
//     (another), which waits for a power only when a giant step needs it;
//   - the giant steps of each level of the recombination (Lattigo's
//     EvaluateGiantStep of each pair of sub-polynomials, each on a worker
//     of its own).
//
// The baby steps (plaintext-scalar sums: no transforms) run on w, the
// calling operation's worker, and so do the final relinearisation and
// rescale. Every ciphertext operation is the one Lattigo's sequential code
// runs, on the same operands, so the bytes are Lattigo's
// (TestEvalPolyGatheredByteIdentical).
func (e *Evaluator) evalPolyGathered(g *engine.Gather, w *worker, a *rlwe.Ciphertext, poly bgvpoly.Polynomial) (*rlwe.Ciphertext, error) {
	p := polynomial.Polynomial(poly)
	if w.bgv.ScaleInvariant || p.Basis != bignum.Monomial || p.Degree() < 1 {
		return w.bpoly.Evaluate(a, poly, a.Scale)
	}
	if level, depth := a.Level(), p.Depth(); level < depth {
		return nil, fmt.Errorf("%d levels < %d log(d) -> cannot evaluate poly", level, depth)
	}
	rounds, late := powerPlan(p)
	pb, err := e.powerBasisGathered(g, a, p.Basis, rounds)
	if err != nil {
		return nil, err
	}
	vec := polynomial.PolynomialVector{Value: []polynomial.Polynomial{p}}
	ps := vec.PatersonStockmeyerPolynomial(*e.p.rlwe.GetRLWEParameters(), pb.Value[1].Level(), pb.Value[1].Scale, a.Scale,
		bgvSim{params: e.p.bgv})

	// The chain of late powers: lateCt[k] is valid once lateEv[k] fired
	// (every event fires, also after an error, so no one waits forever).
	lateCt := make([]*rlwe.Ciphertext, len(late))
	lateEv := make([]*engine.Event, len(late))
	for k := range lateEv {
		lateEv[k] = g.NewEvent()
	}
	var chainErr error
	var first *rlwe.Ciphertext
	if len(late) > 0 {
		first = pb.Value[late[0]/2] // read before the participants start
	}
	chain := func() {
		defer func() {
			for _, ev := range lateEv {
				ev.Fire()
			}
		}()
		prev := first
		for k, n := range late {
			x, err := e.mulPower(prev, prev)
			if err != nil {
				chainErr = fmt.Errorf("power %d: %w", n, err)
				return
			}
			lateCt[k], prev = x, x
			lateEv[k].Fire()
		}
	}
	// ensure puts X^n in the basis, waiting for the chain if n is one of
	// its powers. Only the recombination's participant writes the map,
	// and never while a giant step reads it.
	ensure := func(n int) error {
		if _, ok := pb.Value[n]; ok {
			return nil
		}
		k := slices.Index(late, n)
		if k < 0 {
			return nil // not a power Lattigo generates: its evaluator fails as Lattigo's would
		}
		lateEv[k].Wait()
		if lateCt[k] == nil {
			return chainErr
		}
		pb.Value[n] = lateCt[k]
		return nil
	}
	var res *rlwe.Ciphertext
	var psErr error
	recombine := func() { res, psErr = e.patersonStockmeyerGathered(g, w, ps, pb, ensure) }
	if len(late) > 0 {
		g.Fork(chain, recombine)
	} else {
		recombine()
	}
	if psErr != nil {
		return nil, psErr
	}
	if chainErr != nil {
		return nil, chainErr
	}
	pe := w.bpoly.Evaluator
	if res.Degree() == 2 {
		if err := pe.Relinearize(res, res); err != nil {
			return nil, fmt.Errorf("cannot EvaluatePatersonStockmeyerPolynomial: %w", err)
		}
	}
	if err := pe.Rescale(res, res); err != nil {
		return nil, err
	}
	return res, nil
}

// patersonStockmeyerGathered is Lattigo's
// EvaluatePatersonStockmeyerPolynomialVector up to its final
// relinearisation and rescale: the baby steps on w, then level by level
// the giant steps, each pair of sub-polynomials a participant of g. ensure
// makes a power present in pb before a step reads it.
func (e *Evaluator) patersonStockmeyerGathered(g *engine.Gather, w *worker, ps polynomial.PatersonStockmeyerPolynomialVector,
	pb polynomial.PowerBasis, ensure func(n int) error) (*rlwe.Ciphertext, error) {
	pe := w.bpoly.Evaluator
	split := len(ps.Value[0].Value)
	babySteps := make([]*polynomial.BabyStep, split)
	for i := range babySteps {
		for n := 2; n <= ps.Value[0].Value[i].Degree(); n++ {
			if err := ensure(n); err != nil {
				return nil, err
			}
		}
		var err error
		if babySteps[split-i-1], err = babyStep(w, i, ps, pb); err != nil {
			return nil, fmt.Errorf("cannot EvaluateBabyStep: %w", err)
		}
	}
	for len(babySteps) != 1 {
		giantSteps := make([]int, len(babySteps))
		for i := 0; i < len(babySteps); i++ {
			if i == len(babySteps)-1 {
				giantSteps[i] = 2
			} else if babySteps[i].Degree == babySteps[i+1].Degree {
				giantSteps[i] = 1
				i++
			}
		}
		// The pairs (giant step 1) are independent: one participant each.
		// A trailing sub-polynomial (giant step 2) only takes the degree
		// of the pair before it, so it follows them.
		var fs []func()
		var pairs []int
		for i, gs := range giantSteps {
			if gs == 1 {
				pairs = append(pairs, i)
				if err := ensure(1 << bits.Len64(uint64(babySteps[i].Degree))); err != nil {
					return nil, err
				}
			}
		}
		errs := make([]error, len(pairs))
		for k, i := range pairs {
			fs = append(fs, func() {
				_, errs[k] = e.do("eval-poly giant step", func(w *worker) (*rlwe.Ciphertext, error) {
					return nil, w.bpoly.Evaluator.EvaluateGiantStep(i, giantSteps, babySteps, pb)
				})
			})
		}
		g.Fork(fs...)
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		for i, gs := range giantSteps {
			if gs == 2 {
				if err := pe.EvaluateGiantStep(i, giantSteps, babySteps, pb); err != nil {
					return nil, err
				}
			}
		}
		var idx int
		for i := range babySteps {
			if babySteps[i] != nil {
				babySteps[idx] = babySteps[i]
				idx++
			}
		}
		babySteps = babySteps[:idx]
	}
	return babySteps[0].Value, nil
}

// bgvSim is Lattigo v6.2.0's bgv polynomial simEvaluator
// (circuits/bgv/polynomial/polynomial_evaluator_sim.go, unexported there)
// without scale-invariant tensoring: the levels and scales the
// Paterson–Stockmeyer decomposition plans for.
type bgvSim struct{ params bgv.Parameters }

func (d bgvSim) PolynomialDepth(degree int) int {
	if degree <= 0 {
		panic(fmt.Errorf("invalid degree: degree=%d should be greater than zero", degree))
	}
	return bits.Len64(uint64(degree)) - 1
}

func (d bgvSim) Rescale(op0 *polynomial.SimOperand) {
	op0.Scale = op0.Scale.Div(rlwe.NewScale(d.params.Q()[op0.Level]))
	op0.Level--
}

func (d bgvSim) MulNew(op0, op1 *polynomial.SimOperand) *polynomial.SimOperand {
	return &polynomial.SimOperand{Level: min(op0.Level, op1.Level), Scale: op0.Scale.Mul(op1.Scale)}
}

func (d bgvSim) UpdateLevelAndScaleBabyStep(lead bool, tLevelOld int, tScaleOld rlwe.Scale) (int, rlwe.Scale) {
	tScaleNew := tScaleOld
	if lead {
		tScaleNew = tScaleOld.Mul(d.params.NewScale(d.params.Q()[tLevelOld]))
	}
	return tLevelOld, tScaleNew
}

func (d bgvSim) UpdateLevelAndScaleGiantStep(lead bool, tLevelOld int, tScaleOld, xPowScale rlwe.Scale) (int, rlwe.Scale) {
	Q := d.params.Q()
	tScaleNew := tScaleOld.Div(xPowScale)
	currentQi := Q[tLevelOld+1]
	if lead {
		currentQi = Q[tLevelOld]
	}
	return tLevelOld + 1, tScaleNew.Mul(d.params.NewScale(currentQi))
}
