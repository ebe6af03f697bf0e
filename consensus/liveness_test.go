package consensus_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/consensus/transport"
)

// delayTransport holds every message its member sends for the current
// delay: a member slowed down (CPU pressure, a congested link). A send whose
// context ends first is not delivered, as a real send that times out.
type delayTransport struct {
	transport.Transport
	delay *atomic.Int64 // nanoseconds
}

func (d delayTransport) Send(ctx context.Context, to transport.MemberID, msg transport.Message) error {
	// held while the delay lasts: clearing it releases held sends at once
	for start := time.Now(); time.Since(start) < time.Duration(d.delay.Load()); {
		select {
		case <-time.After(5 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return d.Transport.Send(ctx, to, msg)
}

// startDelayed starts an n = len(delays), t = 2 serving committee whose
// member i sends through a delayTransport driven by delays[i-1].
func startDelayed(t *testing.T, delays []*atomic.Int64) *local.Committee {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := local.Start(ctx, local.Options{N: len(delays), T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 10 * time.Second, Heartbeat: 100 * time.Millisecond, BatchSize: 8, Serve: true, Log: zaptest.NewLogger(t),
		Transport: func(id uint32, tr transport.Transport) transport.Transport {
			return delayTransport{Transport: tr, delay: delays[id-1]}
		}})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	return lc
}

// downOf is member id's liveness marks (Status.Down).
func downOf(lc *local.Committee, id uint32) []uint32 { return lc.Member(id).Status().Down }

// signedBy reports whether member id of an n-member committee signed v.
func signedBy(t *testing.T, n int, v *chainio.Verdict, id uint32) bool {
	s, err := bls.Signers(n, v.Signers)
	require.NoError(t, err)
	for _, i := range s {
		if uint32(i+1) == id {
			return true
		}
	}
	return false
}

// TestLivenessAllMarkEachOther: every member's messages are held back past
// the round timeout, so every member marks both peers unresponsive at once
// (each believes it is alone: the deadlock of a committee under CPU
// pressure, where no member sends to a member it marked and so none is
// heard from again). Once the delay goes, the heartbeats re-admit every
// member without any session, the failed request is retried and answered,
// and a new request is answered with every member live — all verdicts
// equal their plaintext references.
func TestLivenessAllMarkEachOther(t *testing.T) {
	delays := []*atomic.Int64{{}, {}, {}}
	lc := startDelayed(t, delays)
	reqs := makeRequests(t, lc, 1, 2, 31)
	for _, d := range delays {
		d.Store(int64(time.Hour)) // > RoundTimeout: nothing arrives until cleared
	}
	lc.Chain.Post(reqs[0].req)
	require.Eventually(t, func() bool {
		for id := uint32(1); id <= 3; id++ {
			if len(downOf(lc, id)) != 2 {
				return false
			}
		}
		return true
	}, 2*time.Minute, 50*time.Millisecond, "every member marks both peers")
	for _, d := range delays {
		d.Store(0)
	}
	require.Eventually(t, func() bool {
		return len(downOf(lc, 1)) == 0 && len(downOf(lc, 2)) == 0 && len(downOf(lc, 3)) == 0
	}, time.Minute, 50*time.Millisecond, "heartbeats re-admit every member")
	lc.Chain.Post(reqs[1].req)
	waitVerdicts(t, lc.Chain, reqs)
}

// TestLivenessSlowMemberReadmitted: member 4 of a 2-of-4 committee is
// slowed past the round timeout; members 1, 2 and 3 answer without it (a
// verified refresh and decryption need max(t+1, 2t−1) = 3) and mark it
// down. When it speeds up again its heartbeats re-admit it — it has handled
// the blocks its peers were on when they marked it — and it signs verdicts
// of later requests again. Every verdict equals its plaintext reference.
func TestLivenessSlowMemberReadmitted(t *testing.T) {
	delays := []*atomic.Int64{{}, {}, {}, {}}
	lc := startDelayed(t, delays)
	reqs := makeRequests(t, lc, 1, 4, 32)
	delays[3].Store(int64(time.Hour)) // > RoundTimeout: held until cleared
	lc.Chain.Post(reqs[0].req)
	waitVerdicts(t, lc.Chain, reqs[:1])
	require.Eventually(t, func() bool {
		return contains32(downOf(lc, 1), 4) && contains32(downOf(lc, 2), 4) && contains32(downOf(lc, 3), 4)
	}, time.Minute, 50*time.Millisecond, "members 1, 2 and 3 mark the slow member")
	delays[3].Store(0)
	require.Eventually(t, func() bool {
		return !contains32(downOf(lc, 1), 4) && !contains32(downOf(lc, 2), 4) && !contains32(downOf(lc, 3), 4)
	}, time.Minute, 50*time.Millisecond, "the slow member is re-admitted")
	for _, r := range reqs[1:] {
		lc.Chain.Post(r.req)
	}
	waitVerdicts(t, lc.Chain, reqs)
	signed := 0
	for _, r := range reqs[1:] {
		v, _ := lc.Chain.Verdict(r.req.ID)
		if signedBy(t, 4, v, 4) {
			signed++
		}
	}
	require.Positive(t, signed, "the re-admitted member signs again")
}

// TestLivenessMarkWaitsForProgress: a mark comes off only when a heartbeat
// sent after it reports the marking member's progress — a member catching
// up on old blocks is not waited for by new requests until it reached
// them — and then comes off without any session.
func TestLivenessMarkWaitsForProgress(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 10 * time.Second, Heartbeat: 50 * time.Millisecond, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	m1, m2 := lc.Member(1), lc.Member(2)
	beats := func() uint64 { return m1.HeartbeatsFrom(2) }
	m1.SetProgress(10)
	m1.MarkDown([]transport.MemberID{2, 1}) // a member never marks itself
	require.Equal(t, []uint32{2}, m1.Status().Down)
	b0 := beats()
	require.Eventually(t, func() bool { return beats() >= b0+3 }, time.Minute, 10*time.Millisecond)
	require.Equal(t, []uint32{2}, m1.Status().Down, "member 2 reports progress 0 < 10")
	m2.SetProgress(9)
	b1 := beats()
	require.Eventually(t, func() bool { return beats() >= b1+3 }, time.Minute, 10*time.Millisecond)
	require.Equal(t, []uint32{2}, m1.Status().Down, "member 2 reports progress 9 < 10")
	m2.SetProgress(12)
	require.Eventually(t, func() bool { return len(m1.Status().Down) == 0 }, time.Minute, 10*time.Millisecond)
	require.Equal(t, uint64(12), m2.Status().Progress)
}

func contains32(ids []uint32, id uint32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// lateView is a chain adapter that reports each request undecided the first
// time it is asked: the view of a member that took the request in before its
// peers decided it and got to it only afterwards.
type lateView struct {
	chainio.ChainAdapter
	mu    sync.Mutex
	asked map[[32]byte]bool
}

func (l *lateView) VerdictPosted(ctx context.Context, id [32]byte) (bool, error) {
	l.mu.Lock()
	first := !l.asked[id]
	l.asked[id] = true
	l.mu.Unlock()
	if first {
		return false, nil
	}
	return l.ChainAdapter.VerdictPosted(ctx, id)
}

// TestLaggingMemberDropsDecided: member 4 of a 2-of-4 committee starts
// serving only after members 1, 2 and 3 answered a run of requests (a
// verified refresh and decryption need max(t+1, 2t−1) = 3). It takes each request in as
// undecided (lateView), but checks the chain again before evaluating it and
// drops it instead of replaying sessions its peers finished: no request
// fails on it, it counts every request as dropped, its progress reaches
// the chain's head, and it answers a new request with its peers.
func TestLaggingMemberDropsDecided(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc, err := local.Start(ctx, local.Options{N: 4, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 10 * time.Second, Heartbeat: 100 * time.Millisecond, BatchSize: 8, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	reqs := makeRequests(t, lc, 1, 5, 33)
	for i := range 3 {
		lc.ServeMember(uint32(i + 1))
	}
	for _, r := range reqs[:4] {
		lc.Chain.Post(r.req)
	}
	waitVerdicts(t, lc.Chain, reqs[:4])
	m3 := lc.Member(4)
	late := &lateView{ChainAdapter: lc.Chain, asked: map[[32]byte]bool{}}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m3.Run(sctx, late) }()
	t.Cleanup(func() { stop(); <-done })
	require.Eventually(t, func() bool { return m3.Status().Progress >= 4 }, time.Minute, 20*time.Millisecond)
	require.Equal(t, uint64(4), m3.Status().DecidedDropped, "every decided request dropped, none replayed")
	lc.Chain.Post(reqs[4].req)
	waitVerdicts(t, lc.Chain, reqs)
}
