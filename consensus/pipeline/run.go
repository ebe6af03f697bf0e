package pipeline

// The phases every request runs, alone or as a packed batch: evaluate
// (with the plan's refresh points), agree on the result digest, refresh if
// needed and mask to the verdict slots, threshold-decrypt. process.go (one
// request) and packed.go (a batch) each start a requestRun and sign what it
// decrypts.

import (
	"context"
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// requestRun is one request's way through Process: the key snapshot it
// started with, its session base name, its log, the clock of its phases
// (MemberConfig.Trace) and the number of refreshes its evaluation ran.
// slots is the number of leading result slots that carry verdicts: 1 for a
// single request, the batch size for a packed batch (packed.go); every other
// slot is masked to zero before decryption.
type requestRun struct {
	rn        *Runner
	req       chainio.Request
	ks        Keys
	base      string
	log       *zap.Logger
	mark      time.Time
	refreshes atomic.Int64 // refresh points may run concurrently (a packed plan's waves)
	slots     int
	rescale   bool // packed batches: rescale after every refresh (packed.go, "Refresh noise")
	// bounds are the noise bounds of the ciphertexts the circuit refreshes
	// (at its refresh points and before the mask): the plan's estimates for
	// a compiled policy (PlanRefreshBounds), the defaults otherwise.
	bounds circuit.PlanBounds
	// evaluators are the max(t+1, 2t−1) members that evaluate a vector
	// batch (packVector: its t packers and the next members) and receivers
	// the members of that round; only the evaluators evaluate it, its
	// refresh points among them alone (evaluateShared).
	evaluators, receivers []transport.MemberID
	// viewRun is the requests packBlocks reads per store transaction (≤ 0:
	// packViewRun).
	viewRun int
}

// evaluateAndDecrypt is the phases a single request and a packed batch
// share: evaluate, agree on the result digest, refresh (if needed) and mask,
// threshold-decrypt. It returns the agreed digest, the participants and the
// decryption.
func (r *requestRun) evaluateAndDecrypt(ctx context.Context, circuit circuit.Circuit, inputs []*fhe.Ciphertext) (fhe.Handle, []transport.MemberID, *protocol.DecryptResult, error) {
	result, rd, err := r.evaluate(ctx, circuit, inputs)
	if err != nil {
		return rd, nil, nil, err
	}
	participants, err := r.rn.AgreeDigest(ctx, r.base, rd, r.log)
	if err != nil {
		return rd, nil, nil, err
	}
	r.phase("digest")
	ct, err := r.mask(ctx, result, participants)
	if err != nil {
		return rd, nil, nil, err
	}
	dres, err := r.decrypt(ctx, ct, participants)
	return rd, participants, dres, err
}

// phase reports the time since the previous phase ended to
// MemberConfig.Trace, if set.
func (r *requestRun) phase(name string) {
	if r.rn.d.Config.Trace != nil {
		now := time.Now()
		r.rn.d.Config.Trace(r.req.ID, name, now.Sub(r.mark))
		r.mark = now
	}
}

// evaluate runs the circuit (with collective refreshes at its plan's
// refresh points) and returns the result and its digest.
func (r *requestRun) evaluate(ctx context.Context, circuit circuit.Circuit, inputs []*fhe.Ciphertext) (*fhe.Ciphertext, fhe.Handle, error) {
	var result *fhe.Ciphertext
	var err error
	if r.evaluators != nil {
		result, err = r.evaluateShared(ctx, circuit, inputs)
	} else {
		result, err = circuit.Evaluate(ctx, r.ks.ev, inputs, r.refresh)
	}
	if err != nil {
		return nil, fhe.Handle{}, fmt.Errorf("consensus: evaluate: %w", err)
	}
	r.rn.d.Evaluations.Add(1)
	rd, err := result.Handle()
	if err != nil {
		return nil, fhe.Handle{}, err
	}
	r.phase("eval")
	return result, rd, nil
}

// evaluateShared evaluates a vector batch's circuit on its evaluators only
// (the plan's refresh points, if any, are verified refreshes among them
// alone): each of them sends its result to the others, and a member that
// did not evaluate takes it when all copies are byte-identical (at least
// one is honest; protocol.AgreedFromActive, as the accumulators). When the
// copies differ, it evaluates the circuit itself if the plan has no
// refresh point, and fails the batch otherwise (a refresh needs the
// evaluators; the serve loop retries the batch once with another rotation,
// then answers its requests one by one). The committee evaluates each
// vector batch max(t+1, 2t−1) times instead of n; the result digest is
// then agreed by every member as usual.
func (r *requestRun) evaluateShared(ctx context.Context, c circuit.Circuit, inputs []*fhe.Ciphertext) (*fhe.Ciphertext, error) {
	var own *fhe.Ciphertext
	evalOwn := func() (*fhe.Ciphertext, error) {
		if own != nil {
			return own, nil
		}
		var err error
		own, err = c.Evaluate(ctx, r.ks.ev, inputs, r.refresh)
		return own, err
	}
	// The packers' evaluation is one segment per refresh point and one
	// more, each a round timeout at most for the members that wait for it.
	segments := 1
	if plan, ok := circuit.PlanOf(c); ok {
		segments += plan.Counts.Refreshes
	}
	return agreedValue(ctx, r, r.base+"/result", "packed result", r.evaluators, r.receivers, time.Duration(segments)*r.rn.d.Config.RoundTimeout, evalOwn,
		func(ct *fhe.Ciphertext) ([]byte, error) { return ct.MarshalBinary() },
		func(b []byte) (*fhe.Ciphertext, error) {
			ct, err := committeeCiphertext(r.rn.d.Params, b)
			if err != nil {
				return nil, fmt.Errorf("consensus: packed result: %w", err)
			}
			return ct, nil
		},
		func(err error) (*fhe.Ciphertext, error) {
			if plan, ok := circuit.PlanOf(c); !ok || plan.Counts.Refreshes > 0 {
				return nil, fmt.Errorf("consensus: the packing members' results differ and the plan needs them for its refreshes: %w", err)
			}
			r.log.Warn("the packing members' results differ: evaluating here", zap.Error(err))
			return evalOwn() // no refresh point: nothing to run among the packers
		})
}

// refresh is the circuit's refresh function: a collective refresh with the
// live members, then the AfterRefresh knob.
func (r *requestRun) refresh(ctx context.Context, ct *fhe.Ciphertext) (*fhe.Ciphertext, error) {
	var out *fhe.Ciphertext
	var err error
	if r.evaluators != nil { // evaluateShared: among the evaluators only, all of them contributing
		out, err = r.rn.Refresh(ctx, r.ks, refreshSession(r.base, ct), ct, r.evaluators, r.bounds.Points)
	} else {
		out, err = r.rn.RefreshLive(ctx, r.ks, r.base, ct, r.bounds.Points)
	}
	if err == nil && r.rescale {
		out, err = r.dropRefreshNoise(out)
	}
	if err != nil {
		return nil, err
	}
	n := r.refreshes.Add(1)
	if hook := r.rn.d.Config.Knobs.AfterRefresh; hook != nil {
		hook(r.req.ID, int(n))
	}
	return out, nil
}

// mask refreshes the result with the participants if it has no level left
// for the mask above the decryption level, then keeps only the verdict
// slots (slot 0 of a single request, slots 0 … B−1 of a packed batch). A
// compiled plan keeps its result at a level ≥ its refresh floor
// (policy.Plan.RefreshFloor), so this refresh has room for its flooding.
func (r *requestRun) mask(ctx context.Context, ct *fhe.Ciphertext, participants []transport.MemberID) (*fhe.Ciphertext, error) {
	var err error
	if ct.Level() < r.ks.plan.Level+1 {
		if ct, err = r.rn.Refresh(ctx, r.ks, r.base+"/final-refresh", ct, participants, r.bounds.Final); err != nil {
			return nil, err
		}
		r.phase("refresh")
	}
	mask := make([]int64, r.slots)
	for i := range mask {
		mask[i] = 1
	}
	if ct, err = r.ks.ev.MulInts(ct, mask); err != nil {
		return nil, err
	}
	r.phase("mask")
	return ct, nil
}

// decrypt runs the threshold decryption of the masked result with the
// participants (one share, via the ledger) and checks the verdict shape.
func (r *requestRun) decrypt(ctx context.Context, ct *fhe.Ciphertext, participants []transport.MemberID) (*protocol.DecryptResult, error) {
	rn := r.rn
	if err := rn.checkedQuorum("members", "a decryption", participants); err != nil {
		return nil, err
	}
	led := protocol.Ledger(rn.d.Ledger)
	if rn.d.Config.Knobs.CorruptShares {
		led = corruptingLedger{rn.d.Ledger}
	}
	dres, err := protocol.ThresholdDecrypt(ctx, rn.d.Group(), r.ks.key, r.ks.plan, r.ks.ev, led,
		protocol.DecryptRequest{Session: r.base + "/dec", Ciphertext: ct, Participants: participants, Valid: verdictShape(r.slots),
			PublicKey: r.ks.km.Public})
	if err != nil {
		return nil, err
	}
	rn.d.Marks.MarkDown(dres.Missing)
	if len(dres.Bad) > 0 {
		r.log.Warn("excluded: decryption share disagrees with the quorum", zap.Any("members", dres.Bad))
	}
	if len(dres.Values) < r.slots || !verdictShape(r.slots)(dres.Values) {
		return nil, ErrBadDecryption
	}
	r.phase("decrypt")
	return dres, nil
}

// AgreeDigest announces this member's result digest rd for the request
// session base, collects the others' and returns the members that announced
// the majority digest (sorted). It fails with ErrNoQuorum when no digest has
// a threshold of votes (or on a tie) and with ErrDigestMismatch when this
// member is not in the majority.
func (rn *Runner) AgreeDigest(ctx context.Context, base string, rd [32]byte, log *zap.Logger) ([]transport.MemberID, error) {
	t := rn.d.Config.Threshold
	live, _ := rn.liveFor(protocol.CheckedMembers(t)) // the decryption after it needs as many
	announce := rd
	if rn.d.Config.Knobs.WrongDigest {
		announce[0] ^= 0xff
	}
	dctx, cancel := context.WithTimeout(ctx, rn.d.Config.RoundTimeout)
	// Members counted down get it as a late reply when they speak
	// (transport.Mux.BroadcastAllowing, "Late replies").
	_ = rn.d.Mux.BroadcastAllowing(dctx, live, rn.d.Members, transport.Message{Type: transport.TypeResultDigest, Session: base + "/digest", Payload: announce[:]})
	got := rn.d.Mux.CollectQuorum(dctx, base+"/digest", transport.TypeResultDigest, live, rn.d.QuorumWant(len(live)-1), rn.d.Grace)
	cancel()
	rn.d.Mux.Forget(base + "/digest")
	rn.d.Marks.MarkDown(got.Missing)
	votes := map[[32]byte][]transport.MemberID{announce: {rn.d.Self}}
	for id, msg := range got.Got {
		if len(msg.Payload) == 32 {
			votes[[32]byte(msg.Payload)] = append(votes[[32]byte(msg.Payload)], id)
		}
	}
	var major [32]byte
	best, tie := 0, false
	for d, ids := range votes {
		switch {
		case len(ids) > best:
			major, best, tie = d, len(ids), false
		case len(ids) == best:
			tie = true
		}
	}
	if best < t || tie {
		return nil, fmt.Errorf("%w: result digests %d-way split, best %d of threshold %d", ErrNoQuorum, len(votes), best, t)
	}
	participants := votes[major]
	sort.Slice(participants, func(i, j int) bool { return participants[i] < participants[j] })
	for d, ids := range votes {
		if d != major {
			log.Warn("excluded: wrong result digest", zap.Any("members", ids))
		}
	}
	if major != announce {
		return nil, ErrDigestMismatch
	}
	return participants, nil
}

// verdictShape accepts a decryption of a ciphertext masked to its first
// `slots` slots (slot 0 for a single request).
func verdictShape(slots int) func([]uint64) bool {
	return func(v []uint64) bool {
		if len(v) < slots {
			return false
		}
		for _, x := range v[slots:] {
			if x != 0 {
				return false
			}
		}
		return true
	}
}
