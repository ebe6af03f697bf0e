package consensus

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"sync"

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

// VerdictBatch is the verdicts of one packed batch (packed.go), posted with
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
// approves only on verdict == 1 denies. A packed batch with out-of-range
// slots is split and re-run until the offending requests are alone
// (docs/committee.md, "Out-of-range slots"); its ResultDigest is the handle
// of the request's own result ciphertext, the one that decrypted out of
// range.
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

// MakeBlocks implements BlockMaker: empty blocks up to upTo.
func (c *MemChain) MakeBlocks(_ context.Context, upTo uint64) error {
	for {
		c.mu.Lock()
		done := c.block >= upTo
		c.mu.Unlock()
		if done {
			return nil
		}
		c.PostBlock()
	}
}

// MemChain is an in-memory ChainAdapter shared by a local committee: it
// checks submitted verdicts exactly as FHEVerdict.submit does (aggregate
// BLS signature over bls.VerdictDigest by ≥ threshold registered members,
// accepted once per request).
type MemChain struct {
	chainID   *big.Int
	committee *bls.Committee
	threshold int
	epoch     uint64

	mu       sync.Mutex
	block    uint64
	requests []Request
	subs     []chan Request
	verdicts map[[32]byte]*Verdict
	keys     map[uint64][32]byte // committee key digests (setCommitteeKey)
	submits  int
	batches  int
}

// NewMemChain returns an in-memory chain for the committee.
func NewMemChain(cfg *CommitteeConfig) (*MemChain, error) {
	c, _, err := cfg.BLSCommittee()
	if err != nil {
		return nil, err
	}
	return &MemChain{chainID: cfg.ChainIDBig(), committee: c, threshold: cfg.Threshold, epoch: cfg.Epoch, verdicts: map[[32]byte]*Verdict{}}, nil
}

// Post queues a request in a new block (as an accepted FHEPolicy event).
func (c *MemChain) Post(r Request) Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.block++
	r.Block = c.block
	c.requests = append(c.requests, r)
	c.publish(r)
	c.publish(BlockSeen(c.block))
	return r
}

// publish hands r to every subscriber (a slow subscriber re-reads from its
// cursor on restart).
func (c *MemChain) publish(r Request) {
	for _, s := range c.subs {
		select {
		case s <- r:
		default:
		}
	}
}

// PostBlock queues several requests in one new block (log indices 0, 1, …),
// as a block carrying several FHEPolicy events.
func (c *MemChain) PostBlock(rs ...Request) []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.block++
	out := make([]Request, len(rs))
	for i, r := range rs {
		r.Block, r.LogIndex = c.block, uint(i)
		c.requests = append(c.requests, r)
		out[i] = r
		c.publish(r)
	}
	c.publish(BlockSeen(c.block))
	return out
}

// Requests implements ChainAdapter.
func (c *MemChain) Requests(ctx context.Context, from uint64) (<-chan Request, error) {
	ch := make(chan Request, 1<<14)
	c.mu.Lock()
	for _, r := range c.requests {
		if r.Block >= from {
			ch <- r
		}
	}
	if c.block >= from {
		ch <- BlockSeen(c.block)
	}
	c.subs = append(c.subs, ch)
	c.mu.Unlock()
	go func() {
		<-ctx.Done()
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, s := range c.subs {
			if s == ch {
				c.subs = append(c.subs[:i], c.subs[i+1:]...)
				close(ch)
				return
			}
		}
	}()
	return ch, nil
}

// ErrVerdictRejected is returned for a verdict the chain would revert.
var ErrVerdictRejected = errors.New("chain: verdict rejected")

