package consensus_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
)

// TestServeBookedWork: the work the committee does never exceeds what the
// chain booked. FHEPolicy.evaluate books ONE packed evaluation (cost ×
// BatchOccupancy) for the first request of a policy in a block and lets
// later requests of that policy in the block share it (precompiles,
// queueRequest); the serve loop therefore packs every window of ≥ 2
// requests (DefaultPackMin) instead of evaluating fewer than 16 one by
// one. Seven policies of the KYC/AML class, 15 requests each (8 attribute
// handles per request, the per-input packed path), all in one block: the
// chain books 7 evaluations; every member runs at most 7 (one per policy)
// and at most 7 × (8 packed-input refreshes + the packed plan's refresh
// points + 1 before the mask) refreshes, where one-by-one evaluation would
// run 105 evaluations. Every verdict equals the plan's plaintext reference.
func TestServeBookedWork(t *testing.T) {
	const policies, perPolicy = 7, 15
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	circuits := circuit.NewPolicyCircuits(fhetest.InsecureBGVN10Deep)
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10Deep", Rotations: []int{1},
		RoundTimeout: 20 * time.Second, Circuits: circuits, Serve: true, BatchIdle: 300 * time.Millisecond, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	spec, err := examples.Get("kyc_aml")
	require.NoError(t, err)
	plan, err := policy.CompileWith(spec, circuit.PolicyOptions(fhetest.InsecureBGVN10Deep))
	require.NoError(t, err)
	kf := &kycFixture{packFixture: &packFixture{t: t, lc: lc, p: lc.Member(1).Params(), enc: fhe.NewEncryptor(lc.Keys)}, plan: plan}
	f := kf.packFixture
	var pool [8][2]fhe.Handle
	for j := range kycVals {
		for v := range kycVals[j] {
			pool[j][v] = f.replicated(kycVals[j][v])
		}
	}
	want := map[[32]byte]uint64{}
	var reqs []chainio.Request
	for p := range policies {
		id := [32]byte{0xb0, byte(p)}
		require.NoError(t, circuits.Register(id, spec))
		for k := range perPolicy {
			pattern := (k*37 + p*11) & 0xff
			hs := make([]fhe.Handle, 8)
			vals := make([]int64, 8)
			for j := range hs {
				hs[j] = pool[j][(pattern>>uint(j))&1]
				vals[j] = kycVals[j][(pattern>>uint(j))&1]
			}
			q := chainio.Request{ID: [32]byte{0xb1, byte(p), byte(k)}, PolicyID: id, Kind: chainio.KindPolicy, Inputs: hs}
			reqs, want[q.ID] = append(reqs, q), kf.ref(vals)
		}
	}
	before := make([]api.Status, 3)
	for i := range before {
		before[i] = lc.Member(uint32(i + 1)).Status()
	}
	lc.Chain.PostBlock(reqs...) // one block: the chain books one evaluation per policy
	booked := policies
	deadline := time.Now().Add(5 * time.Minute)
	for len(lc.Chain.Verdicts()) < len(want) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	got := lc.Chain.Verdicts()
	require.Len(t, got, len(want))
	for id, w := range want {
		require.Equal(t, new(big.Int).SetUint64(w), got[id].Result, "request %x", id[:3])
	}
	// per packed evaluation: the 8 packed inputs, the packed plan's refresh
	// points (it runs with one level less, packed.go "Refresh noise") and
	// at most one refresh of the result before its mask
	pc, err := lc.Member(1).PackedCircuit(reqs[0].PolicyID)
	require.NoError(t, err)
	perEval := uint64(8 + mustPlan(pc).Counts.Refreshes + 1)
	t.Logf("per packed evaluation: ≤ %d refreshes (plan alone: %d refresh points, packed: %d)", perEval, plan.Counts.Refreshes, mustPlan(pc).Counts.Refreshes)
	for i := range before {
		after := lc.Member(uint32(i + 1)).Status()
		evals, refreshes := after.Evaluations-before[i].Evaluations, after.Refreshes-before[i].Refreshes
		t.Logf("member %d: %d evaluations, %d refreshes for %d requests of %d policies in one block (booked: %d evaluations)",
			i+1, evals, refreshes, len(want), policies, booked)
		require.LessOrEqual(t, evals, uint64(booked), "member %d ran more evaluations than the chain booked", i+1)
		require.LessOrEqual(t, refreshes, uint64(booked)*perEval, "member %d ran more refreshes than %d booked evaluations need", i+1, booked)
	}
	require.Equal(t, policies, lc.Chain.BatchSubmissions(), "one packed batch per policy")
}
