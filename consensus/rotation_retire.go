package consensus

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
)

// retiredKinds are the ledger kinds a retiring member wipes: every share it
// issued under its epoch (the re-encryption kind holds its unmasked
// key-switch shares c1·s_j + E_j, each of which, with the input's c0,
// decrypts up to the other old members' terms).
var retiredKinds = []protocol.ShareKind{protocol.KindReencrypt, protocol.KindDecryption, protocol.KindRefresh, protocol.KindPrivateRead}

// Retire is a retiring member's last step of a rotation, once the new
// committee holds every input (docs/committee.md, "Rotation"): it drops
// its keys from memory and zeroes its Shamir share, deletes the sealed
// share and the key set's completion record from its store (a restart
// finds no keys for the epoch), and wipes the share bytes of every ledger
// entry of its epoch (the entries stay: their once-per rules and the
// epoch's target pin still hold). It returns the number of ledger entries
// wiped. A member that later holds its old share could still decrypt
// what was encrypted under the old key before the rotation; forward
// secrecy for the new key does not depend on it (the new members' shares
// are flooded, protocol.CrossKeySwitch), retirement is what keeps a later
// compromise of a retired member from reading the old epoch's inputs.
func (m *Member) Retire() (int, error) {
	km, key := m.keyring.drop()
	if km == nil {
		return 0, ErrNoKeys
	}
	key.Wipe()
	if err := m.st.DeleteMeta(m.keyStore.meta("info"), m.keyStore.meta("tsk")); err != nil {
		return 0, fmt.Errorf("consensus: retiring: deleting the stored key share: %w", err)
	}
	wiped := 0
	for _, k := range retiredKinds {
		n, err := m.led.WipeShares(k, km.Epoch)
		if err != nil {
			return wiped, fmt.Errorf("consensus: retiring: wiping the %s ledger: %w", k, err)
		}
		wiped += n
	}
	m.log.Info("retired from the committee: key share and issued shares wiped",
		zap.Uint64("epoch", km.Epoch), zap.Int("ledger entries wiped", wiped))
	return wiped, nil
}

// The adoption acknowledgement of a joint rotation (sessions
// `xks/<e>/<keccak(pk′)[:8]>/adopted`, message type Agreed): after it
// stored every key-switched input, each new member sends the number it
// stored (8 bytes, big-endian) to every active old member; an old member
// retires (Retire) only when every new member acknowledged every input it
// switched.

func (p jointPlan) adoptedSession() string { return p.base() + "/adopted" }

// sendAdopted is a new member's acknowledgement to the old active members.
func sendAdopted(ctx context.Context, mux *transport.Mux, p jointPlan, stored int) error {
	b := binary.BigEndian.AppendUint64(nil, uint64(stored))
	var errs []error
	for _, id := range p.oldActive {
		if err := mux.SendRetrying(ctx, id, transport.Message{Type: transport.TypeAgreed, Session: p.adoptedSession(), Payload: b}); err != nil {
			errs = append(errs, fmt.Errorf("consensus: adoption acknowledgement to %d: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// awaitAdopted waits for every new member's acknowledgement of switched
// inputs.
func awaitAdopted(ctx context.Context, mux *transport.Mux, p jointPlan, switched int) error {
	defer mux.Forget(p.adoptedSession())
	got := mux.Collect(ctx, p.adoptedSession(), transport.TypeAgreed, p.nw)
	if len(got.Missing) > 0 {
		return fmt.Errorf("consensus: new members %v did not acknowledge the adoption: not retiring: %w", got.Missing,
			&protocol.ErrMissing{Session: p.adoptedSession(), Missing: got.Missing})
	}
	for _, id := range p.nw {
		b := got.Got[id].Payload
		if len(b) != 8 || binary.BigEndian.Uint64(b) != uint64(switched) {
			return fmt.Errorf("consensus: new member %d acknowledged another number of inputs than the %d switched: not retiring", id, switched)
		}
	}
	return nil
}
