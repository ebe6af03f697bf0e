// Package circuit holds what a committee member evaluates: the Circuit
// interface and its implementations (the built-in circuits, compiled policy
// plans, PolicyCircuits, and the FHECRDT value read, NewCRDT), the noise
// bounds a collective refresh is sized from (RefreshBounds, PlanBounds) and
// the packing bounds of a packed batch (PackBounds, PackLevel), derived
// below. Nothing here talks to other members: package consensus runs these
// circuits, supplying the collective refresh as a RefreshFunc.
//
// Packed batches: one evaluation for up to Slots() requests of one
// policy (consensus.Member.ProcessPacked).
//
// Slot assignment. A batch's requests are ordered by (block, log index,
// request id) — a function of accepted blocks only — and request r gets
// slot s_r = its index. Clients encrypt each input value replicated in every
// slot; the committee never trusts that: packed input j is
//
//	P_j = Σ_r L_{s_r} ⊙ ct_{r,j}
//
// (fhe.SlotPacker: L_s is the 0/1 plaintext that is 1 in slot s only), so
// whatever a request's ciphertext holds outside its own slot is multiplied
// by zero (the cross-talk attack of TestPackedCrossTalk). A vector request
// (one handle holding all K attributes, fhe/vector.go) is packed by one
// block mask instead of K slot masks, and the accumulators are
// un-interleaved in their refresh (packVector, TestPackedVectorCrossTalk). Each P_j is then
// refreshed collectively to the top level (protocol.Refresh, which also
// sanitises it), the policy circuit runs once on the packed set, the result
// is masked to slots 0 … B−1, threshold-decrypted in one round, and one BLS
// aggregate over bls.VerdictBatchDigest covers all B verdicts.
//
// Refresh noise. A collective refresh returns a top-level ciphertext whose
// noise is the refresh's flooding (≈ 2^24.6, policy/eval.CommitteeNoiseModel
// RefreshBits), not a fresh encryption's (≈ 2^12): a plan that uses every
// level of the preset on such inputs (KYC/AML, depth 9 on BGVN14) decrypts
// to garbage (TestPackedPolicyPlan). So in a packed batch every refresh — of
// a packed input, or at a plan's refresh point — is followed by a rescale by
// the top prime (a product with the all-ones plaintext, the constant 1),
// which divides the flooding by q_L and leaves the rescale floor, and the
// policy runs as compiled with MaxLevel − 1 levels (PolicyCircuits.LookupPacked;
// refresh points where it needs more, every register at a level ≥ the
// preset's refresh floor).
//
// Mask level ℓ (PackLevel): the product is taken on the first ℓ+1 limbs of
// each input (dropping levels is free; the product costs 2·(ℓ+1)·N
// multiply-adds per input), so ℓ is the lowest level at which the packed
// input both decrypts and has room for its refresh's flooding, even if
// every input carries the worst noise an input proof accepts. In Lattigo's
// BGV convention a ciphertext decrypts to c0 + c1·s = t⁻¹·m + e (mod Q_ℓ),
// correctly while |e| < Q_ℓ/(2t). Multiplying by the mask L_s (lifted
// coefficients in [0, t)) gives L_s·t⁻¹·m + L_s·e = t⁻¹·[L_s·m]_t + k + L_s·e
// with the carry k = (L_s·m − [L_s·m]_t)/t, ‖k‖∞ < N·t, and
// ‖L_s·e‖∞ ≤ N·t·‖e‖∞. Summed over at most S = Slots() requests (and the
// carry of the sum itself, < S), the packed input's noise is at most
//
//	S·N·t·(‖e‖∞ + 1) + S                                  (PackBounds)
//
// with two bounds on ‖e‖∞ (fhe/zkpok, "Soundness slack"):
//
//   - honest, E_h = B_ct = 2^16 (protocol.CiphertextNoiseBits: the bound on
//     an honest ciphertext's noise that the threshold decryption's flooding
//     is sized for; a fresh encryption under a 16-member key is ≈ 2^13.5 at
//     6σ): the secret-dependent part (honest inputs' noise, carries of
//     plaintexts nobody among the attackers knows), which the refresh must
//     hide — RefreshBounds.NoiseBits. (zkpok's deterministic HonestNoiseBits,
//     2^25.6 / 2^27 with every coefficient of u·e_K aligned, would move
//     BGVN14 to ℓ = 3 too; the typical packed noise √S·√N·t·σ_e is ≈ 2^41.)
//   - accepted, E_in = zkpok.AcceptedNoiseBits(p, 16) (2^35.0 on BGVN14,
//     2^33.0 on BGVN13, for the 2·ct the committee evaluates: the proof is
//     over QP and the committee divides the upload by P, so what is left is
//     the message carry): crafted inputs, known to the attacker, which only
//     have to fit — RefreshBounds.WorstBits. This refresh is the inputs'
//     ENTRY REFRESH: no plan consumes an upload before it (a request alone
//     is a batch of one; Member.processAlone, docs/committee.md).
//
// PackLevel is the lowest ℓ that satisfies both the no-overflow rule with
// 2^3 of headroom for the refresh's masks
//
//	log2 W + log2 t + 3  ≤  log2 Q_ℓ          (W the worst packed bound)
//
// and the refresh floor of those bounds, protocol.RefreshFloorLevel(p, H, W)
// (t·(W + 8σ) < Q_ℓ/4 with σ = 2^30·H, H the honest packed bound):
//
//	bgv-n14-t65537: H = 2^60.0, W = 2^79.0; the floor needs
//	  16 + 2 + log2(W + 8·2^90) = 111.0 bits ≤ Q_2 = 2^118, > Q_1 = 2^84:
//	  ℓ = 2 (the refresh's flooding, sized from H, decides the level; with
//	  the proof over Q, W was 2^92.3 and would have needed ℓ = 2 as well).
//	bgv-n13-t65537: H = 2^58.0, W = 2^75.0; 16 + 2 + log2(W + 8·2^88) =
//	  109.0 bits > Q_2 = 2^108, ≤ Q_3 = 2^140: ℓ = 3 (ℓ = 2 before the
//	  refresh flooding was sized from the packed noise).
//
// TestPackLevelFloor checks these numbers. A noise overflow here would corrupt
// EVERY slot of the batch, which is why the level also fits the accepted,
// not only the honest, noise; TestPackedMaxNoise packs an input crafted at
// E_in beside honest ones.
package circuit
