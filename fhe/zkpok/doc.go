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
// ciphertext by t gives the textbook form t·(c0 + c1·s) = m + t·e). Lattigo's
// public-key encryption (rlwe.Encryptor.encryptZeroPk) samples u ternary and
// e0, e1 from the discrete Gaussian (σ = 3.2, |e| ≤ 19) and computes over QP
//
//	(c0, c1) = ModDown_P(pk·u + (e0, e1)) + ([t^{-1}]_Q·m, 0)   (mod Q)
//
// with ModDown_P(x) = (x − [x]_P)/P. The prover computes the same thing with
// the plaintext added before the division (ModDown_P(x + P·y) =
// ModDown_P(x) + y, so the ciphertext is distributed exactly as Lattigo's):
//
//	ĉ = pk·u + (e0, e1) + (P·[t^{-1}]_Q·m, 0)   over R_QP,   ct = ModDown_P(ĉ).
//
// The upload is the canonical ct (what every member stores and the chain
// registers; its handle is unchanged) and, inside the proof, ĉ's residues
// ρ = ĉ mod P. The verifier rebuilds ĉ = P·ct + [ρ]_P (mod Q), ρ (mod P) —
// exactly the prover's ĉ, because ModDown_P here is an exact integer map
// (the centred lift [ρ]_P by mixed-radix conversion, moddown.go; no floating
// point, so every machine computes the same ct). The proven relation is
//
//	A·w = (t·ĉ0, ĉ1),  A = [[t·pk0, t, 0, P], [pk1, 0, 1, 0]],  w = (u, e0, e1, m)
//
// over R_QP = Z_QP[X]/(X^N+1), with ‖u‖∞ ≤ 1, ‖e_i‖∞ ≤ βe = 19 and
// ‖m‖∞ ≤ t − 1 (m is the lifted plaintext polynomial, t·[t^{-1}m]_Q read
// centred). Stating it over QP, before the division, is what makes the
// proof's slack harmless: whatever an accepted witness may add to ĉ is
// divided by P (2^45 on BGVN13, 2^80 on BGVN14) in the ciphertext the
// committee evaluates (see "Soundness slack"). Publishing ρ hides
// nothing that needs hiding: (ct, ρ) determines ĉ, which is itself a
// public-key RLWE encryption over QP — the modulus the presets' security is
// sized for (their logQP), with the same u, e distributions. For presets
// without an auxiliary modulus (insecure test rings) P = 1, ρ is empty and
// ct = ĉ.
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
//  2. h = SHA-256(domain ‖ preset ‖ chainId ‖ epoch ‖ owner ‖ pkDigest ‖
//     ctHandle ‖ ρ ‖ W) (32 bytes); c = Challenge(h), a ternary polynomial with
//     exactly κ non-zero coefficients (±1), κ minimal with C(N,κ)·2^κ ≥ 2^128
//     (N=2^13: κ=11; N=2^14: κ=10).
//  3. z_i = y_i + c·w_i over Z[X]/(X^N+1); restart unless every
//     ‖z_i‖∞ ≤ Z_i = B_i − κ·β_i (then z is uniform on its box, independent of
//     the witness: zero knowledge).
//  4. Proof = (h, z, ρ): 2 + 32 bytes, z_i packed in k_i + 1 bits per
//     coefficient, then ρ0, ρ1 (each residue mod p_j in ⌈log2 p_j⌉ bits).
//     The verifier checks ‖z_i‖∞ ≤ Z_i and ρ < p_j (while decoding),
//     rebuilds ĉ and checks h = SHA-256(… ‖ A·z − c·(t·ĉ0, ĉ1)).
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
//	A·z̄ = c̄·(t·ĉ0, ĉ1),   ‖z̄_i‖∞ ≤ 2·Z_i < 2^{k_i+1}.
//
// Honest vs extracted (‖·‖∞), bgv-n13-t65537 (κ = 11, k = [19 23 23 35]):
// u 1 vs 2^20, e 19 vs 2^24, m 2^16 vs 2^36; bgv-n14-t65537 (κ = 10,
// k = [20 24 24 36]): u 1 vs 2^21, e 19 vs 2^25, m 2^16 vs 2^37. So the
// slack is the factor c̄ on the statement and ≈ 8·N·κ ≈ 2^20 (N = 2^13) /
// 2^21 (N = 2^14) on every norm. z̄_m < 2^37 is far below q0 (2^44 / 2^50),
// so it is unique mod Q.
//
// Why that stops the attack: the copier of a victim's ciphertext (or of it
// plus an encryption of 0) would have to output (c̄, z̄) with
// c̄·ĉ = A·z̄, a short opening of a small multiple of a ciphertext it did
// not make; decrypting shows z̄_m ≡ c̄·m_victim (mod t), i.e. it would know
// the plaintext it set out to learn — producing that from ct alone is
// breaking RLWE. A replayed proof fails because the owner, chain id, epoch,
// key digest, ciphertext handle and ρ are inside h.
//
// What the committee may assume of an accepted input: only the relaxed
// relation. With e_pk = pk0 + pk1·s (‖e_pk‖∞ ≤ members·βe, the sum of the
// members' key errors) and ĉ = P·ct + [ρ]_P, dividing the relation by P·t
// gives
//
//	c̄·(ct0 + ct1·s) = t^{-1}·z̄_m + (z̄_e0 + z̄_u·e_pk + s·z̄_e1 − c̄·([ρ0]_P + [ρ1]_P·s))/P   (mod Q)
//
// so the noise of c̄·ct is at most (2Z_e0 + N·2Z_u·members·βe +
// N·members·2Z_e1)/P (below 1 on both presets: the slack on u and e is
// divided away) plus 4κ·(1/2 + 6·√(2N·members/3)) (the rounding, ≈ 2^16)
// plus 2Z_m/t ≈ 2^20 — the message's carry: the extractor knows c̄·m only up
// to 2Z_m, and its multiples of t are noise. AcceptedNoiseBits (noise.go)
// computes this bound from the parameters and the committee size: 2^20.0
// (BGVN13, one key), 2^20.1 (BGVN13, 16 members), 2^21.1 (BGVN14, 16
// members) — it was 2^42.2 / 2^45.4 / 2^48.3 with the relation over Q after
// the division, where the slack on u and e was not divided by anything.
// CraftableNoiseBits is what a cheating prover with an oversized but real
// witness (‖w_i‖∞ ≤ Z_i/κ) always gets accepted: 2^15.6 on BGVN13, all of it
// the message carry m = v + t·k (TestAcceptedNoiseBound crafts one:
// measured 2^15.5 against 2^6.4 for an honest encryption, and 2^6.4 for u
// and e at Z/κ without the carry). The carry is chosen by the uploader
// without knowledge of s, so the heuristic noise rules that bound honest
// noise apply to it: the committee's noise model starts every input at
// AcceptedNoiseBits (policy.NoiseModel.InputBits), and registration refuses
// a plan whose estimate from there exceeds what the flooding hides. Exact
// proofs that remove the slack (ternary/ℓ2 bounds, Lyubashevsky–Nguyen–
// Plançon, CRYPTO 2022) would remove the carry too.
//
// Scope: BGV presets only (CKKS committees cannot accept uploads until a
// CKKS variant exists — the relation is the same with m the rounded
// Δ-scaled encoding and no t); fresh top-level degree-1 public-key
// encryptions only (the prover must know u, so fhe.Encryptor's ciphertexts,
// whose randomness Lattigo discards, cannot be proven: use Key.EncryptInts,
// which produces the same distribution).
//
// # Measured, and published figures beside them
//
// `fhegate bench inputs --runs 11` (medians of three runs; 2 shared cores,
// AMD EPYC, GOMAXPROCS 2, load ≈ 1.1–1.5), one ciphertext, one proof
// covering all N slots (docs/LP-137.md has the runs, and the proof over Q
// it replaced beside them):
//
//	preset           κ   proof     ciphertext  encrypt+prove  plain encrypt  verify
//	bgv-n13-t65537   11  200738 B  655380 B    34 ms          9 ms           15 ms
//	bgv-n14-t65537   10  557090 B  2621460 B   112 ms         32 ms          61 ms
//
// Of each proof, ĉ mod P is 92160 B (N13) and 327680 B (N14).
// (go test ./fhe/zkpok -run '^$' -bench . gives the same sizes; it
// reproduces the table.) Published figures of the protocol family, quoted
// from memory and not re-checked in this change (no paper access here):
// BCKLN14 and the amortised relaxed proofs used by SPDZ (Baum–Damgård–
// Larsen–Nielsen CRYPTO 2017; TopGear, Baum–Cozzo–Smart SAC 2019) give
// proofs of the same order as ours per ciphertext — tens to hundreds of KB,
// sub-second proving — with the same kind of slack; LNP22's exact proofs
// are reported around 15–20 KB for much smaller rings. Treat these as
// orientation, not as a benchmark comparison.
package zkpok
