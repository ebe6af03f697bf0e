package consensus

// Liveness marks.
//
// A member that does not answer a round in time is marked down: the next
// rounds neither wait for it nor pick it as an active member. A mark must
// come off again, or a committee can talk itself into silence: under CPU
// pressure every member may miss every other's answer in the same round,
// each then believes it is alone, stops sending to the others, and — if a
// mark came off only when the marked member spoke in a session — none ever
// hears from another again (a liveness deadlock).
//
// So every member sends every peer a heartbeat (transport.TypePing) every
// MemberConfig.Heartbeat, whatever it believes about them, carrying its
// progress: the highest block whose requests its serve loop has handled
// (0 for a member that serves no chain). A mark records the receiver's own
// progress; it comes off when a heartbeat sent after the mark reports at
// least that progress. A member that was only slow is re-admitted one
// heartbeat after it is heard again; a member that fell behind (catching
// up on old blocks, or restarted) is re-admitted once it reached the
// blocks its peers were on when they marked it, so no new request waits on
// it while it replays or skips what the chain already decided. The
// heartbeat needs no session: it flows even when every member marks every
// other at once, which is what breaks the deadlock.

import (
	"context"
	"encoding/binary"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
)

// heartbeatSession names the heartbeat messages (never collected: a handler
// consumes them).
const heartbeatSession = "hb"

// downMark is one member's liveness mark on a peer.
type downMark struct {
	beats uint64 // the peer's heartbeat count when it was marked
	need  uint64 // this member's progress when it marked the peer
}

// peerBeat is what the last heartbeats from a peer said.
type peerBeat struct {
	count    uint64 // heartbeats received
	progress uint64 // the progress the last one reported
}

// live returns the members this member waits for (itself included): every
// member not marked down, and every marked one whose heartbeat since the
// mark reported the progress the mark requires (the mark is then cleared).
func (m *Member) live() []transport.MemberID {
	m.liveMu.Lock()
	defer m.liveMu.Unlock()
	var out []transport.MemberID
	for _, id := range m.members {
		if mk, isDown := m.down[id]; isDown {
			b := m.beats[id]
			if b.count <= mk.beats || b.progress < mk.need {
				continue
			}
			delete(m.down, id)
			m.log.Info("member heard from again: waited for again", zap.Uint32("peer", uint32(id)), zap.Uint64("progress", b.progress))
		}
		out = append(out, id)
	}
	return out
}

// markDown marks ids unresponsive (not waited for until a heartbeat
// re-admits them).
func (m *Member) markDown(ids []transport.MemberID) {
	if len(ids) == 0 {
		return
	}
	need := m.progress.Load()
	m.liveMu.Lock()
	defer m.liveMu.Unlock()
	for _, id := range ids {
		if id == m.id {
			continue
		}
		if _, ok := m.down[id]; !ok {
			m.log.Warn("member unresponsive: not waited for until its heartbeat reports this member's progress",
				zap.Uint32("peer", uint32(id)), zap.Uint64("progress", need))
		}
		m.down[id] = downMark{beats: m.beats[id].count, need: need}
	}
}

// onHeartbeat records a peer's heartbeat (an 8-byte big-endian progress).
func (m *Member) onHeartbeat(msg transport.Message) {
	if len(msg.Payload) != 8 || msg.From == m.id {
		return
	}
	m.liveMu.Lock()
	b := m.beats[msg.From]
	b.count++
	b.progress = binary.BigEndian.Uint64(msg.Payload)
	m.beats[msg.From] = b
	m.liveMu.Unlock()
}

// setProgress publishes the highest block whose requests the serve loop has
// handled (never moves back).
func (m *Member) setProgress(block uint64) {
	for {
		cur := m.progress.Load()
		if block <= cur || m.progress.CompareAndSwap(cur, block) {
			return
		}
	}
}

// heartbeats sends every peer a heartbeat every MemberConfig.Heartbeat until
// the member closes.
func (m *Member) heartbeats() {
	defer m.wg.Done()
	t := time.NewTicker(m.cfg.Heartbeat)
	defer t.Stop()
	busy := make(map[transport.MemberID]*atomic.Bool, len(m.members))
	for _, id := range m.members {
		busy[id] = new(atomic.Bool)
	}
	for {
		m.beat(busy)
		select {
		case <-m.closed:
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
func (m *Member) beat(busy map[transport.MemberID]*atomic.Bool) {
	payload := binary.BigEndian.AppendUint64(nil, m.progress.Load())
	tr := m.mux.Transport()
	for _, id := range m.members {
		if id == m.id || !busy[id].CompareAndSwap(false, true) {
			continue
		}
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			defer busy[id].Store(false)
			ctx, cancel := context.WithTimeout(context.Background(), max(m.cfg.RoundTimeout, m.cfg.Heartbeat))
			defer cancel()
			go func() {
				select {
				case <-m.closed:
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
func (m *Member) awaitQuorum(ctx context.Context) bool {
	t := m.cfg.Committee.Threshold
	if len(m.live()) >= t {
		return true
	}
	deadline := time.NewTimer(m.cfg.RoundTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(m.cfg.Heartbeat / 2)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-m.closed:
			return false
		case <-deadline.C:
			return len(m.live()) >= t
		case <-tick.C:
			if len(m.live()) >= t {
				return true
			}
		}
	}
}

// grace is how long a round keeps waiting for stragglers once it has a
// quorum: RoundTimeout/5, at least 1 s (members evaluate at different
// speeds on a shared machine; a member that misses the digest round only
// loses its part in that request).
func (m *Member) grace() time.Duration {
	g := m.cfg.RoundTimeout / 5
	if g < time.Second {
		g = time.Second
	}
	return g
}

// quorumWant is how many answers from others a round waits for before the
// grace period starts: enough for t with one cross-check.
func (m *Member) quorumWant(others int) int {
	w := m.cfg.Committee.Threshold
	if w > others {
		w = others
	}
	return w
}
