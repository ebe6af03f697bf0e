package chainio

import (
	"context"
	"math/big"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/internal/keccak"
)

// RequestKind says which precompile queued a request.
type RequestKind uint8

// Request kinds.
const (
	KindPolicy RequestKind = 1 // FHEPolicy.EvaluationRequested
	KindCRDT   RequestKind = 2 // FHECRDT.ValueRequested
	// KindBlockSeen is not a request but a block mark: every request of the
	// accepted blocks ≤ Block has been delivered before it. An adapter
	// sends one after each range of blocks it read, with or without
	// requests; it is what closes a packing window (batch.go), so windows
	// close on the chain's progress and never on a member's clock.
	KindBlockSeen RequestKind = 3
)

// BlockSeen is the block mark for block h (KindBlockSeen).
func BlockSeen(h uint64) Request { return Request{Kind: KindBlockSeen, Block: h} }

// Request is one queued evaluation, as seen in an accepted block.
type Request struct {
	ID       [32]byte
	PolicyID [32]byte
	Kind     RequestKind
	Inputs   []fhe.Handle
	Block    uint64 // accepted block that carried the event
	LogIndex uint
	// KindCRDT only: the state's CRDT kind (meta.Type) and its canonical
	// public metadata (fhe/crdt/meta), as FHECRDT.stateOf returned them at
	// Block; Inputs are then the metadata's handles (meta.State.Handles).
	CRDTKind uint8
	CRDTMeta []byte
}

// Verdict is what the committee posts to FHEVerdict.submit.
type Verdict struct {
	RequestID    [32]byte
	PolicyID     [32]byte
	Result       *big.Int // the decrypted verdict (slot 0, in [0, t)), or ResultUnevaluable
	ResultDigest [32]byte // handle of the result ciphertext the members agreed on (UnevaluableDigest for ResultUnevaluable)
	Epoch        uint64
	Signature    []byte // aggregate BLS signature over bls.VerdictDigest (of Batch: over its bls.VerdictBatchDigest)
	Signers      []byte // signer bitmap (bit i = member i+1)
	// Batch is the packed batch the verdict was decided in (nil for a
	// verdict decided alone): it is posted with SubmitVerdictBatch.
	Batch *VerdictBatch `json:"-"`
}

// VerdictBatch is the verdicts of one packed batch (consensus/pipeline/packed.go), posted with
// FHEVerdict.submitBatch: one aggregate BLS signature over
// bls.VerdictBatchDigest(chainId, epoch, policyId, resultDigest,
// bls.VerdictBatchRoot(items)), items in slot order.
type VerdictBatch struct {
	PolicyID     [32]byte
	ResultDigest [32]byte // handle of the packed result ciphertext the members agreed on
	Epoch        uint64
	Items        []bls.VerdictItem
	Signature    []byte
	Signers      []byte
}

// Root is bls.VerdictBatchRoot of the items.
func (b *VerdictBatch) Root() [32]byte { return bls.VerdictBatchRoot(b.Items) }

// Digest returns the message the members sign for the batch.
func (b *VerdictBatch) Digest(chainID *big.Int) [32]byte {
	return bls.VerdictBatchDigest(chainID, b.Epoch, b.PolicyID, b.ResultDigest, b.Root())
}

// UnevaluableDomain prefixes the result digest of an unevaluable verdict.
const UnevaluableDomain = "fhegate/unevaluable/v1"