// SubmitVerdict implements ChainAdapter.
func (c *MemChain) SubmitVerdict(_ context.Context, v *Verdict) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.submits++
	if _, ok := c.verdicts[v.RequestID]; ok {
		return nil
	}
	known := false
	for _, r := range c.requests {
		if r.ID == v.RequestID {
			known = r.PolicyID == v.PolicyID
		}
	}
	if !known {
		return fmt.Errorf("%w: unknown request or policy", ErrVerdictRejected)
	}
	if v.Epoch != c.epoch {
		return fmt.Errorf("%w: epoch %d, committee epoch %d", ErrVerdictRejected, v.Epoch, c.epoch)
	}
	d := v.Digest(c.chainID)
	n, err := c.committee.VerifyAggregate(v.Signers, d[:], v.Signature)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrVerdictRejected, err)
	}
	if n < c.threshold {
		return fmt.Errorf("%w: %d signers under threshold %d", ErrVerdictRejected, n, c.threshold)
	}
	cp := *v
	c.verdicts[v.RequestID] = &cp
	return nil
}

// SubmitVerdictBatch implements ChainAdapter: it checks the batch as
// FHEVerdict.submitBatch does (every item a known request of policyID, the
// committee epoch, ≥ threshold signers of bls.VerdictBatchDigest over the
// items' root) and records a verdict for every item not yet answered.
func (c *MemChain) SubmitVerdictBatch(_ context.Context, policyID, resultDigest [32]byte, epoch uint64, items []bls.VerdictItem, signature, signers []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.submits++
	if len(items) == 0 {
		return fmt.Errorf("%w: empty batch", ErrVerdictRejected)
	}
	if epoch != c.epoch {
		return fmt.Errorf("%w: epoch %d, committee epoch %d", ErrVerdictRejected, epoch, c.epoch)
	}
	policyOf := make(map[[32]byte][32]byte, len(c.requests))
	for _, r := range c.requests {
		policyOf[r.ID] = r.PolicyID
	}
	seen := make(map[[32]byte]bool, len(items))
	for _, it := range items {
		if p, ok := policyOf[it.RequestID]; !ok || p != policyID || seen[it.RequestID] || it.Result == nil {
			return fmt.Errorf("%w: item %x: unknown, duplicate or of another policy", ErrVerdictRejected, it.RequestID[:4])
		}
		seen[it.RequestID] = true
	}
	d := bls.VerdictBatchDigest(c.chainID, epoch, policyID, resultDigest, bls.VerdictBatchRoot(items))
	n, err := c.committee.VerifyAggregate(signers, d[:], signature)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrVerdictRejected, err)
	}
	if n < c.threshold {
		return fmt.Errorf("%w: %d signers under threshold %d", ErrVerdictRejected, n, c.threshold)
	}
	c.batches++
	for _, it := range items {
		if _, ok := c.verdicts[it.RequestID]; ok {
			continue
		}
		c.verdicts[it.RequestID] = &Verdict{RequestID: it.RequestID, PolicyID: policyID, Result: new(big.Int).Set(it.Result),
			ResultDigest: resultDigest, Epoch: epoch, Signature: signature, Signers: signers}
	}
	return nil
}

// BatchSubmissions counts accepted SubmitVerdictBatch calls.
func (c *MemChain) BatchSubmissions() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.batches
}

// VerdictPosted implements ChainAdapter.
func (c *MemChain) VerdictPosted(_ context.Context, id [32]byte) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.verdicts[id]
	return ok, nil
}

// Verdict returns the accepted verdict of a request.
func (c *MemChain) Verdict(id [32]byte) (*Verdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.verdicts[id]
	return v, ok
}

// Verdicts returns every accepted verdict, by request id.
func (c *MemChain) Verdicts() map[[32]byte]*Verdict {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[[32]byte]*Verdict, len(c.verdicts))
	for k, v := range c.verdicts {
		out[k] = v
	}
	return out
}

// Submissions counts SubmitVerdict calls (including duplicates).
func (c *MemChain) Submissions() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.submits
}

// Pending lists requests without a verdict, by block.
func (c *MemChain) Pending() []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Request
	for _, r := range c.requests {
		if _, ok := c.verdicts[r.ID]; !ok {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Block < out[j].Block })
	return out
}
