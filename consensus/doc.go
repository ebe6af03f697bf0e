// Package consensus is fhegate's MPC committee: the members that take queued
// FHE requests off the block path, evaluate them in batches, and post
// threshold-decrypted, BLS-aggregated verdicts (docs/design.md, "One request,
// end to end", steps 1, 4 and 5).
//
// A Member (NewMember) owns
//
//   - its t-of-n Shamir share of the collective secret and the public key
//     material, from the DKG in package protocol (Lattigo multiparty);
//   - a store (package store, bbolt): canonical ciphertexts by handle, each
//     with the key epoch it is encrypted under, replicated to every member on
//     upload (Member.UploadBatch: 1…MaxUploadItems ciphertexts of one owner)
//     once every member has verified each ciphertext's proof of plaintext
//     knowledge (fhe/zkpok, bound to chain, epoch, owner, key and handle),
//     with one quorum input attestation for the set (aggregate BLS over
//     bls.InputBatchDigest, whose root binds every handle, ctype and proof
//     digest: FHEInput.registerBatch checks it with one pairing);
//   - a share ledger (package ledger): at most one share of each kind
//     (decryption, refresh, re-encryption) per (ciphertext, key epoch), ever,
//     fsync'd before the share leaves;
//   - a transport (package transport): TLS 1.3 with pinned ed25519 member
//     keys, or in-memory for unit tests.
//
// Processing one request (Member.Process):
//
//  1. evaluate the policy circuit deterministically (fhe.Evaluator reads no
//     randomness), calling the collective refresh where a plan runs out of
//     depth;
//  2. exchange keccak256 digests of the result ciphertext; the digest held by
//     ≥ t members (and a strict plurality) wins, members with another digest
//     are excluded from the rest of the request;
//  3. refresh if the result sits below the decryption level + 1, multiply by
//     the slot-0 mask (only the verdict is ever decrypted), drop to the
//     decryption level;
//  4. threshold-decrypt with flooded shares (protocol.ThresholdDecrypt): every
//     t-subset of shares is a decryption, so shares that disagree with the
//     majority are detected and their senders excluded;
//  5. sign bls.VerdictDigest(chainId, epoch, requestId, policyId,
//     resultDigest, result), exchange signatures, aggregate ≥ t valid ones
//     with the signer bitmap, persist the verdict and hand it to the
//     ChainAdapter (lowest signer first; the others after a stagger if it
//     has not landed).
//
// FHECRDT.ValueRequested requests (KindCRDT) carry the state's public
// metadata (fhe/crdt/meta); their circuit materialises the state's aggregate
// from the writer ciphertexts the metadata names (package fhe/crdt: masked
// contributions summed exactly, hence byte-identical on every member) and
// reads the value its type implies — a counter's total, an LWW register's
// value, a set's cardinality — at level 0; steps 2–5 are the same.
//
// A committee rotation (epoch e → e+1, rotation.go, docs/committee.md
// "Rotation") key-switches every stored input from the old collective key
// to the new committee's in one joint session of t old and all new members
// (rotation_joint.go: Member.SwitchToNext on the old members,
// Member.AdoptFromPrevious on the new ones, which refresh and compare the
// results; the cross-committee key switch keeps each input's c1, so no
// member can shift it); handles do not change, and evaluation refuses an
// input stored under another epoch (ErrStaleKey). RotateLocal drives the
// same session for an in-process committee, `fhegate committee rotate
// switch` over the members' TLS transports.
//
// Packed batches (packed.go, batch.go): policy requests of one
// policy that arrive within an aligned window of blocks are evaluated
// together — request r's inputs masked to slot r (fhe.SlotPacker) and
// summed, one collective refresh per packed input, one evaluation, one
// threshold decryption of all verdict slots, one BLS aggregate over
// bls.VerdictBatchDigest, posted with ChainAdapter.SubmitVerdictBatch.
// Batch membership is a function of accepted blocks only.
//
// Input roots (roots.go): a rooted upload
// (Member.UploadBatchRooted, "rooted" in POST /v1/inputs) also gets a place
// in one Merkle root over the digests of the rooted uploads its member
// receives within RootWindow (bls.InputRootTree); the members sign
// bls.InputRootDigest once for all of them, each only over upload digests
// it signed itself in the last SignedDigestTTL, so the chain pays one
// pairing per root (FHEPolicy.evaluateRooted). A root round that fails
// leaves the uploads with their own attestations.
//
// Run drives this from a ChainAdapter's request stream in batches and keeps
// a persisted block cursor; StartLocalCommittee runs n members in one process
// over loopback TLS (for `fhegate devnet` and tests). docs/committee.md
// describes the message formats and failure handling.
//
// The files follow a member's responsibilities: member.go (the type, its
// constructor and accessors), keys.go (DKG, key storage, noise plan),
// liveness.go, replication.go (uploads, store replicas, fetches,
// attestations), roots.go (input roots), process.go (Process and its phases), verdicts.go (verdict
// signatures and persisted verdicts), serve.go (the Run loop), status.go,
// policy_store.go (persisted policy specs), api.go (the client API and its
// guards), rotation.go (re-encryption of the stored inputs for a new
// committee) and rotation_local.go (RotateLocal); chainadapter.go holds
// ChainAdapter and MemChain.
package consensus