// ResultUnevaluable is the verdict result the committee signs and posts when
// a policy request cannot be evaluated at all: the policy's on-chain spec
// (accepted by FHEPolicy.registerPolicy, which compiles it for whatever
// preset the plan needs) does not compile for the committee's own preset.
// It is 2^256 − 1 (Solidity type(uint256).max): every real verdict is a
// decrypted plaintext in [0, t) with t < 2^64, so the sentinel can never be
// a genuine result, and a contract that approves only on verdict == 1
// denies. Its ResultDigest is UnevaluableDigest(policyID), not a ciphertext
// handle. Compilation is deterministic, so every honest member reaches the
// same outcome; the members still agree on the digest and threshold-sign
// the verdict (bls.VerdictDigest) like any other, skipping evaluation and
// decryption. The verdict is persisted once made, like every verdict.
var ResultUnevaluable = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// ResultRejectedInput is the verdict result the committee signs and posts
// for a request whose own evaluation decrypts outside its plan's declared
// output range (a bool plan: not 0 or 1; a score plan: outside [min, max]):
// its input is out of its declared range or is not a valid encryption (a
// forged input proof). It is 2^256 − 3 (Solidity type(uint256).max − 2),
// outside every plaintext space like ResultUnevaluable; a contract that
// approves only on verdict == 1 denies. A packed run with out-of-range
// slots rejects its out-of-range requests together and re-runs the rest,
// within a budget of extra runs per batch (docs/committee.md, "Out-of-range
// slots"); its ResultDigest is the handle of the result ciphertext of the
// run that decrypted out of range.
var ResultRejectedInput = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(3))

// IsRejectedInput reports whether a verdict is the rejected-input sentinel.
func (v *Verdict) IsRejectedInput() bool {
	return v.Result != nil && v.Result.Cmp(ResultRejectedInput) == 0
}

// UnevaluableDigest is the ResultDigest of an unevaluable verdict:
// keccak256("fhegate/unevaluable/v1" || policyId).
func UnevaluableDigest(policyID [32]byte) [32]byte {
	return keccak.Sum([]byte(UnevaluableDomain), policyID[:])
}

// IsUnevaluable reports whether a verdict is the unevaluable sentinel.
func (v *Verdict) IsUnevaluable() bool {
	return v.Result != nil && v.Result.Cmp(ResultUnevaluable) == 0
}

// Digest returns the message the members sign.
func (v *Verdict) Digest(chainID *big.Int) [32]byte {
	return bls.VerdictDigest(chainID, v.Epoch, v.RequestID, v.PolicyID, v.ResultDigest, v.Result)
}

// ChainAdapter connects a member to the chain: it streams queued requests
// from accepted blocks and posts verdicts. Implementations must be
// idempotent: SubmitVerdict of an already accepted verdict returns nil.
type ChainAdapter interface {
	// Requests streams requests from accepted blocks ≥ fromBlock until ctx
	// ends, in block order, each range of blocks followed by its block mark
	// (BlockSeen of the range's last block); re-delivery of already
	// processed requests is allowed.
	Requests(ctx context.Context, fromBlock uint64) (<-chan Request, error)
	// SubmitVerdict posts an aggregated verdict.
	SubmitVerdict(ctx context.Context, v *Verdict) error
	// SubmitVerdictBatch posts the verdicts of a packed batch
	// (FHEVerdict.submitBatch): items in slot order, one aggregate
	// signature over bls.VerdictBatchDigest. Items already answered are
	// skipped by the chain; a batch whose every item is answered is a no-op.
	SubmitVerdictBatch(ctx context.Context, policyID, resultDigest [32]byte, epoch uint64, items []bls.VerdictItem, signature, signers []byte) error
	// VerdictPosted reports whether a verdict for the request was accepted.
	VerdictPosted(ctx context.Context, requestID [32]byte) (bool, error)
}

// BlockMaker is implemented by chain adapters that can ask their chain for
// (empty) blocks — a devnet's evm_mine. A member that holds a packing
// window whose last block the chain has not built yet, and has seen no new
// block for MemberConfig.BatchIdle, asks for blocks up to that one: the
// window still closes on its block mark, so its batches stay a function of
// block numbers (a member's clock only makes the chain move, and every
// member sees the same blocks). Adapters of chains that build blocks on
// their own need not implement it.
type BlockMaker interface {
	// MakeBlocks builds blocks until the chain's head is at least upTo.
	MakeBlocks(ctx context.Context, upTo uint64) error
}
