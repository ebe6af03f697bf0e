package consensus_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/internal/keccak"
	"github.com/fhegate/fhegate/internal/testseed"
)

// TestPolicySurvivesRestart — failure: "a restart forgets every policy".
// Compiled plans live in memory; a member restarted behind a chain adapter
// that cannot replay the PolicyRegistered event (pruned log index, replay
// window skipped, adapter without replay such as local.MemChain) used to answer
// the policy's requests with ErrUnknownPolicy forever. Every member
// persists the spec when it is registered and recompiles it on start: a
// committee resumed from its stores with an empty registry and a chain that
// replays nothing answers a request for a policy registered before the
// restart, and a spec that did not compile stays unevaluable.
func TestPolicySurvivesRestart(t *testing.T) {
	t.Parallel()
	seed := testseed.Seed(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir := t.TempDir()
	opts := local.Options{N: 3, T: 2, Dir: dir, Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 10 * time.Second, BatchSize: 1, Log: zaptest.NewLogger(t)}

	before := opts
	before.Circuits = circuit.NewPolicyCircuits(fhetest.InsecureBGVN10)
	lc, err := local.Start(ctx, before)
	require.NoError(t, err)
	rp := refreshPolicies[0]
	pid := keccak.Sum([]byte(rp.spec))
	bad := keccak.Sum([]byte(wideCompare))
	for id := uint32(1); id <= 3; id++ { // every member's OnPolicy hook
		require.NoError(t, lc.Member(id).RegisterPolicy(pid, []byte(rp.spec)))
		require.Error(t, lc.Member(id).RegisterPolicy(bad, []byte(wideCompare)))
	}
	lc.Close()

	// The restart: a fresh, empty registry and a fresh local.MemChain that never
	// saw the PolicyRegistered events.
	pc := circuit.NewPolicyCircuits(fhetest.InsecureBGVN10)
	after := opts
	after.Circuits, after.Serve = pc, true
	lc, err = local.Resume(ctx, after)
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	_, err = pc.Lookup(pid)
	require.NoError(t, err, "the restarted members forgot the policy")
	_, err = pc.Lookup(bad)
	require.ErrorIs(t, err, circuit.ErrUnevaluable, "the restarted members forgot that the policy is unevaluable")

	q := policyRequest(t, lc, rand.New(rand.NewPCG(seed, 31)), pid, 1, rp.ref)
	lc.Chain.Post(q.req)
	waitVerdicts(t, lc.Chain, []testReq{q})
}
