// Package precompiles is fhegate's host-neutral precompile core: four stateful
// precompiled contracts that keep handles, access control, the policy registry,
// evaluation requests, symbolic CRDT merges and committee-verified results in
// EVM state. No FHE arithmetic runs here (LP-137: keep FHE off every
// block-time-bounded path); the committee computes off the block path and posts
// BLS-aggregate-signed results that FHEVerdict checks.
//
//	0x02000000000000000000000000000000000000f0  FHEInput    handles + ACL, committee-attested inputs
//	0x02000000000000000000000000000000000000f1  FHEPolicy   policy registry, evaluate → request id
//	0x02000000000000000000000000000000000000f2  FHECRDT     encrypted CRDT states, symbolic merge, value → request id
//	0x02000000000000000000000000000000000000f3  FHEVerdict  committee registry, verdict verification (one, or a
//	                                                        packed batch under one aggregate), expiry
//
// Protocol: calls are standard Solidity ABI (4-byte selector + abi.encode of
// the arguments; see docs/precompiles.md). Every method runs in the same order:
// charge gas → refuse writes when read-only → decode → authorise → act. Errors
// are reverts carrying Error(string) reasons; gas charged up to the failure is
// consumed and state is untouched (writes are buffered and applied only on
// success). A recover at the boundary turns any residual panic into a revert.
//
// The core has its own Address and Hash types and talks to its host only
// through Env (caller, read-only flag, own-address persistent and transient
// storage, read-only view of the other fhegate precompiles' storage, logs,
// block number and time, chain id). Host adapters live in precompiles/host/….
//
// Determinism: nothing here reads the clock, crypto/rand or iterates a map; the
// only time is Env.BlockTime. Policy compilation and CRDT metadata merges come
// through the PolicyCompiler and CRDTMerger interfaces (policy/ and
// fhe/crdt/meta provide the real ones, wired by precompiles/corebackends;
// NewSuite refuses nil backends; deterministic stand-ins for tests are in
// precompiles/precompilestest).
//
// Batched verdicts (verdict_batch.go): one packed evaluation decides up to Slots
// requests of a policy; submitBatch checks one aggregate over the batch root of
// its (request id, result) pairs and stores each verdict in one word, so a
// verdict costs GasVerdictItem + (one pairing check)/n. evaluate prices the
// committee's work at a target occupancy of Slots/4 and a block may book at
// most CommitteeGasPerBlock of it (ErrQueueFull): a packed policy's first
// request in a block books one packed evaluation, every request of a policy
// evaluated alone (PlanInfo.Alone) its own whole evaluation, while each pays
// the per-request price (BlockQueue.Book); a request without a verdict
// after ExpiryBlocks can be expired to ResultExpired.
//
// Committee signatures: BLS12-381 aggregate signatures with a signer bitmap,
// keys registered with proofs of possession (package bls; IETF
// draft-irtf-cfrg-bls-signature-05, POP ciphersuite).
package precompiles
