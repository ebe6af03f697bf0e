package consensus_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/internal/keccak"
	"github.com/fhegate/fhegate/internal/testseed"
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/policy/policytest"
)

// The plaintext references, written from the specs' text, not from the
// compiler's plan.
func refTwo(v []int64) uint64 { return b2u(v[0] > v[1] && v[2] > v[3]) }
func refFour(v []int64) uint64 {
	return b2u((v[0] > v[1] && v[2] > v[3]) && (v[0] > v[3] || v[1] > v[2]))
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

type refreshPolicy struct {
	name      string
	spec      string
	refreshes int // at least this many refresh points in the plan
	ref       func([]int64) uint64
}

var refreshPolicies = []refreshPolicy{
	{"two refreshes", policytest.RefreshTwo, 2, refTwo},
	{"four refreshes", policytest.RefreshFour, 4, refFour},
}

// registerRefreshPolicies registers the refresh policies on pc (as the
// chain adapter's OnPolicy hook does) and returns their ids.
func registerRefreshPolicies(t *testing.T, pc *circuit.PolicyCircuits) [][32]byte {
	t.Helper()
	ids := make([][32]byte, len(refreshPolicies))
	for i, rp := range refreshPolicies {
		// every request runs the packed plan (a batch of one when alone)
		plan, err := eval.PackedPlan([]byte(rp.spec), fhe.MustParams(pc.Preset))
		require.NoError(t, err, rp.name)
		require.GreaterOrEqual(t, plan.Counts.Refreshes, rp.refreshes, rp.name)
		ids[i] = keccak.Sum([]byte(rp.spec))
		require.NoError(t, pc.Register(ids[i], []byte(rp.spec)))
	}
	return ids
}

// policyRequest uploads one random in-range value per input, replicated in
// every slot as clients do (a window of ≥ 2 requests is packed, request r
// reading slot r), and returns the request with its reference verdict.
func policyRequest(t *testing.T, lc *local.Committee, r *rand.Rand, policyID [32]byte, k int, ref func([]int64) uint64) testReq {
	t.Helper()
	m := lc.Member(1)
	vals := make([]int64, 4)
	hs := make([]fhe.Handle, len(vals))
	for i := range vals {
		vals[i] = r.Int64N(2) // the specs' inputs are in 0..1
		owner := [20]byte{0xee, byte(k)}
		b, proof, err := m.EncryptInput(api.ReplicatedInts(m.Params(), vals[i]), owner)
		require.NoError(t, err)
		att, err := m.Upload(context.Background(), b, proof, owner, 1)
		require.NoError(t, err)
		hs[i] = att.Handle
	}
	id := [32]byte{0xcc, policyID[0], byte(k), byte(k >> 8)}
	return testReq{req: chainio.Request{ID: id, PolicyID: policyID, Kind: chainio.KindPolicy, Inputs: hs}, want: ref(vals)}
}

// sameDigests checks that every listed member stored the request's verdict
// with one result digest (bounded wait: the chain accepts the first
// submission before the others persist theirs).
func sameDigests(t *testing.T, lc *local.Committee, members []uint32, reqs []testReq) {
	t.Helper()
	for _, r := range reqs {
		var digest [32]byte
		for k, id := range members {
			var v *chainio.Verdict
			require.Eventually(t, func() bool {
				var ok bool
				v, ok = lc.Member(id).StoredVerdict(r.req.ID)
				return ok
			}, time.Minute, 20*time.Millisecond, "member %d never stored verdict %x", id, r.req.ID[:4])
			require.Equal(t, r.want, v.Result.Uint64(), "member %d", id)
			if k == 0 {
				digest = v.ResultDigest
			}
			require.Equal(t, digest, v.ResultDigest, "member %d recorded another result digest", id)
		}
	}
}

// TestPolicyRefreshes: compiled plans with two and four refresh points are
// evaluated by an n=3, t=2 committee over TLS sockets, the collective refresh
// (MPC bootstrap) running at each refresh point; every verdict equals the
// plaintext reference on fresh random inputs and every member records the
// same result digest.
func TestPolicyRefreshes(t *testing.T) {
	t.Parallel()
	seed := testseed.Seed(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pc := circuit.NewPolicyCircuits(fhetest.InsecureBGVN10)
	fc := newFloorChecker(fhe.MustParams(fhetest.InsecureBGVN10))
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		Circuits: pc, RoundTimeout: 10 * time.Second, BatchSize: 4, Serve: true, Knobs: fc.knobs(), Log: zaptest.NewLogger(t),
		// windows are not packed: every request is its own packed batch of
		// one (pipeline.Runner.processAlone), so every member evaluates every request
		// and the test can require each member's verdict
		PackMin: -1})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	ids := registerRefreshPolicies(t, pc)

	r := rand.New(rand.NewPCG(seed, 17))
	var reqs []testReq
	for i, rp := range refreshPolicies {
		for k := 0; k < 3; k++ {
			reqs = append(reqs, policyRequest(t, lc, r, ids[i], 10*i+k, rp.ref))
		}
	}
	for _, q := range reqs {
		lc.Chain.Post(q.req)
	}
	waitVerdicts(t, lc.Chain, reqs)
	sameDigests(t, lc, []uint32{1, 2, 3}, reqs)
	minRefreshes := uint64(0)
	for _, rp := range refreshPolicies {
		minRefreshes += 3 * uint64(rp.refreshes)
	}
	for id := uint32(1); id <= 3; id++ {
		require.GreaterOrEqual(t, lc.Member(id).Status().Refreshes, minRefreshes, "member %d", id)
	}
	// Every refresh (refresh points and final refreshes) ran at a level
	// with room for the flooding of the plan's bounds.
	fc.check(t, 3*int(minRefreshes))
}

