package consensus

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/liveness"
	"github.com/fhegate/fhegate/consensus/transport"
)

// peerRounds is the member's side of the requests for signatures it
// exchanges with its peers outside package protocol (upload replicas,
// input roots): it answers a peer's request with a bound on the handlers
// in flight (answer), asks the live members to sign a digest and collects
// a quorum of their answers (collect), and aggregates the signatures
// (aggregate, also for verdicts).
type peerRounds struct {
	mux       *transport.Mux
	log       *zap.Logger
	wg        *sync.WaitGroup // the member's: Close waits for the handlers
	marks     *liveness.Marks
	committee *bls.Committee
	members   int // committee size (signer bitmaps)
	threshold int
	timeout   time.Duration        // MemberConfig.RoundTimeout
	grace     time.Duration        // graceOf the round timeout
	quorum    func(others int) int // quorumFor the committee's threshold
	// for verdict signatures (verdicts.go): this member, its BLS key, the
	// committee's ids and the chain id signed for
	self  transport.MemberID
	key   *bls.SecretKey
	ids   []transport.MemberID
	chain func() *big.Int
	busy  busyRefusals
}

// answer runs answer for a peer's request in a goroutine (counted in wg)
// holding one slot of sem, and sends its reply back to the sender as type
// ack. With every slot taken the request is not run: it is answered at
// once with a refusal (0 ‖ "busy: …", the status byte every ack has for a
// refusal), at most maxBusyRefusals in flight to one peer, beyond which it
// is dropped with a log. The refusal is what keeps one peer from getting
// another marked down: a peer that fills the slots with slow requests made
// this member drop an honest asker's request, and the asker (who) counted
// this member missing and marked it down (docs/committee.md, "Can one
// member get an honest one marked down?"); a refused asker has an answer
// and attests with the others' signatures. Without the bound every
// received message would spawn a goroutine, so a peer could pin unbounded
// memory and CPU on every member.
func (p *peerRounds) answer(msg transport.Message, sem chan struct{}, what, who string, ack transport.Type, answer func() []byte) {
	select {
	case sem <- struct{}{}:
	default:
		if !p.refuseBusy(msg, ack, what) {
			p.log.Warn("too many concurrent "+what+" requests and busy answers to this peer: dropped ("+who+" counts this member as missing)",
				zap.Uint32("from", uint32(msg.From)), zap.Int("bytes", len(msg.Payload)))
		}
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer func() { <-sem }()
		reply := answer()
		ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
		defer cancel()
		if err := p.mux.Send(ctx, msg.From, transport.Message{Type: ack, Session: msg.Session, Payload: reply}); err != nil {
			p.log.Debug(what+" answer not delivered", zap.Error(err))
		}
	}()
}

// maxBusyRefusals bounds the "busy" answers in flight to one peer
// (peerRounds.answer): a peer flooding requests gets at most this many
// goroutines' worth of answers, and never uses up another peer's.
const maxBusyRefusals = 4

// busyRefusals counts the "busy" answers in flight per peer.
type busyRefusals struct {
	mu sync.Mutex
	to map[transport.MemberID]int
}

// refuseBusy answers msg with a refusal of type ack in the background,
// unless maxBusyRefusals answers to its sender are still in flight; it
// reports whether it did.
func (p *peerRounds) refuseBusy(msg transport.Message, ack transport.Type, what string) bool {
	r := &p.busy
	r.mu.Lock()
	if r.to == nil {
		r.to = map[transport.MemberID]int{}
	}
	if r.to[msg.From] >= maxBusyRefusals {
		r.mu.Unlock()
		return false
	}
	r.to[msg.From]++
	r.mu.Unlock()
	p.log.Debug("too many concurrent "+what+" requests: answered busy", zap.Uint32("from", uint32(msg.From)))
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer func() {
			r.mu.Lock()
			r.to[msg.From]--
			r.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
		defer cancel()
		reply := append([]byte{0}, "busy: too many concurrent "+what+" requests"...)
		if err := p.mux.Send(ctx, msg.From, transport.Message{Type: ack, Session: msg.Session, Payload: reply}); err != nil {
			p.log.Debug(what+" busy answer not delivered", zap.Error(err))
		}
	}()
	return true
}

// collect broadcasts req to the live members and collects, within
// RoundTimeout, a quorum of their answers of type ack — 1 ‖ a BLS signature
// over d, or another status and why they refuse — adding each signature
// that verifies under its member's key to sigs; it logs the other answers
// (as what), returns them, and marks the members that did not answer down.
func (p *peerRounds) collect(ctx context.Context, req transport.Message, ack transport.Type, d [32]byte, sigs map[transport.MemberID][]byte, what string) map[transport.MemberID][]byte {
	live := p.marks.Live()
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	_ = p.mux.Broadcast(ctx, live, req)
	got := p.mux.CollectQuorum(ctx, req.Session, ack, live, p.quorum(len(live)-1), p.grace)
	p.mux.Forget(req.Session)
	others := map[transport.MemberID][]byte{}
	for id, msg := range got.Got {
		if len(msg.Payload) == 1+bls.SignatureLen && msg.Payload[0] == 1 {
			sig := msg.Payload[1:]
			if bls.Verify(p.committee.Keys[id-1].Compressed(), d[:], sig) == nil {
				sigs[id] = sig
				continue
			}
		}
		others[id] = msg.Payload
		p.log.Warn(what+" refused or bad signature", zap.Uint32("peer", uint32(id)), zap.ByteString("reply", tail(msg.Payload)))
	}
	p.marks.MarkDown(got.Missing)
	return others
}

func tail(b []byte) []byte {
	if len(b) > 0 {
		return b[1:]
	}
	return b
}

// aggregate aggregates ≥ threshold signatures by member: the aggregate
// signature and its signer bitmap, or ErrNoQuorum.
func (p *peerRounds) aggregate(sigs map[transport.MemberID][]byte) (sig, bitmap []byte, err error) {
	if len(sigs) < p.threshold {
		return nil, nil, fmt.Errorf("%w: %d signatures, threshold %d", ErrNoQuorum, len(sigs), p.threshold)
	}
	ids := make([]int, 0, len(sigs))
	for id := range sigs {
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	list := make([][]byte, len(ids))
	idx := make([]int, len(ids))
	for i, id := range ids {
		list[i] = sigs[transport.MemberID(id)]
		idx[i] = id - 1
	}
	if sig, err = bls.Aggregate(list); err != nil {
		return nil, nil, err
	}
	bitmap, err = bls.NewBitmap(p.members, idx)
	return sig, bitmap, err
}
