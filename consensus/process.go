package consensus

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/ledger"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// ProcessBatch evaluates and decrypts a batch of requests (Parallel at a
// time) and returns, per request, the aggregated verdict or the error.
func (m *Member) ProcessBatch(ctx context.Context, reqs []chainio.Request) ([]*chainio.Verdict, []error) {
	out := make([]*chainio.Verdict, len(reqs))
	errs := make([]error, len(reqs))
	sem := make(chan struct{}, m.cfg.Parallel)
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = m.Process(ctx, reqs[i])
		}(i)
	}
	wg.Wait()
	return out, errs
}

// Process runs one request end to end on this member: deterministic
// evaluation, result-digest agreement (members with another digest are
// excluded), collective refresh if the result is below the decryption level,
// masking to slot 0, threshold decryption (one share, via the ledger),
// BLS signature exchange and aggregation. The verdict is persisted.
func (m *Member) Process(ctx context.Context, req chainio.Request) (*chainio.Verdict, error) {
	if v, ok := m.StoredVerdict(req.ID); ok {
		return v, nil
	}
	ks, err := m.snap()
	if err != nil {
		return nil, err
	}
	r := &requestRun{m: m, req: req, ks: ks, base: fmt.Sprintf("req/%x/%d", req.ID[:], ks.km.Epoch), slots: 1,
		log: m.log.With(zap.String("request", fmt.Sprintf("%x", req.ID[:6])))}
	var c circuit.Circuit
	if req.Kind == chainio.KindCRDT {
		c, err = circuit.NewCRDT(req.CRDTKind, req.CRDTMeta, req.Inputs, m.params)
	} else {
		c, err = m.cfg.Circuits.Lookup(req.PolicyID)
		if errors.Is(err, circuit.ErrUnevaluable) {
			return m.processUnevaluable(ctx, req, ks, r.base, r.log, err)
		}
	}
	if err != nil {
		return nil, err
	}
	_, compiled := circuit.PlanOf(c)
	if compiled && req.Kind == chainio.KindPolicy {
		if _, err := m.packedCircuit(req.PolicyID); err == nil {
			return m.processAlone(ctx, req, ks, r.base, r.log)
		}
		if vectorWidth(c, len(req.Inputs)) > 0 {
			return m.processUnevaluable(ctx, req, ks, r.base, r.log, errors.New("vector input for a policy without a packed circuit"))
		}
	}
	r.bounds = circuit.BoundsOf(c)
	inputs, err := m.inputs(ctx, req.Inputs, ks.km.Epoch)
	if err != nil {
		return nil, err
	}
	if compiled && req.Kind == chainio.KindPolicy {
		if inputs, err = r.entryRefresh(ctx, inputs); err != nil {
			return nil, err
		}
	}
	r.mark = time.Now()
	return r.run(ctx, c, inputs)
}

