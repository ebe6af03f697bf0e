package protocol

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// splitView is a corrupt member's transport in one committed round
// (session, typ): it shows member victim another share than everyone else
// — its commitment (signed with the member's own key, over the round's
// context), its echo entry and its reveal all say alt(share) to the victim
// — and, like the rusher it is, holds its commitment to the other members
// back until the victim's reveal has reached it (at most hold).
type splitView struct {
	transport.Transport
	signer  transport.Signer
	victim  transport.MemberID
	session string
	typ     transport.Type
	alt     func(share []byte) []byte
	hold    time.Duration
	epoch   uint64
	preset  fhe.PresetID

	mu        sync.Mutex
	seeds     map[transport.MemberID][]byte // DKG seed reveals, for the CRS context
	sawReveal chan struct{}
	once      sync.Once
	rushed    bool // the victim's reveal arrived before its commitment to the others left
	altCommit []byte
}

func newSplitView(tr transport.Transport, victim transport.MemberID, session string, typ transport.Type, alt func([]byte) []byte) *splitView {
	return &splitView{Transport: tr, signer: tr, victim: victim, session: session, typ: typ, alt: alt,
		hold: 500 * time.Millisecond, seeds: map[transport.MemberID][]byte{}, sawReveal: make(chan struct{})}
}

// context is the round's commitment context: the DKG's CRS seed, from the
// seed reveals it has seen (zero outside a DKG).
func (s *splitView) context() [32]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seeds) == 0 || s.session[:4] != "dkg/" {
		return [32]byte{}
	}
	parts := [][]byte{[]byte("fhegate/dkg/crs"), binary.BigEndian.AppendUint64(nil, s.epoch), {byte(s.preset)}}
	for id := transport.MemberID(1); int(id) <= len(s.seeds); id++ {
		parts = append(parts, s.seeds[id])
	}
	return keccak(parts...)
}

func (s *splitView) seed(from transport.MemberID, msg transport.Message) {
	if msg.Type == transport.TypeSeedReveal && len(msg.Payload) == 32 {
		s.mu.Lock()
		s.seeds[from] = append([]byte(nil), msg.Payload...)
		s.mu.Unlock()
	}
}

func (s *splitView) Recv(ctx context.Context) (transport.Message, error) {
	msg, err := s.Transport.Recv(ctx)
	if err == nil {
		s.seed(msg.From, msg)
		if msg.From == s.victim && msg.Session == s.session && msg.Type == s.typ {
			s.once.Do(func() { close(s.sawReveal) })
		}
	}
	return msg, err
}

func (s *splitView) Send(ctx context.Context, to transport.MemberID, msg transport.Message) error {
	s.seed(s.Self(), msg)
	switch {
	case msg.Session == s.session && msg.Type == transport.TypeShareCommit && to != s.victim:
		// The rush: wait for the victim's reveal before committing here.
		select {
		case <-s.sawReveal:
			s.mu.Lock()
			s.rushed = true
			s.mu.Unlock()
		case <-time.After(s.hold):
		}
	case msg.Session == s.session && msg.Type == transport.TypeShareCommit:
		return s.Transport.Send(ctx, to, s.rewriteCommit(msg))
	case msg.Session == s.session+commitEchoSuffix && to == s.victim:
		return s.Transport.Send(ctx, to, s.rewriteEcho(msg))
	case msg.Session == s.session && msg.Type == s.typ && to == s.victim:
		msg.Payload = s.alt(msg.Payload)
	}
	return s.Transport.Send(ctx, to, msg)
}

// rewriteCommit replaces the commitment sent to the victim (it needs the
// share, which the member's own round has not revealed yet: it recomputes
// the alternative from what the hook captured, see altOf).
func (s *splitView) rewriteCommit(msg transport.Message) transport.Message {
	s.mu.Lock()
	c := s.altCommit
	s.mu.Unlock()
	if c != nil {
		msg.Payload = c
	}
	return msg
}

