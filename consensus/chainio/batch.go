package chainio

// Batch formation (docs/committee.md, "Packing").
//
// Every member must form the same packed batches from the same accepted
// blocks, whatever chunks its chain adapter delivered them in. The rule is a
// function of the requests and block numbers alone:
//
//   - A packable request (a policy request; CRDT requests and unevaluable
//     policies are answered one by one) falls into the aligned window
//     k = ⌊block / W⌋ of its (policy id, input count), W = BatchWindow blocks.
//   - Window k closes when the member knows it has every request of the
//     window's last block (k+1)·W − 1: its chain adapter delivered a block
//     mark (KindBlockSeen) for that block or a later one, or a request from
//     a later block (adapters deliver in block order). Nothing else closes
//     a window — in particular no clock: a member slowed by CPU pressure,
//     or one that reads the blocks minutes late, closes every window over
//     the same requests as its peers. A chain that builds blocks only when
//     transactions arrive (devnet, subnet-evm) still closes a window of one
//     block (W = 1, the devnet's default) as soon as that block is seen;
//     with W > 1 the last window of a burst waits for the chain to reach
//     its last block: a member whose adapter can make blocks (a devnet's
//     evm_mine, BlockMaker) asks for them after BatchIdle without a new
//     block — its clock moves the chain, never the window's boundary.
//   - A closed window's requests are ordered by (block, log index, request
//     id), deduplicated, stripped of expired requests, and cut into batches
//     of at most Slots() requests; slot = index in the batch.
//   - A batch's session name carries the policy, the input count, the
//     window, its block range [k·W, (k+1)·W − 1] and the chunk index: a
//     function of the chain alone, so every member names the batch alike.
//     A batch that fails falls back to the per-request path.
//   - A request for a window that is already closed (delivered out of block
//     order) goes the per-request path.
//   - A request older than ExpiryBlocks (head − block ≥ ExpiryBlocks) is
//     dropped: FHEVerdict.expire lets anyone post its failure verdict.

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/fhegate/fhegate/fhe"
)

// windowKey names one open window.
type windowKey struct {
	policy [32]byte
	width  int
	k      uint64
}

// Batcher is the windowed batch formation of one serve loop (not safe for
// concurrent use).
type Batcher struct {
	window uint64 // W, blocks
	slots  int
	expiry uint64

	head     uint64    // highest block seen
	LastSeen time.Time // when the last request or block mark came (BlockMaker pacing only)
	Complete uint64    // every request of the blocks ≤ complete was delivered (0: none known)
	open     map[windowKey][]Request
	closed   map[windowKey]bool
	expiredN int
}

func NewBatcher(window uint64, slots int, expiry uint64) *Batcher {
	if window == 0 {
		window = 1
	}
	return &Batcher{window: window, slots: slots, expiry: expiry, open: map[windowKey][]Request{}, closed: map[windowKey]bool{}}
}

// Expired reports whether r is too old to be answered at the current head.
func (b *Batcher) Expired(r Request) bool { return b.ExpiredAt(b.head, r) }

// ExpiredAt reports whether r is too old to be answered at head h. It
// reads nothing that changes: safe beside the serve loop.
func (b *Batcher) ExpiredAt(h uint64, r Request) bool {
	return b.expiry > 0 && h >= r.Block && h-r.Block >= b.expiry
}

// Head is the highest block seen.
func (b *Batcher) Head() uint64 { return b.head }

// Add files a packable request into its window. It returns false when the
// request's window is already closed (the caller answers it alone); an
// expired request is dropped (and counted) and reported as taken.
func (b *Batcher) Add(r Request) bool {
	b.Saw(r.Block)
	if r.Block > 0 {
		b.Complete = max(b.Complete, r.Block-1) // delivered in block order
	}
	if b.Expired(r) {
		b.expiredN++
		return true
	}
	k := windowKey{r.PolicyID, len(r.Inputs), r.Block / b.window}
	if b.closed[k] {
		return false
	}
	b.open[k] = append(b.open[k], r)
	return true
}

// Saw records that a block up to h exists (a request's block or a block
// mark): it moves the head that expiry is measured from.
func (b *Batcher) Saw(h uint64) {
	b.head = max(b.head, h)
}

// BlockSeen records a block mark: every request of the blocks ≤ h has been
// delivered.
func (b *Batcher) BlockSeen(h uint64) {
	b.Saw(h)
	b.Complete = max(b.Complete, h)
}

// Due returns the batches of every window whose last block is complete, in
// window order.
func (b *Batcher) Due() []PackedBatch {
	var keys []windowKey
	for k := range b.open {
		if b.Complete >= (k.k+1)*b.window-1 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].k != keys[j].k {
			return keys[i].k < keys[j].k
		}
		if keys[i].policy != keys[j].policy {
			return string(keys[i].policy[:]) < string(keys[j].policy[:])
		}
		return keys[i].width < keys[j].width
	})
	var out []PackedBatch
	for _, k := range keys {
		out = append(out, b.close(k)...)
	}
	for k := range b.closed { // a window older than the expiry can take no request any more
		if end := (k.k + 1) * b.window; b.expiry > 0 && b.head > end && b.head-end > b.expiry {
			delete(b.closed, k)
		}
	}
	return out
}

