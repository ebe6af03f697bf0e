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
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/policy/examples"
	"github.com/fhegate/fhegate/precompiles"
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
	// points (it runs with one level less, pipeline/packed.go "Refresh noise") and
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

// aloneSpec is a credit_limit-class policy of the deep test preset: a
// product compared against a threshold, a degree-127 comparison polynomial
// that needs every level the preset has. Its one-by-one form passes the
// admission rule; its packed form (one level less) does not, so the
// committee evaluates each request alone (eval.Admission.Alone) — as it
// does credit_limit on BGVN14 — and the chain books each request as the
// whole evaluation, ≈ 39.4M gas (credit_limit: 58.2M).
const aloneSpec = "fhegate_policy: 1\nname: alone\ninputs:\n  - {name: a, min: 0, max: 40}\n  - {name: b, min: 0, max: 3}\noutput:\n  type: bool\n  expr: \"a*b > 20\"\n"

// TestServeBookedWorkAlone: a policy without a passing packed form is
// evaluated request by request — each input entry-refreshed, the plan, at
// most one final refresh, a threshold decryption — and FHEPolicy books each
// of its requests as that whole evaluation (PlanInfo.Alone,
// policy.Plan.AloneGas) against the block's committee budget. Seven such
// policies, 15 requests each, sent in one block (round robin over the
// policies): the chain's booking rule (precompiles.BlockQueue.Book, what
// FHEPolicy.evaluate runs) refuses with ErrQueueFull every request the
// budget cannot hold, the accepted ones are served with packing on, and no
// member runs more evaluations than accepted requests or does more work,
// priced with the cost table (evaluations × the plan's gas without its
// refresh points + every refresh run × policy.RefreshGas), than the chain
// booked. Every verdict equals the plan's plaintext reference.
func TestServeBookedWorkAlone(t *testing.T) {
	const policies, perPolicy, block = 7, 15, 42
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	circuits := circuit.NewPolicyCircuits(fhetest.InsecureBGVN10Deep)
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10Deep", Rotations: []int{1},
		RoundTimeout: 20 * time.Second, Circuits: circuits, Serve: true, BatchIdle: 300 * time.Millisecond, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	spec := []byte(aloneSpec)
	// the chain's side of the admission rule, at the committee's preset
	a, err := eval.Chain.Admit(spec, fhetest.InsecureBGVN10Deep)
	require.NoError(t, err)
	require.True(t, a.Alone(), "the packed form must not pass: %v", a.Packed.Err)
	plan := a.Unpacked.Plan
	aloneGas := plan.AloneGas()
	require.Less(t, aloneGas, uint64(precompiles.CommitteeGasPerBlock), "registrable")
	kf := &kycFixture{packFixture: &packFixture{t: t, lc: lc, p: lc.Member(1).Params(), enc: fhe.NewEncryptor(lc.Keys)}, plan: plan}
	f := kf.packFixture
	pool := map[int64]fhe.Handle{}
	in := func(v int64) fhe.Handle {
		if _, ok := pool[v]; !ok {
			pool[v] = f.replicated(v)
		}
		return pool[v]
	}
	ids := make([][32]byte, policies)
	for p := range ids {
		ids[p] = [32]byte{0xa1, byte(p)}
		require.NoError(t, circuits.Register(ids[p], spec))
		_, err := lc.Member(1).PackedCircuit(ids[p])
		require.Error(t, err, "the committee has no packed plan for it either")
	}
	var q precompiles.BlockQueue
	want := map[[32]byte]uint64{}
	var accepted []chainio.Request
	refused := 0
	for k := range perPolicy {
		for p := range policies {
			if err := q.Book(block, aloneGas, "alone"); err != nil {
				require.ErrorIs(t, err, precompiles.ErrQueueFull)
				refused++
				continue
			}
			vals := []int64{int64((k*7 + p*3) % 41), int64((k + p) % 4)}
			r := chainio.Request{ID: [32]byte{0xa2, byte(p), byte(k)}, PolicyID: ids[p], Kind: chainio.KindPolicy, Inputs: []fhe.Handle{in(vals[0]), in(vals[1])}}
			accepted, want[r.ID] = append(accepted, r), kf.ref(vals)
		}
	}
	fit := int(precompiles.CommitteeGasPerBlock / aloneGas)
	require.Len(t, accepted, fit, "the budget holds ⌊CommitteeGasPerBlock / AloneGas⌋ requests")
	require.Equal(t, policies*perPolicy-fit, refused)
	booked := q.Booked
	require.Equal(t, uint64(fit)*aloneGas, booked)

	before := make([]api.Status, 3)
	for i := range before {
		before[i] = lc.Member(uint32(i + 1)).Status()
	}
	lc.Chain.PostBlock(accepted...) // one block: every accepted request booked its own evaluation
	deadline := time.Now().Add(5 * time.Minute)
	for len(lc.Chain.Verdicts()) < len(want) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	got := lc.Chain.Verdicts()
	require.Len(t, got, len(want))
	for id, w := range want {
		require.Equal(t, new(big.Int).SetUint64(w), got[id].Result, "request %x", id[:3])
	}
	require.Zero(t, lc.Chain.BatchSubmissions(), "nothing of these policies is packed")

	rg := policy.RefreshGas()
	perRequest := uint64(len(plan.Inputs) + plan.Counts.Refreshes + 1) // entry refreshes, refresh points, final refresh
	opsGas := plan.Gas() - uint64(plan.Counts.Refreshes)*rg            // the plan without its refresh points
	for i := range before {
		after := lc.Member(uint32(i + 1)).Status()
		evals, refreshes := after.Evaluations-before[i].Evaluations, after.Refreshes-before[i].Refreshes
		work := evals*opsGas + refreshes*rg
		t.Logf("member %d: %d evaluations, %d refreshes for %d accepted requests (%d refused): work %d gas, booked %d gas (%d per request)",
			i+1, evals, refreshes, len(accepted), refused, work, booked, aloneGas)
		require.LessOrEqual(t, evals, uint64(len(accepted)), "member %d ran more evaluations than the chain booked", i+1)
		require.LessOrEqual(t, refreshes, uint64(len(accepted))*perRequest, "member %d ran more refreshes than the booked evaluations hold", i+1)
		require.LessOrEqual(t, work, booked, "member %d did more work than the chain booked", i+1)
	}
}
