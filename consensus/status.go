package consensus

import (
	"fmt"

	"github.com/fhegate/fhegate/consensus/transport"
)

// Status summarises the member.
type Status struct {
	ID           uint32  `json:"id"`
	Epoch        uint64  `json:"epoch"`
	Preset       string  `json:"preset"`
	HaveKeys     bool    `json:"haveKeys"`
	KeyDigest    string  `json:"keyDigest,omitempty"`
	DecryptLevel int     `json:"decryptLevel"`
	SigmaBits    float64 `json:"floodingSigmaLog2"`
	Ciphertexts  int     `json:"ciphertexts"`
	SharesIssued int     `json:"sharesIssued"`
	Verdicts     int     `json:"verdicts"`
	// Refreshes counts the collective refreshes (MPC bootstraps) this member
	// completed since it started: a plan's refresh points and the refresh
	// before a decryption when a result has no level left.
	Refreshes uint64 `json:"refreshes"`
	// Evaluations counts the circuit runs this member completed since it
	// started: one per request evaluated alone, one per packed batch (and
	// one per re-run of an out-of-range batch's parts, isolate.go).
	Evaluations uint64 `json:"evaluations"`
	// DecidedDropped counts requests the serve loop dropped instead of
	// processing or retrying them because their verdict was already on
	// chain (a member that fell behind catching up).
	DecidedDropped uint64 `json:"decidedDropped"`
	// Progress is the highest block whose requests the serve loop handled
	// (the heartbeat's payload, liveness.go).
	Progress uint64   `json:"progress"`
	Down     []uint32 `json:"down,omitempty"`
	// Equivocations are the members this member caught revealing a share
	// that does not match their commitment (each aborted its round), the
	// most recent last.
	Equivocations []Equivocation `json:"equivocations,omitempty"`
}

// Equivocation is one identifiable abort: the member and the round.
type Equivocation struct {
	Member  uint32 `json:"member"`
	Session string `json:"session"`
	Reason  string `json:"reason"`
}

// Status returns the member's status.
func (m *Member) Status() Status {
	s := Status{ID: uint32(m.id), Epoch: m.cfg.Committee.Epoch, Preset: m.params.Preset.Name, Ciphertexts: m.st.Count(),
		SharesIssued: m.led.Count(), Verdicts: len(m.st.MetaKeys("verdict/")), Refreshes: m.refreshes.Load(),
		Evaluations: m.evaluations.Load(), DecidedDropped: m.decidedDropped.Load(), Progress: m.progress.Load()}
	if km, err := m.Keys(); err == nil {
		s.HaveKeys, s.KeyDigest = true, fmt.Sprintf("%x", km.Digest)
		p := m.NoisePlan()
		s.DecryptLevel, s.SigmaBits = p.Level, p.SigmaBits
	}
	m.blameMu.Lock()
	for _, e := range m.blamed {
		s.Equivocations = append(s.Equivocations, Equivocation{Member: uint32(e.Member), Session: e.Session, Reason: e.Reason})
	}
	m.blameMu.Unlock()
	live := m.live()
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
