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
//
// Inputs come in three bounds. FreshBits is what an honest encryption has;
// AcceptedBits is what an ACCEPTED input may have — the proof of plaintext
// knowledge (fhe/zkpok) only bounds 2·ct, with a soundness slack dominated
// by the message's carry (zkpok.AcceptedNoiseBits: 2^41.0 on BGVN13 — the
// DKG's public-key share errors at their proven bound, 2^33.0 with an
// honest key — and 2^35.0 on BGVN14 for 16 members, worst case over
// monomial challenges; an
// honest input ≈ 2^7), far above anything a plan's flooding hides. So the
// committee passes every input through one collective refresh before any
// plan consumes it (the entry refresh: consensus packs per-input requests,
// alone as a batch of one, and refreshes each packed input, taking the
// accepted bound as attacker-known noise that only has to fit the level —
// consensus/circuit.PackLevel), and InputBits — where EstimateNoise starts every
// input, the registration gate and the refresh sizing alike — is that
// refresh's output: RefreshBits for a plan evaluated one by one, the
// rescale floor for a packed plan (the packed path rescales every refreshed
// input by the top prime). The worst-case
// ∞-norm rules start from InputBits as well (reported in
// NoiseEstimate.Input*; they diverge for any product, honest inputs
// included).
type NoiseModel struct {
	FreshBits float64 // a fresh encryption under the collective key
	InputBits float64 // where a plan's inputs start (committee: RefreshBits, the entry refresh's output); 0: FreshBits
	// AcceptedBits is the noise bound of an accepted upload before the
	// entry refresh (zkpok.AcceptedNoiseBits); no plan estimate uses it.
	AcceptedBits float64
	FloorBits    float64 // the output of a rescale (product, polynomial step, rescale op)
	RefreshBits  float64 // the output of a collective refresh (its flooding, summed over ≤ 16 shares)
	// MaskGainBits is what the final slot-0 mask (a plaintext product, then a
	// rescale) adds: log2(√N · t/2 / q), q the smallest prime it can drop;
	// negative when the rescale shrinks the noise.
	MaskGainBits float64

	// Adversarial (worst-case) rules, for noise whose shape an attacker
	// chose: MulGainBits = log2(t·N) − log2 q_min (a product's t·ν1·ν2 term
	// after its rescale), MaskWorstGainBits = log2(N·t/2) − log2 q_min (a
	// plaintext product's m·ν term, N instead of the heuristic √N).
	MulGainBits       float64
	MaskWorstGainBits float64
	MinQBits          float64 // log2 q_min: what one rescale divides by, at least
	// QBits are log2 q_i of the preset's primes; DecryptLevel is the
	// committee's decryption level (−1: unknown). The committee switches the
	// masked result down to DecryptLevel by rescales
	// (protocol.PrepareForDecryption), dividing its noise by the primes
	// between them.
	QBits        []float64
	DecryptLevel int
	// SwitchRescales bounds how many of those primes the switch divides by
	// (protocol.MaxSwitchRescales; the rest are dropped as limbs).
	SwitchRescales int
}

// NoiseEstimate is a plan's estimated noise.
type NoiseEstimate struct {
	ResultBits  float64 // the verdict register
	DecryptBits float64 // after the committee's slot-0 mask: what the decryption shares expose
	WorstOp     int     // register with the largest noise
	WorstBits   float64

	// With inputs at InputBits under the worst-case rules:
	// InputDecryptBits is what the decryption shares expose (after the mask
	// and the modulus switch to DecryptLevel); InputRefreshBits the largest
	// noise a collective refresh would see (a register marked Refresh, or
	// the result when it has no level left for the mask), −Inf if none.
	InputDecryptBits float64
	InputRefreshBits float64
	// RefreshInputBits is the honest estimate of the largest noise a
	// refresh point of this plan sees (a register marked Refresh; −Inf if
	// none), ResultBits that of the result, which the committee refreshes
	// before the mask when it has no level left above its decryption level.
	// Every member finalising a refresh sees its input's noise, so the
	// committee sizes the refresh flooding from them (consensus:
	// RefreshRequest.NoiseBits).
	RefreshInputBits float64
}

