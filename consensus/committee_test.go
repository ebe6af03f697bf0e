package consensus_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/bls"
	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

func startTest(t *testing.T, n, th int, serve bool) *local.Committee {
	t.Helper()
	return startTestKnobs(t, n, th, serve, nil)
}

// startTestKnobs is startTest with per-member test hooks (nil: none).
func startTestKnobs(t *testing.T, n, th int, serve bool, knobs func(id uint32) TestingKnobs) *local.Committee {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := local.Start(ctx, local.Options{N: n, T: th, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 10 * time.Second, BatchSize: 8, Serve: serve, MemberKnobs: knobs, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	return lc
}

type testReq struct {
	req  chainio.Request
	want uint64
	vals []int64 // the plaintext inputs (slot 0)
}

// makeRequests encrypts random inputs under the committee key, each
// replicated in every slot as clients do (a window of ≥ 2 requests is
// packed, request r reading slot r), uploads them through member `via`
// (checking the input attestation) and builds requests.
func makeRequests(t *testing.T, lc *local.Committee, via uint32, count int, seed uint64) []testReq {
	return makeRequestsAt(t, lc, via, count, seed, false)
}

// makeRequestsAt is makeRequests with top-level inputs when top is set
// (Member.EncryptInputAt), instead of the upload level clients use: the
// built-in ProductSum evaluated one by one (ProcessBatch) consumes its
// inputs as they are, so from the upload level its product lands below the
// decryption plan's level and takes a final refresh — shares that tests
// counting one decryption share per request do not expect.
func makeRequestsAt(t *testing.T, lc *local.Committee, via uint32, count int, seed uint64, top bool) []testReq {
	m := lc.Member(via)
	p := m.Params()
	r := rand.New(rand.NewPCG(seed, 99))
	committee, _, err := lc.Config.BLSCommittee()
	require.NoError(t, err)
	var out []testReq
	for k := 0; k < count; k++ {
		vals := []int64{r.Int64N(200) - 100, r.Int64N(200) - 100}
		var hs []fhe.Handle
		for _, v := range vals {
			owner := [20]byte{byte(k)}
			level, err := zkpok.UploadLevel(p) // as clients do: the serve loop packs windows of ≥ 2
			require.NoError(t, err)
			if top {
				level = p.MaxLevel()
			}
			b, proof, err := m.EncryptInputAt(api.ReplicatedInts(p, v), owner, level)
			require.NoError(t, err)
			att, err := m.Upload(context.Background(), b, proof, owner, 1)
			require.NoError(t, err)
			d := att.Digest(lc.Config.ChainIDBig())
			n, err := committee.VerifyAggregate(att.Signers, d[:], att.Signature)
			require.NoError(t, err)
			require.GreaterOrEqual(t, n, lc.Config.Threshold)
			hs = append(hs, att.Handle)
		}
		id := [32]byte{0xaa, byte(seed), byte(k), byte(k >> 8)}
		out = append(out, testReq{req: chainio.Request{ID: id, PolicyID: circuit.PolicyProductSum, Kind: chainio.KindPolicy, Inputs: hs},
			want: circuit.ProductSum{}.Reference(p, vals), vals: vals})
	}
	return out
}

func waitVerdicts(t *testing.T, chain *local.MemChain, reqs []testReq) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute) // bound, not an assertion on speed
	for {
		done := 0
		for _, r := range reqs {
			if _, ok := chain.Verdict(r.req.ID); ok {
				done++
			}
		}
		if done == len(reqs) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d verdicts accepted", done, len(reqs))
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, r := range reqs {
		v, _ := chain.Verdict(r.req.ID)
		require.Equal(t, r.want, v.Result.Uint64(), "request %x", r.req.ID[:4])
	}
}

// TestCommitteeEndToEndKill: a 2-of-5 committee answers with two members
// killed mid-batch (the three survivors are max(t+1, 2t−1) = 3: enough to
// cross-check every refresh and decryption), and a restarted member loses
// nothing.
func TestCommitteeEndToEndKill(t *testing.T) {
	t.Parallel()
	lc := startTest(t, 5, 2, true)
	// Every member holds the same public material.
	km0, err := lc.Member(1).Keys()
	require.NoError(t, err)
	for id := uint32(2); id <= 5; id++ {
		km, err := lc.Member(id).Keys()
		require.NoError(t, err)
		require.Equal(t, km0.Digest, km.Digest)
	}
	// Top-level inputs: the share bound below counts one decryption share
	// for a request answered alone (makeRequestsAt).
	reqs := makeRequestsAt(t, lc, 1, 4, 1, true)
	for _, r := range reqs {
		lc.Chain.Post(r.req)
	}
	waitVerdicts(t, lc.Chain, reqs)

	// Two members killed mid-batch: verdicts are still produced by the other three.
	reqs2 := makeRequestsAt(t, lc, 2, 6, 2, true)
	for i, r := range reqs2 {
		lc.Chain.Post(r.req)
		if i == 2 {
			lc.Kill(4)
			lc.Kill(5)
		}
	}
	waitVerdicts(t, lc.Chain, reqs2)
	// No member issued more than one share per refresh and decryption of a
	// request's attempt: one decryption share for a request alone, one
	// refresh share per packed input (2) and one decryption share for a
	// packed window of ≥ 2 requests, so at most 3 per request (+2: the DKG
	// self-test's decryptions). A retried request is sanitised anew, so a
	// retry is a new share on a new ciphertext.
	for _, id := range []uint32{1, 2, 3} {
		require.LessOrEqual(t, lc.Member(id).Ledger().Count(), 3*(len(reqs)+len(reqs2))+2)
	}

	// A restarted member loses nothing: keys, ciphertexts, ledger, verdicts.
	// The chain accepts the first signer's verdict; member 3 persists its own
	// when its round returns, so let it finish the requests in flight before
	// the snapshot (bounded; the comparisons below decide).
	settle := time.Now().Add(20 * time.Second)
	for lc.Member(3).Status().Verdicts < len(reqs)+len(reqs2) && time.Now().Before(settle) {
		time.Sleep(50 * time.Millisecond)
	}
	before := lc.Member(3).Status()
	lc.Kill(3)
	require.NoError(t, lc.Restart(3))
	after := lc.Member(3).Status()
	require.True(t, after.HaveKeys)
	require.Equal(t, before.KeyDigest, after.KeyDigest)
	require.Equal(t, before.Ciphertexts, after.Ciphertexts)
	require.Equal(t, before.SharesIssued, after.SharesIssued)
	require.Equal(t, before.Verdicts, after.Verdicts)
	// It refuses a second share for a ciphertext it already shared.
	for _, r := range reqs {
		v, ok := lc.Member(3).StoredVerdict(r.req.ID)
		require.True(t, ok)
		require.Equal(t, r.want, v.Result.Uint64())
	}
	// Member 5 was down during these uploads: on restart it fetches the
	// inputs from its peers when it needs them.
	reqs3 := makeRequests(t, lc, 1, 3, 3)
	require.NoError(t, lc.Restart(4))
	require.NoError(t, lc.Restart(5))
	require.False(t, lc.Member(5).Store().Has(reqs3[0].req.Inputs[0]))
	for _, r := range reqs3 {
		lc.Chain.Post(r.req)
	}
	waitVerdicts(t, lc.Chain, reqs3)
	// Member 5 processed them too (or fetched nothing because it was not needed).
	deadline := time.Now().Add(time.Minute)
	for !lc.Member(5).Store().Has(reqs3[0].req.Inputs[0]) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	require.True(t, lc.Member(5).Store().Has(reqs3[0].req.Inputs[0]), "restarted member did not fetch the missing input")
}

// TestCommitteeExcludesFaultyMembers: in a 2-of-5 committee member 2
// announces a wrong result digest and member 4 sends corrupt decryption
// shares. The wrong digest is outvoted; the four left cross-check the
// decryption (r = 4 = 3t−2), so the corrupt share is named and excluded
// and three agreeing members (max(t+1, 2t−1)) carry the verdict.
func TestCommitteeExcludesFaultyMembers(t *testing.T) {
	t.Parallel()
	lc := startTestKnobs(t, 5, 2, false, func(id uint32) TestingKnobs {
		return TestingKnobs{WrongDigest: id == 2, CorruptShares: id == 4}
	})
	reqs := makeRequestsAt(t, lc, 1, 3, 4, true) // one share per request: no final refresh
	batch := make([]chainio.Request, len(reqs))
	for i, r := range reqs {
		batch[i] = lc.Chain.Post(r.req)
	}
	results := make([][]*chainio.Verdict, 5)
	errs := make([][]error, 5)
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], errs[i] = lc.Member(uint32(i+1)).ProcessBatch(context.Background(), batch)
		}(i)
	}
	wg.Wait()
	committee, _, err := lc.Config.BLSCommittee()
	require.NoError(t, err)
	for k, r := range reqs {
		// The wrong-digest member excluded itself (and was excluded).
		require.ErrorIs(t, errs[1][k], ErrDigestMismatch)
		for _, i := range []int{0, 2, 4} {
			require.NoError(t, errs[i][k], "member %d", i+1)
			v := results[i][k]
			require.Equal(t, r.want, v.Result.Uint64())
			signers, err := bls.Signers(5, v.Signers)
			require.NoError(t, err)
			require.NotContains(t, signers, 1, "wrong-digest member signed")
			require.NotContains(t, signers, 3, "corrupt-share member signed")
			d := v.Digest(lc.Config.ChainIDBig())
			_, err = committee.VerifyAggregate(v.Signers, d[:], v.Signature)
			require.NoError(t, err)
			require.NoError(t, lc.Chain.SubmitVerdict(context.Background(), v))
		}
	}
	// One share per request, plus the DKG self-test's two (product and
	// rotations): no honest member issued a second share for a request.
	for _, id := range []uint32{1, 3, 5} {
		require.Equal(t, len(reqs)+2, lc.Member(id).Ledger().Count(), "member %d", id)
	}
}

