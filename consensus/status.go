package consensus

import (
	"fmt"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/transport"
)

// Status returns the member's status.
func (m *Member) Status() api.Status {
	s := api.Status{ID: uint32(m.id), Epoch: m.cfg.Committee.Epoch, Preset: m.params.Preset.Name, Ciphertexts: m.st.Count(),
		SharesIssued: m.led.Count(), Verdicts: len(m.st.MetaKeys("verdict/")), Refreshes: m.refreshes.Load(),
		Evaluations: m.evaluations.Load(), DecidedDropped: m.decidedDropped.Load(), Progress: m.marks.Progress()}
	s.RequestsSeen, s.Unanswered, s.OldestUnanswered = m.requests.counts()
	if km, err := m.Keys(); err == nil {
		s.HaveKeys, s.KeyDigest = true, fmt.Sprintf("%x", km.Digest)
		p := m.NoisePlan()
		s.DecryptLevel, s.SigmaBits = p.Level, p.SigmaBits
	}
	for _, e := range m.blamed.all() {
		s.Equivocations = append(s.Equivocations, api.Equivocation{Member: uint32(e.Member), Session: e.Session, Reason: e.Reason})
	}
	live := m.marks.Live()
	for _, id := range m.members {
		if !contains(live, id) {
			s.Down = append(s.Down, uint32(id))
		}
	}
	return s
}

func contains(ids []transport.MemberID, id transport.MemberID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
