package consensus

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
)

// maxUnansweredTracked bounds the requests requestBook holds. Past it, the
// entries the chain answers by expiry are dropped first, then the oldest.
const maxUnansweredTracked = 1 << 16

// requestBook counts the requests the serve loop took from the chain and
// holds those it has not seen answered — a verdict posted (by this member or
// a peer) or the request expired — for Status.RequestsSeen and
// Status.Unanswered. A request stays unanswered here while it waits in a
// window, is evaluated, is retried, after this member gave up on it, and
// while its verdict transaction failed or is not mined: what an operator
// looks for when requests come in and no verdicts go out. Safe for
// concurrent use.
type requestBook struct {
	expiry uint64        // MemberConfig.ExpiryBlocks
	head   atomic.Uint64 // the highest block the serve loop saw

	mu   sync.Mutex
	seen uint64
	open map[[32]byte]uint64 // unanswered request → its block
}

func newRequestBook(expiry uint64) *requestBook {
	return &requestBook{expiry: expiry, open: map[[32]byte]uint64{}}
}

// expired reports whether a request of block is answered by expiry at head
// (chainio.Batcher.ExpiredAt).
func (b *requestBook) expired(head, block uint64) bool {
	return b.expiry > 0 && head >= block && head-block >= b.expiry
}

// saw records a request of block taken from the chain (a re-delivery of one
// still open counts once).
func (b *requestBook) saw(id [32]byte, block uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.open[id]; ok {
		return
	}
	b.seen++
	if len(b.open) >= maxUnansweredTracked {
		b.pruneLocked(true)
	}
	b.open[id] = block
}

// pruneLocked drops the expired entries and, if full is set and nothing
// expired, the oldest one.
func (b *requestBook) pruneLocked(full bool) {
	head := b.head.Load()
	var oldest [32]byte
	oldestBlock, dropped := ^uint64(0), false
	for id, blk := range b.open {
		if b.expired(head, blk) {
			delete(b.open, id)
			dropped = true
		} else if blk < oldestBlock {
			oldest, oldestBlock = id, blk
		}
	}
	if full && !dropped && oldestBlock != ^uint64(0) {
		delete(b.open, oldest)
	}
}

// answered forgets requests: a verdict for each is on chain, or it expired.
func (b *requestBook) answered(ids ...[32]byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range ids {
		delete(b.open, id)
	}
}

// setHead records the highest block the serve loop saw.
func (b *requestBook) setHead(h uint64) {
	if h > b.head.Load() {
		b.head.Store(h)
	}
}

// counts returns the requests seen since the member started, those not
// answered (expired ones dropped) and the block of the oldest of those (0
// when none).
func (b *requestBook) counts() (seen uint64, unanswered int, oldest uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pruneLocked(false)
	for _, blk := range b.open {
		if oldest == 0 || blk < oldest {
			oldest = blk
		}
	}
	return b.seen, len(b.open), oldest
}

// oldest returns up to n unanswered requests, the oldest first.
func (b *requestBook) oldest(n int) [][32]byte {
	type entry struct {
		id    [32]byte
		block uint64
	}
	b.mu.Lock()
	es := make([]entry, 0, len(b.open))
	for id, blk := range b.open {
		es = append(es, entry{id, blk})
	}
	b.mu.Unlock()
	slices.SortFunc(es, func(x, y entry) int {
		if c := cmp.Compare(x.block, y.block); c != 0 {
			return c
		}
		return slices.Compare(x.id[:], y.id[:])
	})
	out := make([][32]byte, 0, min(n, len(es)))
	for _, e := range es[:min(n, len(es))] {
		out = append(out, e.id)
	}
	return out
}
