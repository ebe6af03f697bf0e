// Package protocol implements the committee's cryptographic protocols on
// Lattigo's multiparty package, talking only to a transport.Mux.
//
// # Key generation (RunDKG)
//
// The n members run the n-of-n protocols of Mouchet, Troncoso-Pastoriza,
// Bossuat and Hubaux, "Multiparty Homomorphic Encryption from
// Ring-Learning-with-Errors" (PETS 2021): collective public key
// (PublicKeyGenProtocol), relinearisation key (two-round
// RelinearizationKeyGenProtocol) and the Galois keys the plans need
// (GaloisKeyGenProtocol), with common random polynomials drawn from a CRS
// whose seed is keccak256 of commit-then-reveal contributions of every member.
// Each member then thresholdises its secret s_i (Thresholdizer: a random
// degree t−1 polynomial P_i with P_i(0) = s_i, share P_i(j) sent privately to
// member j over the authenticated, encrypted transport) and keeps only
// tsk_j = Σ_i P_i(j), a Shamir share of s = Σ s_i (Mouchet, Bertrand, Hubaux,
// "An Efficient Threshold Access-Structure for RLWE-Based Multiparty
// Homomorphic Encryption", ePrint 2022/780). The members compare the digest of
// the public material before accepting it.
//
// # Threshold decryption (ThresholdDecrypt)
//
// A result ciphertext (c0, c1) is first dropped to the plan's decryption level
// ℓ (PlanNoise): Lattigo's BGV keeps the noise at its floor through rescales,
// so the remaining secret-dependent value is c1·s modulo the smallest modulus
// that still holds the flooding noise. Member j's share is
//
//	d_j = c1·tsk_j + e_j,  e_j ← rounded Gaussian of std σ_flood,
//
// which does not depend on who else takes part. Any t shares combine with
// Shoup's integer Lagrange trick (EUROCRYPT 2000): with Δ = n! every Δ·λ_j is
// a small integer, and
//
//	Δ·c0 + Σ_{j∈S} Δλ_j·d_j = Δ·(c0 + c1·s) + Σ Δλ_j·e_j,
//
// which decodes to Δ·m; the plaintext scale absorbs Δ mod t. Because every
// t-subset yields a decryption, r ≥ t+1 shares cross-check each other and
// r ≥ t+2f identify f bad shares (RobustCombine, Reed–Solomon-style
// decoding); a member whose share disagrees with the majority is reported
// and excluded. With exactly t shares the result is not cross-checked.
//
// # Noise flooding: which σ and why
//
// Revealing c0 + c1·s to anyone leaks the ciphertext noise, which is a
// function of the secret key. Li and Micciancio ("On the Security of
// Homomorphic Encryption on Approximate Numbers", EUROCRYPT 2021) showed
// passive key recovery from decryptions of CKKS (IND-CPA-D); Cheon, Choe,
// Passelègue, Stehlé and Suvanto ("Attacks Against the IND-CPA-D Security of
// Exact FHE Schemes", ePrint 2024/127, CCS 2024) extended it to BGV/BFV when
// decryption noise is observable or decryption can fail, and threshold
// decryption reveals the full phase to the share holders. The defence is to
// flood each share with fresh noise much larger than the ciphertext noise
// (Asharov et al., EUROCRYPT 2012; with Rényi-divergence arguments the
// flooding can be far smaller than 2^λ, Boudgoust–Scholl, ASIACRYPT 2023) and
// never to share the same ciphertext twice (the share ledger).
//
// We set σ_flood = 2^30 · B_ct with B_ct = 2^16 (CiphertextNoiseBits: the
// measured noise of a Lattigo BGV result is ≈2^4.4 std / 2^6.6 max at
// N=2^13; 2^16 covers sums of hundreds of them), i.e. σ_flood = 2^46, and
// choose the lowest level ℓ at which t·(8σ·Σ|Δλ| + Δ·B_ct)·t_p < Q_ℓ/2 still
// holds with ≥ 2 bits of headroom. For BGVN13, 3-of-5, that is level 2
// (Q_2 ≈ 2^108); for BGVN14 level 1 (Q_1 ≈ 2^84). Ciphertexts below ℓ are
// first refreshed collectively. The σ is a deployment parameter
// (MemberConfig.FloodingBits): it trades decryption level against the
// statistical distance 2^-30-ish per share that the flooding buys.
//
// # Collective refresh (Refresh)
//
// For plans that run out of depth, Lattigo's mpbgv RefreshProtocol (masked
// decryption to additive shares, re-encryption at the top level) runs among
// exactly t active members, each using its Lagrange-weighted additive share
// of s from the Combiner. Every receiver computes the same output ciphertext;
// the caller compares digests. The refresh flooding σ (RefreshSigma) is bounded
// by the input level's modulus; the message itself is hidden by a uniform mask.
//
// Every share that reveals anything about s·c1 — decryption or refresh — goes
// through a Ledger that issues at most one share per (kind, c1 digest, key
// epoch), persisted before the share leaves the process.
package protocol
