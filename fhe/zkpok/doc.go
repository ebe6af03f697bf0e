// Package zkpok is a non-interactive zero-knowledge proof of plaintext
// knowledge (ZKPoPK) for fhegate's BGV input ciphertexts. It closes the attack "anyone decrypts anyone's data": without it a user could copy a
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
// ciphertext by t gives the textbook form t·(c0 + c1·s) = m + t·e). The
// values are encoded at the upload scale 2^{-1} mod t (see "Soundness":
// the committee evaluates 2·ct), so m is the lift of 2^{-1}·values. Lattigo's
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
// point, so every machine computes the same ct). The proven relation
// (version 4) puts the errors on identity columns:
//
//	ĉ0 = pk0·u + e0 + γ·m,   ĉ1 = pk1·u + e1,   i.e.  ĉ = A′·w′ + e,
//	A′ = [[pk0, γ], [pk1, 0]],  w′ = (u, m),  e = (e0, e1),  γ = P·[t^{-1}]_Q
//
// over R_QP = Z_QP[X]/(X^N+1) (γ the integer P·[t^{-1}]_Q < QP, so γ ≡ 0
// mod P: exactly what the prover adds to ĉ0), with ‖u‖∞ ≤ 1, ‖e_i‖∞ ≤
// βe = 19 and ‖m‖∞ ≤ t − 1 (m is the lifted plaintext polynomial,
// t·[t^{-1}m]_Q read centred). Version 3 proved the same statement as
// A·w = (t·ĉ0, ĉ1), A = [[t·pk0, t, 0, P], [pk1, 0, 1, 0]], w = (u, e0,
// e1, m), with responses for e0 and e1 (40% of its proof). Stating it over QP, before the division, is what makes the
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
// map over R_q with monomial challenges, in the form of Benhamouda–
// Camenisch–Krenn–Lyubashevsky–Neven, "Better Zero-Knowledge Proofs for
// Lattice Encryption and Their Application to Group Signatures" (ASIACRYPT
// 2014), r parallel repetitions under one hash. One repetition proves all N
// coefficients of the ciphertext at once (ring amortisation).
//
//  1. Prover samples, for each repetition k < r, y_{k,i} uniform in
//     [−B_i, B_i]^N (i ∈ {u, m}) and computes W_k = A′·y_k over QP
//     (coefficient domain; no mask for e).
//  2. h = SHA-256(domain ‖ preset ‖ r ‖ chainId ‖ epoch ‖ owner ‖ pkDigest ‖
//     ctHandle ‖ ρ ‖ ⌊W_0/D⌋ ‖ … ‖ ⌊W_{r−1}/D⌋); the challenges are
//     c_k = X^{e_k}, e_k uniform in [0, 2N) from SHAKE256(h) (X^N = −1:
//     c_k ∈ {±X^i}). ⌊W/D⌋ is taken coefficient-wise on the integer
//     representative in [0, QP), D = the smallest of q_0 and the P primes
//     (2^44 = q_0 on BGVN13, 2^40 = p_0 on BGVN14, q_0 on the N = 2^10
//     test rings). D is one of the primes, so W mod D is W's residue there
//     and ⌊W/D⌋ ≡ (W − [W]_D)·D^{-1} modulo every other prime: the high
//     parts are hashed as those residues — exact integer arithmetic, the
//     same bytes on every machine (Key.highParts, TestHighPartsExact).
//  3. z_k = y_k + c_k·w′ over Z[X]/(X^N+1) (a signed rotation: ‖c_k·w_i‖∞ =
//     ‖w_i‖∞ ≤ β_i); restart unless every ‖z_{k,i}‖∞ ≤ Z_i = B_i − β_i (then
//     z is uniform on its box, independent of the witness), and unless every
//     coefficient of V_k = W_k − c_k·e has its low part V mod D in
//     [βe, D − 1 − βe] (then ⌊V_k/D⌋ = ⌊W_k/D⌋, as ‖c_k·e‖∞ ≤ βe). The
//     second condition is on V, which the verifier computes from public
//     values, not on W (Dilithium's check on LowBits(w − c·s2)): a
//     simulator picks z uniform and c, computes V and restarts on the same
//     condition, so the restarts reveal nothing of e (zero knowledge). It
//     fails with probability ≤ 2·N·r·(2βe+1)/D an attempt (2^-21.4 on
//     BGVN13, 2^-16.5 on BGVN14; TestRestartRate: 0 rounding restarts in
//     120 proofs on N = 2^10, BGVN13 and BGVN14, 1.1–1.5 attempts a proof).
//  4. Proof = (h, z, ρ): version 4 ‖ preset ‖ r ‖ h, then z_{k,u}, z_{k,m}
//     packed in k_i + 1 bits per coefficient, then ρ0, ρ1 (each residue mod
//     p_j in ⌈log2 p_j⌉ bits). The decoder checks version (version 3 is
//     refused by name), preset and r, then the exact length, before
//     allocating; the verifier checks ‖z_{k,i}‖∞ ≤ Z_i and ρ < p_j (while
//     decoding), that ct is at the upload scale, rebuilds ĉ, computes
//     V_k = A′·z_k − c_k·ĉ (= W_k − c_k·e for an honest prover) and checks
//     h = SHA-256(… ‖ ⌊V_k/D⌋ for every k).
//
// B_i = 2^{k_i} − 1 with k_i = ⌈log2(4·r·N·β_i)⌉, so the acceptance
// probability is ≈ ∏ exp(−r·N·β_i/B_i) ≥ e^{−1/2} (≈ 1.6 attempts
// expected; the prover gives up after 1000). r = ⌈128 / log2(2N)⌉: 10 on
// N = 2^13 (2^-140), 9 on N = 2^14 (2^-135), 12 on the N = 2^10 test rings.