// TestPolicyRefreshSurvivesKill: a contributor to a refresh dies between
// two refreshes of one request of a 2-of-4 committee; the three survivors
// (CheckedMembers(2) = 3) mark it down, refresh again with each other and
// answer the request with the reference verdict and one result digest.
func TestPolicyRefreshSurvivesKill(t *testing.T) {
	t.Parallel()
	seed := testseed.Seed(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var (
		lc       *local.Committee
		killOnce sync.Once
		killed   = make(chan struct{})
	)
	// A surviving member kills member 2 after its first refresh, from a
	// goroutine of its own: Kill waits for member 2's goroutines, so it
	// must not run on one of them (member 2's own hook) nor hold up the
	// killer's evaluation.
	knobs := func(id uint32) TestingKnobs {
		if id == 2 {
			return TestingKnobs{}
		}
		return TestingKnobs{AfterRefresh: func(_ [32]byte, n int) {
			if n == 1 {
				killOnce.Do(func() {
					go func() { lc.Kill(2); close(killed) }()
				})
			}
		}}
	}
	pc := circuit.NewPolicyCircuits(fhetest.InsecureBGVN10)
	var err error
	lc, err = local.Start(ctx, local.Options{N: 4, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		Circuits: pc, RoundTimeout: 5 * time.Second, BatchSize: 1, Serve: true, MemberKnobs: knobs, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	ids := registerRefreshPolicies(t, pc)

	r := rand.New(rand.NewPCG(seed, 23))
	q := policyRequest(t, lc, r, ids[1], 1, refFour)
	lc.Chain.Post(q.req)
	waitVerdicts(t, lc.Chain, []testReq{q})
	select {
	case <-killed:
	case <-time.After(time.Minute):
		t.Fatal("member 2 was never killed: the request needed no refresh")
	}
	sameDigests(t, lc, []uint32{1, 3, 4}, []testReq{q})
	for _, id := range []uint32{1, 3, 4} {
		require.Contains(t, lc.Member(id).Status().Down, uint32(2), "member %d did not mark the dead member down", id)
	}
}

// TestRefreshShiftRefusedOverTLS: one member running modified code moves
// every refresh it contributes to (each of its refresh shares off by a
// flipped bit, well-formed: CorruptRefresh) while the committee evaluates a
// policy with refresh points over TLS sockets. No honest member gets a
// verdict out of it — no wrong verdict is signed — and the member is named
// where the committee has the redundancy to name it: 2-of-3 (r = 2t−1)
// refuses without a name, 2-of-4 (r = 3t−2) names member 2 on every honest
// member. The honest committee's verdict for the same inputs is the
// reference (TestPolicyRefreshes).
func TestRefreshShiftRefusedOverTLS(t *testing.T) {
	t.Parallel()
	seed := testseed.Seed(t)
	for _, n := range []int{3, 4} {
		t.Run(fmt.Sprintf("2-of-%d", n), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			pc := circuit.NewPolicyCircuits(fhetest.InsecureBGVN10)
			lc, err := local.Start(ctx, local.Options{N: n, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
				Circuits: pc, RoundTimeout: 5 * time.Second, BatchSize: 1, Log: zaptest.NewLogger(t),
				MemberKnobs: func(id uint32) TestingKnobs { return TestingKnobs{CorruptRefresh: id == 2} }})
			require.NoError(t, err)
			t.Cleanup(lc.Close)
			ids := registerRefreshPolicies(t, pc)
			q := policyRequest(t, lc, rand.New(rand.NewPCG(seed, 29)), ids[0], 1, refTwo)
			batch := []chainio.Request{lc.Chain.Post(q.req)}
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, es := lc.Member(uint32(i+1)).ProcessBatch(ctx, batch)
					errs[i] = es[0]
					if errs[i] == nil && res[0] == nil {
						errs[i] = fmt.Errorf("no verdict")
					}
				}()
			}
			wg.Wait()
			for i := range n {
				id := uint32(i + 1)
				if id == 2 {
					continue
				}
				require.Error(t, errs[i], "member %d got a verdict out of a moved refresh", id)
				_, ok := lc.Member(id).StoredVerdict(q.req.ID)
				require.False(t, ok, "member %d stored a verdict", id)
				var named []uint32
				for _, e := range lc.Member(id).Status().Equivocations {
					named = append(named, e.Member)
				}
				for _, m := range named {
					require.Equal(t, uint32(2), m, "member %d named an honest member", id)
				}
				if n == 4 {
					require.Contains(t, named, uint32(2), "member %d did not name the deviating member", id)
				}
			}
			_, onChain := lc.Chain.Verdict(q.req.ID)
			require.False(t, onChain, "a verdict reached the chain")
		})
	}
}
