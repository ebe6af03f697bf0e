package consensus_test

import (
	"math/big"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/policy/examples"
)

// countingRouter runs every batch as Lattigo does and records the largest
// batch it was handed.
type countingRouter struct {
	calls atomic.Int64
	mu    sync.Mutex
	max   int
}

func (r *countingRouter) Transform(inverse, lazy bool, jobs []engine.Job) {
	r.calls.Add(1)
	r.mu.Lock()
	r.max = max(r.max, len(jobs))
	r.mu.Unlock()
	engine.RunLattigo(inverse, lazy, jobs)
}

// TestPackedVectorWithRouter: with a router installed in fhe/engine (the GPU
// gate's place) a packed batch is evaluated through it, gathered
// (eval.Options.Gather), and this KYC/AML plan has refresh points: the
// collective refreshes run outside the Gather (Gather.Outside), so members
// that reach them in different orders still finish; they agree byte for
// byte (the majority digest), and every verdict equals its plaintext
// reference.
func TestPackedVectorWithRouter(t *testing.T) {
	spec, err := examples.Get("kyc_aml")
	require.NoError(t, err)
	var refreshes atomic.Int64
	kf := newPolicyFixture(t, [32]byte{0xc0, 0x0e}, spec, func(_ uint32, k *consensus.TestingKnobs) {
		k.AfterRefresh = func([32]byte, int) { refreshes.Add(1) }
	})
	f := kf.packFixture
	r := rand.New(rand.NewPCG(15, 301))
	const n = 96
	reqs, want := postKYCVectors(t, kf, r, n, 0xd1)
	rt := &countingRouter{}
	engine.SetRouter(rt)
	defer engine.SetRouter(nil)
	prev := runtime.GOMAXPROCS(4)
	out, errs := f.processAll(chainio.PackedBatch{PolicyID: kf.id, Session: "test/pack/router", Requests: reqs})
	runtime.GOMAXPROCS(prev)
	engine.SetRouter(nil)
	ms := f.lc.Live()
	for i := range ms {
		require.NoError(t, errs[i], "member %d", ms[i].ID())
		require.Len(t, out[i], n)
		require.Equal(t, out[0][0].ResultDigest, out[i][0].ResultDigest, "member %d's result digest", ms[i].ID())
		for s, v := range out[i] {
			require.Equal(t, new(big.Int).SetUint64(want[s]), v.Result, "member %d, request %d", ms[i].ID(), s)
		}
	}
	require.Positive(t, rt.calls.Load(), "the installed router saw no transform")
	require.Positive(t, refreshes.Load(), "no refresh point inside the gathered evaluation")
	t.Logf("router: %d calls, largest batch %d transforms", rt.calls.Load(), rt.max)
}
