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
// probability is ≈ ∏ exp(−N·κ·β_i/B_i) ≥ e^{−1} (at most ≈ 2.7 attempts
// expected; the prover gives up after 1000).
//
// # Soundness slack
//
// Special soundness gives, from two accepting transcripts with the same W, a
// relaxed opening: a c̄ = c − c′ ≠ 0 with ‖c̄‖∞ ≤ 2 and at most 2κ non-zero
// coefficients, and z̄ = z − z′ with
//
//	A·z̄ = c̄·(t·c0, c1),   ‖z̄_i‖∞ ≤ 2·Z_i < 2^{k_i+1}.
//
// Honest vs extracted (‖·‖∞): u 1 vs 2^20, e0/e1 19 vs 2^24, m 2^16 vs 2^36
// for bgv-n13-t65537 (κ = 11, k = [19 23 23 35]); one bit more each for
// bgv-n14-t65537 (κ = 10, k = [20 24 24 36]). So the slack is the factor c̄
// on the statement and ≈ 8·N·κ ≈ 2^20 (N = 2^13) / 2^21 (N = 2^14) on every
// norm. z̄_m < 2^37 is far below q0 (2^44 / 2^50), so it is unique mod Q.
//
// Why that stops the attack: the copier of a victim's ciphertext (or of it
// plus an encryption of 0) would have to output (c̄, z̄) with
// c̄·ct = A·z̄, a short opening of a small multiple of a ciphertext it did
// not make; decrypting shows z̄_m ≡ c̄·m_victim (mod t), i.e. it would know
// the plaintext it set out to learn — producing that from ct alone is
// breaking RLWE. A replayed proof fails because the owner, chain id, epoch,
// key digest and ciphertext handle are inside h.
//
// What the committee must assume of an accepted input: only the relaxed
// relation. With the collective key pk0 + pk1·s = e_pk (‖e_pk‖∞ ≤ n·19 for
// n members),
//
//	c̄·t·(c0 + c1·s) = z̄_m + t·(z̄_e0 + z̄_u·e_pk + s·z̄_e1)   (mod Q)
//
// whose noise term is ‖·‖∞ ≤ 2^24 + N·2^20·19n + N·2^24 ≈ N·2^24 ≈ 2^37
// (N = 2^13) / 2^39 (N = 2^14), against ≈ N·19·2 ≈ 2^18 for the worst honest
// fresh encryption: a malicious input may cost ≈ 20 bits more of the noise
// budget, and its own noise is bounded only through c̄ (c̄ has no short
// inverse in general). Circuits mixing several users' inputs, and the
// flooding noise at threshold decryption (which must statistically hide the
// worst-case result noise, not the honest one), must be sized for that;
// an input beyond what the parameters absorb can only corrupt verdicts it
// takes part in. Exact proofs that remove the slack (ternary/ℓ2 bounds,
// Lyubashevsky–Nguyen–Plançon, CRYPTO 2022) are future work.
//
// Scope: BGV presets only (CKKS committees cannot accept uploads until a
// CKKS variant exists — the relation is the same with m the rounded
// Δ-scaled encoding and no t); fresh top-level degree-1 public-key
// encryptions only (the prover must know u, so fhe.Encryptor's ciphertexts,
// whose randomness Lattigo keeps, cannot be proven: use Key.EncryptInts).
//
// # Measured, and published figures beside them
//
// go test ./fhe/zkpok -run '^$' -bench . -benchtime 5x (2 shared cores,
// AMD EPYC, GOMAXPROCS 2), one ciphertext, proof covering all N slots:
//
//	preset           κ   proof     ciphertext  encrypt+prove  verify
//	bgv-n13-t65537   11  106530 B  655380 B    ≈ 115–130 ms   ≈ 10–50 ms
//	bgv-n14-t65537   10  221218 B  2621460 B   ≈ 155–210 ms   ≈ 45–65 ms
//
// (plain encryption ≈ 20 / 42 ms; `fhegate bench inputs --json FILE`
// reproduces the table.) Published figures of the protocol family, quoted
// from memory and not re-checked in this change (no paper access here):
// BCKLN14 and the amortised relaxed proofs used by SPDZ (Baum–Damgård–
// Larsen–Nielsen CRYPTO 2017; TopGear, Baum–Cozzo–Smart SAC 2019) give
// proofs of the same order as ours per ciphertext — tens to hundreds of KB,
// sub-second proving — with the same kind of slack; LNP22's exact proofs
// are reported around 15–20 KB for much smaller rings. Treat these as
// orientation, not as a benchmark comparison.
package zkpok
