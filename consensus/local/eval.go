package consensus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// Development evaluation with an in-process committee: `fhegate policy eval`
// runs a plan that needs refreshes through these, so a policy author sees a
// deep policy evaluated by the same protocol code as a committee serving a
// chain (collective refresh at the plan's refresh points, threshold
// decryption with noise flooding), under throw-away keys.

// Evaluator returns the committee's evaluator (its public evaluation keys),
// as held by the first live member.
func (lc *LocalCommittee) Evaluator() (*fhe.Evaluator, error) {
	ms := lc.liveMembers()
	if len(ms) == 0 {
		return nil, ErrNoQuorum
	}
	ks, err := ms[0].snap()
	if err != nil {
		return nil, err
	}
	return ks.ev, nil
}

// Refresh re-encrypts ct at the top level through the committee's collective
// refresh (Member.refresh on every live member, the first t active), and
// checks that every member computed the same ciphertext. It has the
// signature of policy/eval.RefreshFunc and sizes the refresh for the default
// noise bounds (RefreshWith for a plan's).
func (lc *LocalCommittee) Refresh(ctx context.Context, ct *fhe.Ciphertext) (*fhe.Ciphertext, error) {
	return lc.RefreshWith(ctx, ct, circuit.RefreshBounds{})
}

// RefreshWith is Refresh sized for the noise bounds b (e.g. a plan's
// PlanRefreshBounds).
func (lc *LocalCommittee) RefreshWith(ctx context.Context, ct *fhe.Ciphertext, b circuit.RefreshBounds) (*fhe.Ciphertext, error) {
	d := protocol.ShareDigest(ct)
	session := fmt.Sprintf("local/refresh/%x", d[:8])
	outs, err := lc.onEveryMember(func(m *Member, ks keySnap, ids []transport.MemberID) (*fhe.Ciphertext, error) {
		return m.refresh(ctx, ks, session, ct, ids, b)
	})
	if err != nil {
		return nil, err
	}
	first, err := outs[0].Handle()
	if err != nil {
		return nil, err
	}
	for i, o := range outs[1:] {
		h, err := o.Handle()
		if err != nil {
			return nil, err
		}
		if h != first {
			return nil, fmt.Errorf("consensus: refresh: member %d computed another ciphertext", i+2)
		}
	}
	return outs[0], nil
}

// DecryptSlots threshold-decrypts every slot of ct with the live members
// (one share each, flooded, through each member's ledger). For development
// tools only: a committee serving a chain decrypts slot 0 of a masked
// verdict and nothing else.
func (lc *LocalCommittee) DecryptSlots(ctx context.Context, ct *fhe.Ciphertext) ([]uint64, error) {
	d := protocol.ShareDigest(ct)
	session := fmt.Sprintf("local/dec/%x", d[:8])
	var (
		mu  sync.Mutex
		res []uint64
	)
	_, err := lc.onEveryMember(func(m *Member, ks keySnap, ids []transport.MemberID) (*fhe.Ciphertext, error) {
		in := ct
		if in.Level() < ks.plan.Level {
			var err error
			if in, err = m.refresh(ctx, ks, session+"/refresh", in, ids, circuit.RefreshBounds{}); err != nil {
				return nil, err
			}
		}
		r, err := protocol.ThresholdDecrypt(ctx, m.group(), ks.key, ks.plan, ks.ev, m.led,
			protocol.DecryptRequest{Session: session, Ciphertext: in, Participants: ids, PublicKey: ks.km.Public})
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		if res == nil {
			res = r.Values
		} else if !slices.Equal(res, r.Values) {
			return nil, errors.New("consensus: members decrypted different values")
		}
		return nil, nil
	})
	return res, err
}

// liveMembers returns the members that are not killed, in id order.
func (lc *LocalCommittee) liveMembers() []*Member {
	var out []*Member
	for i := range lc.Members {
		if m := lc.Member(uint32(i + 1)); m != nil {
			out = append(out, m)
		}
	}
	return out
}

// onEveryMember runs f concurrently on every live member with the sorted
// ids of the live members, and returns the outputs in member order.
func (lc *LocalCommittee) onEveryMember(f func(*Member, keySnap, []transport.MemberID) (*fhe.Ciphertext, error)) ([]*fhe.Ciphertext, error) {
	ms := lc.liveMembers()
	if len(ms) < lc.Config.Threshold {
		return nil, fmt.Errorf("%w: %d live members, threshold %d", ErrNoQuorum, len(ms), lc.Config.Threshold)
	}
	ids := make([]transport.MemberID, len(ms))
	for i, m := range ms {
		ids[i] = m.ID()
	}
	outs := make([]*fhe.Ciphertext, len(ms))
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ks, err := m.snap()
			if err == nil {
				outs[i], err = f(m, ks, ids)
			}
			if err != nil {
				errs[i] = fmt.Errorf("member %d: %w", m.ID(), err)
			}
		}()
	}
	wg.Wait()
	return outs, errors.Join(errs...)
}
