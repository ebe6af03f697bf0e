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