// EstimateNoise runs the model over the plan's ops:
//
//   - input: max(FreshBits, InputBits) (an input after its entry refresh);
//   - linear: log2 Σ|w_i|·2^{b_i} (a constant adds none) — exact worst case;
//   - mul: FloorBits + 1, plus whatever the operands exceed the
//     NoiseBudget by (the rescale divides the product noise by the prime,
//     which the floor already accounts for up to the budget);
//   - rescale (a product by the all-ones plaintext, the constant
//     polynomial 1): max(FloorBits + 1, log2(2^FloorBits + 2^{b − MinQBits}))
//     — the operand's noise divided by the dropped prime, as the
//     adversarial estimate counts it (identical to FloorBits + 1 for an
//     operand within the NoiseBudget);
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
	est := NoiseEstimate{WorstOp: -1, WorstBits: math.Inf(-1), RefreshInputBits: math.Inf(-1)}
	for r := range p.Ops {
		op := &p.Ops[r]
		var b float64
		switch op.Kind {
		case OpInput:
			b = m.inputBits()
		case OpLinear:
			s := 0.0
			for i, a := range op.Args {
				s += math.Abs(float64(op.Weights[i])) * math.Exp2(bits[a])
			}
			b = math.Log2(math.Max(s, 1))
		case OpMul:
			b = m.FloorBits + 1 + excess(op.Args)
		case OpRescale:
			// A product by the all-ones plaintext (the constant polynomial)
			// divided by the dropped prime: the operand's noise shrinks by
			// q ≥ 2^MinQBits, as adversarialNoise counts it, and the result
			// is at least a rescaled product's floor.
			b = math.Max(m.FloorBits+1, log2Sum(m.FloorBits, bits[op.Args[0]]-m.MinQBits))
		case OpPoly:
			b = m.FloorBits + math.Log2(float64(op.Degree()+1)) + excess(op.Args)
		default:
			b = m.inputBits()
		}
		if b > est.WorstBits {
			est.WorstOp, est.WorstBits = r, b
		}
		if op.Refresh {
			est.RefreshInputBits = math.Max(est.RefreshInputBits, b)
			b = m.RefreshBits
		}
		bits[r] = b
	}
	est.ResultBits = bits[p.Result]
	// The committee refreshes a result with no level left above its
	// decryption level before the mask, which the plan does not know:
	// both paths are counted.
	est.DecryptBits = math.Max(m.FloorBits, math.Max(est.ResultBits, m.RefreshBits)+m.MaskGainBits)
	est.InputDecryptBits, est.InputRefreshBits = p.adversarialNoise(m)
	return est
}

// inputBits is the bound an input starts from: the entry refresh's output
// when it is the larger (it always is for committee models; FreshBits alone
// when InputBits is unset).
func (m NoiseModel) inputBits() float64 { return math.Max(m.FreshBits, m.InputBits) }

// log2Sum is log2 Σ 2^b_i.
func log2Sum(b ...float64) float64 {
	s := 0.0
	for _, x := range b {
		s += math.Exp2(x)
	}
	return math.Log2(s)
}

