package liveness

import (
	"encoding/binary"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
)

// mark is one liveness mark on a peer.
type mark struct {
	beats uint64 // the peer's heartbeat count when it was marked
	need  uint64 // this member's progress when it marked the peer
}

// beat is what the last heartbeats from a peer said.
type beat struct {
	count    uint64 // heartbeats received
	progress uint64 // the progress the last one reported
}

// Marks is one member's liveness marks, the heartbeats it received and its
// own progress. Safe for concurrent use.
type Marks struct {
	self     transport.MemberID
	members  []transport.MemberID
	log      *zap.Logger
	progress atomic.Uint64 // highest block the serve loop has handled (the heartbeat's payload)

	mu    sync.Mutex
	down  map[transport.MemberID]mark
	beats map[transport.MemberID]beat
}

// New returns the marks of member self of members (nobody marked).
func New(self transport.MemberID, members []transport.MemberID, log *zap.Logger) *Marks {
	return &Marks{self: self, members: members, log: log, down: map[transport.MemberID]mark{}, beats: map[transport.MemberID]beat{}}
}

// Live returns the members this member waits for (itself included): every
// member not marked down, and every marked one whose heartbeat since the
// mark reported the progress the mark requires (the mark is then cleared).
func (l *Marks) Live() []transport.MemberID {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []transport.MemberID
	for _, id := range l.members {
		if mk, isDown := l.down[id]; isDown {
			b := l.beats[id]
			if b.count <= mk.beats || b.progress < mk.need {
				continue
			}
			delete(l.down, id)
			l.log.Info("member heard from again: waited for again", zap.Uint32("peer", uint32(id)), zap.Uint64("progress", b.progress))
		}
		out = append(out, id)
	}
	return out
}

// MarkDown marks ids unresponsive (not waited for until a heartbeat
// re-admits them).
func (l *Marks) MarkDown(ids []transport.MemberID) {
	if len(ids) == 0 {
		return
	}
	need := l.progress.Load()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range ids {
		if id == l.self {
			continue
		}
		if _, ok := l.down[id]; !ok {
			l.log.Warn("member unresponsive: not waited for until its heartbeat reports this member's progress",
				zap.Uint32("peer", uint32(id)), zap.Uint64("progress", need))
		}
		l.down[id] = mark{beats: l.beats[id].count, need: need}
	}
}

// OnHeartbeat records a peer's heartbeat (an 8-byte big-endian progress).
func (l *Marks) OnHeartbeat(msg transport.Message) {
	if len(msg.Payload) != 8 || msg.From == l.self {
		return
	}
	l.mu.Lock()
	b := l.beats[msg.From]
	b.count++
	b.progress = binary.BigEndian.Uint64(msg.Payload)
	l.beats[msg.From] = b
	l.mu.Unlock()
}

// Heartbeat is the payload of this member's next heartbeat: its progress.
func (l *Marks) Heartbeat() []byte { return binary.BigEndian.AppendUint64(nil, l.progress.Load()) }

// HeartbeatsFrom is how many heartbeats this member received from id.
func (l *Marks) HeartbeatsFrom(id transport.MemberID) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.beats[id].count
}

// SetProgress publishes the highest block whose requests the serve loop
// has handled (never moves back).
func (l *Marks) SetProgress(block uint64) {
	for {
		cur := l.progress.Load()
		if block <= cur || l.progress.CompareAndSwap(cur, block) {
			return
		}
	}
}

// Progress is the highest block whose requests the serve loop has handled.
func (l *Marks) Progress() uint64 { return l.progress.Load() }
