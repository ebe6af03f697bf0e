package consensus_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/policy/examples"
)

// TestPackedVectorWorkers runs the packed KYC/AML vector stage — block
// packing, refresh transform, evaluation, threshold decryption, BLS — on a
// committee whose members spread their packing and refresh transform over
// 1, 4 and 2 workers (TestingKnobs.Workers, as members on machines with
// different cores), once at GOMAXPROCS 1 and once at GOMAXPROCS 4 (the
// evaluation's independent ops and each key switch's transforms spread
// over them). In each run the members that did not pack accept the t
// packers' accumulators and results only when their bytes are identical,
// and every member must announce the majority result digest: so the
// members' different worker counts gave the same bytes at every step.
// Every member returns the same result digest and verdicts, and every
// verdict equals its plaintext reference in both runs. (The two runs'
// digests differ from each other by construction: each refresh draws fresh
// masks and noise.)
func TestPackedVectorWorkers(t *testing.T) {
	spec, err := examples.Get("kyc_aml")
	require.NoError(t, err)
	workers := map[uint32]int{1: 1, 2: 4, 3: 2}
	kf := newPolicyFixture(t, [32]byte{0xc0, 0x0d}, spec, func(id uint32, k *TestingKnobs) { k.Workers = workers[id] })
	f := kf.packFixture
	r := rand.New(rand.NewPCG(14, 300))
	const n = 300 // 300 requests of stride 8 on 1024 slots: 3 accumulators
	layout, err := fhe.NewVectorLayout(f.p, 8, n)
	require.NoError(t, err)
	require.Equal(t, 3, layout.Accs)
	reqs, want := postKYCVectors(t, kf, r, n, 0xd0)
	var first []*big.Int
	for _, procs := range []int{1, 4} {
		prev := runtime.GOMAXPROCS(procs)
		out, errs := f.processAll(chainio.PackedBatch{PolicyID: kf.id, Session: fmt.Sprintf("test/pack/workers/%d", procs), Requests: reqs})
		runtime.GOMAXPROCS(prev)
		ms := f.lc.Live()
		for i := range ms {
			require.NoError(t, errs[i], "GOMAXPROCS %d, member %d (%d workers)", procs, ms[i].ID(), workers[uint32(ms[i].ID())])
			require.Len(t, out[i], n)
			require.Equal(t, out[0][0].ResultDigest, out[i][0].ResultDigest, "GOMAXPROCS %d: member %d's result digest", procs, ms[i].ID())
			for s, v := range out[i] {
				require.Equal(t, new(big.Int).SetUint64(want[s]), v.Result, "GOMAXPROCS %d, member %d, request %d", procs, ms[i].ID(), s)
			}
		}
		got := make([]*big.Int, n)
		for s, v := range out[0] {
			got[s] = v.Result
		}
		if first == nil {
			first = got
			continue
		}
		require.Equal(t, first, got, "verdicts at GOMAXPROCS %d differ from GOMAXPROCS 1's", procs)
	}
}

// postKYCVectors posts n KYC/AML requests, each with one vector input of
// random attribute values, to kf's chain (request ids {tag, k, k>>8}) and
// returns them with their plaintext verdicts.
func postKYCVectors(t *testing.T, kf *kycFixture, r *rand.Rand, n int, tag byte) ([]chainio.Request, []uint64) {
	t.Helper()
	f := kf.packFixture
	reqs := make([]chainio.Request, 0, n)
	want := make([]uint64, n)
	for k := range n {
		vals := make([]int64, 8)
		for j := range vals {
			vals[j] = kycVals[j][r.IntN(2)]
		}
		slots, err := f.p.VectorInts(vals)
		require.NoError(t, err)
		ct, err := f.enc.EncryptInts(slots)
		require.NoError(t, err)
		reqs = append(reqs, f.lc.Chain.Post(chainio.Request{ID: [32]byte{tag, byte(k), byte(k >> 8)}, PolicyID: kf.id, Kind: chainio.KindPolicy,
			Inputs: []fhe.Handle{f.put(ct)}}))
		want[k] = kf.ref(vals)
	}
	return reqs, want
}
