// Package protocol implements the committee's cryptographic protocols on
// Lattigo's multiparty package, talking only to a transport.Mux.
//
// # Key generation (RunDKG)
//
// The n members run the n-of-n protocols of Mouchet, Troncoso-Pastoriza,
// Bossuat and Hubaux, "Multiparty Homomorphic Encryption from
// Ring-Learning-with-Errors" (PETS 2021, no. 4, pp. 291–311; ePrint
// 2020/304), as Lattigo's multiparty package implements them, one protocol
// per key (and in RunDKG one method per round). Member i draws its own
// secret s_i; the collective secret s = Σ_i s_i is never assembled. Because
// RLWE is linear in the secret, sums of per-member shares are keys under s:
//
//   - public key (PublicKeyGenProtocol): member i sends −a·s_i + e_i for a
//     common a, and pk = (Σ_i(−a·s_i + e_i), a) = (−a·s + e, a). Each
//     share carries a proof of knowledge of (s_i, e_i) with s_i ternary
//     and e_i short (zkpok.ShareKey: the input proof's Σ-protocol on the
//     linear relation [−a, 1]·(s_i, e_i) = p_i over R_QP, bound to the
//     epoch, the member and the CRS seed); every member verifies every
//     other's, and a share whose proof fails aborts the round naming its
//     sender (ErrBadKeyShare). The proof is approximate: an accepted share
//     has ‖e_i‖∞ ≤ N·Z_e (2^36 / 2^38 on BGVN13 / BGVN14, against 19
//     honest; fhe/zkpok, "Public-key shares"), and the noise bounds take
//     ‖e‖∞ ≤ n·N·Z_e;
//   - relinearisation key (RelinearizationKeyGenProtocol): a key-switching
//     key from s² to s; s² = Σ_i Σ_j s_i·s_j is not linear in the shares, so
//     it takes two rounds, the first with ephemeral secrets;
//   - Galois keys (GaloisKeyGenProtocol), one round per element k the plans
//     need: key-switching keys between s and its automorphism σ_k(s), again
//     sums of per-member gadget encryptions built from s_i and σ_k^{-1}(s_i).
//
// The common polynomials a are drawn, round by round, from a PRNG keyed by a
// CRS seed: keccak256 of the epoch, the preset and the 32 random bytes
// every member committed to (a committed round, below) and then revealed, so
// no member chooses it.
//
// Each member then thresholdises its secret (Thresholdizer): it draws a
// random polynomial P_i of degree t−1 over the ring with P_i(0) = s_i and
// sends P_i(j) privately to member j over the authenticated, encrypted
// transport (the member ID j is its Shamir point). It keeps only
//
//	tsk_j = Σ_i P_i(j) = P(j),  P = Σ_i P_i,  P(0) = s,
//
// a Shamir share of s (Mouchet, Bertrand, Hubaux, "An Efficient Threshold
// Access-Structure for RLWE-Based Multiparty Homomorphic Encryption", ePrint
// 2022/780, the t-of-n scheme of Lattigo's Thresholdizer and Combiner), and
// zeroes s_i. Any set S of t members recovers s linearly,
// s = Σ_{j∈S} λ_j^S·tsk_j with λ_j^S = Π_{k∈S, k≠j} k/(k−j), without
// anyone holding it. Finally the members compare the digest of the public
// material (pk, relinearisation and Galois keys) and fail on any
// difference. SelfTest, run by the caller afterwards, threshold-decrypts
// public test ciphertexts to catch inconsistent Shamir shares; each dealer
// also committed to every share it sent (keccak of the share), and when
// the self-test fails — the key set then discarded — every member opens its
// polynomial and each dealer whose commitments no polynomial of degree < t
// explains, or whose P_i(0) is not the secret behind its public-key share
// (p_i + a·P_i(0) not short), is named (open on abort, dkg_open.go).
//
// # Threshold decryption (ThresholdDecrypt)
//
// A result ciphertext (c0, c1) is first modulus-switched to the plan's
// decryption level ℓ (PlanNoise) by rescales (PrepareForDecryption): each
// divides the noise by the prime it drops, so a result carrying more than
// the floor — an accepted input's soundness slack reaches a linear policy's
// result unchanged (fhe/zkpok, AcceptedNoiseBits) — is back near the floor
// before any share reveals it, and the secret-dependent value is c1·s modulo
// the smallest modulus that still holds the flooding noise. It is then sanitised (sanitise.go): a
// commit-reveal coin toss among the participants seeds an encryption of zero
// under the collective key that everyone adds, so the c1 below is
// c1 + u·a, chosen by nobody. Member j's share is
//
//	d_j = c1·tsk_j + e_j,  e_j ← D_{Z,σ_flood} (GaussianSampler, gaussian.go),
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
// and excluded. A value is returned only when the shares of at least
// CheckedMembers(t) = max(t+1, 2t−1) participants agree on it (otherwise
// t−1 colluders could lie on one polynomial through the honest points):
// with exactly t shares there is no value (ErrUncheckedDecryption).
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
// We set σ_flood ≥ 2^30 · B_ct with B_ct = 2^16 (noise.CiphertextBits: the
// measured noise of a Lattigo BGV result is ≈2^4.4 std / 2^6.6 max at
// N=2^13; 2^16 covers sums of hundreds of them), i.e. σ_flood = 2^46, and
// choose the lowest level ℓ at which (8σ·Σ_{j∈S}|Δλ_j| + Δ·B_ct)·t_p < Q_ℓ/2
// holds for every t-subset S with ≥ 2 bits of headroom (PlanNoise; samples
// are rejected beyond 8σ, and the sum is bounded by twice its larger term). For BGVN13, 3-of-5, that is level 2
// (Q_2 ≈ 2^108); for BGVN14 level 1 (Q_1 ≈ 2^84). Ciphertexts below ℓ are
// first refreshed collectively. The headroom left above 2 bits at ℓ then
// raises σ (whole bits, up to 2^59: 2^49 for BGVN14 3-of-5, 2^59 for BGVN13
// 3-of-5). The base σ is a deployment parameter (FloodingBits of the
// consensus package's CommitteeConfig); docs/committee.md gives the Rényi
// bound per preset: log R_2 ≤ Q·N·(t·B_ct/σ)² over Q decryptions.
//
// # Collective refresh (Refresh)
//
// For plans that run out of depth the committee refreshes a ciphertext by
// masked decryption with public, proven masks — the verified refresh: no
// member running modified code can move its output (docs/committee.md,
// "Verified refresh and decryption"). Each of r ≥ CheckedMembers(t) =
// max(t+1, 2t−1) contributors encrypts a uniform plaintext M_i at the top
// level under the collective key with the input proof of plaintext
// knowledge (fhe/zkpok, bound to the session and to i) and commits to it
// before it reveals it; every receiver verifies every proof. The masked
// input Z = Y + Σ X_i (Y sanitised, the masks' limbs dropped to Y's level,
// which keeps t⁻¹·M_i in the phase) is then decrypted by every t-subset S
// of the contributors: member j sends, for each S holding it, its additive
// share λ_j^S·tsk_j (Lattigo's Combiner) times c1(Z) plus its own flooding
// E_j^S ← D_{Z,σ_j}, σ_j = 2^noise.RefreshFlooding/√t (GaussianSampler), as
// one committed bundle issued once through the ledger. The value z = m +
// ΣM_i is used only when all C(r, t) subsets decode it — with r ≥ 2t−1 one
// of them is all honest — and the output is the trivial encryption of z at
// the top level minus Σ X_i, whose plaintext is m whatever the masks
// encrypt. A disagreement aborts (ErrRefreshDisagree) naming only the
// members every explanation with t−1 deviators includes; a bad proof names
// its sender. What a receiver learns of Z's noise (the input's plus the
// honest masks') is hidden by one honest E_j^S per subset; a ciphertext
// below noise.RefreshFloorLevel (with the masks' noise counted) is refused
// (ErrRefreshNoRoom).
//
// RefreshTransform (transform.go) is the same masked decryption with a
// public linear slot map T applied to the decoded values; each masker also
// sends proven encryptions W of T(M_i), and a check decrypts, for C random
// challenges ρ, only the constant coefficient of Σ W·ρ − Σ X·T*(ρ), which
// is (s/N)·⟨ρ, w − T(M)⟩ because a plaintext's slots sum to N times its
// constant coefficient: zero for an honest masker, non-zero with
// probability 1 − 1/t per challenge otherwise (docs/committee.md,
// "Verified refresh and decryption").
//
// # Re-encryption to a new committee's key (Reencrypt)
//
// When the committee rotates, t members switch each stored ciphertext from
// the collective secret s to the next committee's public key pk' with
// Lattigo's PublicKeySwitchProtocol (collective public-key switching, PETS
// 2021 §IV-C): member j, with its Combiner additive share s_j, sends
// (c1·s_j + u_j·pk'0 + e0_j + E_j, u_j·pk'1 + e1_j) and (c0 + Σh0, Σh1)
// encrypts m under pk'. E_j is flooding noise with the decryption's σ
// (ReencryptSigmaBits): the holders of the target secret see
// Δm + e_ct + ΣE_j, and e_ct depends on s. The output carries that noise,
// so the new committee refreshes it before use. The ledger pins one target
// key per (ciphertext, epoch) (KindReencrypt).
//
// A corrupt active old member can add K to its h1_j: the output's phase
// under s′ then holds K·s′, which the new committee's first refresh shows
// its members (TestReencryptKShift). CrossKeySwitch avoids it: collective
// key switching run jointly by t old and t′ new members, whose output
// keeps the input's c1, with pairwise-masked shares (keyswitch.go).
//
// # Commit before reveal
//
// The protocols above are simulation-secure against semi-honest parties.
// Every round whose shares are summed — the DKG's key rounds, refresh,
// refresh transform, re-encryption, key switch and decryption — commits to
// each share (SHA-256 over session, type, member and share) and reveals it
// only once the round's commitments are in, so no corrupt share can depend
// on an honest one of its round (the rushing relinearisation attack,
// TestDKGRushingRelinearisation), and a reveal that does not match its
// commitment names its sender (ErrEquivocation; commit.go). In the rounds
// every sender must complete (exchangeCommitted: the DKG's, refresh,
// re-encryption, key switch; not the decryption's quorum round) the
// commitments are signed with the members' identity keys and echoed: a
// member reveals only once every sender confirms it holds the same
// commitments, so a member that commits differently to different members
// gains nothing and is named by every honest member on its own signatures
// (TestDKGSplitViewCommitment).
//
// Every share that reveals anything about s·c1 — decryption, refresh or
// re-encryption — goes through a Ledger that issues at most one share per
// (ShareKind, c1 digest, key epoch), persisted before the share leaves the
// process.
package protocol