// # Soundness
//
// Why not one sparse challenge (this package's version 2): every prime of
// QP is NTT-friendly, X^N+1 splits completely mod each, and a difference of
// two challenges c − c′ vanishes in NTT slot j of prime q whenever
// c(ζ_j) ≡ c′(ζ_j) (mod q). A prover off the relation in that one slot
// guesses v, sets W = A·y − v·δ̂ and wins when c(ζ_j) ≡ v: 1/q_min a try,
// ≈ 2^32 tries on BGVN13 (TestAttackSlotGrinding grinds it on an 18-bit
// prime in ≈ 2^18). Worse, in O = Z[X]/(X^N+1) (N a power of two),
// O/(1−X) = F_2, and (1−X)·(1 + X + … + X^{N−1}) = 1 − X^N = 2: over QP,
// g = (1−X)^{-1} = 2^{-1}·(1 + … + X^{N−1}), every coefficient ≈ QP/2. For
// any challenge, c·g = c(1)·g + q_c with q_c short, so a ciphertext off
// the relation by g (garbage in every slot) answers every challenge whose
// c(1) has a fixed parity — all of version 2's (exactly κ coefficients
// ±1), all of the monomials ±X^i (c(1) = ±1), and by the same token one
// parity class of any challenge set: more repetitions of a sparse-challenge
// protocol cannot refuse it (TestAttackRingInverse: accepted on the first
// try). Any Σ-protocol over O extracts only c̄·ĉ = A·z̄ with c̄ a difference
// of challenges, and the committee must evaluate a multiple of ct it knows.
//
// Monomial challenges fix both. For i ≠ j (mod 2N), with d = j − i and
// g_d = gcd(d, 2N) (a power of two), (1 − X^d)·Σ_{l<N/g_d} X^{ld} = 2, so
// X^i − X^j = X^i·(1 − X^d) is invertible modulo every odd prime (no slot
// vanishes: ζ^d ≠ 1 for a primitive 2N-th root ζ) and
// 2/(X^i − X^j) = X^{−i}·Σ_{l<N/g_d} X^{ld} has coefficients in {0, ±1}
// and ‖·‖₁ = N/g_d ≤ N (TestMonomialInverse checks this for every d on
// N = 2^10 and 2^13). Two accepting transcripts with the same W_k and
// challenges X^i ≠ X^j in repetition k and the same hashed high parts
// H_k = ⌊V/D⌋ = ⌊V′/D⌋ give V − V′ = δ with ‖δ‖∞ < D (two integers in
// [0, QP) in one D-interval; D divides QP, so the intervals tile Z_QP),
// i.e. (X^i − X^j)·ĉ = A′·z̄ − δ, ‖z̄_i‖∞ ≤ 2Z_i (i ∈ {u, m}), hence
//
//	2·ĉ = A′·w̄ + ē,   w̄ = (2/(X^i − X^j))·z̄,   ‖w̄_i‖∞ ≤ N·2·Z_i,
//	ē = −(2/(X^i − X^j))·δ,   ‖ē‖∞ ≤ N·(D − 1):
//
// the extracted error is bounded by N·D where version 3 had N·2·Z_e
// (2^25 on BGVN14), and it is divided by P in ct (see "Soundness slack").
// This is special soundness for the relaxed relation "2·ĉ has a short preimage"
// over a challenge set of 2N. Parallel repetition of a special-sound
// protocol has knowledge error (1/2N)^r (Attema–Fehr, "Parallel
// Repetition of (k1, …, kμ)-Special-Sound Multi-Round Interactive Proofs",
// CRYPTO 2022), and Fiat–Shamir keeps it per random-oracle query (a prover
// making Q hash queries wins with probability ≤ (Q+1)·(2N)^{−r}; Attema–
// Fehr–Klooß, TCC 2022): 2^-140 on BGVN13, 2^-135 on BGVN14, 2^-132 on the
// test rings — ≥ 128 bits on every preset, independent of the committee
// size (which enters only the noise bound below) and of the primes (no
// challenge difference vanishes mod any odd prime). Params.SoundnessBits
// is r·log2(2N); `fhegate bench inputs` reports it. The slot grinder now
// needs every repetition's guess right, (2N)^{−r} a try: TestAttackSlotGrinding
// makes 2^20 tries without success and the verifier refuses the last.
//
// What the relation does not give is ĉ itself: a ciphertext off the
// relation by g·b (b short) passes whatever the challenges (it is
// TestAttackRingInverse's forgery). So the committee evaluates 2·ct, which
// it can bound: the client encodes its values at the upload scale
// 2^{-1} mod t (Lattigo's BGV encoder multiplies by the plaintext scale:
// ct carries 2^{-1}·m and decrypts to m), the verifier refuses any other
// scale, and fhe.Ciphertext.Evaluable (members' loads of stored inputs)
// and fhe.SlotPacker (the packed path, which masks stored bytes) turn an
// upload into 2·ct at scale 1, which carries m. The handle stays
// keccak256 of the upload as sent; a committee re-encryption is stored at
// scale 1 and is not doubled again. TestAttackRingInverse checks that the
// forged upload decrypts to garbage while its 2·ct decrypts to the values
// with the noise of an honest input.
//
// # Soundness slack
//
// Honest vs extracted (‖·‖∞), bgv-n13-t65537 (r = 10, k_u = 19, k_m = 35,
// D = q_0 ≈ 2^44): u 1 vs N·2^20 = 2^33, e 19 vs N·D = 2^57 (version 3:
// 2^37), m 2^16 vs 2^49; bgv-n14-t65537 (r = 9, k_u = 20, k_m = 36,
// D = p_0 ≈ 2^40): u 1 vs 2^35, e 19 vs 2^54 (version 3: 2^39), m 2^16 vs
// 2^51, all far below Q_ℓ·P. What the committee may assume of an accepted input is the
// relaxed relation for 2·ĉ. With e_pk = pk0 + pk1·s (the sum of the
// members' key errors: ‖e_pk‖∞ ≤ members·βe for honest shares, and
// members·N·Z_e for shares at the bound their shortness proof admits,
// "Public-key shares" below, which AcceptedNoiseBits now
// assumes: 2^41.0 on BGVN13 for 16 members, BGVN14 unchanged) and
// ĉ = P·ct + [ρ]_P,
// dividing it by P·t gives
//
//	2·(ct0 + ct1·s) = t^{-1}·w̄_m + (ē0 + w̄_u·e_pk + s·ē1 − 2·([ρ0]_P + [ρ1]_P·s))/P   (mod Q)
//
// (γ·w̄_m = P·[t^{-1}]_Q·w̄_m divided by P), so the noise of 2·ct is at most
// N·(D + N·2Z_u·members·βe + N·members·D)/P (2^29.0 on BGVN13 with 16
// members, 2^10 in version 3, where N·2Z_e stood for N·D; 2^-8 on BGVN14:
// the slack on u and e is divided by P) plus 2·(1/2 + 6·√(2N·members/3)) (the rounding,
// ≈ 2^12) plus N·2Z_m/t — the message's carry: the extractor knows 2m only
// up to N·2Z_m, and its multiples of t are noise. AcceptedNoiseBits
// (noise.go) computes this bound from the parameters and the committee
// size: 2^33.0 on BGVN13 with 1 member, 2^33.1 with 16 (version 3: 2^33.0
// for both) and 2^35.0 on BGVN14 (16 members, unchanged) when
// ‖e_pk‖∞ ≤ members·βe; with every share at its proven bound, 2^37.09 /
// 2^41.006 on BGVN13 (1 / 16 members; version 3: 2^37.09 / 2^41.006 — the
// change is below 0.001 bit) and 2^35.0 on BGVN14 (unchanged); PackLevel
// and UploadLevel are unchanged (3 on BGVN13, 2 on BGVN14); against 2^20.1 / 2^21.1 claimed for
// version 2 (a bound on
// c̄·ct for an unknown c̄, which the committee never evaluated). The carry
// dominates, and the factor N in it is real for a prover that answers two
// challenges X^i, X^j with j − i odd (2/(X^i − X^j) then has N non-zero
// coefficients); a prover answering 2^a + 1 challenges of a repetition
// answers two whose exponents agree mod 2^a, which divides the factor by
// 2^a but costs a knowledge error of (2^a/2N)^r. The bound is close to
// tight at the 2^-128 level: a statement off the relation by
// (1 − X^d)^{-1}·b (d odd, b short in the m coordinate) answers the two
// challenges X^e, X^{e+d} of a repetition with a carry ≈ N·‖b‖∞/t, so a
// prover that guesses, per repetition, which pair it will get wins with
// (1/N)^r per hash query (2^-130 on BGVN13, 2^-126 on BGVN14) with an input
// noise ≈ 2^32 / 2^34. CraftableNoiseBits is what a cheating prover with an
// oversized but real witness (‖w_i‖∞ ≤ Z_i/2 for u and m, and
// ‖e_i‖∞ ≤ CraftableE = D/(4·N·r): 2^25.7 on BGVN13, 2^20.8 on BGVN14,
// with which V keeps W's high parts with probability ≥ e^{−1/2} an
// attempt) always gets accepted: 2^19.0
// on BGVN13 and 2^20.0 on BGVN14, all of it the message carry m = v + t·k
// (TestAcceptedNoiseBound crafts one: measured 2^19.0 for 2·ct against
// 2^7.3–7.5 for an honest encryption, and 2^7.2 for u at Z/2 and e at
// CraftableE without the
// carry). What the committee may assume is
// therefore only this bound, which is far above what any plan's decryption
// flooding hides (2^16): the committee passes every input through one
// collective refresh before a plan consumes it (the entry refresh: the
// packed path's refresh of each packed input at consensus/circuit.PackLevel, a
// request alone as a batch of one, or a refresh of each input of a policy
// without a packed plan), sized to hide an honest input's noise and to
// have room for AcceptedNoiseBits as attacker-known noise. Plans start
// from the refresh's output (policy.NoiseModel.InputBits; AcceptedBits
// records this bound), and registration refuses a plan whose estimate from
// there exceeds what the flooding hides. Exact
// proofs that remove the slack (ternary/ℓ2 bounds, Lyubashevsky–Nguyen–
// Plançon, CRYPTO 2022) would remove the carry too.
//
// Scope: BGV presets only (CKKS committees cannot accept uploads until a
// CKKS variant exists — the relation is the same with m the rounded
// Δ-scaled encoding and no t); fresh degree-1 public-key encryptions at a
// level from UploadLevel to the top only (the prover must know u, so fhe.Encryptor's ciphertexts,
// whose randomness Lattigo discards, cannot be proven: use Key.EncryptInts,
// which produces the same distribution).
//
// # Upload level
//
// Everything above holds with Q replaced by Q_ℓ = q_0···q_ℓ: a key of
// level ℓ (NewKeyAt, AtLevel) proves and verifies the relation over
// R_{Q_ℓ·P} with pk reduced mod Q_ℓ·P. The knowledge error does not
// involve Q, the noise bounds (noise.go) are integer bounds that do not
// either, and Q_ℓ only has to hold them (level.go, "The upload level",
// has the argument). Clients encrypt at UploadLevel, the pack level the
// committee drops every input to anyway (BGVN14: level 2, 3 of 10 limbs,
// ciphertext 786452 B instead of 2621460 B; BGVN13: level 3 of 4); the
// proof keeps its size (its responses and ρ = ĉ mod P do not depend on Q)
// and costs less (its transforms and W cover the Q_ℓ·P limbs only).
// Verify takes any level from UploadLevel to the top, with the key of the
// ciphertext's level, and refuses lower ones. The transcript binds the
// level through the ciphertext's handle: the canonical encoding's header
// carries the level, so the same input dropped to another level has
// another handle and its proof does not verify (TestUploadLevel).
//
// # Public-key shares
//
// In the DKG (consensus/protocol, RunDKG) member i publishes
// b_i = −a·s_i + e_i over R_QP, a the common reference polynomial, s_i
// ternary and e_i Gaussian (‖e_i‖∞ ≤ βe = 19). The collective key is
// (Σ b_i, a); its error Σ e_i enters every public-key encryption. A member
// that sends an oversized but still decryptable e_i is not seen by anyone,
// and eats the noise margins every bound assumes. ShareKey proves and
// verifies the shortness of (s_i, e_i) with the machinery of the input
// proof: the relation is linear over R_QP like encryption's,
//
//	A·w = b_i,   A = [−a, 1],   w = (s, e),   ‖s‖∞ ≤ 1, ‖e‖∞ ≤ βe,
//
// and the protocol is the same Σ-protocol with uniform masks, rejection
// sampling, r parallel repetitions with monomial challenges ±X^j and
// Fiat–Shamir (see "Protocol" above): W_k = A·y_k, h = SHA-256(ShareDomain
// ‖ preset ‖ r ‖ epoch ‖ member ‖ CRS seed ‖ b_i ‖ W_0 ‖ … ‖ W_{r−1}),
// z_k = y_k + X^{e_k}·w, accepted iff ‖z_{k,i}‖∞ ≤ Z_i and
// h = SHA-256(… ‖ A·z_k − X^{e_k}·b_i …). Bounds B_i = 2^{k_i} − 1 with
// k_i = ⌈log2(4·r·N·β_i)⌉ and Z_i = B_i − β_i as for uploads; knowledge
// error (2N)^{−r}, the same r (≥ 128 bits on every preset).
//
// What it proves. Special soundness (see "Soundness") extracts, for an
// accepted share, 2·b_i = −a·s′ + e′ with ‖s′‖∞ ≤ 2N·Z_s and
// ‖e′‖∞ ≤ 2N·Z_e. Let s_i be the secret the member deals in the Shamir
// round (the one the committee decrypts with), short (an honest s_i is
// ternary; a long one breaks every decryption, which the DKG's self-test
// sees), and e_i = b_i + a·s_i its real error. Then
// a·(2s_i − s′) = 2e_i − e′. The CRS makes a uniform, and a uniform a has
// no non-zero pair (d, f) with a·d = f and ‖d‖∞·‖f‖∞ below ≈ QP/16 (there
// are fewer such pairs than QP^N values of a·d: a counting argument, not
// an assumption), so unless ‖e_i‖∞ is within a factor ≈ 2^{log2(N·Z_s)+5}
// of QP — an error no decryption survives — 2s_i = s′ and e_i = e′/2:
//
//	‖e_i‖∞ ≤ N·Z_e   (KeyShareErrorBits)
//
// 2^30 on N = 2^10 (r = 12, k_e = 20), 2^36 on bgv-n13 (r = 10, k_e = 23)
// and 2^38 on bgv-n14 (r = 9, k_e = 24), against 19 for an honest share.
// The factor N is the same as the inputs' (2/(X^i − X^j) has up to N
// non-zero coefficients); a cheating prover that really holds its witness
// can make ‖e_i‖∞ up to ≈ Z_e/2 (2^19, 2^22, 2^23) and always pass, like
// CraftableNoiseBits' inputs. An error beyond N·Z_e cannot be proven: the
// share is refused at the round and its sender named (consensus/protocol,
// ErrBadKeyShare). Zero knowledge is the inputs' argument: every accepted
// z_k is uniform on its box whatever w.
//
// # Measured, and published figures beside them
//
// `fhegate bench inputs --runs 3` (medians; version 2 and 3 run
// alternately, three pairs, on a 2-vCPU Intel Xeon with AVX-512 IFMA
// shared with other builds, load average 17–20: noisy; docs/LP-137.md,
// "Input proofs: monomial challenges", has every run), one ciphertext, one
// proof covering all N slots:
//
//	preset           r   soundness  proof       ciphertext  encrypt+prove  verify       v2 verify, same pairs
//	bgv-n13-t65537   10  2^-140     1159203 B   655380 B    361–407 ms     197–415 ms   33–65 ms (200738 B)
//	bgv-n14-t65537   9   2^-135     2326563 B   2621460 B   1.9–3.3 s      988–1428 ms  208–305 ms (557090 B)
//
// Verification costs ≈ 4.4–9.2× version 2 and the proof 5.8× / 4.2×: r full
// responses instead of one (each as wide as version 2's: the masks hide
// r·N coefficients instead of κ-fold products), over the 2× aimed at; a
// single ciphertext has nothing to amortise over.
//
// Version 4 (rounded commitments, docs/LP-137.md "Compact uploads, step 2")
// drops z_e0 and z_e1: 667683 B on BGVN13 and 1404963 B on BGVN14 (−42%,
// −40%); the table above is version 3's on another host, LP-137.md has
// the version 3 / version 4 pairs of one host.
//
// Computing V_k = A′·z_k − c_k·ĉ (Key.residual): one transform of z_u, the
// products by pk and the challenge in the NTT domain, two inverse
// transforms (the high parts are taken in the coefficient domain), and
// γ·z_m added in the coefficient domain: 3 transforms a repetition, as in
// version 3 (the prover's A′·y_k: 3). The challenge needs none: X takes the
// value ψ^{k_j} in NTT slot j (ψ a primitive 2N-th root of unity mod q),
// so X^e takes ψ^{k_j·e mod 2N}, read from a table of the 2N powers built
// once per key. Both give exactly the values of the definition
// (TestVerifierShortcutsExact), so the soundness argument above, which is
// about the values verified, not how they are computed, applies. Fewer
// than 3 transforms needs fewer repetitions, i.e. a different protocol
// (amortisation over an upload's ciphertexts, or exact proofs).
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
