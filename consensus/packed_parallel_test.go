package consensus_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/fhe"
)

// TestPackBlocksWorkers: the block packing of a vector batch gives the same
// bytes whatever the number of workers it splits the coefficients over
// (GOMAXPROCS 1, 2, 3, 4, 7 and 16 on 261 requests in three accumulators,
// fhe.SlotPacker.AddEncodedBatch) or reads the requests in runs of 7 or 100
// per store transaction: members with different core counts must agree on
// the accumulators byte for byte (agreedAccumulators).
func TestPackBlocksWorkers(t *testing.T) {
	f := newPackFixture(t)
	n := 2*f.p.Slots()/fhe.VectorStride(8) + 5
	layout, err := fhe.NewVectorLayout(f.p, 8, n)
	require.NoError(t, err)
	require.Equal(t, 3, layout.Accs)
	reqs := make([]chainio.Request, n)
	for k := range reqs {
		slots, err := f.p.VectorInts([]int64{int64(k), 1, 2, 3, 4, 5, 6, int64(k % 7)})
		require.NoError(t, err)
		ct, err := f.enc.EncryptInts(slots)
		require.NoError(t, err)
		reqs[k] = chainio.Request{ID: [32]byte{0xbb, byte(k), byte(k >> 8)}, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{f.put(ct)}}
	}
	m := f.lc.Member(1)
	level, _, err := circuit.PackLevelBounds(f.p)
	require.NoError(t, err)
	var want [][]byte
	for _, tc := range []struct{ procs, run int }{{1, 1024}, {2, 1024}, {3, 1024}, {4, 1024}, {7, 1024}, {16, 1024}, {3, 7}, {2, 100}} {
		procs := tc.procs
		prev := runtime.GOMAXPROCS(procs)
		restore := consensus.SetPackViewRun(tc.run)
		cts, err := m.PackBlocks(context.Background(), reqs, layout, level, zaptest.NewLogger(t))
		restore()
		runtime.GOMAXPROCS(prev)
		require.NoError(t, err)
		require.Len(t, cts, layout.Accs)
		got := make([][]byte, len(cts))
		for a, ct := range cts {
			require.Equal(t, level, ct.Level())
			got[a], err = ct.MarshalBinary()
			require.NoError(t, err)
		}
		if want == nil {
			want = got
			continue
		}
		require.Equal(t, want, got, "GOMAXPROCS=%d, runs of %d: accumulators differ from one worker's", procs, tc.run)
	}
}