// close closes window k and cuts it into batches.
func (b *Batcher) close(k windowKey) []PackedBatch {
	reqs := b.open[k]
	delete(b.open, k)
	b.closed[k] = true
	from, to := k.k*b.window, (k.k+1)*b.window-1
	sort.Slice(reqs, func(i, j int) bool { return requestLess(reqs[i], reqs[j]) })
	kept := reqs[:0]
	for i, r := range reqs {
		if (i > 0 && r.ID == reqs[i-1].ID) || b.Expired(r) {
			continue
		}
		kept = append(kept, r)
	}
	var out []PackedBatch
	for c := 0; c*b.slots < len(kept); c++ {
		part := kept[c*b.slots : min((c+1)*b.slots, len(kept))]
		out = append(out, PackedBatch{PolicyID: k.policy, Requests: append([]Request(nil), part...), Last: to,
			Session: fmt.Sprintf("pack/%x/i%d/w%d/%d-%d/c%d", k.policy[:8], k.width, k.k, from, to, c)})
	}
	return out
}

// WaitingFor returns the last block of the oldest open window (ok false
// when no window is open): the block the chain must build for it to close.
func (b *Batcher) WaitingFor() (uint64, bool) {
	var end uint64
	ok := false
	for k := range b.open {
		if e := (k.k+1)*b.window - 1; !ok || e < end {
			end, ok = e, true
		}
	}
	return end, ok
}

// MinBlock is the lowest block of a request still waiting in an open window
// (ok false when none waits): the serve loop's cursor must not pass it.
func (b *Batcher) MinBlock() (uint64, bool) {
	var lo uint64
	ok := false
	for _, rs := range b.open {
		for _, r := range rs {
			if !ok || r.Block < lo {
				lo, ok = r.Block, true
			}
		}
	}
	return lo, ok
}

// requestLess orders requests by (block, log index, id).
func requestLess(a, b Request) bool {
	if a.Block != b.Block {
		return a.Block < b.Block
	}
	if a.LogIndex != b.LogIndex {
		return a.LogIndex < b.LogIndex
	}
	return string(a.ID[:]) < string(b.ID[:])
}

// PackedBatch is one batch of requests evaluated together. Requests are in
// slot order; Session names the batch identically on every member that
// formed the same batch (batch.go), and differently on a member that formed
// another one, so members never mix shares of different batches.
type PackedBatch struct {
	PolicyID [32]byte
	Session  string
	Requests []Request
	// Last is the last block of the batch's window (Batcher.Due): the
	// serve loop runs the batch after the per-request requests of the
	// blocks before it (TakeUpTo) and before those of Last itself.
	Last uint64
}

// TakeUpTo splits rs into the requests of the blocks ≤ h, in chain order
// (block, log index, id), and the others (in their order).
func TakeUpTo(rs []Request, h uint64) (upTo, rest []Request) {
	for _, r := range rs {
		if r.Block <= h {
			upTo = append(upTo, r)
		} else {
			rest = append(rest, r)
		}
	}
	sort.SliceStable(upTo, func(i, j int) bool { return requestLess(upTo[i], upTo[j]) })
	return upTo, rest
}

// RunDue runs the serve loop's steps that the completed blocks allow, in
// the order every member takes them whatever chunks its chain adapter
// delivered the blocks in (consensus/serve.go, "Schedule"): for each block
// h in order, the packed batches of the windows that end at h (packed),
// then the requests answered one by one of the blocks ≤ h (alone, handed
// to perRequest in chain order). *alone is the serve loop's per-request
// batch; packed may add to it (a batch too small to pack, or one that
// failed), and those requests run before the next window's batch. What
// belongs to blocks not yet complete stays in *alone.
func (b *Batcher) RunDue(alone *[]Request, packed func(PackedBatch), perRequest func([]Request)) {
	flush := func(h uint64) {
		var todo []Request
		todo, *alone = TakeUpTo(*alone, h)
		if len(todo) > 0 {
			perRequest(todo)
		}
	}
	for _, pb := range b.Due() {
		if pb.Last > 0 {
			flush(pb.Last - 1)
		}
		packed(pb)
	}
	flush(b.Complete)
}

// Errors of packed processing.
var ErrBadBatch = errors.New("consensus: bad packed batch")

// Check validates a batch's shape before any work: 1 … Slots() distinct
// policy requests of b.PolicyID with the same number of inputs.
func (b *PackedBatch) Check(p *fhe.Params) error {
	if len(b.Requests) == 0 || len(b.Requests) > p.Slots() {
		return fmt.Errorf("%w: %d requests (1 … %d)", ErrBadBatch, len(b.Requests), p.Slots())
	}
	width := len(b.Requests[0].Inputs)
	if width == 0 || width > MaxPackWidth {
		return fmt.Errorf("%w: %d inputs per request (1 … %d)", ErrBadBatch, width, MaxPackWidth)
	}
	seen := make(map[[32]byte]bool, len(b.Requests))
	for i, r := range b.Requests {
		switch {
		case r.Kind != KindPolicy || r.PolicyID != b.PolicyID:
			return fmt.Errorf("%w: request %d is not a request of the batch's policy", ErrBadBatch, i)
		case len(r.Inputs) != width:
			return fmt.Errorf("%w: request %d has %d inputs, the batch %d", ErrBadBatch, i, len(r.Inputs), width)
		case seen[r.ID]:
			return fmt.Errorf("%w: request %x twice", ErrBadBatch, r.ID[:6])
		}
		seen[r.ID] = true
	}
	return nil
}

// MaxPackWidth bounds the inputs per request of a packed batch.
const MaxPackWidth = 64
