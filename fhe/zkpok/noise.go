package zkpok

import (
	"fmt"
	"math"

	"github.com/fhegate/fhegate/fhe"
)

// Noise bounds of an accepted input, in bits (log2 of an ∞-norm of the
// noise in Lattigo's scaling, c0 + c1·s = [t^{-1}·m]_Q + ν). See the package
// doc, "Soundness slack", for the derivation; in short:
//
//   - honest (HonestNoiseBits): ν = e′0 + u·e_K + s·e′1 with ‖u‖∞ ≤ 1,
//     ‖e′_i‖∞ ≤ βe; a worst-case bound βe + N·βe_K + N·members·βe;
//   - accepted (AcceptedNoiseBits): special soundness only gives a c̄ ≠ 0
//     (‖c̄‖∞ ≤ 2, ≤ 2κ non-zero coefficients) and z̄ with
//     c̄·t·(c0 + c1·s) = z̄_m + t·(z̄_e0 + z̄_u·e_K + s·z̄_e1), ‖z̄_i‖∞ ≤ 2·Z_i.
//     Dividing by t (t is invertible mod Q), t^{-1}·z̄_m = t^{-1}·[z̄_m]_t +
//     (z̄_m − [z̄_m]_t)/t, so the noise of c̄·ct is at most
//
//     2Z_e0 + N·2Z_u·βe_K + N·members·2Z_e1 + 2Z_m/t + 1.
//
// ‖s‖∞ ≤ members (the collective secret is the sum of the members' ternary
// secrets) and βe_K = BetaE(N·members) bounds the rounded key's noise
// e_K = K0 + K1·s = (e_pk − ρ0 − ρ1·s)/P: ρ1·s/P is a sum of N products of a
// uniform [−1/2, 1/2] and a coefficient of s (variance ≤ 2·members/3), whose
// standard deviation is ≤ √(N·members/18); BetaE takes 12 standard
// deviations of the larger √(N·members/12) (a high-probability bound over
// the honest key, like BetaE itself; the attacker does not choose e_K).
// The slack is the ratio, ≈ 2·Z_i/β_i ≈ 8·N·κ ≈ 2^20 (N = 2^13) and 2^21
// (N = 2^14), and the extra factor c̄ (which has no short inverse in
// general): what the committee may assume of an accepted input is the
// bound on c̄·ν, and that is what AcceptedNoiseBits returns.
//
// CraftableNoiseBits is the other side: the largest noise of an input whose
// witness the attacker really holds and which it can always prove. A prover
// with ‖w_i‖∞ ≤ ⌊Z_i/κ⌋ that draws its masks from the smaller box
// [−(Z_i − κ‖w_i‖∞), Z_i − κ‖w_i‖∞] always passes the verifier's
// ‖z_i‖∞ ≤ Z_i (it gives up zero knowledge, which it does not need), so such
// inputs are accepted; TestAcceptedNoiseBound crafts them.

// AcceptedNoiseBits is log2 of the noise bound an accepted input has for a
// committee of `members` members (see above). It depends only on the
// preset and the committee size, so the chain and the committee compute the
// same number.
func (pp *Params) AcceptedNoiseBits(members int) float64 {
	n := float64(pp.N)
	m := float64(members)
	eK := float64(BetaE(pp.N * members))
	t := float64(pp.FHE.PlaintextModulus())
	b := 2*float64(pp.Z[compE0]) + n*2*float64(pp.Z[compU])*eK + n*m*2*float64(pp.Z[compE1]) + 2*float64(pp.Z[compM])/t + 1
	return math.Log2(b)
}

// HonestNoiseBits is log2 of the worst-case noise bound of an honest input
// (‖u‖∞ ≤ 1, ‖e′_i‖∞ ≤ βe) for a committee of `members` members.
func (pp *Params) HonestNoiseBits(members int) float64 {
	n := float64(pp.N)
	be := float64(pp.Beta[compE0])
	eK := float64(BetaE(pp.N * members))
	return math.Log2(be + n*eK + n*float64(members)*be)
}

// CraftableNoiseBits is log2 of the worst-case noise bound of an input whose
// witness has ‖w_i‖∞ ≤ ⌊Z_i/κ⌋: the largest witness for which a cheating
// prover always passes (see above). It is below AcceptedNoiseBits by about
// log2(2κ) bits.
func (pp *Params) CraftableNoiseBits(members int) float64 {
	n := float64(pp.N)
	k := int64(pp.Kappa)
	eK := float64(BetaE(pp.N * members))
	u, e := float64(pp.Z[compU]/k), float64(pp.Z[compE0]/k)
	return math.Log2(e + n*u*eK + n*float64(members)*e + float64(pp.Z[compM]/k)/float64(pp.FHE.PlaintextModulus()) + 1)
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
