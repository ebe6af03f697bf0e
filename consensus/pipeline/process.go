package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
)

// ProcessBatch evaluates and decrypts a batch of requests (Parallel at a
// time) and returns, per request, the aggregated verdict or the error.
func (rn *Runner) ProcessBatch(ctx context.Context, reqs []chainio.Request) ([]*chainio.Verdict, []error) {
	out := make([]*chainio.Verdict, len(reqs))
	errs := make([]error, len(reqs))
	sem := make(chan struct{}, rn.d.Config.Parallel)
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = rn.Process(ctx, reqs[i])
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
func (rn *Runner) Process(ctx context.Context, req chainio.Request) (*chainio.Verdict, error) {
	if v, ok := rn.d.StoredVerdict(req.ID); ok {
		return v, nil
	}
	ks, err := rn.d.Snap()
	if err != nil {
		return nil, err
	}
	r := &requestRun{rn: rn, req: req, ks: ks, base: fmt.Sprintf("req/%x/%d", req.ID[:], ks.km.Epoch), slots: 1,
		log: rn.d.Log.With(zap.String("request", fmt.Sprintf("%x", req.ID[:6])))}
	var c circuit.Circuit
	if req.Kind == chainio.KindCRDT {
		c, err = circuit.NewCRDT(req.CRDTKind, req.CRDTMeta, req.Inputs, rn.d.Params)
	} else {
		c, err = rn.d.Config.Circuits.Lookup(req.PolicyID)
		if errors.Is(err, circuit.ErrUnevaluable) {
			return rn.processUnevaluable(ctx, req, ks, r.base, r.log, err)
		}
	}
	if err != nil {
		return nil, err
	}
	_, compiled := circuit.PlanOf(c)
	if compiled && req.Kind == chainio.KindPolicy {
		if _, err := rn.PackedCircuit(req.PolicyID); err == nil {
			return rn.processAlone(ctx, req, ks, r.base, r.log)
		}
		if vectorWidth(c, len(req.Inputs)) > 0 {
			return rn.processUnevaluable(ctx, req, ks, r.base, r.log, errors.New("vector input for a policy without a packed circuit"))
		}
	}
	r.bounds = circuit.BoundsOf(c)
	inputs, err := rn.inputs(ctx, req.Inputs, ks.km.Epoch)
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
	p := r.rn.d.Params
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
		err = r.rn.onLive(ctx, func(participants []transport.MemberID) error {
			out[i], err = r.rn.Refresh(ctx, r.ks, session, ct, participants, b)
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
func (rn *Runner) processAlone(ctx context.Context, req chainio.Request, ks Keys, base string, log *zap.Logger) (*chainio.Verdict, error) {
	if _, err := rn.PackedCircuit(req.PolicyID); err != nil {
		return rn.processUnevaluable(ctx, req, ks, base, log, fmt.Errorf("policy without a packed circuit (every input needs its entry refresh): %w", err))
	}
	prefix := "one"
	if rn.VectorWidthOf(req) > 0 {
		prefix = "vec"
	}
	vs, err := rn.ProcessPacked(ctx, chainio.PackedBatch{PolicyID: req.PolicyID, Session: fmt.Sprintf("%s/%x", prefix, req.ID[:]), Requests: []chainio.Request{req}})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// inputs returns a request's input ciphertexts as the committee evaluates
// them (evaluableInput), fetched from the live members where this member
// lacks one. An input stored under another key epoch than the committee's
// is refused (ErrStaleKey).
func (rn *Runner) inputs(ctx context.Context, hs []fhe.Handle, epoch uint64) ([]*fhe.Ciphertext, error) {
	var err error
	inputs := make([]*fhe.Ciphertext, len(hs))
	for i, h := range hs {
		if inputs[i], err = rn.EvaluableInput(ctx, h, epoch); err != nil {
			return nil, fmt.Errorf("consensus: input %d: %w", i, err)
		}
	}
	return inputs, nil
}

// EvaluableInput is the ciphertext the committee evaluates for the stored
// input h (fetched from the live members where this member lacks it): 2·ct
// for an upload, whose proof only bounds the noise of 2·ct, the stored
// ciphertext itself for a committee re-encryption (fhe.Ciphertext.Evaluable,
// fhe/zkpok "Soundness"). The packed path applies the same rule as it masks
// the stored bytes (fhe.SlotPacker.AddEncoded).
func (rn *Runner) EvaluableInput(ctx context.Context, h fhe.Handle, epoch uint64) (*fhe.Ciphertext, error) {
	ct, err := rn.d.CurrentInput(h, epoch)
	if errors.Is(err, store.ErrNotFound) {
		ct, err = rn.d.Fetch(ctx, h)
	}
	if err != nil {
		return nil, err
	}
	return ct.Evaluable()
}

// run takes the request through its phases, in order: evaluate, agree on
// the result digest, refresh (if needed) and mask, decrypt, sign.
func (r *requestRun) run(ctx context.Context, circuit circuit.Circuit, inputs []*fhe.Ciphertext) (*chainio.Verdict, error) {
	rd, participants, dres, err := r.evaluateAndDecrypt(ctx, circuit, inputs)
	if err != nil {
		return nil, err
	}
	v := &chainio.Verdict{RequestID: r.req.ID, PolicyID: r.req.PolicyID, Result: new(big.Int).SetUint64(dres.Values[0]), ResultDigest: [32]byte(rd), Epoch: r.ks.km.Epoch}
	if len(outOfRange(circuit, r.rn.d.Params, dres.Values[:1])) > 0 {
		v.Result = new(big.Int).Set(chainio.ResultRejectedInput) // its own inputs: out of their declared ranges, or malformed
		r.log.Warn("request rejected: its verdict decrypts outside the plan's output range")
	}
	nsigs, err := r.rn.d.SignVerdict(ctx, r.base, v, transport.Without(participants, dres.Bad), r.log)
	if err != nil {
		return nil, err
	}
	if err := r.rn.d.SaveVerdict(v); err != nil {
		return nil, err
	}
	r.phase("sign")
	r.log.Debug("verdict", zap.String("result", v.Result.String()), zap.Int("signers", nsigs), zap.Bool("checked", dres.Checked))
	return v, nil
}

// processUnevaluable answers a policy request whose policy definitely does
// not compile for the committee preset (cause wraps ErrUnevaluable) with the
// ResultUnevaluable verdict: no evaluation, refresh or decryption, but the
// same digest agreement (over UnevaluableDigest) and BLS signing as an
// evaluated verdict. The verdict is persisted, so the request's outcome is
// decided once.
func (rn *Runner) processUnevaluable(ctx context.Context, req chainio.Request, ks Keys, base string, log *zap.Logger, cause error) (*chainio.Verdict, error) {
	log.Warn("policy not compiled for the committee preset: answering unevaluable", zap.Error(cause))
	rd := chainio.UnevaluableDigest(req.PolicyID)
	participants, err := rn.AgreeDigest(ctx, base, rd, log)
	if err != nil {
		return nil, err
	}
	v := &chainio.Verdict{RequestID: req.ID, PolicyID: req.PolicyID, Result: new(big.Int).Set(chainio.ResultUnevaluable), ResultDigest: rd, Epoch: ks.km.Epoch}
	n, err := rn.d.SignVerdict(ctx, base, v, participants, log)
	if err != nil {
		return nil, err
	}
	if err := rn.d.SaveVerdict(v); err != nil {
		return nil, err
	}
	log.Debug("verdict", zap.String("result", "unevaluable"), zap.Int("signers", n))
	return v, nil
}
