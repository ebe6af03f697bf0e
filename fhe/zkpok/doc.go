// Package zkpok is a non-interactive zero-knowledge proof of plaintext
// knowledge (ZKPoPK) for fhegate's BGV input ciphertexts. It closes issue 11
// attack (2), "anyone decrypts anyone's data": without it a user could copy a
// victim's ciphertext (or re-randomise it by adding a fresh encryption of 0),
// upload it as their own, evaluate the identity policy and read the victim's
// plaintext in a public verdict. Every upload now carries a proof, bound to
// (chain id, key epoch, owner, public-key digest, ciphertext handle), that the
// uploader knows the encryption randomness and the plaintext.
//
// No maintained Go library provides this (Lattigo, upstream v6 and the luxfi
// v7 fork, has no zero-knowledge proofs), so the protocol is implemented here
// on top of Lattigo's RNS ring arithmetic.
//
// # Relation
//
// Lattigo BGV puts the message in the low bits scaled by t^{-1} mod Q (the
// bgv.Encoder multiplies the lifted plaintext by [t^{-1}]_Q; multiplying a
// ciphertext by t gives the textbook form c0 + c1·s = m + t·e). A public-key
// encryption of the integer plaintext polynomial m (|m_i| < t) under the
// committee key pk = (pk0, pk1) = (−a·s + e_pk, a) is, at the top level Q,
//
//	c0 = pk0·u + e0 + [t^{-1}]_Q·m,   c1 = pk1·u + e1   (mod Q, in R_Q = Z_Q[X]/(X^N+1))
//
// with u ternary and e0, e1 from Lattigo's discrete Gaussian (σ = 3.2,
// truncated at 19). The prover encrypts itself (EncryptInts) so that it holds
// the witness; it samples over Q only (no auxiliary P, Lattigo's
// encryptZeroPkNoP form), so c0 + c1·s = t^{-1}m + e0 + e1·s + e_pk·u. The
// proof is for the equivalent relation with integer coefficients
//
//	A·w = (t·c0, c1),  A = [[t·pk0, t, 0, 1], [pk1, 0, 1, 0]],  w = (u, e0, e1, m)
//
// with ‖u‖∞ ≤ βu = 1, ‖e0‖∞, ‖e1‖∞ ≤ βe = 19, ‖m‖∞ ≤ βm = t−1.
//
// # Protocol
//
// A Σ-protocol with rejection sampling made non-interactive with
// Fiat–Shamir with aborts: Lyubashevsky, "Fiat-Shamir with Aborts"
// (ASIACRYPT 2009, uniform masks) and "Lattice Signatures without Trapdoors"
// (EUROCRYPT 2012); as a proof of knowledge of a short preimage of a linear
// map over R_q, in the form of Benhamouda–Camenisch–Krenn–Lyubashevsky–Neven,
// "Better Zero-Knowledge Proofs for Lattice Encryption and Their
// Application to Group Signatures" (ASIACRYPT 2014), and Baum–Damgård–
// Lyubashevsky–Oechsner–Peikert, "More Efficient Commitments from Structured
// Lattice Assumptions" (SCN 2018, the relaxed opening). One repetition proves
// all N coefficients of the ciphertext at once (ring amortisation).
//
//  1. Prover samples y_i uniform in [−B_i, B_i]^N (i ∈ {u, e0, e1, m}),
//     computes W = A·y mod Q (two polynomials at the top level, NTT form).
//  2. h = SHAKE256(domain ‖ preset ‖ chainId ‖ epoch ‖ owner ‖ pkDigest ‖
//     ctHandle ‖ W) (32 bytes); c = Challenge(h), a ternary polynomial with
//     exactly κ non-zero coefficients (±1), κ minimal with C(N,κ)·2^κ ≥ 2^128
//     (N=2^13: κ=11; N=2^14: κ=10).
//  3. z_i = y_i + c·w_i over Z[X]/(X^N+1); restart unless every
//     ‖z_i‖∞ ≤ Z_i = B_i − κ·β_i (then z is uniform on its box, independent of
//     the witness: zero knowledge).
//  4. Proof = (h, z). The verifier checks ‖z_i‖∞ ≤ Z_i and
//     h = SHAKE256(… ‖ A·z − c·(t·c0, c1)).
//
// B_i = 2^{k_i} − 1 with k_i = ⌈log2(4·N·κ·β_i)⌉, so the acceptance
// probability is ≥ ∏ exp(−N·κ·β_i/B_i) ≥ e^{−1} (≈ 2.7 attempts expected;
// measured ≈ 1.5–2).
//
// # Soundness slack
//
// Special soundness gives, from two accepting transcripts with the same W, a
// relaxed opening: a c̄ = c − c′ ≠ 0 with ‖c̄‖∞ ≤ 2 and at most 2κ non-zero
// coefficients, and z̄ = z − z′ with
//
//	A·z̄ = c̄·(t·c0, c1),   ‖z̄_i‖∞ ≤ 2·Z_i < 2·B_i ≈ 8·N·κ·β_i.
//
// So the slack against the honest witness is the factor c̄ on the statement
// and ≈ 8·N·κ ≈ 2^{19.5} (N=2^13) / 2^{20.3} (N=2^14) on every norm: the
// extracted u, e0, e1 have ‖·‖∞ < 2^{21} / 2^{26}; the extracted plaintext
// z̄_m (‖·‖∞ < 2^{37}, far below every q_i·… of Q so it is unique) is
// c̄·m in the honest case. What this stops: the copier of a victim's
// ciphertext, or of it plus an encryption of 0, would have to output (c̄, z̄)
// with c̄·ct_victim = A·z̄, i.e. a short opening of a multiple of the victim's
// ciphertext, which decrypts (times t) to z̄_m + t·(small) and so reveals
// c̄·m_victim mod t — the plaintext it set out to learn; producing that from
// ct alone is breaking RLWE. A replayed proof fails because the owner, chain
// id, epoch and ciphertext handle are inside h.
//
// What the committee must assume of an accepted input: only the relaxed
// relation. Its noise is bounded through c̄, not directly: c̄·(c0 + c1·s)·t =
// z̄_m + t·(z̄_e0 + z̄_e1·s + z̄_u·e_pk), whose noise is at most
// 2Z_e + 2N·Z_u·βe·2 + … ≈ 2^{26} + N·2^{22}·19 ≈ 2^{40} (N=2^13) rather than
// the honest ≈ 2^{10}. Circuits, noise-flooding at decryption (the flooding
// noise must statistically hide ≥ 2^{40}·‖c̄^{-1}‖ worst-case input noise, not
// the honest bound) and correctness claims for evaluations mixing several
// users' inputs must be sized for that slack; an input with more noise than
// the parameters absorb can only corrupt verdicts it takes part in. Tightening
// it (exact ternary/ℓ2 proofs, Lyubashevsky–Nguyen–Plançon CRYPTO 2022,
// ≈ 20–40 KB) is future work.
//
// # Published figures beside ours
//
// BCKLN14 reports proofs for Ring-LWE encryption of a few tens of KB for
// N = 1024-ish rings; the amortised relaxed proofs of Baum–Damgård–Larsen–
// Nielsen (CRYPTO 2017) and TopGear (Baum–Cozzo–Smart, SAC 2019, SPDZ
// ZKPoPK, N = 2^15-2^16) are in the 0.5–1 MB per ciphertext range with
// prover ≈ 0.1–1 s per ciphertext; LNP22 reports ≈ 15–20 KB for exact
// proofs over N = 2^11-ish. Ours (see BenchmarkProve/BenchmarkVerify and
// `fhegate bench inputs`): bgv-n13-t65537 ≈ 115 KB, bgv-n14-t65537 ≈ 232 KB
// per ciphertext (the ciphertexts are 655 KB and 2.6 MB).
package zkpok
