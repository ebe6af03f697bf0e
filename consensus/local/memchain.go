package local

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"sync"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/config"
)

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
	requests []chainio.Request
	subs     []chan chainio.Request
	verdicts map[[32]byte]*chainio.Verdict
	keys     map[uint64][32]byte // committee key digests (setCommitteeKey)
	submits  int
	batches  int
}

// NewMemChain returns an in-memory chain for the committee.
func NewMemChain(cfg *config.CommitteeConfig) (*MemChain, error) {
	c, _, err := cfg.BLSCommittee()
	if err != nil {
		return nil, err
	}
	return &MemChain{chainID: cfg.ChainIDBig(), committee: c, threshold: cfg.Threshold, epoch: cfg.Epoch, verdicts: map[[32]byte]*chainio.Verdict{}}, nil
}

// Post queues a request in a new block (as an accepted FHEPolicy event).
func (c *MemChain) Post(r chainio.Request) chainio.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.block++
	r.Block = c.block
	c.requests = append(c.requests, r)
	c.publish(r)
	c.publish(chainio.BlockSeen(c.block))
	return r
}

// publish hands r to every subscriber (a slow subscriber re-reads from its
// cursor on restart).
func (c *MemChain) publish(r chainio.Request) {
	for _, s := range c.subs {
		select {
		case s <- r:
		default:
		}
	}
}

// PostBlock queues several requests in one new block (log indices 0, 1, …),
// as a block carrying several FHEPolicy events.
func (c *MemChain) PostBlock(rs ...chainio.Request) []chainio.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.block++
	out := make([]chainio.Request, len(rs))
	for i, r := range rs {
		r.Block, r.LogIndex = c.block, uint(i)
		c.requests = append(c.requests, r)
		out[i] = r
		c.publish(r)
	}
	c.publish(chainio.BlockSeen(c.block))
	return out
}

// Requests implements ChainAdapter.
func (c *MemChain) Requests(ctx context.Context, from uint64) (<-chan chainio.Request, error) {
	ch := make(chan chainio.Request, 1<<14)
	c.mu.Lock()
	for _, r := range c.requests {
		if r.Block >= from {
			ch <- r
		}
	}
	if c.block >= from {
		ch <- chainio.BlockSeen(c.block)
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
func (c *MemChain) SubmitVerdict(_ context.Context, v *chainio.Verdict) error {
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
		c.verdicts[it.RequestID] = &chainio.Verdict{RequestID: it.RequestID, PolicyID: policyID, Result: new(big.Int).Set(it.Result),
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
func (c *MemChain) Verdict(id [32]byte) (*chainio.Verdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.verdicts[id]
	return v, ok
}

// Verdicts returns every accepted verdict, by request id.
func (c *MemChain) Verdicts() map[[32]byte]*chainio.Verdict {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[[32]byte]*chainio.Verdict, len(c.verdicts))
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
func (c *MemChain) Pending() []chainio.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []chainio.Request
	for _, r := range c.requests {
		if _, ok := c.verdicts[r.ID]; !ok {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Block < out[j].Block })
	return out
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

// SubmitCommitteeKey implements CommitteeKeyRegistry with
// FHEVerdict.setCommitteeKey's checks.
func (c *MemChain) SubmitCommitteeKey(_ context.Context, epoch uint64, pkDigest [32]byte, signature, signers []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if pkDigest == ([32]byte{}) {
		return fmt.Errorf("%w: zero committee key digest", ErrVerdictRejected)
	}
	if epoch != c.epoch {
		return fmt.Errorf("%w: committee key for epoch %d, registered committee epoch %d", ErrVerdictRejected, epoch, c.epoch)
	}
	if prev, ok := c.keys[epoch]; ok {
		if prev == pkDigest {
			return nil
		}
		return fmt.Errorf("%w: the key of epoch %d is already recorded", ErrVerdictRejected, epoch)
	}
	d := bls.CommitteeKeyDigest(c.chainID, epoch, pkDigest)
	n, err := c.committee.VerifyAggregate(signers, d[:], signature)
	if err != nil {
		return fmt.Errorf("%w: committee key: %v", ErrVerdictRejected, err)
	}
	if n < c.threshold {
		return fmt.Errorf("%w: committee key: %d signers under threshold %d", ErrVerdictRejected, n, c.threshold)
	}
	if c.keys == nil {
		c.keys = map[uint64][32]byte{}
	}
	c.keys[epoch] = pkDigest
	return nil
}

// CommitteeKeyOf implements CommitteeKeyRegistry.
func (c *MemChain) CommitteeKeyOf(_ context.Context, epoch uint64) ([32]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.keys[epoch], nil
}

// SetCommittee switches the in-memory chain to the next committee, as
// FHEVerdict.setCommittee does on chain: the new config's epoch must be the
// current one plus one; verdicts are then accepted only under the new
// epoch and BLS keys.
func (c *MemChain) SetCommittee(cfg *config.CommitteeConfig) error {
	com, _, err := cfg.BLSCommittee()
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cfg.Epoch != c.epoch+1 {
		return fmt.Errorf("%w: committee epoch %d after %d", ErrVerdictRejected, cfg.Epoch, c.epoch)
	}
	if cfg.ChainIDBig().Cmp(c.chainID) != 0 {
		return fmt.Errorf("%w: committee for chain %s", ErrVerdictRejected, cfg.ChainID)
	}
	c.committee, c.threshold, c.epoch = com, cfg.Threshold, cfg.Epoch
	return nil
}
