package zkpok

import (
	"fmt"
	"math"

	"github.com/fhegate/fhegate/fhe"
)

// Noise bounds of an input, in bits (log2 of an ∞-norm of the noise in
// Lattigo's scaling, c0 + c1·s = [t^{-1}·m]_Q + ν) of the ciphertext the
// committee evaluates, 2·ct (fhe.Ciphertext.Evaluable). See the package
// doc, "Soundness slack"; in short, with ct = ModDown_P(ĉ),
// ĉ = P·ct + [ρ]_P:
//
//   - honest (HonestNoiseBits): 2ν with ν = (e0 + u·e_pk + s·e1)/P +
//     rounding, ‖u‖∞ ≤ 1, ‖e_i‖∞ ≤ βe, ‖e_pk‖∞ ≤ members·N·Z_e (each
//     public-key share's error at the bound its shortness proof admits,
//     the package doc, "Public-key shares": 2^30, 2^36, 2^38 on N = 2^10, 2^13, 2^14, against βe
//     for an honest share; it is divided by P, and moves only BGVN13's
//     bounds: honest 2^11.8 → 2^12.2, accepted 2^33.0 → 2^41.0,
//     craftable 2^19.0 → 2^27.0 for 16 members; BGVN14's P = 2^80 leaves
//     its bounds as they were),
//     ‖s‖∞ ≤ members, and the rounding (ρ0 + ρ1·s)/P with ‖ρ_i‖∞ ≤ P/2;
//   - accepted (AcceptedNoiseBits): special soundness gives two challenges
//     X^i ≠ X^j of one repetition with the same hashed high parts ⌊V/D⌋
//     and z̄ = z − z′ (‖z̄_i‖∞ ≤ 2·Z_i, i ∈ {u, m}) with
//     (X^i − X^j)·ĉ = A′·z̄ − δ, ‖δ‖∞ < D (V − V′: two integers of one
//     D-interval); multiplying by 2/(X^i − X^j), whose coefficients are in
//     {0, ±1} (‖·‖₁ ≤ N), 2·ĉ = A′·w̄ + ē with ‖w̄_i‖∞ ≤ N·2·Z_i and
//     ‖ē‖∞ ≤ N·D (version 3 had N·2·Z_e for the errors). Substituting ĉ
//     and dividing by P (γ = P·[t^{-1}]_Q), the noise of 2·ct is at most
//
//     N·(D + N·2Z_u·‖e_pk‖∞ + N·members·D)/P + 2·(1/2 + R_s) + N·2Z_m/t + 1,
//
//     where R_s bounds ‖[ρ1]_P·s‖∞/P: a sum of N products of a coefficient
//     in [−1/2, 1/2] (ρ1 is the uploader's, chosen without s) and one of s
//     (variance ≤ 2·members/3), 12 standard deviations: 6·√(2N·members/3)
//     (a high-probability bound over the secret, like any bound on s·e).
//     The first term is the proof's slack on u and e over QP — divided by
//     P it is small on both presets (e's share: 2^29.0 on BGVN13 with 16
//     members, 2^-8 on BGVN14, against a carry of 2^33 / 2^35); the third is the carry of the
//     message: the extractor only knows 2·m up to N·2Z_m, and its
//     multiples of t are noise.
//
// CraftableNoiseBits is the other side: the largest noise of an input whose
// witness the attacker really holds and which it can always prove. A prover
// with ‖w_i‖∞ ≤ ⌊Z_i/2⌋ (u, m) that draws its
// masks from [−(Z_i − ‖w_i‖∞), Z_i − ‖w_i‖∞] always passes the verifier's
// ‖z_i‖∞ ≤ Z_i (‖X^e·w‖∞ = ‖w‖∞; it gives up zero knowledge, which it does
// not need), and with ‖e_i‖∞ ≤ CraftableE = ⌊D/(4·N·r)⌋ its V = W − c·e
// keeps W's high parts in all 2·N·r coefficients with probability
// ≥ e^{−1/2} an attempt, so such inputs are accepted after a few restarts;
// TestAcceptedNoiseBound crafts them. After the division by P only the message carry m = v + t·k
// (‖k‖∞ ≤ Z_m/(2t)), doubled, survives.

