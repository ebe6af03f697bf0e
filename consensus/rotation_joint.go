package consensus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// The joint key-switch session of a rotation (docs/committee.md,
// "Rotation"). The old committee's t active members and every member of
// the new committee meet on one transport and move each stored input of
// the old epoch to the new committee's key with the cross-committee key
// switch (protocol.CrossKeySwitch: the output keeps the input's c1, so no
// member can shift it towards a secret). Joint IDs: new member k is k (its
// committee ID, so that the new member's own mux serves both the switch
// and the adoption after it), old member i is n′+i (KeySwitchRequest's
// OldOffset = n′, the new committee's size). For each input:
//
//  1. once, the old active members send the sorted list of handles they
//     hold under the old epoch; a new member takes it only when all t
//     copies are identical (protocol.AgreedFromActive: with at most t−1
//     corrupt members one of the t is honest);
//  2. each old active member sends its stored ciphertext; a new member
//     takes it only when all t copies are byte-identical (the c1 every
//     participant uses must be the stored input's: a c1 chosen by a corrupt
//     member, e.g. a small one, would make the output's c0 reveal s′);
//  3. CrossKeySwitch with the old active members active on the old side,
//     the first t′ new members active on the new side and the others
//     receiving.
//
// Before any of it each old active member checks on its own chain that the
// target is the key the new committee bound for epoch+1 (VerifyTargetKey)
// and pins it for its epoch (pinEpochTarget). Then every new member refreshes
// its outputs under the new key with its peers, agrees on the digests and
// stores them under their handles (adoptAll, with the old committee's
// threshold for the noise bounds).

// group is the member's view of p's joint session over mux.
func (r *rotation) group(p jointPlan, mux *transport.Mux) protocol.Group {
	return protocol.Group{Mux: mux, Members: p.members(), Threshold: r.threshold, Timeout: r.timeout,
		Log: r.log, OnEquivocation: r.blame}
}

// prepareSwitchOut is an old active member's check before the key switch:
// the target is not its own key, it is the key its chain recorded for
// epoch+1, and it is pinned as this epoch's one target.
func (r *rotation) prepareSwitchOut(ctx context.Context, reg chainio.CommitteeKeyRegistry, p jointPlan) (keySnap, error) {
	ks, err := r.m.snap()
	if err != nil {
		return ks, err
	}
	if ks.km.Epoch != p.fromEpoch {
		return ks, fmt.Errorf("consensus: this member's key is of epoch %d, the rotation is from epoch %d", ks.km.Epoch, p.fromEpoch)
	}
	if p.target.Params() != r.params {
		return ks, errors.New("consensus: key switch target key is for another preset")
	}
	if p.tpd == ks.km.PKDigest {
		return ks, errors.New("consensus: key switch target is this committee's own key")
	}
	if err := chainio.VerifyTargetKey(ctx, reg, ks.km.Epoch+1, p.tpd); err != nil {
		return ks, fmt.Errorf("consensus: old member %d refuses the key switch: %w", r.self, err)
	}
	return ks, r.pinEpochTarget(ks, p.tpd)
}

// switchOut is an old active member's part of the joint session (after
// prepareSwitchOut): it announces its handles, and for each input sends
// its ciphertext and its key-switch share. It returns the inputs switched.
func (r *rotation) switchOut(ctx context.Context, g protocol.Group, ks keySnap, p jointPlan) (int, error) {
	handles, err := r.currentHandles()
	if err != nil {
		return 0, err
	}
	parts := p.participants()
	if _, err := protocol.AgreedFromActive(ctx, g, transport.TypeAgreed, p.base()+"/handles", p.oldActive, parts, "the handles to key-switch",
		func() ([]byte, error) { return encodeHandles(handles), nil }); err != nil {
		return 0, err
	}
	for _, h := range handles {
		ct, err := r.m.currentInput(h, ks.km.Epoch)
		if err != nil {
			return 0, fmt.Errorf("consensus: key switch %s: %w", h, err)
		}
		if _, err := protocol.AgreedFromActive(ctx, g, transport.TypeAgreed, fmt.Sprintf("%s/ct/%x", p.base(), h[:8]), p.oldActive, parts, "the input ciphertext",
			ct.MarshalBinary); err != nil {
			return 0, fmt.Errorf("consensus: key switch %s: %w", h, err)
		}
		if _, err := protocol.CrossKeySwitch(ctx, g, ks.key, ks.plan, r.led, p.request(h, ct)); err != nil {
			return 0, fmt.Errorf("consensus: key switch %s: %w", h, err)
		}
		r.log.Debug("input key-switched to the new committee", zap.String("handle", h.String()))
	}
	return len(handles), nil
}

