package chainio

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
)

// chainRequests is a stream of accepted blocks' requests: two policies, one
// of them with two input counts, several requests per block.
func chainRequests(r *rand.Rand, blocks int) []Request {
	var out []Request
	for b := 1; b <= blocks; b++ {
		for li := range r.IntN(12) {
			pol := [32]byte{byte(1 + r.IntN(2))}
			width := 2
			if pol[0] == 2 && r.IntN(3) == 0 {
				width = 3
			}
			out = append(out, Request{ID: [32]byte{0xee, byte(b), byte(li)}, PolicyID: pol, Kind: KindPolicy,
				Inputs: make([]fhe.Handle, width), Block: uint64(b), LogIndex: uint(li)})
		}
	}
	return out
}

// formAll feeds reqs to a Batcher in chunks of random sizes (shuffled inside
// each block, as another poll order would deliver them), closing due
// windows after every request as the serve loop does; each chunk ends with
// the block mark of the last block it completed, sometimes one of a later
// empty block (an adapter polls ranges), and the last with the mark of
// lastBlock.
func formAll(reqs []Request, r *rand.Rand, lastBlock uint64) []PackedBatch {
	b := NewBatcher(4, 8, 1024)
	var out []PackedBatch
	for i := 0; i < len(reqs); {
		n := 1 + r.IntN(15)
		chunk := append([]Request(nil), reqs[i:min(i+n, len(reqs))]...)
		i += len(chunk)
		for lo := 0; lo < len(chunk); { // shuffle within each block only
			hi := lo
			for hi < len(chunk) && chunk[hi].Block == chunk[lo].Block {
				hi++
			}
			r.Shuffle(hi-lo, func(x, y int) { chunk[lo+x], chunk[lo+y] = chunk[lo+y], chunk[lo+x] })
			lo = hi
		}
		for _, q := range chunk {
			if !b.Add(q) {
				panic("window closed early")
			}
			out = append(out, b.Due()...)
		}
		if i < len(reqs) && reqs[i].Block > chunk[len(chunk)-1].Block {
			// the chunk ended at a block boundary: a mark for a block
			// between it and the next request's block
			b.BlockSeen(chunk[len(chunk)-1].Block + uint64(r.IntN(int(reqs[i].Block-chunk[len(chunk)-1].Block))))
			out = append(out, b.Due()...)
		}
	}
	b.BlockSeen(lastBlock)
	return append(out, b.Due()...)
}

// TestBatchFormationDeterministic: members that see the same accepted
// blocks in different poll chunks (and in another order inside a block)
// form identical batches — same sessions, same requests in the same slots
// (the attack: a member, or the network, that reorders deliveries must not
// make honest members disagree on slots). Every request lands in exactly
// one batch, batches are capped at the slot count, ordered by (block, log
// index), and policies and input counts never mix.
func TestBatchFormationDeterministic(t *testing.T) {
	reqs := chainRequests(rand.New(rand.NewPCG(1, 2)), 40)
	want := formAll(reqs, rand.New(rand.NewPCG(3, 4)), 43)
	for seed := range uint64(5) {
		require.Equal(t, want, formAll(reqs, rand.New(rand.NewPCG(seed, 9)), 43), "chunking %d", seed)
	}
	seen := map[[32]byte]bool{}
	for _, b := range want {
		require.LessOrEqual(t, len(b.Requests), 8)
		for i, q := range b.Requests {
			require.False(t, seen[q.ID])
			seen[q.ID] = true
			require.Equal(t, b.PolicyID, q.PolicyID)
			require.Len(t, q.Inputs, len(b.Requests[0].Inputs))
			if i > 0 {
				require.True(t, requestLess(b.Requests[i-1], q))
			}
		}
	}
	require.Len(t, seen, len(reqs))
}

