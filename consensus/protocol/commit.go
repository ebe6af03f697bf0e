package protocol

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
)

// Commit before reveal.
//
// Every round in which the members' shares are summed (the DKG's public-key,
// relinearisation-key and Galois-key rounds; the refresh, refresh-transform
// and re-encryption rounds) runs through exchangeCommitted. A member that
// sends a share first broadcasts
//
//	C_i = SHA-256("fhegate/share-commit/v1" ‖ len(session) ‖ session ‖ type ‖ i ‖ share_i)
//
// and reveals share_i only once it holds the commitment of every sender of
// the round and every sender has confirmed that it holds the same ones (the
// echo, below). A reveal that does not hash to its sender's commitment
// aborts the round with ErrEquivocation naming the sender (identifiable
// abort).
//
// Broadcast consistency: the echo. A commitment is a point-to-point message:
// without a cross-check a corrupt member can commit to member 2 alone, wait
// for 2's reveal (2 holds every commitment), and only then commit to member
// 1 a share computed from it — a rushing attack on 1's view, which also
// splits the round: 1 and 2 aggregate different shares, and in the DKG each
// then reports the other as having "derived different public key
// material", nobody naming the corrupt member. So each sender, once it
// holds every commitment, broadcasts an echo: the commitments it holds, in
// member order (one 32-byte hash, plus its sender's signature, per sender),
// in session+commitEchoSuffix; every participant collects the senders'
// echoes and a sender reveals only if every echo equals its own view. No
// reveal leaves any honest member before every honest sender holds the same
// commitments, so no share can depend on an honest reveal.
//
// Naming the culprit needs evidence a third member believes: with the
// transport's Signer (the pinned TLS identity keys) every commitment is
// signed — SignedCommitment: domain ‖ context ‖ session ‖ type ‖ member ‖ C
// — and an echo relays the signatures. An echo entry that differs from this
// member's view is either signed by its sender (the sender signed two
// commitments for one round: it is named, ErrEquivocation) or not (the
// echoing member forged it: it is named). An honest member signs one
// commitment per round, so neither case can name it. The context is the
// DKG's CRS seed in its share rounds (Group.commitContext), so a signed
// commitment of a failed DKG attempt, whose retry reuses the session names
// with fresh shares, is no evidence in the next attempt.
//
// Why: the aggregate of a round is Σ_i share_i. Without commitments a
// corrupt member can wait for every honest share and send its own as a
// function of them — in the relinearisation-key protocol of Mouchet et al.
// (PETS 2021) it can set the round-1 aggregate to a value of its choice and
// read every s_i from the round-2 shares (TestDKGRushingRelinearisation).
// With commitments, its share is fixed (binding: SHA-256 collision
// resistance) before it has seen anything of the honest shares (hiding:
// each share carries fresh RLWE noise of ≥ N·log2(σ√(2πe)) bits of min-entropy,
// so in the random-oracle model the commitment reveals nothing), so every
// corrupt share of the round is independent of the honest ones and no
// aggregate can be steered to a value of the coalition's choice. (That is
// not full malicious security: a corrupt share can still be malformed
// independently; the DKG's self-test catches a wrong key, and
// docs/committee.md, "Active security", lists the rest.) The session, type
// and member ID are bound in so that a commitment cannot be replayed into
// another round or attributed to another member. SHA-256 rather than the
// keccak256 the chain-facing digests use: the shares are large (a
// relinearisation-key share is ≈16 MB at N=2^14) and Go's SHA-256 is
// several times faster than its keccak here.

// ErrEquivocation is the identifiable abort of a committed round: Member
// revealed a share that does not match its commitment.
type ErrEquivocation struct {
	Session string
	Member  transport.MemberID
	Reason  string
}

func (e *ErrEquivocation) Error() string {
	return fmt.Sprintf("protocol: %s: member %d equivocated: %s", e.Session, e.Member, e.Reason)
}

// shareCommitment is C_i for a share of (session, typ) by member id.
func shareCommitment(session string, typ transport.Type, id transport.MemberID, share []byte) [32]byte {
	var hdr [4 + 1 + 4]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(len(session)))
	hdr[4] = byte(typ)
	binary.BigEndian.PutUint32(hdr[5:], uint32(id))
	h := sha256.New()
	h.Write([]byte("fhegate/share-commit/v1"))
	h.Write(hdr[:4])
	h.Write([]byte(session))
	h.Write(hdr[4:])
	h.Write(share)
	return [32]byte(h.Sum(nil))
}