// pkError bounds ‖e_pk‖∞ for a committee of `members` members: the sum of
// their public-key shares' errors, each at most what its shortness proof
// admits (ShareParams.KeyShareErrorBits, N·Z_e: a corrupt member's share
// may sit there, an honest one is ≤ βe), so that the bounds below hold
// whatever the DKG's corrupt members sent (the package doc, "Public-key shares").
func (pp *Params) pkError(members int) float64 {
	sp, err := ShareParamsFor(pp.FHE)
	if err != nil {
		return float64(members) * float64(BetaE)
	}
	return float64(members) * math.Exp2(sp.KeyShareErrorBits())
}

// rounding is the bound on the ModDown rounding (ρ0 + ρ1·s)/P (≤ 1/2 +
// R_s, see above); 0 without an auxiliary modulus (nothing is divided).
func (pp *Params) rounding(members int) float64 {
	if len(pp.PModuli) == 0 {
		return 0
	}
	return 0.5 + 6*math.Sqrt(2*float64(pp.N)*float64(members)/3)
}

// p is P as a float (1 without an auxiliary modulus).
func (pp *Params) p() float64 {
	p := 1.0
	for _, q := range pp.PModuli {
		p *= float64(q)
	}
	return p
}

// AcceptedNoiseBits is log2 of the noise bound of 2·ct for an accepted
// input ct and a committee of `members` members (see above), every
// member's public-key share error at the bound its proof admits. It
// depends only on the preset and the committee size, so the chain and the
// committee compute the same number.
func (pp *Params) AcceptedNoiseBits(members int) float64 {
	return pp.AcceptedNoiseBitsKey(members, math.Log2(pp.pkError(members)))
}

// AcceptedNoiseBitsKey is AcceptedNoiseBits for a public key whose error
// is at most 2^pkErrorBits (e.g. members·βe for a DKG of honest members).
func (pp *Params) AcceptedNoiseBitsKey(members int, pkErrorBits float64) float64 {
	n, m := float64(pp.N), float64(members)
	t := float64(pp.FHE.PlaintextModulus())
	d := float64(pp.D)
	qp := n * (d + n*2*float64(pp.Z[compU])*math.Exp2(pkErrorBits) + n*m*d)
	b := qp/pp.p() + 2*pp.rounding(members) + n*2*float64(pp.Z[compM])/t + 1
	return math.Log2(b)
}

// HonestNoiseBits is log2 of the noise bound of 2·ct for an honest input ct
// (‖u‖∞ ≤ 1, ‖e_i‖∞ ≤ βe) and a committee of `members` members.
func (pp *Params) HonestNoiseBits(members int) float64 {
	n, m, be := float64(pp.N), float64(members), float64(BetaE)
	return math.Log2(2 * ((be+n*pp.pkError(members)+n*m*be)/pp.p() + pp.rounding(members)))
}

// CraftableNoiseBits is log2 of the noise bound of 2·ct for an input ct
// whose witness has ‖w_i‖∞ ≤ ⌊Z_i/2⌋: a witness for which a cheating
// prover always passes (see above).
func (pp *Params) CraftableNoiseBits(members int) float64 {
	n, m := float64(pp.N), float64(members)
	u, e := float64(pp.Z[compU]/2), float64(pp.CraftableE())
	qp := e + n*u*pp.pkError(members) + n*m*e
	return math.Log2(2 * (qp/pp.p() + pp.rounding(members) + float64(pp.Z[compM]/2)/float64(pp.FHE.PlaintextModulus()) + 1))
}

// CraftableE is ⌊D/(4·N·r)⌋: a prover whose errors have ‖e_i‖∞ ≤ CraftableE
// keeps the high parts of all 2·N·r coefficients of V = W − c·e with
// probability ≈ exp(−2·N·r·‖e‖∞/D) ≥ e^{−1/2} per attempt, so it passes
// after a few restarts (see above).
func (pp *Params) CraftableE() int64 {
	return int64(pp.D / (4 * uint64(pp.N) * uint64(pp.Reps)))
}

// AcceptedNoiseBits is Params.AcceptedNoiseBits for a BGV preset.
func AcceptedNoiseBits(p *fhe.Params, members int) (float64, error) {
	if members < 1 {
		return 0, fmt.Errorf("zkpok: committee of %d members", members)
	}
	pp, err := ParamsFor(p)
	if err != nil {
		return 0, err
	}
	return pp.AcceptedNoiseBits(members), nil
}
