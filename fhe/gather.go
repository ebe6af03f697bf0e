package fhe

import (
	"fmt"
	"math/bits"
	"slices"

	bgvpoly "github.com/tuneinsight/lattigo/v6/circuits/bgv/polynomial"
	"github.com/tuneinsight/lattigo/v6/circuits/common/polynomial"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
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

// evalPolyGathered is EvalPolyInts's evaluation with the power basis from
// powerBasisGathered (the Paterson–Stockmeyer steps after it are
// Lattigo's). w is the calling operation's worker.
func (e *Evaluator) evalPolyGathered(g *engine.Gather, w *worker, a *rlwe.Ciphertext, poly bgvpoly.Polynomial) (*rlwe.Ciphertext, error) {
	pb, err := e.powerBasisGathered(g, a, polynomial.Polynomial(poly))
	if err != nil {
		return nil, err
	}
	return w.bpoly.EvaluateFromPowerBasis(pb, poly, a.Scale)
}
