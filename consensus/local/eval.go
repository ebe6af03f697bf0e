package local

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/fhegate/fhegate/consensus"
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
func (lc *Committee) Evaluator() (*fhe.Evaluator, error) {
	ms := lc.Live()
	if len(ms) == 0 {
		return nil, consensus.ErrNoQuorum
	}
	return ms[0].Evaluator()
}

// Refresh re-encrypts ct at the top level through the committee's collective
// refresh (Member.RefreshAmong on every live member, all contributing), and
// checks that every member computed the same ciphertext. It has the
// signature of policy/eval.RefreshFunc and sizes the refresh for the default
// noise bounds (RefreshWith for a plan's).
func (lc *Committee) Refresh(ctx context.Context, ct *fhe.Ciphertext) (*fhe.Ciphertext, error) {
	return lc.RefreshWith(ctx, ct, circuit.RefreshBounds{})
}

// RefreshWith is Refresh sized for the noise bounds b (e.g. a plan's
// PlanRefreshBounds).
func (lc *Committee) RefreshWith(ctx context.Context, ct *fhe.Ciphertext, b circuit.RefreshBounds) (*fhe.Ciphertext, error) {
	d := protocol.ShareDigest(ct)
	session := fmt.Sprintf("local/refresh/%x", d[:8])
	outs, err := lc.onEveryMember(func(m *consensus.Member, ids []transport.MemberID) (*fhe.Ciphertext, error) {
		return m.RefreshAmong(ctx, session, ct, ids, b)
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
func (lc *Committee) DecryptSlots(ctx context.Context, ct *fhe.Ciphertext) ([]uint64, error) {
	d := protocol.ShareDigest(ct)
	session := fmt.Sprintf("local/dec/%x", d[:8])
	var (
		mu  sync.Mutex
		res []uint64
	)
	_, err := lc.onEveryMember(func(m *consensus.Member, ids []transport.MemberID) (*fhe.Ciphertext, error) {
		vals, err := m.DecryptAmong(ctx, session, ct, ids)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		if res == nil {
			res = vals
		} else if !slices.Equal(res, vals) {
			return nil, errors.New("consensus: members decrypted different values")
		}
		return nil, nil
	})
	return res, err
}

// Live returns the members that are not killed, in id order.
func (lc *Committee) Live() []*consensus.Member {
	var out []*consensus.Member
	for i := range lc.Members {
		if m := lc.Member(uint32(i + 1)); m != nil {
			out = append(out, m)
		}
	}
	return out
}

// onEveryMember runs f concurrently on every live member with the sorted
// ids of the live members, and returns the outputs in member order.
func (lc *Committee) onEveryMember(f func(*consensus.Member, []transport.MemberID) (*fhe.Ciphertext, error)) ([]*fhe.Ciphertext, error) {
	ms := lc.Live()
	if len(ms) < lc.Config.Threshold {
		return nil, fmt.Errorf("%w: %d live members, threshold %d", consensus.ErrNoQuorum, len(ms), lc.Config.Threshold)
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
			var err error
			if outs[i], err = f(m, ids); err != nil {
				errs[i] = fmt.Errorf("member %d: %w", m.ID(), err)
			}
		}()
	}
	wg.Wait()
	return outs, errors.Join(errs...)
}
