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
// generates for poly, grouped by product depth: round d holds the powers
// whose recursion X^n = X^a · X^b (a, b = polynomial.SplitDegree(n), the
// split Lattigo's PowerBasis.GenPower uses) is d products deep. The powers
// of one round depend only on earlier rounds, so they are independent.
// Lattigo generates: every power of two up to 2^(logDegree−1), then each
// i from 2^logSplit − 1 down to 3 of the parity the polynomial needs, each
// with the powers its recursion needs.
func powerPlan(p polynomial.Polynomial) [][]int {
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
	var rounds [][]int
	for _, n := range ns {
		d := depth[n]
		for len(rounds) < d {
			rounds = append(rounds, nil)
		}
		rounds[d-1] = append(rounds[d-1], n)
	}
	return rounds
}

// powerBasisGathered computes the power basis Lattigo's evaluator would
// generate for poly on ct, with the independent products of each round
// forked as participants of g (so one round's key switches and rescales
// reach the GPU gate as one batch per step). Every power is what
// PowerBasis.GenPower leaves in the basis: X^n = Rescale(MulRelin(X^a,
// X^b)), each operand rescaled right after it was generated, through the
// same routed scheme evaluator (routedBGV: Lattigo's tensor, the engine's
// relinearisation and rescale), so EvaluateFromPowerBasis on it gives the
// bytes of Evaluate on ct (TestEvalPolyGatheredByteIdentical).
func (e *Evaluator) powerBasisGathered(g *engine.Gather, ct *rlwe.Ciphertext, poly polynomial.Polynomial) (polynomial.PowerBasis, error) {
	pb := polynomial.PowerBasis{Basis: poly.Basis, Value: map[int]*rlwe.Ciphertext{1: ct.CopyNew()}}
	for _, round := range powerPlan(poly) {
		outs := make([]*rlwe.Ciphertext, len(round))
		errs := make([]error, len(round))
		fs := make([]func(), len(round))
		for k, n := range round {
			a, b := polynomial.SplitDegree(n)
			xa, xb := pb.Value[a], pb.Value[b]
			fs[k] = func() {
				var c *Ciphertext
				c, errs[k] = e.do("eval-poly power", func(w *worker) (*rlwe.Ciphertext, error) {
					ev := w.bpoly.Evaluator.Evaluator
					x, err := ev.MulRelinNew(xa, xb)
					if err != nil {
						return nil, err
					}
					return x, ev.Rescale(x, x)
				})
				if errs[k] == nil {
					outs[k] = c.ct
				}
			}
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
// the monomial basis, step for step — with the independent parts forked
// as participants of g: the products of each round of the power basis
// (powerBasisGathered) and the giant steps of each level of the
// Paterson–Stockmeyer recombination (EvaluateGiantStep of each pair of
// sub-polynomials, Lattigo's own method, each on a worker of its own). The
// baby steps (plaintext-scalar sums: no transforms) and the final
// relinearisation and rescale run on w, the calling operation's worker.
// Every ciphertext operation is the one Lattigo's sequential loop runs on
// the same operands, so the bytes are Lattigo's
// (TestEvalPolyGatheredByteIdentical).
func (e *Evaluator) evalPolyGathered(g *engine.Gather, w *worker, a *rlwe.Ciphertext, poly bgvpoly.Polynomial) (*rlwe.Ciphertext, error) {
	p := polynomial.Polynomial(poly)
	if w.bgv.ScaleInvariant || p.Basis != bignum.Monomial || p.Degree() < 1 {
		return w.bpoly.Evaluate(a, poly, a.Scale)
	}
	if level, depth := a.Level(), p.Depth(); level < depth {
		return nil, fmt.Errorf("%d levels < %d log(d) -> cannot evaluate poly", level, depth)
	}
	pb, err := e.powerBasisGathered(g, a, p)
	if err != nil {
		return nil, err
	}
	vec := polynomial.PolynomialVector{Value: []polynomial.Polynomial{p}}
	ps := vec.PatersonStockmeyerPolynomial(*e.p.rlwe.GetRLWEParameters(), pb.Value[1].Level(), pb.Value[1].Scale, a.Scale,
		bgvSim{params: e.p.bgv})
	pe := w.bpoly.Evaluator
	split := len(ps.Value[0].Value)
	babySteps := make([]*polynomial.BabyStep, split)
	for i := range babySteps {
		if babySteps[split-i-1], err = pe.EvaluateBabyStep(i, ps, pb); err != nil {
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
	res := babySteps[0].Value
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
