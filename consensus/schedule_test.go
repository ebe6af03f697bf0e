package consensus_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/consensus/transport"
)

// heldFeed is a chain adapter whose request stream is held while hold is
// set and delivered in one burst when it clears: a member that reads the
// chain late (a slow poll, a serve loop busy under CPU pressure) and then
// sees several blocks at once.
type heldFeed struct {
	chainio.ChainAdapter
	hold *atomic.Bool
}

func (h heldFeed) Requests(ctx context.Context, from uint64) (<-chan chainio.Request, error) {
	in, err := h.ChainAdapter.Requests(ctx, from)
	if err != nil {
		return nil, err
	}
	out := make(chan chainio.Request, 1<<14)
	go func() {
		defer close(out)
		var held []chainio.Request
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case r, ok := <-in:
				if !ok {
					return
				}
				held = append(held, r)
			case <-tick.C:
			}
			if !h.hold.Load() {
				for _, r := range held {
					out <- r
				}
				held = nil
			}
		}
	}()
	return out, nil
}

// sentTransport records the sessions its member sends messages in.
type sentTransport struct {
	transport.Transport
	mu       sync.Mutex
	sessions []string
}

func (s *sentTransport) Send(ctx context.Context, to transport.MemberID, msg transport.Message) error {
	s.mu.Lock()
	s.sessions = append(s.sessions, msg.Session)
	s.mu.Unlock()
	return s.Transport.Send(ctx, to, msg)
}

func (s *sentTransport) sent(sub string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.sessions {
		if strings.Contains(x, sub) {
			return true
		}
	}
	return false
}

// TestScheduleFollowsChainNotClock: the divergence behind the soak stall,
// without CPU load. Member 1 reads the chain as it grows; members 2 and 3
// read it late (heldFeed) and get two blocks in one burst: block 1 with a
// request answered alone (a window of one) and block 2 with a packed
// window of four. Member 1 is already in block 1's request when the burst
// comes. A serve loop that flushed its per-request batch on a clock tick
// took block 2's packed batch first on members 2 and 3 (no tick between
// the burst's messages) while member 1 waited in block 1's request: each
// side waited a round timeout for the other in a session the other was not
// in, all marked each other unresponsive, and the packed verdicts went out
// without member 1. The schedule follows the chain (serve.go, "Schedule"):
// every member answers block 1 before block 2, no member is marked down,
// every verdict equals its plaintext reference and carries all three
// signatures.
func TestScheduleFollowsChainNotClock(t *testing.T) {
	obs, logs := observer.New(zapcore.WarnLevel)
	log := zaptest.NewLogger(t, zaptest.WrapOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return zapcore.NewTee(c, obs) })))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sent := &sentTransport{}
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 10 * time.Second, Heartbeat: 100 * time.Millisecond, BatchSize: 8, Log: log,
		Transport: func(id uint32, tr transport.Transport) transport.Transport {
			if id != 1 {
				return tr
			}
			sent.Transport = tr
			return sent
		}})
	require.NoError(t, err)
	t.Cleanup(lc.Close)
	reqs := makeRequests(t, lc, 1, 5, 35)

	var hold atomic.Bool
	hold.Store(true)
	lc.ServeMember(1)
	for id := uint32(2); id <= 3; id++ {
		m := lc.Member(id)
		sctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- m.Run(sctx, heldFeed{ChainAdapter: lc.Chain, hold: &hold}) }()
		t.Cleanup(func() { stop(); <-done })
	}

	lc.Chain.Post(reqs[0].req) // block 1: one request, answered alone
	alone := fmt.Sprintf("%x", reqs[0].req.ID[:])
	require.Eventually(t, func() bool { return sent.sent(alone) }, time.Minute, 10*time.Millisecond,
		"member 1 is in block 1's request")
	var block []chainio.Request
	for _, r := range reqs[1:] {
		block = append(block, r.req)
	}
	lc.Chain.PostBlock(block...) // block 2: a packed window of four
	hold.Store(false)            // members 2 and 3 see blocks 1 and 2 at once

	waitVerdicts(t, lc.Chain, reqs)
	for _, r := range reqs {
		v, _ := lc.Chain.Verdict(r.req.ID)
		for id := uint32(1); id <= 3; id++ {
			require.True(t, signedBy(t, 3, v, id), "request %x: member %d signed", r.req.ID[:4], id)
		}
	}
	for _, e := range logs.All() {
		require.NotContains(t, e.Message, "unresponsive", "no member waits in a session its peers are not in")
		require.NotEqual(t, "request failed", e.Message)
		require.NotContains(t, e.Message, "batch failed")
	}
}
