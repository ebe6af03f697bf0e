// Package noise is the committee's noise and flooding model: the bound on a
// result ciphertext's noise that a threshold decryption hides (CiphertextBits),
// the flooding margin every decryption, refresh and re-encryption share adds
// over it (DefaultFloodingBits), the tail bound of the correctness bounds
// (FloodTailSigmas), the committee size bound the noise model assumes
// (MaxMembers), and the collective refresh's flooding and lowest level
// (RefreshFlooding, RefreshFloorLevel).
//
// It holds the one definition of each, below everything that sizes noise:
// consensus/protocol floods with it, policy/eval's admission rule checks
// plans against it (the chain's FHEPolicy.registerPolicy and the
// committee's registry alike), and fhe/pkswitch bounds the private-read
// answers a requester accepts by MaxMembers. It imports only fhe, so the
// MPC layer does not depend on the policy evaluator. Derivations:
// docs/committee.md, "Noise flooding".
package noise

import (
	"fmt"
	"math"

	"github.com/fhegate/fhegate/fhe"
)

const (
	// CiphertextBits is the bound log2 B_ct assumed for the noise of a
	// result ciphertext at the decryption level (Lattigo BGV keeps the noise
	// of c0+c1·s − [t⁻¹m] at ≈2^4.4 std / 2^6.6 max at N=2^13 after any
	// number of rescales, measured by consensus/protocol's
	// TestCiphertextNoise; 16 bits leaves room for sums of ~2^9 such
	// ciphertexts in a plan). Admission refuses plans estimated above it.
	CiphertextBits = 16
	// DefaultFloodingBits is log2(σ_flood / B_ct): each decryption or
	// refresh share carries fresh Gaussian noise 2^30 times larger than the
	// ciphertext noise it hides.
	DefaultFloodingBits = 30
	// FloodTailSigmas is the tail bound of the correctness bounds: the
	// committee's Gaussian sampler rejects samples beyond 8σ
	// (P[|x| > 8σ] < 2^-48 per coefficient); Lattigo's share noise in the
	// refresh (σ = 3.2) cuts off at 6σ.
	FloodTailSigmas = 8
	// MaxMembers bounds the committee size: collective keys are sums of up
	// to this many members' secrets (the noise model's assumption), and the
	// threshold decryption's combine factor Δ = n! and Lagrange coefficients
	// grow with n and eat the flooding budget. A requester decoding private
	// reads (fhe/pkswitch) accepts answers from at most this many members.
	MaxMembers = 16
)

// RefreshBounds applies a collective refresh's defaults to its noise
// bounds (consensus/protocol.RefreshRequest): a hidden-noise bound below
// CiphertextBits (0 included) counts as CiphertextBits — the refresh's
// sanitisation alone adds an encryption of zero whose noise
// (u·e_pk + e0 + e1·s, ≈2^14 at N = 2^14) depends on s — and the worst
// bound is at least the hidden one.
func RefreshBounds(noiseBits, worstBits float64) (float64, float64) {
	noiseBits = math.Max(noiseBits, CiphertextBits)
	return noiseBits, math.Max(worstBits, noiseBits)
}

// RefreshFlooding returns log2 of the total flooding σ (summed over the t
// active shares) that hides an input noise of 2^noiseBits with
// DefaultFloodingBits of statistical margin, as the decryption does:
// 30 + max(noiseBits, CiphertextBits).
func RefreshFlooding(noiseBits float64) float64 {
	noiseBits, _ = RefreshBounds(noiseBits, 0)
	return DefaultFloodingBits + noiseBits
}

// RefreshFloorLevel is the lowest level at which a collective refresh of
// an input with the given noise bounds (consensus/protocol.RefreshRequest)
// has room for its flooding: t_p·(2^worstBits + FloodTailSigmas·σ) < Q_ℓ/4
// with log2 σ = RefreshFlooding. Decoding the masked sum needs
// t_p·(|e| + 1/2) < Q_ℓ/2 for its noise e = e_in + e_san + ΣE_j; the
// factor 2 covers the sanitisation's ≈2^14, Lattigo's own 3.2-σ share noise
// and ΣE_j beyond 8σ (each E_j is cut at 8σ_j, so the sum can in principle
// reach 8σ·√t; P[|ΣE_j| > 16σ] < 2^−180). It fails when no level of p has
// room.
func RefreshFloorLevel(p *fhe.Params, noiseBits, worstBits float64) (int, error) {
	noiseBits, worstBits = RefreshBounds(noiseBits, worstBits)
	need := math.Log2(float64(p.PlaintextModulus())) + 2 +
		math.Log2(math.Exp2(worstBits)+FloodTailSigmas*math.Exp2(RefreshFlooding(noiseBits)))
	logQ := 0.0
	for l, q := range p.Q() {
		logQ += math.Log2(float64(q))
		if need < logQ {
			return l, nil
		}
	}
	return 0, fmt.Errorf("protocol: no level of %s has room for a refresh flooding of 2^%.1f over noise 2^%.1f (needs %.1f bits of modulus, has %.1f)",
		p.Preset.Name, RefreshFlooding(noiseBits), worstBits, need, logQ)
}
