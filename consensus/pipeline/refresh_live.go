package pipeline

// Collective refreshes inside a run: with the members this member believes
// live, the contributors of a verified refresh, the masks made ahead, and
// the test knobs that corrupt shares.

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/ledger"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// RefreshLive runs a collective refresh of ct inside a request's evaluation
// (a plan's refresh point) with the members this member believes live
// (onLive). The session is named by the ciphertext's digest, not by a call
// counter, so every member names the same refresh the same way whatever
// order its evaluator reaches the plan's refresh points in.
func (rn *Runner) RefreshLive(ctx context.Context, ks Keys, base string, ct *fhe.Ciphertext, b circuit.RefreshBounds) (*fhe.Ciphertext, error) {
	session := refreshSession(base, ct)
	var out *fhe.Ciphertext
	err := rn.onLive(ctx, func(participants []transport.MemberID) (err error) {
		out, err = rn.Refresh(ctx, ks, session, ct, participants, b)
		return err
	})
	return out, err
}

// refreshSession names the refresh of ct inside the run base: by the
// ciphertext's digest, not by a call counter.
func refreshSession(base string, ct *fhe.Ciphertext) string {
	d := protocol.ShareDigest(ct)
	return fmt.Sprintf("%s/refresh/%x", base, d[:8])
}

// onLive runs a round with the members this member believes live (liveFor
// a verified refresh's CheckedMembers(t)). When an active member does not
// answer, it is marked down and the round is run once more with the next
// live members (a new session: a member killed between two refreshes of one
// request costs one round timeout, not the request) — unless fewer are live
// than the round needs: it then fails for want of a quorum (ErrNoQuorum,
// which the serve loop retries without counting an attempt), as it does
// when it already waited for every member.
func (rn *Runner) onLive(ctx context.Context, round func(participants []transport.MemberID) error) error {
	need := protocol.CheckedMembers(rn.d.Config.Threshold)
	members, all := rn.liveFor(need)
	err := round(members)
	var miss *protocol.ErrMissing
	if !errors.As(err, &miss) || ctx.Err() != nil {
		return err
	}
	rn.d.Marks.MarkDown(miss.Missing)
	if !all {
		if members, all = rn.liveFor(need); !all {
			err = round(members)
			if !errors.As(err, &miss) {
				return err
			}
			rn.d.Marks.MarkDown(miss.Missing)
		}
	}
	return fmt.Errorf("%w: members %v needed: %w", ErrNoQuorum, miss.Missing, err)
}

// liveFor returns the members a round that needs need of them (this member
// included) runs with: those this member believes live, or every member
// when they are fewer (all). A liveness mark only saves waiting for a
// member the round can do without; a round that cannot complete without a
// marked member waits for it. Failing at once instead is what kept a
// committee apart after a member's restart: marks are one member's view,
// taken in rounds its peers ran at other times, so every member had marked
// some other; each then failed its attempts at once for want of that one,
// while the members that did wait timed out — and marked it in turn. The
// marks never settled, and every request ran out of attempts.
func (rn *Runner) liveFor(need int) (members []transport.MemberID, all bool) {
	live := rn.d.Marks.Live()
	if len(live) >= need || len(live) == len(rn.d.Members) {
		return live, false
	}
	return slices.Clone(rn.d.Members), true
}

// checkedQuorum fails with ErrNoQuorum when members (described as who) are
// fewer than the CheckedMembers(t) whose shares a refresh or a decryption
// (what) cross-checks.
func (rn *Runner) checkedQuorum(who, what string, members []transport.MemberID) error {
	t := rn.d.Config.Threshold
	if need := protocol.CheckedMembers(t); len(members) < need {
		return fmt.Errorf("%w: %d %s %v for %s, which needs %d whose shares cross-check (t=%d)", ErrNoQuorum, len(members), who, members, what, need, t)
	}
	return nil
}

