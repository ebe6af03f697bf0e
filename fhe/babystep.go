package fhe

import (
	"fmt"
	"math/big"

	"github.com/tuneinsight/lattigo/v6/circuits/common/polynomial"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"

	"github.com/fhegate/fhegate/fhe/engine"
)

// babyStep is Lattigo v6.2.0's polynomial Evaluator.EvaluateBabyStep (with
// EvaluatePolynomialVectorFromPowerBasis) for a BGV polynomial vector of
// one polynomial without a slot mapping, the case of EvalPolyInts: the
// inner product c_0 + Σ_k c_k·X^k of a sub-polynomial's coefficients with
// the power basis. Lattigo runs one MulThenAdd per term, each reading and
// writing the whole output; here every term's metadata step runs as
// Lattigo's (InitOutputUnaryOp, Resize, the scale ratio and centring of
// routedBGV.MulThenAdd) and the arithmetic of all terms goes to the engine
// as one linear combination per output limb (engine.LinComb), which reads
// every power once and writes the output once. The result is Lattigo's
// byte for byte (TestEvalPolyGatheredBabyStepsByteIdentical): each output word is the
// canonical residue of the same sum. Other cases (a mapping, several
// polynomials, no product router) are Lattigo's own call.
func babyStep(w *worker, i int, ps polynomial.PatersonStockmeyerPolynomialVector, pb polynomial.PowerBasis) (*polynomial.BabyStep, error) {
	pe := w.bpoly.Evaluator
	if ps.Mapping != nil || len(ps.Value) != 1 || !productRouted() {
		return pe.EvaluateBabyStep(i, ps, pb)
	}
	pol := ps.Value[0].Value[i]
	X := pb.Value
	params := w.rbgv.GetParameters()
	even, odd := pol.IsEven, pol.IsOdd // the one polynomial's: Lattigo's PolynomialVector.IsEven/IsOdd
	minDeg := len(pol.Coeffs) - 1
	if even && !odd {
		minDeg--
	}
	maxCtDeg := 0
	for k := pol.Degree(); k > 0; k-- {
		if x, ok := X[k]; ok {
			maxCtDeg = max(maxCtDeg, x.Degree())
		}
	}
	step := &polynomial.BabyStep{Degree: pol.Degree()}
	if X[1] == nil {
		return nil, fmt.Errorf("power basis without X^1")
	}
	deg := maxCtDeg
	if minDeg == 0 {
		deg = 1
	}
	res := rlwe.NewCiphertext(params, deg, pol.Level)
	*res.MetaData = *X[1].MetaData
	res.Scale = pol.Scale
	if even {
		if err := pe.Add(res, pe.GetSingleCoefficient(pol, 0), res); err != nil {
			return nil, err
		}
	}
	step.Value = res
	if minDeg == 0 {
		return step, nil
	}
	// The terms, highest degree first as Lattigo, gathered per output limb
	// (keyed by its first word: a Resize may replace a polynomial).
	jobs := map[*uint64]int{}
	var lc []engine.LinCombJob
	w0, qi := new(big.Int), new(big.Int)
	for key := pol.Degree(); key > 0; key-- {
		if !(!(even || odd) || (key&1 == 0 && even) || (key&1 == 1 && odd)) {
			continue
		}
		op0 := X[key]
		if op0 == nil {
			return nil, fmt.Errorf("power %d missing from the basis", key)
		}
		c := new(big.Int).SetUint64(pe.GetSingleCoefficient(pol, key))
		level, err := w.rbgv.scalarTerm(op0, c, res)
		if err != nil {
			return nil, err
		}
		for d := 0; d <= op0.Degree(); d++ {
			for x, sub := range params.RingQ().SubRings[:level+1] {
				out := res.Value[d].Coeffs[x]
				a := op0.Value[d].Coeffs[x]
				if &a[0] == &out[0] { // Lattigo reads its own output: keep its order
					return pe.EvaluateBabyStep(i, ps, pb)
				}
				idx, ok := jobs[&out[0]]
				if !ok {
					idx = len(lc)
					jobs[&out[0]] = idx
					lc = append(lc, engine.LinCombJob{S: sub, Out: out})
				}
				lc[idx].A = append(lc[idx].A, a)
				lc[idx].W = append(lc[idx].W, w0.Mod(c, qi.SetUint64(sub.Modulus)).Uint64())
			}
		}
	}
	engine.LinComb(lc)
	return step, nil
}
