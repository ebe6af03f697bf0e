package policy

import (
	"fmt"
	"math"
)

// NoiseModel is a worst-case-per-op, heuristic-per-polynomial model of BGV
// noise (log2 of the ∞-norm of c0 + c1·s − [t⁻¹m] in Lattigo's scaling), used
// to bound what a plan's result exposes to threshold decryption. All values
// are in bits. It is an estimate: Lattigo keeps the noise at a floor through
// every rescale (measured ≈2^4.4 std, 2^6.6 max at N = 2^13), so the model
// tracks the floor and what weighted sums, polynomial term sums, refreshes and
// the final slot-0 mask do to it.
type NoiseModel struct {
	FreshBits   float64 // a fresh encryption under the collective key
	FloorBits   float64 // the output of a rescale (product, polynomial step, rescale op)
	RefreshBits float64 // the output of a collective refresh (its flooding, summed over ≤ 16 shares)
	// MaskGainBits is what the final slot-0 mask (a plaintext product, then a
	// rescale) adds: log2(√N · t/2 / q), q the smallest prime it can drop;
	// negative when the rescale shrinks the noise.
	MaskGainBits float64
}

// NoiseEstimate is a plan's estimated noise.
type NoiseEstimate struct {
	ResultBits  float64 // the verdict register
	DecryptBits float64 // after the committee's slot-0 mask: what the decryption shares expose
	WorstOp     int     // register with the largest noise
	WorstBits   float64
}

// EstimateNoise runs the model over the plan's ops:
//
//   - input: FreshBits;
//   - linear: log2 Σ|w_i|·2^{b_i} (a constant adds none) — exact worst case;
//   - mul, rescale: FloorBits + 1, plus whatever the operands exceed the
//     NoiseBudget by (the rescale divides the product noise by the prime,
//     which the floor already accounts for up to the budget);
//   - poly: FloorBits + log2(deg+1) (the baby-step giant-step sum of up to
//     deg+1 rescaled terms, each at the floor) plus the operand excess;
//   - a register marked Refresh: RefreshBits afterwards.
//
// The result then goes through the mask: DecryptBits = max(FloorBits,
// max(ResultBits, RefreshBits) + MaskGainBits) — RefreshBits because the
// committee refreshes a result that has no level left above its decryption
// level before masking it.
func (p *Plan) EstimateNoise(m NoiseModel) NoiseEstimate {
	bits := make([]float64, len(p.Ops))
	budget := m.FloorBits + math.Log2(NoiseBudget)
	excess := func(args []int) float64 {
		e := 0.0
		for _, a := range args {
			e = math.Max(e, bits[a]-budget)
		}
		return e
	}
	est := NoiseEstimate{WorstOp: -1, WorstBits: math.Inf(-1)}
	for r := range p.Ops {
		op := &p.Ops[r]
		var b float64
		switch op.Kind {
		case OpInput:
			b = m.FreshBits
		case OpLinear:
			s := 0.0
			for i, a := range op.Args {
				s += math.Abs(float64(op.Weights[i])) * math.Exp2(bits[a])
			}
			b = math.Log2(math.Max(s, 1))
		case OpMul, OpRescale:
			b = m.FloorBits + 1 + excess(op.Args)
		case OpPoly:
			b = m.FloorBits + math.Log2(float64(op.Degree()+1)) + excess(op.Args)
		default:
			b = m.FreshBits
		}
		if b > est.WorstBits {
			est.WorstOp, est.WorstBits = r, b
		}
		if op.Refresh {
			b = m.RefreshBits
		}
		bits[r] = b
	}
	est.ResultBits = bits[p.Result]
	// The committee refreshes a result with no level left above its
	// decryption level before the mask, which the plan does not know:
	// both paths are counted.
	est.DecryptBits = math.Max(m.FloorBits, math.Max(est.ResultBits, m.RefreshBits)+m.MaskGainBits)
	return est
}

// ErrTooNoisy is returned (wrapped) by CheckNoise.
var ErrTooNoisy = fmt.Errorf("policy: result noise exceeds what the decryption flooding hides")

// CheckNoise refuses a plan whose estimated decryption noise exceeds
// limitBits (the committee's B_ct: its flooding σ is sized as 2^floodingBits
// times it).
func (p *Plan) CheckNoise(m NoiseModel, limitBits float64) (NoiseEstimate, error) {
	est := p.EstimateNoise(m)
	if est.DecryptBits > limitBits {
		return est, fmt.Errorf("%w: estimated 2^%.1f at decryption (result register %d at 2^%.1f, worst register %d at 2^%.1f), limit 2^%.0f",
			ErrTooNoisy, est.DecryptBits, p.Result, est.ResultBits, est.WorstOp, est.WorstBits, limitBits)
	}
	return est, nil
}