func (s *splitView) rewriteEcho(msg transport.Message) transport.Message {
	s.mu.Lock()
	c := s.altCommit
	s.mu.Unlock()
	if c == nil {
		return msg
	}
	l := len(c)
	self := int(s.Self()) - 1 // members 1..n, all senders: entry i is member i+1
	b := append([]byte(nil), msg.Payload...)
	if len(b) >= (self+1)*l {
		copy(b[self*l:], c)
	}
	msg.Payload = b
	return msg
}

// capture is the corrupt member's hook: at hookSend it sees its honest
// share and prepares the signed commitment to alt(share) for the victim.
func (s *splitView) capture(stage hookStage, session string, typ transport.Type, own []byte, _ func() map[transport.MemberID][]byte) []byte {
	if stage == hookSend && session == s.session && typ == s.typ {
		c := shareCommitment(session, typ, s.Self(), s.alt(own))
		payload := append(c[:], s.signer.Sign(SignedCommitment(s.context(), session, typ, s.Self(), c[:]))...)
		s.mu.Lock()
		s.altCommit = payload
		s.mu.Unlock()
	}
	return own
}

// flipLow changes the lowest bit of a share's last coefficient (Lattigo
// marshals coefficients little-endian): still a well-formed share.
func flipLow(b []byte) []byte {
	out := append([]byte(nil), b...)
	out[len(out)-8] ^= 1
	return out
}

// requireCorruptNamed checks that every honest member's error names the
// corrupt member as equivocating, and that nobody honest is named.
func requireCorruptNamed(t *testing.T, errs []error, blamed [][]transport.MemberID, corrupt int) {
	t.Helper()
	for i, err := range errs {
		if i == corrupt {
			continue
		}
		var eq *ErrEquivocation
		require.True(t, errors.As(err, &eq), "member %d: want the corrupt member named, got %v", i+1, err)
		require.Equal(t, transport.MemberID(corrupt+1), eq.Member, "member %d names member %d: %v", i+1, eq.Member, err)
		require.Contains(t, eq.Reason, "signed two different commitments")
		for _, id := range blamed[i] {
			require.Equal(t, transport.MemberID(corrupt+1), id, "member %d blamed an honest member", i+1)
		}
	}
}

// TestDKGSplitViewCommitment — attack: "split-view commitment". The
// corrupt member 3 of a 3-member DKG commits to member 2 alone, waits for
// 2's reveal (2 held every commitment), and only then commits to member 1;
// to 2 it commits to and reveals another public-key share than to 1. With
// point-to-point commitments nothing was detected: 1 and 2 aggregated
// different public keys and each reported the other as having "derived
// different public key material", nobody naming member 3. With the echo,
// 2 never reveals before 1 has echoed, so the rush gets nothing, the echoes
// differ, and both honest members name member 3 — on its own signature —
// and no one else.
func TestDKGSplitViewCommitment(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	const n, th, corrupt = 3, 2, 2 // member 3
	var sv *splitView
	wrap := func(tr transport.Transport) transport.Transport {
		if tr.Self() != corrupt+1 {
			return tr
		}
		sv = newSplitView(tr, 2, "dkg/1/pk", transport.TypePKShare, flipLow)
		sv.epoch, sv.preset = 1, p.Preset.ID
		return sv
	}
	hooks := map[int]roundHook{corrupt: func(stage hookStage, session string, typ transport.Type, own []byte, peek func() map[transport.MemberID][]byte) []byte {
		return sv.capture(stage, session, typ, own, peek)
	}}
	c := newCommitteeWith(t, p, n, th, 1, nil, wrap, nil, hooks, false)
	sv.mu.Lock()
	rushed := sv.rushed
	sv.mu.Unlock()
	require.False(t, rushed, "member 2 revealed before member 1 held member 3's commitment")
	blamed := make([][]transport.MemberID, n)
	requireCorruptNamed(t, c.dkgErrs, blamed, corrupt)
	for i := range n {
		if i != corrupt {
			require.Nil(t, c.kms[i], "member %d: no key from a split round", i+1)
		}
	}
}

