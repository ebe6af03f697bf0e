// Package consensus is fhegate's MPC committee member: it takes queued FHE
// requests off the block path, evaluates them (alone or in packed
// batches), and posts threshold-decrypted, BLS-aggregated verdicts
// (docs/design.md, "One request, end to end", steps 1, 4 and 5;
// docs/committee.md for the message formats and failure handling).
//
// A Member (NewMember) holds its t-of-n Shamir share of the collective
// secret and the public key material (DKG, package protocol), a bbolt
// store of canonical ciphertexts by handle and key epoch (package store),
// a ledger that issues at most one share of each kind per (ciphertext, key
// epoch), fsync'd before the share leaves (package ledger), and a
// transport (package transport: pinned-key TLS 1.3, or in memory).
//
// Processing one request (Member.Process, the request pipeline in package
// pipeline): evaluate the circuit
// deterministically (package circuit), calling the collective refresh
// where a plan runs out of depth; agree on the keccak256 digest of the
// result (≥ t members and a strict plurality; the others are excluded);
// refresh if needed, mask to slot 0 and threshold-decrypt with flooded
// shares (every t-subset is a decryption, so a share that disagrees
// exposes its sender); sign bls.VerdictDigest, aggregate ≥ t signatures
// and hand the verdict to the chain adapter (package chainio). Policy
// requests of one policy within an aligned window of blocks are packed
// into one evaluation and one threshold decryption (pipeline/packed.go; the slot
// and level derivation is docs/derivations.md, "Packed batches"), a
// function of accepted blocks only (chainio.Batcher). Uploads
// (Member.UploadBatch) are verified
// (fhe/zkpok proofs bound to chain, epoch, owner, key and handle),
// replicated to every member and attested once for the set; rooted uploads
// also get a place in one Merkle root signed for many (roots.go). A
// rotation (epoch e → e+1, docs/committee.md "Rotation") key-switches every
// stored input from the old collective key to the new committee's in one
// joint session of t old and all new members (rotation_joint.go:
// Member.SwitchToNext on the old members, Member.AdoptFromPrevious on the
// new ones, which refresh and compare the results; the cross-committee key
// switch keeps each input's c1, so no member can shift it); handles do not
// change, and evaluation refuses an input stored under another epoch
// (ErrStaleKey). local.Rotate drives the same session for an in-process
// committee, `fhegate committee rotate switch` over the members' TLS
// transports.
//
// Member itself is wiring: NewMember builds one small type per job, each
// holding only what that job needs, and Member's methods are the package's
// entry points. The jobs: the request pipeline (pipeline.Runner: Process,
// ProcessPacked), process.go; keyring (the installed
// keys) and keyStore (the key set in the store), keys.go; uploads
// (verification, replicas, fetches), replication.go; inputRoots, roots.go;
// peerRounds (bounded answers to peers, signature collection), peers.go;
// rotation (key switch and adoption), rotation.go; privateReads,
// privread.go; heartbeats, liveness.go; verdictStore, verdicts.go;
// equivocations, member.go.
//
// Packages around the member, following etcd-raft's raft / node /
// rafttest / raftpb split:
//
//	api/        the client API's wire types and HTTP client (what clients import)
//	apiserver/  the client API server in front of a Member
//	chain/      the JSON-RPC chain adapter, and Serve: a member's whole wiring to a chain
//	chainio/    requests, verdicts, the ChainAdapter interface, packed-batch formation
//	circuit/    circuits, compiled policy plans, refresh and packing bounds
//	config/     committee config and member secrets at rest
//	ledger/     the one-share-per-ciphertext ledger
//	liveness/   liveness marks, peers' heartbeats and serve-loop progress
//	local/      the in-process committee and MemChain (devnet, policy eval, tests)
//	pipeline/   the request pipeline: a request or packed batch from its inputs to the signed verdict
//	protocol/   DKG, threshold decryption, collective refresh, re-encryption
//	store/      the bbolt ciphertext store
//	transport/  TLS and in-memory transports, session mux
//
// The files of this package (internal/repo checks this map against the
// tree):
//
//	committee_key.go     SignCommitteeKey: the member's signature binding its committee's key
//	develop.go           development entry points for an in-process committee
//	doc.go               this overview
//	keys.go              DKG; keyring: the installed keys and noise plan; keyStore: the key set in the store
//	liveness.go          heartbeats and the wait for a live quorum (the marks: package liveness)
//	member.go            the Member type, its constructor and accessors; equivocations
//	member_config.go     MemberConfig and TestingKnobs
//	peers.go             peerRounds: bounded answers to peers, collecting and aggregating signatures
//	policy_store.go      persisted policy specs
//	privread.go          privateReads: ACL check and re-encryption share
//	process.go           Process, ProcessBatch, ProcessPacked: the request pipeline's entry points
//	replication.go       uploads: proofs, store replicas, fetches, input attestations
//	requests_seen.go     requestBook: requests seen and not yet answered (Status)
//	roots.go             inputRoots: one signed Merkle root for many uploads
//	roots_batch.go       the leaves of one root round, the round, and the wait for a leaf's root
//	roots_signed.go      signedLog: the upload digests a member signed, which its roots may include
//	rotation.go          rotation: key switch and adoption of the stored inputs for a new committee
//	rotation_joint.go    the joint session of old and new members: SwitchToNext, AdoptFromPrevious
//	rotation_keyswitch.go KeySwitch: the cross-committee key switch
//	rotation_plan.go     a rotation's joint session: members, target key, handle lists
//	rotation_retire.go   a retiring member's key share and ledger wiped after a rotation
//	serve.go             Run: the serve loop over a chain adapter's requests
//	serve_packed.go      the serve loop's packed batches
//	serve_retry.go       the serve loop's retries
//	serve_submit.go      the serve loop's verdict submission
//	share_seal.go        the threshold key share sealed in the store
//	status.go            Member.Status
//	storeput.go          the StorePut payload: an upload as replicated to the peers
//	verdicts.go          verdictStore: persisted verdicts; peerRounds' verdict signatures
package consensus
