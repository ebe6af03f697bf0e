// Package crdt is the ciphertext half of fhegate's encrypted CRDTs: it
// materialises, with homomorphic additions only, the merges that package
// fhe/crdt/meta performs on public metadata (on chain, by the FHECRDT
// precompile). It goes through package fhe only.
//
// # Model
//
// A CRDT object of layout L packs its payload into the BGV slots ("lanes") of
// one ciphertext (t = 65537: lane arithmetic is exact mod t). The public state
// (meta.State) is a partial map block → (clock, writer, handle); merge is the
// pointwise max under the public total order (clock, writer, handle) — a join-
// semilattice, so merge is commutative, associative and idempotent (Shapiro,
// Preguiça, Baquero, Zawirski, "Conflict-free Replicated Data Types", SSS 2011,
// §2.2; see package meta for the argument).
//
// The ciphertext side is a function of the public state:
//
//	agg(S) = Σ_{(b, e) ∈ S} c_b(e)                                          (1)
//
// where c_b(e) = Contribution(L, b, ct(e)) is the writer's ciphertext masked to
// block b's lanes (a 0/1 plaintext product — a writer cannot touch other
// blocks' lanes) and switched once to level L.Level. Because every
// contribution of block b is zero outside b's lanes, lane i of agg(S) holds
// exactly the value of the entry that S keeps for the block owning i: (1) is
// the per-block "mask select" of the newest version, computed by addition.
// Since agg is a function of S, and S ⊔ T is commutative, associative and
// idempotent, so is agg(S ⊔ T) — on the decrypted value and, because
// addition mod Q is exact, on the ciphertext bytes too: all contributions of a
// layout share level and scale, so (1) involves no rescale, no rounding and no
// scale matching, and every merge order yields the same bytes.
//
// Materialise computes agg(A ⊔ B) incrementally from the plan:
//
//	agg(A ⊔ B) = agg(A) + Σ_{b : B wins b} ( c_b(B[b]) − c_b(A[b]) )        (2)
//
// (starting from whichever side needs fewer changes), i.e. 2·|changes|
// additions of ciphertexts at level L.Level (level 0 for counters and
// registers: 2 × N words each). No multiplication and no noise growth beyond
// additions: merges can be chained without bound.
//
// # Types and reads
//
//   - G-Counter / PN-Counter: replica r owns lanes [r·W, (r+1)·W), with public
//     version; the value of counter j is Σ_r lane(r, j), read with one
//     InnerSum(W, R') (R' = R rounded up to a power of two; padding lanes are
//     zero). A PN-Counter's lanes hold P_r − N_r (signed, centred mod t).
//   - LWW: K keys of W lanes; key k keeps the write with the largest public
//     (timestamp, writer id) — the replica-id tie-break of Shapiro et al.'s
//     LWW-Register; K = 1 is a plain register. The read is agg itself.
//   - Set: add-wins over a public universe of W ≤ N elements. Replica r owns a
//     versioned membership vector m_r ∈ {0,1}^W; agg holds the multiplicity
//     Σ_r m_r[i] ≤ R and the read is p(Σ_r m_r[i]) with the degree-R
//     polynomial p(x) = 1 − Π_{k=1..R}(1 − x/k) (p(0) = 0, p(1..R) = 1), in
//     ⌈log2(R+1)⌉ levels, so the layout keeps that many levels; cardinality is
//     one more InnerSum. Union costs no ciphertext multiplication at all (the
//     issue allows one). Why not a 2P-Set or the OR-of-bits union a+b−ab: OR
//     needs the product every merge, consuming one level per merge (bounded
//     chains), and cannot forget, so removal needs a second grow-only
//     tombstone vector (a 2P-Set: remove-forever, two products per union).
//     The per-replica layout lets a replica add and remove its own elements
//     any number of times, concurrent add and remove by different replicas
//     resolve add-wins, and the merge stays additions. The price: a replica
//     can retract only its own adds — under encryption no one can see whose
//     tags hold an element, which an observed-remove (OR-Set) would need.
//
// Every read returns a ciphertext at level 0, ready for threshold decryption.
//
// # Out of scope
//
// Anything whose merge depends on an order of encrypted values — a
// max-register, a G-Counter merged by elementwise max of encrypted counts
// (rather than by public versions), a value-ordered MV-register — needs an
// encrypted comparison (for BGV a polynomial of degree ≈ t, or TFHE
// programmable bootstrapping: Lux's fheCRDT, < 1 merge/s). Not offered: every
// ordering decision here is on public metadata.
//
// # Trust
//
// The masking in Contribution confines a writer to its block; it cannot prove
// that a counter increment is non-negative or that a set vector is 0/1 (that
// needs a zero-knowledge proof of plaintext range, not provided). A replica
// writing out-of-range values corrupts only its own block's value.
package crdt