// switchIn is a new member's part of the joint session: it takes the
// handles and each input's ciphertext the old active members agree on,
// runs the key switch and returns the outputs (canonical bytes under the
// new key) by handle.
func (r *rotation) switchIn(ctx context.Context, g protocol.Group, p jointPlan) (map[fhe.Handle][]byte, error) {
	ks, err := r.m.snap()
	if err != nil {
		return nil, err
	}
	if p.tpd != ks.km.PKDigest {
		return nil, errors.New("consensus: key switch target is not this (new) committee's key")
	}
	parts := p.participants()
	hb, err := protocol.AgreedFromActive(ctx, g, transport.TypeAgreed, p.base()+"/handles", p.oldActive, parts, "the handles to key-switch", nil)
	if err != nil {
		return nil, err
	}
	handles, err := decodeHandles(hb)
	if err != nil {
		return nil, err
	}
	outs := make(map[fhe.Handle][]byte, len(handles))
	for _, h := range handles {
		cb, err := protocol.AgreedFromActive(ctx, g, transport.TypeAgreed, fmt.Sprintf("%s/ct/%x", p.base(), h[:8]), p.oldActive, parts, "the input ciphertext", nil)
		if err != nil {
			return nil, fmt.Errorf("consensus: key switch %s: %w", h, err)
		}
		_, ct, err := store.Validate(cb)
		if err != nil {
			return nil, fmt.Errorf("consensus: key switch %s: %w", h, err)
		}
		if ct.Params() != r.params {
			return nil, fmt.Errorf("consensus: key switch %s: the input is for another preset", h)
		}
		out, err := protocol.CrossKeySwitch(ctx, g, ks.key, ks.plan, r.led, p.request(h, ct))
		if err != nil {
			return nil, fmt.Errorf("consensus: key switch %s: %w", h, err)
		}
		if outs[h], err = out.MarshalBinary(); err != nil {
			return nil, err
		}
	}
	return outs, nil
}

// JointRotation is one rotation's joint key-switch session across the
// real transport (`fhegate committee rotate switch`): the old committee's
// active members run Member.SwitchToNext, every new member
// Member.AdoptFromPrevious, at the same time.
type JointRotation struct {
	Old, New *config.CommitteeConfig
	// Target is the new committee's collective public key (its
	// committee.pk); old members refuse it unless their chain recorded its
	// digest for the new epoch.
	Target *fhe.PublicKey
	// OldActive are the t old members (old committee IDs) that take part;
	// nil: members 1..t.
	OldActive []uint32
	// Wait bounds the wait for every participant to come up (0: 5 minutes).
	Wait time.Duration
}

func (j JointRotation) plan() (jointPlan, error) {
	if j.Old == nil || j.New == nil {
		return jointPlan{}, errors.New("consensus: a joint rotation needs both committees' configurations")
	}
	if j.New.Epoch != j.Old.Epoch+1 {
		return jointPlan{}, fmt.Errorf("consensus: rotation from epoch %d to %d (must be +1)", j.Old.Epoch, j.New.Epoch)
	}
	if j.New.Preset != j.Old.Preset {
		return jointPlan{}, fmt.Errorf("consensus: rotation keeps the preset (%s), the new committee's is %s", j.Old.Preset, j.New.Preset)
	}
	if j.New.ChainIDBig().Cmp(j.Old.ChainIDBig()) != 0 {
		return jointPlan{}, errors.New("consensus: the two committees serve different chains")
	}
	active := j.OldActive
	if active == nil {
		for i := 1; i <= j.Old.Threshold; i++ {
			active = append(active, uint32(i))
		}
	}
	return newJointPlan(j.Old.Epoch, len(j.Old.Members), j.Old.Threshold, len(j.New.Members), j.New.Threshold, active, j.Target)
}

func (j JointRotation) wait() time.Duration {
	if j.Wait <= 0 {
		return 5 * time.Minute
	}
	return j.Wait
}

