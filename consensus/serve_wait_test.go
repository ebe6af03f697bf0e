package consensus_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/consensus/transport"
)

// TestMemberBackAfterItsPeersAttempts: in a 2-of-3 committee every refresh
// and decryption needs all three members (CheckedMembers(2) = 3). Member 3
// is down while requests come and stays down until its peers have failed
// each request for want of a quorum more often than a request is attempted
// (maxAttempts = 6) — what a validator's restart taking minutes looks
// like. Those failures are not attempts: the peers are still trying when
// member 3 is back, and every request gets its reference verdict. Before,
// the peers gave each request up after six failures and the requests
// waited for their expiry (the real-node e2e's killed member, whose restart
// failed to bind its port, showed it).
func TestMemberBackAfterItsPeersAttempts(t *testing.T) {
	t.Parallel()
	obs, logs := observer.New(zapcore.WarnLevel)
	log := zaptest.NewLogger(t, zaptest.WrapOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return zapcore.NewTee(c, obs) })))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 3 * time.Second, Heartbeat: 100 * time.Millisecond, BatchSize: 8, Serve: true, Log: log})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	reqs := makeRequests(t, lc, 1, 3, 41)
	lc.Kill(3)
	for _, r := range reqs {
		lc.Chain.Post(r.req)
	}
	// Wait until a survivor failed some request for want of a quorum more
	// than maxAttempts times (bounded: the failures come one round timeout
	// apart at most).
	const beyondAttempts = 8
	deadline := time.Now().Add(3 * time.Minute)
	for {
		most := int64(0)
		for _, e := range logs.FilterMessage("request failed").All() {
			if n, ok := e.ContextMap()["noQuorum"].(int64); ok {
				most = max(most, n)
			}
		}
		if most >= beyondAttempts {
			break
		}
		require.True(t, time.Now().Before(deadline), "no request failed %d times for want of a quorum (most %d)", beyondAttempts, most)
		time.Sleep(100 * time.Millisecond)
	}
	for _, r := range reqs {
		_, ok := lc.Chain.Verdict(r.req.ID)
		require.False(t, ok, "a verdict without member 3")
	}
	require.NoError(t, lc.Restart(3))
	waitVerdicts(t, lc.Chain, reqs)
}

// TestRoundWaitsForAMarkedMemberItNeeds: liveness marks are one member's
// view, taken in rounds its peers ran at other times, so members can hold
// marks on a peer that is up. Here members 1 and 2 mark member 3 down in a
// way no heartbeat clears (the mark asks for a progress member 3 never
// reports). In a 2-of-3 committee every refresh and decryption needs all
// three, so a round that skipped marked members could never complete:
// members 1 and 2 failed every attempt at once "for want of a quorum"
// while member 3 waited for them and marked them in turn — after a
// member's restart in the real-node e2e the marks never settled and no
// request was answered. A round that cannot do without a marked member
// now waits for it, and every request gets its reference verdict.
func TestRoundWaitsForAMarkedMemberItNeeds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 10 * time.Second, Heartbeat: 100 * time.Millisecond, BatchSize: 8, Serve: true, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	for _, id := range []uint32{1, 2} {
		m := lc.Member(id)
		m.SetProgress(1 << 40) // the marks below ask member 3 for this progress
		m.MarkDown([]transport.MemberID{3})
	}
	reqs := makeRequests(t, lc, 1, 3, 43)
	for _, r := range reqs {
		lc.Chain.Post(r.req)
	}
	waitVerdicts(t, lc.Chain, reqs)
	for _, id := range []uint32{1, 2} {
		require.Contains(t, lc.Member(id).Status().Down, uint32(3), "member %d's mark on 3 stood throughout", id)
	}
}
