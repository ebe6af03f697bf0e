package consensus

// Liveness marks (package liveness): who this member waits for, and the
// heartbeats that re-admit a marked peer.

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fhegate/fhegate/consensus/liveness"
	"github.com/fhegate/fhegate/consensus/transport"
)

// heartbeatSession names the heartbeat messages (never collected: a handler
// consumes them).
const heartbeatSession = "hb"

// heartbeats is the member's side of liveness beside its marks: it sends
// every peer a heartbeat every MemberConfig.Heartbeat (run), and before the
// serve loop starts a batch it waits for a live quorum (awaitQuorum).
type heartbeats struct {
	self      transport.MemberID
	members   []transport.MemberID
	marks     *liveness.Marks
	mux       *transport.Mux
	every     time.Duration // MemberConfig.Heartbeat
	timeout   time.Duration // MemberConfig.RoundTimeout
	threshold int
	closed    <-chan struct{} // closed by Member.Close
	wg        *sync.WaitGroup // the member's: Close waits for the sends
}

// run sends every peer a heartbeat every MemberConfig.Heartbeat until the
// member closes (counted in wg by its caller).
func (h *heartbeats) run() {
	defer h.wg.Done()
	t := time.NewTicker(h.every)
	defer t.Stop()
	busy := make(map[transport.MemberID]*atomic.Bool, len(h.members))
	for _, id := range h.members {
		busy[id] = new(atomic.Bool)
	}
	for {
		h.beat(busy)
		select {
		case <-h.closed:
			return
		case <-t.C:
		}
	}
}

// beat sends one heartbeat to every peer that has none in flight. A send
// gets a whole round timeout: a heartbeat queued behind a large message to
// the same peer must not hit its deadline, because a transport closes a
// connection whose write timed out and the messages after it would have to
// redial. A peer whose heartbeat is still in flight (a hung dial, a slow
// link) is skipped, so heartbeats never pile up.
func (h *heartbeats) beat(busy map[transport.MemberID]*atomic.Bool) {
	payload := h.marks.Heartbeat()
	tr := h.mux.Transport()
	for _, id := range h.members {
		if id == h.self || !busy[id].CompareAndSwap(false, true) {
			continue
		}
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			defer busy[id].Store(false)
			ctx, cancel := context.WithTimeout(context.Background(), max(h.timeout, h.every))
			defer cancel()
			go func() {
				select {
				case <-h.closed:
					cancel()
				case <-ctx.Done():
				}
			}()
			_ = tr.Send(ctx, id, transport.Message{Type: transport.TypePing, Session: heartbeatSession, Payload: payload})
		}()
	}
}

// awaitQuorum waits, before the serve loop starts a batch, until this member
// sees at least t live members (itself included), at most RoundTimeout. A
// member that believes it is alone would otherwise fail every window at
// once ("no quorum: 1 live members") and race ahead of its peers, which
// then wait a round timeout for it in each of those windows; waiting here
// lets the heartbeats re-admit its peers first. It reports whether a
// quorum is live.
func (h *heartbeats) awaitQuorum(ctx context.Context) bool { return h.awaitLive(ctx, h.threshold) }

// awaitLive waits until this member sees at least t live members (itself
// included), at most RoundTimeout, and reports whether it does.
func (h *heartbeats) awaitLive(ctx context.Context, t int) bool {
	if len(h.marks.Live()) >= t {
		return true
	}
	deadline := time.NewTimer(h.timeout)
	defer deadline.Stop()
	tick := time.NewTicker(h.every / 2)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-h.closed:
			return false
		case <-deadline.C:
			return len(h.marks.Live()) >= t
		case <-tick.C:
			if len(h.marks.Live()) >= t {
				return true
			}
		}
	}
}

// graceOf is how long a round keeps waiting for stragglers once it has a
// quorum: RoundTimeout/5, at least 1 s (members evaluate at different
// speeds on a shared machine; a member that misses the digest round only
// loses its part in that request).
func graceOf(roundTimeout time.Duration) time.Duration { return max(roundTimeout/5, time.Second) }

// quorumFor is how many answers from others a round of a committee with
// this threshold waits for before the grace period starts: enough for t
// with one cross-check.
func quorumFor(threshold int) func(others int) int {
	return func(others int) int { return min(threshold, others) }
}