// TestIdenticalRequestsAnswered is the repeated request: evaluation is
// deterministic, so two requests for the same policy on the same handles
// produce the same result ciphertext (same c1); the ledger used to refuse
// the second request's share forever. Each decryption is now sanitised with
// its own coin toss, so both requests get verdicts (and the ciphertexts
// whose shares were given differ).
func TestIdenticalRequestsAnswered(t *testing.T) {
	t.Parallel()
	lc := startTest(t, 3, 2, false)
	reqs := makeRequestsAt(t, lc, 1, 1, 11, true) // one share per request: no final refresh
	twin := reqs[0]
	twin.req.ID[31] ^= 1 // another request id, the same policy and handles
	batch := []chainio.Request{lc.Chain.Post(reqs[0].req), lc.Chain.Post(twin.req)}
	var wg sync.WaitGroup
	results := make([][]*chainio.Verdict, 3)
	errs := make([][]error, 3)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], errs[i] = lc.Member(uint32(i+1)).ProcessBatch(context.Background(), batch)
		}(i)
	}
	wg.Wait()
	for i := 0; i < 3; i++ {
		for k := range batch {
			require.NoError(t, errs[i][k], "member %d request %d", i+1, k)
			require.Equal(t, reqs[0].want, results[i][k].Result.Uint64())
		}
		require.Equal(t, results[i][0].ResultDigest, results[i][1].ResultDigest, "same evaluated result")
		// self-test's two shares plus one per request: both were shared
		require.Equal(t, 2+2, lc.Member(uint32(i+1)).Ledger().Count())
	}
}