// exchangeCommitted is a committed share round: each of senders issues
// its share (issue, called once, e.g. through the share ledger), commits to
// it (signed with its identity key), echoes the commitments it holds
// and reveals its share once every sender's echo equals its view; every member of
// receivers ∪ senders that calls it returns every sender's share, checked
// against its commitment. A sender that does not commit, echo or reveal in
// time fails the round with ErrMissing; a malformed or unsigned commitment,
// a commitment its sender contradicts (two signed, or its own echo), a
// forged echo, or a reveal that does not match its commitment fails it
// with ErrEquivocation naming the member at fault, reported to
// g.OnEquivocation too. Messages are bounded by the transport
// (DefaultMaxMessage) before they are read; the caller's decoder checks a
// share's exact shape before it allocates for it.
//
// As in exchangeActive, the round's deadline starts once this member's share
// exists (issue can be slow on a loaded member: a refresh share's flooding
// noise, many concurrent refreshes), and a member that does not send waits
// Timeout plus Group.ProduceWait.
func exchangeCommitted(ctx context.Context, g Group, typ transport.Type, session string, senders, receivers []transport.MemberID, issue func() ([]byte, error)) (map[transport.MemberID][]byte, error) {
	defer g.Mux.Forget(session)
	to := union(senders, receivers)
	self := g.Self()
	sending := contains(senders, self)
	var own, ownCommit []byte
	signer := g.Mux.Signer()
	wait := g.timeout()
	if sending {
		var err error
		if own, err = issue(); err != nil {
			return nil, err
		}
	} else {
		wait += g.ProduceWait
	}
	rctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if sending {
		if g.hook != nil {
			own = g.hook(hookSend, session, typ, own, func() map[transport.MemberID][]byte {
				pctx, cancel := context.WithTimeout(rctx, 100*time.Millisecond)
				defer cancel()
				return payloads(g.Mux.Collect(pctx, session, typ, senders))
			})
		}
		ownCommit = g.commitPayload(signer, session, typ, own)
		if err := g.Mux.BroadcastAllowing(rctx, to, g.Members, transport.Message{Type: transport.TypeShareCommit, Session: session, Payload: ownCommit}); err != nil {
			g.log().Debug("commitment broadcast incomplete", zap.String("session", session), zap.Error(err))
		}
	}
	commits := g.Mux.Collect(rctx, session, transport.TypeShareCommit, senders)
	if len(commits.Missing) > 0 {
		return nil, &ErrMissing{Session: session, Missing: commits.Missing}
	}
	view := make(map[transport.MemberID][]byte, len(senders))
	for _, id := range sortedIDs(commits.Got) {
		b := commits.Got[id].Payload
		if !g.validCommitment(signer, session, typ, id, b) {
			return nil, g.equivocation(&ErrEquivocation{Session: session, Member: id, Reason: fmt.Sprintf("commitment is not %d bytes signed by its sender", commitLen)})
		}
		view[id] = b
	}
	if sending {
		view[self] = ownCommit
	}
	if err := g.commitEcho(rctx, signer, session, typ, senders, to, view); err != nil {
		return nil, err
	}
	var reveals transport.Gather
	if sending {
		reveal := own
		if g.hook != nil {
			reveal = g.hook(hookReveal, session, typ, own, func() map[transport.MemberID][]byte {
				if reveals.Got == nil {
					reveals = g.Mux.Collect(rctx, session, typ, senders)
				}
				return payloads(reveals)
			})
		}
		if err := g.Mux.BroadcastAllowing(rctx, to, g.Members, transport.Message{Type: typ, Session: session, Payload: reveal}); err != nil {
			g.log().Debug("share broadcast incomplete", zap.String("session", session), zap.Error(err))
		}
	}
	if reveals.Got == nil {
		reveals = g.Mux.Collect(rctx, session, typ, senders)
	}
	if len(reveals.Missing) > 0 {
		return nil, &ErrMissing{Session: session, Missing: reveals.Missing}
	}
	out := make(map[transport.MemberID][]byte, len(senders))
	if sending {
		out[self] = own
	}
	for _, id := range sortedIDs(reveals.Got) {
		b := reveals.Got[id].Payload
		c := shareCommitment(session, typ, id, b)
		if !bytes.Equal(c[:], view[id][:32]) {
			return nil, g.equivocation(&ErrEquivocation{Session: session, Member: id, Reason: "revealed share does not match its commitment"})
		}
		out[id] = b
	}
	return out, nil
}

