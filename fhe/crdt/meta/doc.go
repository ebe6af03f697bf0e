// Package meta is the public half of fhegate's encrypted CRDTs: the metadata
// every validator merges on chain, deterministically, without any FHE code.
// It imports neither package fhe nor Lattigo, so the FHECRDT precompile can
// use it directly; the committee later materialises the ciphertext side (the
// parent package fhe/crdt) from the Plan a merge returns.
//
// # State
//
// A state is a Layout (CRDT type, FHE preset, contribution level, number of
// blocks, lanes per block) and a set of Entries, at most one per block:
//
//	Entry = (Block, Clock, Replica, Handle)
//
// Handle names (keccak256 of the canonical bytes) the ciphertext a writer
// submitted for that block. For counters and sets a block is a replica and
// Clock its public version (Replica == Block); for the LWW type a block is a
// register key, Clock the public write timestamp and Replica the writer id.
//
// # Merge
//
// Order entries of one block lexicographically by the public triple
// (Clock, Replica, Handle). This is a total order, so ⊔ = "keep the larger
// entry" is the join of a join-semilattice on each block, and a state (a
// partial map block → entry, an absent block being ⊥) is an element of the
// product lattice. Merge is the pointwise join:
//
//	(a ⊔ b)[k] = max(a[k], b[k])
//
// max over a total order is commutative (max(x,y) = max(y,x)), associative
// (max(max(x,y),z) = max(x,max(y,z))) and idempotent (max(x,x) = x), and a
// pointwise product of semilattices is a semilattice; so merge is a
// state-based CRDT in the sense of Shapiro, Preguiça, Baquero and Zawirski,
// "Conflict-free Replicated Data Types", SSS 2011 (Def. 2.2/Prop. 2.1:
// states form a join-semilattice, merge computes the LUB, updates are
// inflations, hence strong eventual consistency). Because the encoding is
// canonical (entries sorted by block, fixed-width fields), equal states have
// equal bytes: every merge order yields the same bytes on every validator.
//
// Handle breaks ties between different ciphertexts claiming the same
// (Clock, Replica) — which honest writers never produce but a Byzantine
// writer can — so even then replicas converge.
//
// # Types
//
//   - GCounter / PNCounter: block r holds replica r's own counter lanes; the
//     replica bumps its version on every local update and submits its whole
//     new block (its increments are applied client-side or by the committee
//     to its previous ciphertext). The per-replica (version, ciphertext) pair
//     is a register owned by one writer, so the version order is the
//     causality order of that replica's updates. A PN-Counter's replica block
//     holds P_r − N_r directly: with versions there is no need for the two
//     monotone vectors P and N of Shapiro et al.'s Spec. 7 (they exist there
//     because merge is an elementwise max of values; here it is a max of
//     public versions). The value is Σ_r block_r.
//   - LWW (last-writer-wins register map): Blocks keys of Width lanes; each key
//     keeps the write with the largest (timestamp, writer id); Blocks = 1 is a
//     plain LWW-Register of Width lanes (Shapiro et al., Spec. 8).
//   - Set: an add-wins set over the public universe {0..Width−1}. Replica r owns
//     a versioned encrypted membership vector m_r ∈ {0,1}^Width; the set is
//     ⋃_r m_r, read as [Σ_r m_r > 0]. Union of two states is the same per-
//     replica join (no ciphertext multiplication at all); membership costs
//     one polynomial at read time. A replica's remove clears only its own
//     adds: under encryption a remover cannot see whose tags hold an element,
//     which is what an observed-remove (OR-Set, Spec. 15) would need.
//
// # Plan
//
// Each entry's ciphertext is, after normalisation by the committee (masked to
// the block's lanes, switched to Layout.Level), zero outside its block's
// lanes, so a state's aggregate ciphertext is Σ_{entries} contribution. A
// merge's Plan lists for every block of the result which input's ciphertext
// supplies its lanes, and which one it replaces; materialising a merge from
// the aggregate of one input is then Σ(+winner −loser) over the blocks the
// other input wins — additions only, exact modular arithmetic, so the
// aggregate's bytes too are independent of merge order.
//
// # Out of scope
//
// Anything whose merge needs an encrypted comparison — a max-register over
// encrypted values, a G-Counter merged by max of encrypted counts, a
// MV-register ordered by encrypted data — needs an encrypted max, i.e. a deep
// comparison circuit (degree ≈ t for BGV) or TFHE; it is not offered. Every
// ordering decision here is on public metadata.
//
// # Encoding (big-endian)
//
//	"FCRD" | version(1) | type(1) | preset(1) | level(1) | blocks u32 | width u32 | count u32
//	count × ( block u32 | clock u64 | replica u32 | handle [32] )      (48 bytes each)
//
// Entries are strictly ascending by block; every non-canonical input is
// rejected with a *DecodeError (never a panic), and decode∘encode is the
// identity on accepted bytes.
package meta