// adversarialNoise runs the worst-case rules from InputBits:
//
//   - linear: log2 Σ|w_i|·2^{b_i};
//   - mul: floor + 2^{b1+b2+MulGain} + 2^{b1+MaskWorstGain} + 2^{b2+MaskWorstGain}
//     (t·ν1·ν2 and m·ν terms of the tensor, divided by the rescale);
//   - rescale (a product by 1): floor + 2^{b − log2 q_min};
//   - poly of degree d: the mul rule squared ⌈log2(d+1)⌉ times, then plus
//     log2((d+1)·t/2) for the coefficients (≤ t/2) and the term sum;
//   - a register marked Refresh: RefreshBits afterwards, its noise counted
//     in the refresh exposure.
//
// The result, at level PresetDepth − Depth, is masked (MaskWorstGain, one
// level) and switched down to DecryptLevel (minus the first SwitchRescales
// primes in between); a
// result with no level left for the mask is refreshed first.
func (p *Plan) adversarialNoise(m NoiseModel) (dec, refresh float64) {
	in := m.InputBits
	if in == 0 {
		in = m.FreshBits
	}
	mul := func(a, b float64) float64 {
		return log2Sum(m.FloorBits, a+b+m.MulGainBits, a+m.MaskWorstGainBits, b+m.MaskWorstGainBits)
	}
	// A noise beyond the whole modulus wraps: the phase is then uniform
	// garbage, and the cap keeps the numbers finite.
	capBits := math.Inf(1)
	if len(m.QBits) > 0 {
		capBits = 0
		for _, q := range m.QBits {
			capBits += q
		}
	}
	bits := make([]float64, len(p.Ops))
	refresh = math.Inf(-1)
	for r := range p.Ops {
		op := &p.Ops[r]
		var b float64
		switch op.Kind {
		case OpInput:
			b = in
		case OpLinear:
			s := 0.0
			for i, a := range op.Args {
				s += math.Abs(float64(op.Weights[i])) * math.Exp2(bits[a])
			}
			b = math.Log2(math.Max(s, 1))
		case OpMul:
			b = mul(bits[op.Args[0]], bits[op.Args[1]])
		case OpRescale:
			b = log2Sum(m.FloorBits, bits[op.Args[0]]-m.MinQBits)
		case OpPoly:
			b = bits[op.Args[0]]
			for range depthOf(op.Degree()) {
				b = mul(b, b)
			}
			b += math.Log2(float64(op.Degree()+1) * PlaintextModulus / 2)
		default:
			b = in
		}
		b = math.Min(b, capBits)
		if op.Refresh {
			refresh = math.Max(refresh, b)
			b = m.RefreshBits
		}
		bits[r] = b
	}
	res := bits[p.Result]
	level := p.PresetDepth - p.Ops[p.Result].Depth
	if p.Ops[p.Result].Refresh {
		level = p.PresetDepth
	}
	if level-1 < max(m.DecryptLevel, 0) {
		return math.Max(m.FloorBits, m.RefreshBits+m.MaskGainBits), math.Max(refresh, res)
	}
	masked := res + m.MaskWorstGainBits
	for l, k := level-1, 0; m.DecryptLevel >= 0 && l > m.DecryptLevel && l < len(m.QBits) && k < m.SwitchRescales; l, k = l-1, k+1 {
		masked -= m.QBits[l]
	}
	return math.Max(m.FloorBits, log2Sum(m.FloorBits, masked)), refresh
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

// CheckRefreshRoom checks that each of the plan's collective refreshes has
// room for its flooding where the plan takes it, with floor the committee's
// lowest level for a refresh of a given noise (noise.RefreshFloorLevel):
// its refresh points, of noise est.RefreshInputBits, at its refresh floor;
// its result, of noise est.ResultBits, refreshed before the mask (unless it
// is a refresh point itself) at level top − its depth (top: the level of
// fresh registers, PresetDepth; one less for packed plans). Each noise is
// at least minBits, plus margin (the chain checks a little stricter than
// the committee). It returns the two noise bounds (before the margin) and
// fails, wrapping ErrTooNoisy, when a bound needs a higher level than the
// plan leaves.
func (p *Plan) CheckRefreshRoom(est NoiseEstimate, top int, minBits, margin float64, floor func(noiseBits float64) (int, error)) (points, final float64, err error) {
	points, final = math.Max(minBits, est.RefreshInputBits), math.Max(minBits, est.ResultBits)
	res := p.Ops[p.Result]
	for _, c := range []struct {
		what  string
		bits  float64
		level int
		used  bool
	}{
		{"refresh point", points + margin, p.RefreshFloor, p.NeedsRefresh},
		{"final refresh of the result", final + margin, top - res.Depth, !res.Refresh},
	} {
		if !c.used {
			continue
		}
		need, err := floor(c.bits)
		if err != nil {
			return 0, 0, fmt.Errorf("%w: %w", ErrTooNoisy, err)
		}
		if need > c.level {
			return 0, 0, fmt.Errorf("%w: a %s of noise 2^%.1f needs level %d, the plan takes it at level %d", ErrTooNoisy, c.what, c.bits, need, c.level)
		}
	}
	return points, final, nil
}