// TestBatchWindowClosesOnBlockMark: a window closes when the chain adapter
// has delivered its last block (a block mark, or a request from a later
// block), never earlier and never on a clock; its session name carries the
// window's full block range whichever closed it, so a member that sees the
// mark late forms the same batch. A request delivered later for a closed
// window is answered alone (add reports false); one from a later window
// starts a new window.
func TestBatchWindowClosesOnBlockMark(t *testing.T) {
	req := func(block uint64, i byte) Request {
		return Request{ID: [32]byte{i}, PolicyID: [32]byte{1}, Kind: KindPolicy, Inputs: make([]fhe.Handle, 2), Block: block}
	}
	for _, tc := range []struct {
		name  string
		close func(b *Batcher)
	}{
		{"mark of the last block", func(b *Batcher) { b.BlockSeen(11) }},
		{"mark of a later block", func(b *Batcher) { b.BlockSeen(30) }},
		{"request from the next window", func(b *Batcher) { require.True(t, b.Add(req(12, 9))) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBatcher(4, 64, 1024)
			require.True(t, b.Add(req(8, 1)))
			require.True(t, b.Add(req(9, 2)))
			end, open := b.WaitingFor()
			require.True(t, open)
			require.Equal(t, uint64(11), end, "the block the chain must build")
			b.BlockSeen(9)
			require.Empty(t, b.Due(), "block 9 seen: window [8, 11] is still open")
			b.BlockSeen(10)
			require.Empty(t, b.Due(), "block 10 seen: window [8, 11] is still open")
			tc.close(b)
			got := b.Due()
			require.Len(t, got, 1)
			require.Len(t, got[0].Requests, 2)
			require.Contains(t, got[0].Session, "/w2/8-11/c0")
			require.False(t, b.Add(req(10, 3)), "window 2 is closed")
		})
	}
	// W = 1 (the devnet's window): a block's requests close with its mark.
	b := NewBatcher(1, 64, 1024)
	require.True(t, b.Add(req(5, 1)))
	require.True(t, b.Add(req(5, 2)))
	require.Empty(t, b.Due())
	b.BlockSeen(5)
	got := b.Due()
	require.Len(t, got, 1)
	require.Contains(t, got[0].Session, "/w5/5-5/c0")
	require.True(t, b.Add(req(6, 3)))
	_, ok := b.MinBlock()
	require.True(t, ok)
}

// TestBatchCapAndExpiry: a window with more requests than slots is cut into
// several batches in slot order; a request older than the expiry is dropped
// (never queued, never answered by the committee: FHEVerdict.expire posts
// its failure verdict on chain).
func TestBatchCapAndExpiry(t *testing.T) {
	b := NewBatcher(2, 3, 10)
	for i := range 7 {
		require.True(t, b.Add(Request{ID: [32]byte{byte(i)}, PolicyID: [32]byte{1}, Kind: KindPolicy, Inputs: make([]fhe.Handle, 1), Block: 20, LogIndex: uint(i)}))
	}
	require.True(t, b.Add(Request{ID: [32]byte{0x77}, PolicyID: [32]byte{1}, Kind: KindPolicy, Inputs: make([]fhe.Handle, 1), Block: 22}))
	got := b.Due()
	require.Len(t, got, 3)
	require.Equal(t, []int{3, 3, 1}, []int{len(got[0].Requests), len(got[1].Requests), len(got[2].Requests)})
	require.Equal(t, uint(3), got[1].Requests[0].LogIndex)
	require.NotEqual(t, got[0].Session, got[1].Session)
	// An old request (block 5 at head 22, expiry 10) is dropped.
	require.True(t, b.Add(Request{ID: [32]byte{0x55}, PolicyID: [32]byte{1}, Kind: KindPolicy, Inputs: make([]fhe.Handle, 1), Block: 5}))
	require.Equal(t, 1, b.expiredN)
	require.Empty(t, b.Due())
}