// commitEchoSuffix names the echo session of a committed round.
const commitEchoSuffix = "/echo"

// commitLen is the size of a commitment message: the 32-byte hash and its
// sender's signature.
const commitLen = 32 + transport.SignatureSize

// SignedCommitment is what a member signs to commit to C in a committed
// round: a domain, the round's context (Group.commitContext), the session,
// the type and the member.
func SignedCommitment(context [32]byte, session string, typ transport.Type, id transport.MemberID, c []byte) []byte {
	out := make([]byte, 0, 32+32+4+len(session)+1+4+len(c))
	out = append(out, "fhegate/share-commit-sig/v1"...)
	out = append(out, context[:]...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(session)))
	out = append(out, session...)
	out = append(out, byte(typ))
	out = binary.BigEndian.AppendUint32(out, uint32(id))
	return append(out, c...)
}

// commitPayload is this member's commitment message for own.
func (g Group) commitPayload(signer transport.Signer, session string, typ transport.Type, own []byte) []byte {
	c := shareCommitment(session, typ, g.Self(), own)
	return append(c[:], signer.Sign(SignedCommitment(g.commitContext, session, typ, g.Self(), c[:]))...)
}

// validCommitment reports whether b is a well-formed commitment message of
// member id: a hash and id's signature of it.
func (g Group) validCommitment(signer transport.Signer, session string, typ transport.Type, id transport.MemberID, b []byte) bool {
	return len(b) == commitLen && signer.VerifyFrom(id, SignedCommitment(g.commitContext, session, typ, id, b[:32]), b[32:])
}

// commitEcho runs the echo of a committed round (see "Broadcast
// consistency" above): view holds every sender's commitment message as this
// member received it (its own as it sent it). A sender broadcasts its echo;
// every caller collects the other senders' and checks them against view.
func (g Group) commitEcho(ctx context.Context, signer transport.Signer, session string, typ transport.Type, senders, to []transport.MemberID,
	view map[transport.MemberID][]byte) error {
	echoSession := session + commitEchoSuffix
	defer g.Mux.Forget(echoSession)
	ids := append([]transport.MemberID(nil), senders...)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	if contains(senders, g.Self()) {
		echo := make([]byte, 0, len(ids)*commitLen)
		for _, id := range ids {
			echo = append(echo, view[id]...)
		}
		if err := g.Mux.BroadcastAllowing(ctx, to, g.Members, transport.Message{Type: transport.TypeShareCommit, Session: echoSession, Payload: echo}); err != nil {
			g.log().Debug("commitment echo broadcast incomplete", zap.String("session", session), zap.Error(err))
		}
	}
	echoes := g.Mux.Collect(ctx, echoSession, transport.TypeShareCommit, senders)
	if len(echoes.Missing) > 0 {
		return &ErrMissing{Session: echoSession, Missing: echoes.Missing}
	}
	for _, j := range sortedIDs(echoes.Got) {
		if err := g.checkEcho(signer, session, typ, ids, view, j, echoes.Got[j].Payload); err != nil {
			return err
		}
	}
	return nil
}

// checkEcho compares member j's echo with view (ids: the senders,
// ascending) and names whoever the difference proves dishonest.
func (g Group) checkEcho(signer transport.Signer, session string, typ transport.Type, ids []transport.MemberID,
	view map[transport.MemberID][]byte, j transport.MemberID, echo []byte) error {
	l := commitLen
	if len(echo) != len(ids)*l {
		return g.equivocation(&ErrEquivocation{Session: session, Member: j, Reason: fmt.Sprintf("commitment echo of %d bytes, want %d", len(echo), len(ids)*l)})
	}
	for i, k := range ids {
		e := echo[i*l : (i+1)*l]
		if bytes.Equal(e, view[k]) {
			continue
		}
		switch {
		case k == j:
			// j contradicts, in its own echo, the commitment it sent here.
			return g.equivocation(&ErrEquivocation{Session: session, Member: j, Reason: "echoed another commitment than it sent this member"})
		case k == g.Self():
			// This member sent one commitment, over authenticated channels.
			return g.equivocation(&ErrEquivocation{Session: session, Member: j, Reason: "echoed another commitment of this member than it sent"})
		case !g.validCommitment(signer, session, typ, k, e):
			return g.equivocation(&ErrEquivocation{Session: session, Member: j,
				Reason: fmt.Sprintf("echoed a commitment of member %d that member %d did not sign", k, k)})
		case bytes.Equal(e[:32], view[k][:32]):
			continue // the same commitment under another valid signature: no conflict
		default:
			return g.equivocation(&ErrEquivocation{Session: session, Member: k,
				Reason: fmt.Sprintf("signed two different commitments for the round: one sent to this member, another that member %d echoes", j)})
		}
	}
	return nil
}