// SwitchToNext is an old member's part of a joint rotation: m is one of
// j.OldActive, reg its chain (FHEVerdict.committeeKeyOf), joint a mux over
// its TLS transport on config.JointPeers as config.JointOldID. It checks the target on
// chain, waits for every participant, then key-switches every input it
// stores under its epoch; when every new member acknowledged that it
// stored them all, it retires (Retire: its key share and issued shares are
// wiped). It returns the number of inputs switched.
func (m *Member) SwitchToNext(ctx context.Context, reg chainio.CommitteeKeyRegistry, joint *transport.Mux, j JointRotation) (int, error) {
	p, err := j.plan()
	if err != nil {
		return 0, err
	}
	if uint64(m.cfg.Committee.Epoch) != j.Old.Epoch {
		return 0, fmt.Errorf("consensus: this member is of epoch %d, the old committee's is %d", m.cfg.Committee.Epoch, j.Old.Epoch)
	}
	self := config.JointOldID(j.New, uint32(m.id))
	if joint.Self() != self {
		return 0, fmt.Errorf("consensus: joint transport is member %d, old member %d is %d there", joint.Self(), m.id, self)
	}
	if !slices.Contains(p.oldActive, self) {
		return 0, fmt.Errorf("consensus: old member %d is not one of the active old members", m.id)
	}
	ks, err := m.rot.prepareSwitchOut(ctx, reg, p)
	if err != nil {
		return 0, err
	}
	g := m.rot.group(p, joint)
	if err := jointBarrier(ctx, joint, p.participants(), p.base()+"/ready", j.wait()); err != nil {
		return 0, p.named(err)
	}
	n, err := m.rot.switchOut(ctx, g, ks, p)
	if err != nil {
		return n, p.named(err)
	}
	// The last step: once every new member holds every input, retire.
	actx, cancel := context.WithTimeout(ctx, j.wait())
	defer cancel()
	if err := awaitAdopted(actx, joint, p, n); err != nil {
		return n, p.named(err)
	}
	_, err = m.Retire()
	return n, err
}

// AdoptFromPrevious is a new member's part of a joint rotation: m runs on
// config.JointMemberTransport. It waits for every participant, takes part in the
// key switch of every input, then refreshes the outputs under the new key
// with the other new members, agrees on their digests and stores them
// under their handles, and acknowledges that to the old active members (so
// that they retire). It returns the number of inputs stored.
func (m *Member) AdoptFromPrevious(ctx context.Context, j JointRotation) (int, error) {
	p, err := j.plan()
	if err != nil {
		return 0, err
	}
	if m.cfg.Committee.Epoch != j.New.Epoch {
		return 0, fmt.Errorf("consensus: this member is of epoch %d, the new committee's is %d", m.cfg.Committee.Epoch, j.New.Epoch)
	}
	if err := jointBarrier(ctx, m.mux, p.participants(), p.base()+"/ready", j.wait()); err != nil {
		return 0, p.named(err)
	}
	outs, err := m.rot.switchIn(ctx, m.rot.group(p, m.mux), p)
	if err != nil {
		return 0, p.named(err)
	}
	return m.rot.adoptSwitched(ctx, j, p, m.mux, outs)
}

// adoptSwitched is AdoptFromPrevious after the key switch: adoptAll, then
// the acknowledgement on mux that lets the old active members retire.
func (r *rotation) adoptSwitched(ctx context.Context, j JointRotation, p jointPlan, mux *transport.Mux, outs map[fhe.Handle][]byte) (int, error) {
	ks, err := r.m.snap()
	if err != nil {
		return 0, err
	}
	n, err := r.adoptAll(ctx, ks, outs, p.oldT)
	if err == nil && n != len(outs) {
		err = fmt.Errorf("consensus: stored %d of %d key-switched inputs", n, len(outs))
	}
	if err != nil {
		return n, err
	}
	actx, cancel := context.WithTimeout(ctx, j.wait())
	defer cancel()
	return n, p.named(sendAdopted(actx, mux, p, n))
}

// jointBarrier waits until every participant's listener took this member's
// ready message and this member holds every participant's: the rounds
// after it send each message once, so every participant must be up first
// (operators start their commands by hand, seconds apart). A send is
// retried until it succeeds or wait runs out.
func jointBarrier(ctx context.Context, mux *transport.Mux, parts []transport.MemberID, session string, wait time.Duration) error {
	rctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	defer mux.Forget(session)
	self := mux.Self()
	var others []transport.MemberID
	for _, id := range parts {
		if id != self {
			others = append(others, id)
		}
	}
	var wg sync.WaitGroup
	for _, id := range others {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rctx.Err() == nil {
				sctx, scancel := context.WithTimeout(rctx, 5*time.Second)
				err := mux.Send(sctx, id, transport.Message{Type: transport.TypeAgreed, Session: session, Payload: []byte{1}})
				scancel()
				if err == nil {
					return
				}
				select {
				case <-rctx.Done():
				case <-time.After(200 * time.Millisecond):
				}
			}
		}()
	}
	got := mux.Collect(rctx, session, transport.TypeAgreed, others)
	wg.Wait()
	if len(got.Missing) > 0 {
		return fmt.Errorf("consensus: rotation participants %v did not come up within %v: %w", got.Missing, wait, &protocol.ErrMissing{Session: session, Missing: got.Missing})
	}
	return nil
}