// scheduleAll feeds a chain's requests to a Batcher in random chunks, as
// formAll, and records the serve loop's steps (Batcher.RunDue) after every
// request and block mark, as consensus/serve.go runs them: policy 3 is
// answered one by one, a window of one request goes the per-request path
// (PackMin 2), and the packed batches of windows of four blocks ending at a
// multiple of five fail and fall back to it.
func scheduleAll(reqs []Request, r *rand.Rand, lastBlock uint64) []string {
	b := NewBatcher(4, 8, 1024)
	var alone []Request
	var steps []string
	packed := func(pb PackedBatch) {
		if len(pb.Requests) < 2 || pb.Last%5 == 0 {
			alone = append(alone, pb.Requests...)
			return
		}
		for _, q := range pb.Requests {
			steps = append(steps, fmt.Sprintf("packed %s %x", pb.Session, q.ID[1:3]))
		}
	}
	perRequest := func(rs []Request) { // one step, its requests in parallel
		for _, q := range rs {
			steps = append(steps, fmt.Sprintf("alone %x", q.ID[1:3]))
		}
	}
	add := func(q Request) {
		if q.PolicyID[0] == 3 || !b.Add(q) {
			b.Saw(q.Block)
			alone = append(alone, q)
			return
		}
		b.RunDue(&alone, packed, perRequest)
	}
	for i := 0; i < len(reqs); {
		n := 1 + r.IntN(15)
		chunk := append([]Request(nil), reqs[i:min(i+n, len(reqs))]...)
		i += len(chunk)
		for lo := 0; lo < len(chunk); { // shuffle within each block only
			hi := lo
			for hi < len(chunk) && chunk[hi].Block == chunk[lo].Block {
				hi++
			}
			r.Shuffle(hi-lo, func(x, y int) { chunk[lo+x], chunk[lo+y] = chunk[lo+y], chunk[lo+x] })
			lo = hi
		}
		for _, q := range chunk {
			add(q)
		}
		if i < len(reqs) && reqs[i].Block > chunk[len(chunk)-1].Block {
			b.BlockSeen(chunk[len(chunk)-1].Block + uint64(r.IntN(int(reqs[i].Block-chunk[len(chunk)-1].Block))))
			b.RunDue(&alone, packed, perRequest)
		}
	}
	b.BlockSeen(lastBlock)
	b.RunDue(&alone, packed, perRequest)
	return steps
}

// TestScheduleDeterministic: members whose chain adapters deliver the same
// blocks in different chunks (marks after some blocks only, requests of a
// block in another order) take the same requests in the same order —
// packed batches and one-by-one requests interleaved by block, a failed
// batch's requests answered before the next block's batch — so no member
// waits in a session its peers are not in. (Where one member answers the
// one-by-one requests of two blocks in one step and another in two, both
// start them in the same order: the earliest unfinished request is in
// every member's step, so no two members wait on each other in a cycle.)
// Every request is answered once.
func TestScheduleDeterministic(t *testing.T) {
	pr := rand.New(rand.NewPCG(5, 6))
	reqs := chainRequests(pr, 40)
	for i := range reqs {
		if reqs[i].Block%3 != 0 || pr.IntN(4) == 0 {
			reqs[i].PolicyID = [32]byte{3} // answered one by one (two blocks in three: only such requests)
		}
	}
	want := scheduleAll(reqs, rand.New(rand.NewPCG(7, 8)), 43)
	for seed := range uint64(16) {
		require.Equal(t, want, scheduleAll(reqs, rand.New(rand.NewPCG(seed, 11)), 43), "chunking %d", seed)
	}
	var packed, alone int
	for _, s := range want {
		if strings.HasPrefix(s, "packed") {
			packed++
		} else {
			alone++
		}
	}
	require.Positive(t, packed)
	require.Positive(t, alone)
	ids := map[string]bool{}
	for _, s := range want {
		ids[s[strings.LastIndex(s, " ")+1:]] = true
	}
	require.Len(t, ids, len(reqs), "every request answered")
	require.Len(t, want, len(reqs), "… once")
}