// refreshContributors returns the contributors of a verified refresh among
// participants (ascending): every participant, up to the most whose
// t-subsets a refresh decodes (protocol.MaxRefreshSubsets), and at least
// protocol.CheckedMembers(t); it calls the BeforeRefresh knob.
func (rn *Runner) refreshContributors(participants []transport.MemberID, level int, b circuit.RefreshBounds) ([]transport.MemberID, error) {
	t := rn.d.Config.Threshold
	need := protocol.CheckedMembers(t)
	if err := rn.checkedQuorum("live members", "a refresh", participants); err != nil {
		return nil, err
	}
	if hook := rn.d.Config.Knobs.BeforeRefresh; hook != nil {
		hook(level, b)
	}
	out := slices.Sorted(slices.Values(participants))
	for len(out) > need && protocol.RefreshSubsets(len(out), t) > protocol.MaxRefreshSubsets {
		out = out[:len(out)-1]
	}
	return out, nil
}

// Refresh runs one verified collective refresh (protocol.Refresh) with
// the participants contributing (refreshContributors) and receiving, sized
// for the noise bounds b; it counts the refreshes this member completed
// (Status.Refreshes).
func (rn *Runner) Refresh(ctx context.Context, ks Keys, session string, ct *fhe.Ciphertext, participants []transport.MemberID, b circuit.RefreshBounds) (*fhe.Ciphertext, error) {
	active, err := rn.refreshContributors(participants, ct.Level(), b)
	if err != nil {
		return nil, err
	}
	zk, _ := rn.d.ProofKey()
	if zk != nil && zk.PK != ks.km.Public {
		zk = nil // a rotation's new key: protocol.Refresh prepares its own
	}
	led := protocol.Ledger(rn.d.Ledger)
	if rn.d.Config.Knobs.CorruptRefresh {
		led = refreshCorruptingLedger{rn.d.Ledger, rn.d.Params.N()}
	}
	g := rn.d.Group()
	if zk != nil {
		g.Masks = rn.masksFor(zk, ks.key.Epoch)
	}
	out, err := protocol.Refresh(ctx, g, ks.key, led, protocol.RefreshRequest{Session: fmt.Sprintf("%s/%v", session, active),
		Ciphertext: ct, Active: active, Receivers: participants, PublicKey: ks.km.Public, ProofKey: zk, NoiseBits: b.NoiseBits, WorstBits: b.WorstBits})
	if err == nil {
		rn.d.Refreshes.Add(1)
	}
	return out, err
}

// maskPoolSize is how many refresh masks a member keeps made ahead: a
// request's entry refreshes take one each.
const maskPoolSize = 4

// masksFor returns this member's refresh mask pool for the key and epoch,
// replacing (and stopping) one made for another key.
func (rn *Runner) masksFor(zk *zkpok.Key, epoch uint64) *protocol.MaskPool {
	for {
		cur := rn.masks.Load()
		if cur.For(zk, epoch, rn.d.Self) {
			return cur
		}
		next := protocol.NewMaskPool(zk, epoch, rn.d.Self, maskPoolSize)
		if rn.masks.CompareAndSwap(cur, next) {
			if cur != nil {
				go cur.Close()
			}
			return next
		}
		next.Close()
	}
}

// corruptingLedger flips a bit of every decryption share it hands out
// (TestingKnobs.CorruptShares).
type corruptingLedger struct{ l *ledger.Ledger }

func (c corruptingLedger) Issue(kind protocol.ShareKind, d [32]byte, e uint64, s string, gen func() ([]byte, error)) ([]byte, error) {
	b, err := c.l.Issue(kind, d, e, s, gen)
	if err != nil || kind != protocol.KindDecryption || len(b) < 64 {
		return b, err
	}
	b = append([]byte(nil), b...)
	b[41] ^= 1
	return b, nil
}

// refreshCorruptingLedger flips the lowest bit of one coefficient of every
// share in every refresh share bundle it hands out, keeping it well-formed
// (TestingKnobs.CorruptRefresh): a member whose shares all move the value.
type refreshCorruptingLedger struct {
	l *ledger.Ledger
	n int // ring degree
}

func (c refreshCorruptingLedger) Issue(kind protocol.ShareKind, d [32]byte, e uint64, s string, gen func() ([]byte, error)) ([]byte, error) {
	b, err := c.l.Issue(kind, d, e, s, gen)
	if err != nil || kind != protocol.KindRefresh || len(b) == 0 {
		return b, err
	}
	size := 1 + (int(b[0])+1)*c.n*8
	b = append([]byte(nil), b...)
	for o := 0; o+size <= len(b); o += size {
		b[o+1+8] ^= 1
	}
	return b, nil
}
