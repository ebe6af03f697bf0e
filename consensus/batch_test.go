package consensus

import (
	"context"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/circuit"
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

// formAll feeds reqs to a batcher in chunks of random sizes (shuffled inside
// each block, as another poll order would deliver them), closing due
// windows after every request as the serve loop does; each chunk ends with
// the block mark of the last block it completed, sometimes one of a later
// empty block (an adapter polls ranges), and the last with the mark of
// lastBlock.
func formAll(reqs []Request, r *rand.Rand, lastBlock uint64) []PackedBatch {
	b := newBatcher(4, 8, 1024)
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
			if !b.add(q) {
				panic("window closed early")
			}
			out = append(out, b.due()...)
		}
		if i < len(reqs) && reqs[i].Block > chunk[len(chunk)-1].Block {
			// the chunk ended at a block boundary: a mark for a block
			// between it and the next request's block
			b.blockSeen(chunk[len(chunk)-1].Block + uint64(r.IntN(int(reqs[i].Block-chunk[len(chunk)-1].Block))))
			out = append(out, b.due()...)
		}
	}
	b.blockSeen(lastBlock)
	return append(out, b.due()...)
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
		close func(b *batcher)
	}{
		{"mark of the last block", func(b *batcher) { b.blockSeen(11) }},
		{"mark of a later block", func(b *batcher) { b.blockSeen(30) }},
		{"request from the next window", func(b *batcher) { require.True(t, b.add(req(12, 9))) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBatcher(4, 64, 1024)
			require.True(t, b.add(req(8, 1)))
			require.True(t, b.add(req(9, 2)))
			end, open := b.waitingFor()
			require.True(t, open)
			require.Equal(t, uint64(11), end, "the block the chain must build")
			b.blockSeen(9)
			require.Empty(t, b.due(), "block 9 seen: window [8, 11] is still open")
			b.blockSeen(10)
			require.Empty(t, b.due(), "block 10 seen: window [8, 11] is still open")
			tc.close(b)
			got := b.due()
			require.Len(t, got, 1)
			require.Len(t, got[0].Requests, 2)
			require.Contains(t, got[0].Session, "/w2/8-11/c0")
			require.False(t, b.add(req(10, 3)), "window 2 is closed")
		})
	}
	// W = 1 (the devnet's window): a block's requests close with its mark.
	b := newBatcher(1, 64, 1024)
	require.True(t, b.add(req(5, 1)))
	require.True(t, b.add(req(5, 2)))
	require.Empty(t, b.due())
	b.blockSeen(5)
	got := b.due()
	require.Len(t, got, 1)
	require.Contains(t, got[0].Session, "/w5/5-5/c0")
	require.True(t, b.add(req(6, 3)))
	_, ok := b.minBlock()
	require.True(t, ok)
}

// TestBatchCapAndExpiry: a window with more requests than slots is cut into
// several batches in slot order; a request older than the expiry is dropped
// (never queued, never answered by the committee: FHEVerdict.expire posts
// its failure verdict on chain).
func TestBatchCapAndExpiry(t *testing.T) {
	b := newBatcher(2, 3, 10)
	for i := range 7 {
		require.True(t, b.add(Request{ID: [32]byte{byte(i)}, PolicyID: [32]byte{1}, Kind: KindPolicy, Inputs: make([]fhe.Handle, 1), Block: 20, LogIndex: uint(i)}))
	}
	require.True(t, b.add(Request{ID: [32]byte{0x77}, PolicyID: [32]byte{1}, Kind: KindPolicy, Inputs: make([]fhe.Handle, 1), Block: 22}))
	got := b.due()
	require.Len(t, got, 3)
	require.Equal(t, []int{3, 3, 1}, []int{len(got[0].Requests), len(got[1].Requests), len(got[2].Requests)})
	require.Equal(t, uint(3), got[1].Requests[0].LogIndex)
	require.NotEqual(t, got[0].Session, got[1].Session)
	// An old request (block 5 at head 22, expiry 10) is dropped.
	require.True(t, b.add(Request{ID: [32]byte{0x55}, PolicyID: [32]byte{1}, Kind: KindPolicy, Inputs: make([]fhe.Handle, 1), Block: 5}))
	require.Equal(t, 1, b.expiredN)
	require.Empty(t, b.due())
}

// TestServePacked runs the whole serve loop on an in-memory chain: 12
// requests of one policy in one block and a request in a later block close
// the first window, which is evaluated as ONE packed batch and posted with
// one SubmitVerdictBatch; the later window holds fewer than PackMin requests
// and closes when the chain reaches its last block — which nobody posts: a
// member asks the chain for empty blocks 6–7 (BlockMaker) after BatchIdle
// — into per-request verdicts. Every verdict equals the
// plaintext reference.
func TestServePacked(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := StartLocal(ctx, LocalOptions{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 10 * time.Second, BatchSize: 8, Serve: true, Log: zaptest.NewLogger(t),
		BatchWindow: 4, BatchIdle: 300 * time.Millisecond, PackMin: 4})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	f := &packFixture{t: t, lc: lc, p: lc.Member(1).Params(), enc: fhe.NewEncryptor(lc.Keys)}
	r := rand.New(rand.NewPCG(5, 5))
	mk := func(k int) (Request, uint64) {
		a, b := r.Int64N(200)-100, r.Int64N(200)-100
		return Request{ID: [32]byte{0xdd, byte(k)}, PolicyID: circuit.PolicyProductSum, Kind: KindPolicy, Inputs: []fhe.Handle{f.replicated(a), f.replicated(b)}},
			circuit.ProductSum{}.Reference(f.p, []int64{a, b})
	}
	want := map[[32]byte]uint64{}
	var first []Request
	for k := range 12 {
		q, w := mk(k)
		first, want[q.ID] = append(first, q), w
	}
	lc.Chain.PostBlock(first...) // block 1: window [0, 3]
	for range 3 {
		lc.Chain.PostBlock() // empty blocks 2–4
	}
	q, w := mk(99)
	want[q.ID] = w
	lc.Chain.PostBlock(q) // block 5: closes window 0, opens window 1
	// no more blocks: after BatchIdle a member asks the chain (a
	// BlockMaker, as a devnet's evm_mine) for blocks 6–7, and the mark of
	// block 7 closes window 1
	deadline := time.Now().Add(3 * time.Minute)
	for len(lc.Chain.Verdicts()) < len(want) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	got := lc.Chain.Verdicts()
	require.Len(t, got, len(want))
	for id, w := range want {
		require.Equal(t, new(big.Int).SetUint64(w), got[id].Result, "request %x", id[:2])
	}
	require.Equal(t, 1, lc.Chain.BatchSubmissions(), "the 12 requests of window 0 in one batch")
}
