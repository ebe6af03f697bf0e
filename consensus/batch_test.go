package consensus_test

import (
	"context"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/fhe"
)

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
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 10 * time.Second, BatchSize: 8, Serve: true, Log: zaptest.NewLogger(t),
		BatchWindow: 4, BatchIdle: 300 * time.Millisecond, PackMin: 4})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	f := &packFixture{t: t, lc: lc, p: lc.Member(1).Params(), enc: fhe.NewEncryptor(lc.Keys)}
	r := rand.New(rand.NewPCG(5, 5))
	mk := func(k int) (chainio.Request, uint64) {
		a, b := r.Int64N(200)-100, r.Int64N(200)-100
		return chainio.Request{ID: [32]byte{0xdd, byte(k)}, PolicyID: circuit.PolicyProductSum, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{f.replicated(a), f.replicated(b)}},
			circuit.ProductSum{}.Reference(f.p, []int64{a, b})
	}
	want := map[[32]byte]uint64{}
	var first []chainio.Request
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
