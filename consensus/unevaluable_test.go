package consensus_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/internal/keccak"
	"github.com/fhegate/fhegate/policy"
)

// wideCompare compiles on chain (policy.Compile picks a preset deep enough)
// but not for InsecureBGVN10 (depth 4): a comparison over 256 values needs a
// single polynomial deeper than the preset, which no refresh can split.
const wideCompare = `fhegate_policy: 1
name: wide-compare
inputs:
  - {name: x, min: 0, max: 255}
output:
  type: bool
  expr: "x >= 100"
`

// TestUnevaluablePolicy: a policy that FHEPolicy.registerPolicy accepts but
// that does not compile for the committee preset is answered with a signed,
// chain-accepted ResultUnevaluable verdict (digest keccak256(domain ||
// policyId)); a request for a policy never registered is not.
func TestUnevaluablePolicy(t *testing.T) {
	t.Parallel()
	_, err := policy.Compile([]byte(wideCompare))
	require.NoError(t, err, "the spec must compile on chain")
	_, err = policy.CompileWith([]byte(wideCompare), circuit.PolicyOptions(fhetest.InsecureBGVN10))
	require.Error(t, err, "the spec must not compile for the committee preset")

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pc := circuit.NewPolicyCircuits(fhetest.InsecureBGVN10)
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		Circuits: pc, RoundTimeout: 10 * time.Second, BatchSize: 1, Serve: true, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc.Close)

	pid := keccak.Sum([]byte(wideCompare))
	for id := uint32(1); id <= 3; id++ { // every member's OnPolicy hook
		require.Error(t, lc.Member(id).RegisterPolicy(pid, []byte(wideCompare)))
	}
	require.Error(t, pc.CompileError(pid))
	_, err = pc.Lookup(pid)
	require.ErrorIs(t, err, circuit.ErrUnevaluable)

	// A policy never seen (OnPolicy missed) is unknown, not unevaluable:
	// the request fails (and the serving loop retries it).
	unseen := [32]byte{0x77}
	require.NoError(t, pc.CompileError(unseen))
	_, err = pc.Lookup(unseen)
	require.ErrorIs(t, err, circuit.ErrUnknownPolicy)
	require.NotErrorIs(t, err, circuit.ErrUnevaluable)
	_, err = lc.Member(1).Process(ctx, chainio.Request{ID: [32]byte{0xbb, 1}, PolicyID: unseen, Kind: chainio.KindPolicy})
	require.ErrorIs(t, err, circuit.ErrUnknownPolicy)

	// One real input, uploaded and attested as for any request.
	b, proof, err := lc.Member(1).EncryptInput(append([]int64{150}, fhetest.RandInts(rand.New(rand.NewPCG(1, 2)), 7, 50)...), [20]byte{1})
	require.NoError(t, err)
	att, err := lc.Member(1).Upload(ctx, b, proof, [20]byte{1}, 1)
	require.NoError(t, err)

	req := lc.Chain.Post(chainio.Request{ID: [32]byte{0xbb, 2}, PolicyID: pid, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{att.Handle}})
	v := waitChainVerdict(t, lc.Chain, req.ID, "no verdict accepted for the unevaluable request")
	want := keccak.Sum([]byte("fhegate/unevaluable/v1"), pid[:])
	require.Equal(t, 0, v.Result.Cmp(chainio.ResultUnevaluable))
	require.Equal(t, "115792089237316195423570985008687907853269984665640564039457584007913129639935", v.Result.String())
	require.True(t, v.IsUnevaluable())
	require.Equal(t, want, v.ResultDigest)
	require.Equal(t, pid, v.PolicyID)
	// Evaluation and decryption were skipped: no member issued a share for
	// it (the ledger holds only the DKG self-test's two shares).
	for id := uint32(1); id <= 3; id++ {
		require.Equal(t, 2, lc.Member(id).Ledger().Count(), "member %d", id)
	}
	// The outcome is decided once: it is persisted, and a member asked again
	// returns the stored verdict even if the policy compiled later. The chain
	// accepts the first member's submission; the others persist theirs when
	// their own round returns, so wait for each (bounded, not a speed check).
	for id := uint32(1); id <= 3; id++ {
		var sv *chainio.Verdict
		require.Eventually(t, func() bool {
			var ok bool
			sv, ok = lc.Member(id).StoredVerdict(req.ID)
			return ok
		}, time.Minute, 20*time.Millisecond, "member %d never stored the verdict", id)
		require.Equal(t, 0, sv.Result.Cmp(chainio.ResultUnevaluable), "member %d", id)
		require.Equal(t, want, sv.ResultDigest, "member %d", id)
	}
}

// waitChainVerdict waits for the chain to accept a verdict for id, for a
// minute at most (a bound, not an assertion on speed), and fails with msg if
// it does not.
func waitChainVerdict(t *testing.T, chain *local.MemChain, id [32]byte, msg string) *chainio.Verdict {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if v, ok := chain.Verdict(id); ok {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
