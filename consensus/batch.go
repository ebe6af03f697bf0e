package consensus

// Batch formation (issue 13; docs/committee.md, "Packing").
//
// Every member must form the same packed batches from the same accepted
// blocks, whatever chunks its chain adapter delivered them in. The rule is a
// function of the requests and block numbers alone:
//
//   - A packable request (a policy request; CRDT requests and unevaluable
//     policies are answered one by one) falls into the aligned window
//     k = ⌊block / W⌋ of its (policy id, input count), W = BatchWindow blocks.
//   - Window k closes when the member sees a request from a block
//     ≥ (k+1)·W (the chain has moved past it), or, because a devnet or
//     subnet-evm chain builds blocks only when transactions arrive, after
//     BatchIdle without any new request (an idle close).
//   - A closed window's requests are ordered by (block, log index, request
//     id), deduplicated, stripped of expired requests, and cut into batches
//     of at most Slots() requests; slot = index in the batch.
//   - A batch's session name carries the policy, the input count, the
//     window, the block range it covers ([k·W, (k+1)·W − 1], or [k·W, head]
//     on an idle close, head = the highest block the member saw) and the
//     chunk index. Members that closed the same window over different ranges
//     (one closed on idle before a late block arrived) name their batches
//     differently and never mix shares; the digest agreement and the
//     threshold do the rest, and a batch that fails falls back to the
//     per-request path.
//   - A request for a window that is already closed (delivered out of block
//     order) goes the per-request path.
//   - A request older than ExpiryBlocks (head − block ≥ ExpiryBlocks) is
//     dropped: FHEVerdict.expire lets anyone post its failure verdict.

import (
	"fmt"
	"sort"
	"time"
)

// windowKey names one open window.
type windowKey struct {
	policy [32]byte
	width  int
	k      uint64
}

// batcher is the windowed batch formation of one serve loop (not safe for
// concurrent use).
type batcher struct {
	window uint64 // W, blocks
	slots  int
	expiry uint64

	head     uint64 // highest block seen
	lastAdd  time.Time
	open     map[windowKey][]Request
	closed   map[windowKey]bool
	expiredN int
}

func newBatcher(window uint64, slots int, expiry uint64) *batcher {
	if window == 0 {
		window = 1
	}
	return &batcher{window: window, slots: slots, expiry: expiry, open: map[windowKey][]Request{}, closed: map[windowKey]bool{}}
}

// expired reports whether r is too old to be answered at the current head.
func (b *batcher) expired(r Request) bool {
	return b.expiry > 0 && b.head >= r.Block && b.head-r.Block >= b.expiry
}

// add files a packable request into its window. It returns false when the
// request's window is already closed (the caller answers it alone); an
// expired request is dropped (and counted) and reported as taken.
func (b *batcher) add(r Request, now time.Time) bool {
	if r.Block > b.head {
		b.head = r.Block
	}
	b.lastAdd = now
	if b.expired(r) {
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

// due returns the batches of every window the head has passed and, when
// idle is set, of every open window (an idle close), in window order.
func (b *batcher) due(idle bool) []PackedBatch {
	var keys []windowKey
	for k := range b.open {
		if idle || b.head >= (k.k+1)*b.window {
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

// idleFor reports whether no request arrived for d.
func (b *batcher) idleFor(d time.Duration, now time.Time) bool {
	return len(b.open) > 0 && now.Sub(b.lastAdd) >= d
}

// close closes window k and cuts it into batches.
func (b *batcher) close(k windowKey) []PackedBatch {
	reqs := b.open[k]
	delete(b.open, k)
	b.closed[k] = true
	from, to := k.k*b.window, (k.k+1)*b.window-1
	if b.head < to {
		to = b.head // idle close: the range this member saw
	}
	sort.Slice(reqs, func(i, j int) bool { return requestLess(reqs[i], reqs[j]) })
	kept := reqs[:0]
	for i, r := range reqs {
		if (i > 0 && r.ID == reqs[i-1].ID) || b.expired(r) {
			continue
		}
		kept = append(kept, r)
	}
	var out []PackedBatch
	for c := 0; c*b.slots < len(kept); c++ {
		part := kept[c*b.slots : min((c+1)*b.slots, len(kept))]
		out = append(out, PackedBatch{PolicyID: k.policy, Requests: append([]Request(nil), part...),
			Session: fmt.Sprintf("pack/%x/i%d/w%d/%d-%d/c%d", k.policy[:8], k.width, k.k, from, to, c)})
	}
	return out
}

// minBlock is the lowest block of a request still waiting in an open window
// (ok false when none waits): the serve loop's cursor must not pass it.
func (b *batcher) minBlock() (uint64, bool) {
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
