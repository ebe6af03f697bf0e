package consensus

import (
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
)

func (m *Member) live() []transport.MemberID {
	m.liveMu.Lock()
	defer m.liveMu.Unlock()
	var out []transport.MemberID
	for _, id := range m.members {
		if at, isDown := m.down[id]; isDown {
			if m.mux.Seen(id) <= at {
				continue
			}
			delete(m.down, id)
		}
		out = append(out, id)
	}
	return out
}

func (m *Member) markDown(ids []transport.MemberID) {
	if len(ids) == 0 {
		return
	}
	m.liveMu.Lock()
	defer m.liveMu.Unlock()
	for _, id := range ids {
		if _, ok := m.down[id]; !ok {
			m.log.Warn("member unresponsive: not waited for until heard from again", zap.Uint32("peer", uint32(id)))
		}
		m.down[id] = m.mux.Seen(id)
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