// entryRefresh is the entry refresh of a compiled policy's request
// evaluated one by one (its policy has no packed plan: a polynomial that
// needs every level of the preset): each input — an accepted upload's 2·ct,
// whose noise only the input proof's slack bounds (zkpok.AcceptedNoiseBits,
// 2^35.0 on BGVN14) — is dropped to the lowest level whose modulus holds
// that noise plus the flooding of an honest input's (RefreshFloorLevel of
// B_ct and the accepted bound: the slack is attacker-known, so it only has
// to fit; the flooding hides the secret-dependent part) and refreshed
// collectively to the top level. The plan then starts from the refresh's
// output (policy.NoiseModel.InputBits = RefreshBits for unpacked plans,
// eval.CommitteeNoiseModel), which is what registration checked.
func (r *requestRun) entryRefresh(ctx context.Context, inputs []*fhe.Ciphertext) ([]*fhe.Ciphertext, error) {
	p := r.m.params
	accepted, err := circuit.AcceptedInputNoiseBits(p)
	if err != nil {
		return nil, err
	}
	b := circuit.RefreshBounds{NoiseBits: noise.CiphertextBits, WorstBits: accepted}
	floor, err := noise.RefreshFloorLevel(p, b.NoiseBits, b.WorstBits)
	if err != nil {
		return nil, err
	}
	out := make([]*fhe.Ciphertext, len(inputs))
	for i, ct := range inputs {
		if ct.Level() < floor {
			return nil, fmt.Errorf("consensus: input %d at level %d, below the entry refresh's floor %d", i, ct.Level(), floor)
		}
		if ct.Level() > floor {
			if ct, err = r.ks.ev.DropLevels(ct, ct.Level()-floor); err != nil {
				return nil, err
			}
		}
		session := refreshSession(r.base+"/entry", ct)
		err = r.m.onLive(ctx, func(participants []transport.MemberID) error {
			out[i], err = r.m.refresh(ctx, r.ks, session, ct, participants, b)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("consensus: entry refresh of input %d: %w", i, err)
		}
		r.refreshes.Add(1)
	}
	r.phase("entry-refresh")
	return out, nil
}

// processAlone answers a compiled policy's request that did not go into a
// packed batch: as a packed batch of one. No plan ever consumes an upload
// directly: an accepted upload's noise is only bounded by the input proof's
// slack (zkpok.AcceptedNoiseBits, 2^35 on BGVN14), far above what a plan's
// flooding hides, and the packed path refreshes every packed input
// collectively (its ENTRY REFRESH, sized at PackLevel for that bound as
// attacker-known noise) and rescales it before the plan runs
// (eval.CommitteePackedNoiseModel). A vector request (one
// ciphertext holding all of the policy's attributes, fhe/vector.go) is
// un-interleaved by that same refresh (packVector). The verdict carries
// its batch (posted with SubmitVerdictBatch). The built-in test
// circuits (BuiltinCircuits) keep the one-by-one path: no registered
// policy has their ids.
func (m *Member) processAlone(ctx context.Context, req chainio.Request, ks keySnap, base string, log *zap.Logger) (*chainio.Verdict, error) {
	if _, err := m.packedCircuit(req.PolicyID); err != nil {
		return m.processUnevaluable(ctx, req, ks, base, log, fmt.Errorf("policy without a packed circuit (every input needs its entry refresh): %w", err))
	}
	prefix := "one"
	if m.vectorWidthOf(req) > 0 {
		prefix = "vec"
	}
	vs, err := m.ProcessPacked(ctx, chainio.PackedBatch{PolicyID: req.PolicyID, Session: fmt.Sprintf("%s/%x", prefix, req.ID[:]), Requests: []chainio.Request{req}})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// inputs returns a request's input ciphertexts as the committee evaluates
// them (evaluableInput), fetched from the live members where this member
// lacks one. An input stored under another key epoch than the committee's
// is refused (ErrStaleKey).
func (m *Member) inputs(ctx context.Context, hs []fhe.Handle, epoch uint64) ([]*fhe.Ciphertext, error) {
	var err error
	inputs := make([]*fhe.Ciphertext, len(hs))
	for i, h := range hs {
		if inputs[i], err = m.evaluableInput(ctx, h, epoch); err != nil {
			return nil, fmt.Errorf("consensus: input %d: %w", i, err)
		}
	}
	return inputs, nil
}

// evaluableInput is the ciphertext the committee evaluates for the stored
// input h (fetched from the live members where this member lacks it): 2·ct
// for an upload, whose proof only bounds the noise of 2·ct, the stored
// ciphertext itself for a committee re-encryption (fhe.Ciphertext.Evaluable,
// fhe/zkpok "Soundness"). The packed path applies the same rule as it masks
// the stored bytes (fhe.SlotPacker.AddEncoded).
func (m *Member) evaluableInput(ctx context.Context, h fhe.Handle, epoch uint64) (*fhe.Ciphertext, error) {
	ct, err := m.currentInput(h, epoch)
	if errors.Is(err, store.ErrNotFound) {
		ct, err = m.fetch(ctx, h)
	}
	if err != nil {
		return nil, err
	}
	return ct.Evaluable()
}

// requestRun is one request's way through Process: the key snapshot it
// started with, its session base name, its log, the clock of its phases
// (MemberConfig.Trace) and the number of refreshes its evaluation ran.
// slots is the number of leading result slots that carry verdicts: 1 for a
// single request, the batch size for a packed batch (packed.go); every other
// slot is masked to zero before decryption.
type requestRun struct {
	m         *Member
	req       chainio.Request
	ks        keySnap
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
}

// run takes the request through its phases, in order: evaluate, agree on
// the result digest, refresh (if needed) and mask, decrypt, sign.
func (r *requestRun) run(ctx context.Context, circuit circuit.Circuit, inputs []*fhe.Ciphertext) (*chainio.Verdict, error) {
	rd, participants, dres, err := r.evaluateAndDecrypt(ctx, circuit, inputs)
	if err != nil {
		return nil, err
	}
	v := &chainio.Verdict{RequestID: r.req.ID, PolicyID: r.req.PolicyID, Result: new(big.Int).SetUint64(dres.Values[0]), ResultDigest: [32]byte(rd), Epoch: r.ks.km.Epoch}
	if len(outOfRange(circuit, r.m.params, dres.Values[:1])) > 0 {
		v.Result = new(big.Int).Set(chainio.ResultRejectedInput) // its own inputs: out of their declared ranges, or malformed
		r.log.Warn("request rejected: its verdict decrypts outside the plan's output range")
	}
	nsigs, err := r.m.signVerdict(ctx, r.base, v, without(participants, dres.Bad), r.log)
	if err != nil {
		return nil, err
	}
	if err := r.m.saveVerdict(v); err != nil {
		return nil, err
	}
	r.phase("sign")
	r.log.Debug("verdict", zap.String("result", v.Result.String()), zap.Int("signers", nsigs), zap.Bool("checked", dres.Checked))
	return v, nil
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
	participants, err := r.m.agreeDigest(ctx, r.base, rd, r.log)
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
	if r.m.cfg.Trace != nil {
		now := time.Now()
		r.m.cfg.Trace(r.req.ID, name, now.Sub(r.mark))
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
	r.m.evaluations.Add(1)
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
	return agreedValue(ctx, r, r.base+"/result", "packed result", r.evaluators, r.receivers, time.Duration(segments)*r.m.cfg.RoundTimeout, evalOwn,
		func(ct *fhe.Ciphertext) ([]byte, error) { return ct.MarshalBinary() },
		func(b []byte) (*fhe.Ciphertext, error) {
			ct, err := committeeCiphertext(r.m.params, b)
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
		out, err = r.m.refresh(ctx, r.ks, refreshSession(r.base, ct), ct, r.evaluators, r.bounds.Points)
	} else {
		out, err = r.m.refreshLive(ctx, r.ks, r.base, ct, r.bounds.Points)
	}
	if err == nil && r.rescale {
		out, err = r.dropRefreshNoise(out)
	}
	if err != nil {
		return nil, err
	}
	n := r.refreshes.Add(1)
	if hook := r.m.cfg.Knobs.AfterRefresh; hook != nil {
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
		if ct, err = r.m.refresh(ctx, r.ks, r.base+"/final-refresh", ct, participants, r.bounds.Final); err != nil {
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
	m := r.m
	led := protocol.Ledger(m.led)
	if m.cfg.Knobs.CorruptShares {
		led = corruptingLedger{m.led}
	}
	dres, err := protocol.ThresholdDecrypt(ctx, m.group(), r.ks.key, r.ks.plan, r.ks.ev, led,
		protocol.DecryptRequest{Session: r.base + "/dec", Ciphertext: ct, Participants: participants, Valid: verdictShape(r.slots),
			PublicKey: r.ks.km.Public})
	if err != nil {
		return nil, err
	}
	m.marks.MarkDown(dres.Missing)
	if len(dres.Bad) > 0 {
		r.log.Warn("excluded: decryption share disagrees with the quorum", zap.Any("members", dres.Bad))
	}
	if len(dres.Values) < r.slots || !verdictShape(r.slots)(dres.Values) {
		return nil, ErrBadDecryption
	}
	r.phase("decrypt")
	return dres, nil
}

// agreeDigest announces this member's result digest rd for the request
// session base, collects the others' and returns the members that announced
// the majority digest (sorted). It fails with ErrNoQuorum when no digest has
// a threshold of votes (or on a tie) and with ErrDigestMismatch when this
// member is not in the majority.
func (m *Member) agreeDigest(ctx context.Context, base string, rd [32]byte, log *zap.Logger) ([]transport.MemberID, error) {
	t := m.cfg.Committee.Threshold
	live := m.marks.Live()
	announce := rd
	if m.cfg.Knobs.WrongDigest {
		announce[0] ^= 0xff
	}
	dctx, cancel := context.WithTimeout(ctx, m.cfg.RoundTimeout)
	// Members counted down get it as a late reply when they speak
	// (transport.Mux.BroadcastAllowing, "Late replies").
	_ = m.mux.BroadcastAllowing(dctx, live, m.members, transport.Message{Type: transport.TypeResultDigest, Session: base + "/digest", Payload: announce[:]})
	got := m.mux.CollectQuorum(dctx, base+"/digest", transport.TypeResultDigest, live, m.quorumWant(len(live)-1), m.grace())
	cancel()
	m.mux.Forget(base + "/digest")
	m.marks.MarkDown(got.Missing)
	votes := map[[32]byte][]transport.MemberID{announce: {m.id}}
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

// processUnevaluable answers a policy request whose policy definitely does
// not compile for the committee preset (cause wraps ErrUnevaluable) with the
// ResultUnevaluable verdict: no evaluation, refresh or decryption, but the
// same digest agreement (over UnevaluableDigest) and BLS signing as an
// evaluated verdict. The verdict is persisted, so the request's outcome is
// decided once.
func (m *Member) processUnevaluable(ctx context.Context, req chainio.Request, ks keySnap, base string, log *zap.Logger, cause error) (*chainio.Verdict, error) {
	log.Warn("policy not compiled for the committee preset: answering unevaluable", zap.Error(cause))
	rd := chainio.UnevaluableDigest(req.PolicyID)
	participants, err := m.agreeDigest(ctx, base, rd, log)
	if err != nil {
		return nil, err
	}
	v := &chainio.Verdict{RequestID: req.ID, PolicyID: req.PolicyID, Result: new(big.Int).Set(chainio.ResultUnevaluable), ResultDigest: rd, Epoch: ks.km.Epoch}
	n, err := m.signVerdict(ctx, base, v, participants, log)
	if err != nil {
		return nil, err
	}
	if err := m.saveVerdict(v); err != nil {
		return nil, err
	}
	log.Debug("verdict", zap.String("result", "unevaluable"), zap.Int("signers", n))
	return v, nil
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

func without(ids, bad []transport.MemberID) []transport.MemberID {
	var out []transport.MemberID
	for _, id := range ids {
		skip := false
		for _, b := range bad {
			skip = skip || b == id
		}
		if !skip {
			out = append(out, id)
		}
	}
	return out
}

// refreshLive runs a collective refresh of ct inside a request's evaluation
// (a plan's refresh point) with the members this member believes live
// (onLive). The session is named by the ciphertext's digest, not by a call
// counter, so every member names the same refresh the same way whatever
// order its evaluator reaches the plan's refresh points in.
func (m *Member) refreshLive(ctx context.Context, ks keySnap, base string, ct *fhe.Ciphertext, b circuit.RefreshBounds) (*fhe.Ciphertext, error) {
	session := refreshSession(base, ct)
	var out *fhe.Ciphertext
	err := m.onLive(ctx, func(participants []transport.MemberID) (err error) {
		out, err = m.refresh(ctx, ks, session, ct, participants, b)
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

// onLive runs a round with the members this member believes live. When an
// active member does not answer, it is marked down and the round is run
// once more with the next t live members (a new session: a member killed
// between two refreshes of one request costs one round timeout, not the
// request).
func (m *Member) onLive(ctx context.Context, round func(participants []transport.MemberID) error) error {
	err := round(m.marks.Live())
	var miss *protocol.ErrMissing
	if errors.As(err, &miss) && ctx.Err() == nil {
		m.marks.MarkDown(miss.Missing)
		err = round(m.marks.Live())
	}
	return err
}

// refreshContributors returns the contributors of a verified refresh among
// participants (ascending): every participant, up to the most whose
// t-subsets a refresh decodes (protocol.MaxRefreshSubsets), and at least
// protocol.CheckedMembers(t); it calls the BeforeRefresh knob.
func (m *Member) refreshContributors(participants []transport.MemberID, level int, b circuit.RefreshBounds) ([]transport.MemberID, error) {
	t := m.cfg.Committee.Threshold
	need := protocol.CheckedMembers(t)
	if len(participants) < need {
		return nil, fmt.Errorf("%w: %d live members %v for a refresh, which needs %d whose shares cross-check (t=%d)", ErrNoQuorum, len(participants), participants, need, t)
	}
	if hook := m.cfg.Knobs.BeforeRefresh; hook != nil {
		hook(level, b)
	}
	out := slices.Sorted(slices.Values(participants))
	for len(out) > need && protocol.RefreshSubsets(len(out), t) > protocol.MaxRefreshSubsets {
		out = out[:len(out)-1]
	}
	return out, nil
}

// refresh runs one verified collective refresh (protocol.Refresh) with
// the participants contributing (refreshContributors) and receiving, sized
// for the noise bounds b; it counts the refreshes this member completed
// (Status.Refreshes).
func (m *Member) refresh(ctx context.Context, ks keySnap, session string, ct *fhe.Ciphertext, participants []transport.MemberID, b circuit.RefreshBounds) (*fhe.Ciphertext, error) {
	active, err := m.refreshContributors(participants, ct.Level(), b)
	if err != nil {
		return nil, err
	}
	zk, _ := m.ProofKey()
	if zk != nil && zk.PK != ks.km.Public {
		zk = nil // a rotation's new key: protocol.Refresh prepares its own
	}
	led := protocol.Ledger(m.led)
	if m.cfg.Knobs.CorruptRefresh {
		led = refreshCorruptingLedger{m.led, m.params.N()}
	}
	g := m.group()
	if zk != nil {
		g.Masks = m.masksFor(zk, ks.key.Epoch)
	}
	out, err := protocol.Refresh(ctx, g, ks.key, led, protocol.RefreshRequest{Session: fmt.Sprintf("%s/%v", session, active),
		Ciphertext: ct, Active: active, Receivers: participants, PublicKey: ks.km.Public, ProofKey: zk, NoiseBits: b.NoiseBits, WorstBits: b.WorstBits})
	if err == nil {
		m.refreshes.Add(1)
	}
	return out, err
}

// maskPoolSize is how many refresh masks a member keeps made ahead: a
// request's entry refreshes take one each.
const maskPoolSize = 4

// masksFor returns this member's refresh mask pool for the key and epoch,
// replacing (and stopping) one made for another key.
func (m *Member) masksFor(zk *zkpok.Key, epoch uint64) *protocol.MaskPool {
	for {
		cur := m.masks.Load()
		if cur.For(zk, epoch, m.id) {
			return cur
		}
		next := protocol.NewMaskPool(zk, epoch, m.id, maskPoolSize)
		if m.masks.CompareAndSwap(cur, next) {
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
