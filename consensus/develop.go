package consensus

import (
	"context"

	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// Development entry points: an in-process committee (package
// consensus/local) drives its members' protocol code directly, so that
// `fhegate policy eval` runs a deep policy through the same collective
// refresh and threshold decryption as a committee serving a chain. Every
// participant must make the same call with the same session.

// Evaluator returns the member's evaluator (its public evaluation keys).
func (m *Member) Evaluator() (*fhe.Evaluator, error) {
	ks, err := m.snap()
	if err != nil {
		return nil, err
	}
	return ks.ev, nil
}

// RefreshAmong re-encrypts ct at the top level by a collective refresh
// among participants (sorted member ids, this member one of them; all
// contributing: the verified refresh), sized for the noise bounds b.
func (m *Member) RefreshAmong(ctx context.Context, session string, ct *fhe.Ciphertext, participants []transport.MemberID, b circuit.RefreshBounds) (*fhe.Ciphertext, error) {
	ks, err := m.snap()
	if err != nil {
		return nil, err
	}
	return m.pipe.Refresh(ctx, ks.pipe(), session, ct, participants, b)
}

// DecryptAmong threshold-decrypts every slot of ct with participants (one
// flooded share each, through each member's ledger), refreshing it first
// if it sits below the decryption level. For development tools only: a
// committee serving a chain decrypts slot 0 of a masked verdict and
// nothing else.
func (m *Member) DecryptAmong(ctx context.Context, session string, ct *fhe.Ciphertext, participants []transport.MemberID) ([]uint64, error) {
	ks, err := m.snap()
	if err != nil {
		return nil, err
	}
	if ct.Level() < ks.plan.Level {
		if ct, err = m.pipe.Refresh(ctx, ks.pipe(), session+"/refresh", ct, participants, circuit.RefreshBounds{}); err != nil {
			return nil, err
		}
	}
	r, err := protocol.ThresholdDecrypt(ctx, m.group(), ks.key, ks.plan, ks.ev, m.led,
		protocol.DecryptRequest{Session: session, Ciphertext: ct, Participants: participants, PublicKey: ks.km.Public})
	if err != nil {
		return nil, err
	}
	return r.Values, nil
}