// committedRound runs exchangeCommitted on every member of a hub of n with
// member wrapAt's transport wrapped, each sending payload(i).
func committedRound(t *testing.T, n int, session string, typ transport.Type, wrapAt int,
	wrap func(transport.Transport) transport.Transport, hook roundHook) ([]error, [][]transport.MemberID) {
	t.Helper()
	hub := transport.NewHub(n)
	members := make([]transport.MemberID, n)
	groups := make([]Group, n)
	blamed := make([][]transport.MemberID, n)
	var mu sync.Mutex
	for i := range n {
		members[i] = transport.MemberID(i + 1)
	}
	for i := range n {
		var tr transport.Transport = hub.Endpoint(transport.MemberID(i + 1))
		if i == wrapAt && wrap != nil {
			tr = wrap(tr)
		}
		mux := transport.NewMux(tr, zaptest.NewLogger(t))
		t.Cleanup(func() { mux.Close() })
		groups[i] = Group{Mux: mux, Members: members, Threshold: 2, Timeout: 3 * time.Second, Log: zaptest.NewLogger(t),
			OnEquivocation: func(e ErrEquivocation) { mu.Lock(); blamed[i] = append(blamed[i], e.Member); mu.Unlock() }}
		if i == wrapAt {
			groups[i].hook = hook
		}
	}
	errs := parallel(all(n), func(i int) error {
		_, err := exchangeCommitted(context.Background(), groups[i], typ, session, members, members, func() ([]byte, error) {
			return []byte(fmt.Sprintf("refresh share of member %d, padded to look like one........", i+1)), nil
		})
		return err
	})
	return errs, blamed
}

// TestExchangeCommittedSplitView runs the split-view attack, and an echo
// forged to frame an honest member, on the committed round that the
// refresh, refresh-transform and re-encryption rounds use.
func TestExchangeCommittedSplitView(t *testing.T) {
	t.Parallel()
	const session = "req/split/1/refresh/0"
	typ := transport.TypeRefreshShare

	t.Run("split view: both honest members name the corrupt one", func(t *testing.T) {
		t.Parallel()
		for _, corrupt := range []int{0, 2} { // the lowest and the highest ID
			victim := transport.MemberID(2)
			var sv *splitView
			wrap := func(tr transport.Transport) transport.Transport {
				sv = newSplitView(tr, victim, session, typ, flipLow)
				return sv
			}
			hook := func(stage hookStage, s string, ty transport.Type, own []byte, peek func() map[transport.MemberID][]byte) []byte {
				return sv.capture(stage, s, ty, own, peek)
			}
			errs, blamed := committedRound(t, 3, session, typ, corrupt, wrap, hook)
			requireCorruptNamed(t, errs, blamed, corrupt)
			require.False(t, sv.rushed)
		}
	})

	t.Run("a forged echo names its sender, not the member it frames", func(t *testing.T) {
		t.Parallel()
		const corrupt = 2
		frame := func(tr transport.Transport) transport.Transport {
			return &echoForger{Transport: tr, session: session, framed: 2, to: 1}
		}
		errs, blamed := committedRound(t, 3, session, typ, corrupt, frame, nil)
		var eq *ErrEquivocation
		require.ErrorAs(t, errs[0], &eq)
		require.Equal(t, transport.MemberID(3), eq.Member, "member 1 names the forger: %v", errs[0])
		require.Contains(t, eq.Reason, "did not sign")
		require.Equal(t, []transport.MemberID{3}, blamed[0])
		require.Empty(t, blamed[1], "member 2 is not named by anyone it heard")
	})
}

// echoForger is a corrupt member that, in its echo to member `to`, replaces
// member framed's commitment with one framed never signed.
type echoForger struct {
	transport.Transport
	session string
	framed  transport.MemberID
	to      transport.MemberID
}

func (e *echoForger) Send(ctx context.Context, to transport.MemberID, msg transport.Message) error {
	if msg.Session == e.session+commitEchoSuffix && to == e.to {
		b := append([]byte(nil), msg.Payload...)
		l := len(b) / 3
		b[int(e.framed-1)*l] ^= 1 // another hash, under framed's signature of the real one
		msg.Payload = b
	}
	return e.Transport.Send(ctx, to, msg)
}