// equivocation logs e, reports it to g.OnEquivocation and returns it.
func (g Group) equivocation(e *ErrEquivocation) error {
	g.log().Error("member equivocated: round aborted", zap.String("session", e.Session), zap.Uint32("member", uint32(e.Member)), zap.String("reason", e.Reason))
	if g.OnEquivocation != nil {
		g.OnEquivocation(*e)
	}
	return e
}

// union is a ∪ b, in a's order then b's new members.
func union(a, b []transport.MemberID) []transport.MemberID {
	out := append([]transport.MemberID(nil), a...)
	for _, id := range b {
		if !contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// quorumRound is the result of a committed quorum round.
type quorumRound struct {
	Got     map[transport.MemberID][]byte // reveals that match their commitment (own included)
	Missing []transport.MemberID          // no commitment, or no reveal, in time
	Bad     []transport.MemberID          // revealed something else than they committed to
}

// exchangeCommittedQuorum is the committed form of a quorum round (the
// threshold decryption's share round): every participant that sends (own
// not nil) commits, then waits for `want` other commitments and a grace
// period (CollectQuorum), reveals, and takes the reveals of exactly the
// members whose commitment it held before it revealed, with the same
// quorum and grace. A member whose commitment came later is missing: its
// share, whatever it is, was fixed after it could have seen this member's.
// A reveal that does not match its commitment is not used; its sender is
// reported (g.OnEquivocation) and listed in Bad, and the round goes on
// with the others (robust combination needs only t).
func exchangeCommittedQuorum(ctx context.Context, g Group, typ transport.Type, session string, parts []transport.MemberID, own []byte, want int) quorumRound {
	self := g.Self()
	if own != nil {
		c := shareCommitment(session, typ, self, own)
		if err := g.Mux.BroadcastAllowing(ctx, parts, g.Members, transport.Message{Type: transport.TypeShareCommit, Session: session, Payload: c[:]}); err != nil {
			g.log().Debug("commitment broadcast incomplete", zap.String("session", session), zap.Error(err))
		}
	}
	commits := g.Mux.CollectQuorum(ctx, session, transport.TypeShareCommit, parts, want, g.grace())
	var res quorumRound
	res.Got = map[transport.MemberID][]byte{}
	committed := make([]transport.MemberID, 0, len(commits.Got))
	for _, id := range sortedIDs(commits.Got) {
		if len(commits.Got[id].Payload) != 32 {
			res.Bad = append(res.Bad, id)
			_ = g.equivocation(&ErrEquivocation{Session: session, Member: id, Reason: "commitment is not 32 bytes"})
			continue
		}
		committed = append(committed, id)
	}
	for _, id := range parts {
		if id != self && !contains(committed, id) && !contains(res.Bad, id) {
			res.Missing = append(res.Missing, id)
		}
	}
	if own != nil {
		reveal := own
		if g.hook != nil {
			reveal = g.hook(hookReveal, session, typ, own, func() map[transport.MemberID][]byte { return nil })
		}
		if err := g.Mux.BroadcastAllowing(ctx, parts, g.Members, transport.Message{Type: typ, Session: session, Payload: reveal}); err != nil {
			g.log().Debug("share broadcast incomplete", zap.String("session", session), zap.Error(err))
		}
		res.Got[self] = own
	}
	reveals := g.Mux.CollectQuorum(ctx, session, typ, committed, min(want, len(committed)), g.grace())
	res.Missing = append(res.Missing, reveals.Missing...)
	for _, id := range sortedIDs(reveals.Got) {
		b := reveals.Got[id].Payload
		c := shareCommitment(session, typ, id, b)
		if !bytes.Equal(c[:], commits.Got[id].Payload) {
			res.Bad = append(res.Bad, id)
			_ = g.equivocation(&ErrEquivocation{Session: session, Member: id, Reason: "revealed share does not match its commitment"})
			continue
		}
		res.Got[id] = b
	}
	sort.Slice(res.Missing, func(i, j int) bool { return res.Missing[i] < res.Missing[j] })
	return res
}
