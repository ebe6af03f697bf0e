package pipeline

// Packed batches: one evaluation for up to Slots() requests of one policy.
// Slot assignment, refresh noise and the mask level (PackLevel) are derived
// in docs/derivations.md, "Packed batches".

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/internal/keccak"
	"github.com/fhegate/fhegate/internal/par"
)

// ProcessPacked runs a packed batch end to end on this member: slot-masked
// packing of every request's inputs (PackLevel), one collective refresh per
// packed input, one evaluation, result-digest agreement, masking to the
// batch's slots, one threshold decryption of all of them, one BLS aggregate
// over the batch digest. It returns the verdicts in slot order (each with
// Batch set) and persists them.
//
// A run whose decrypted verdicts leave the plan's output range signs no
// value: its out-of-range requests get ResultRejectedInput and the rest is
// re-run, within a budget of IsolationRuns extra runs per batch
// (isolate.go, "Booked isolation").
func (rn *Runner) ProcessPacked(ctx context.Context, b chainio.PackedBatch) ([]*chainio.Verdict, error) {
	if err := b.Check(rn.d.Params); err != nil {
		return nil, err
	}
	return rn.processIsolating(ctx, b)
}

// processPackedOnce is one run of a checked packed batch with left runs of
// its isolation budget: its verdicts in slot order, nil for the slots of
// the parts (slot lists) that must be re-run (isolate.go, isolationStep).
func (rn *Runner) processPackedOnce(ctx context.Context, b chainio.PackedBatch, left int) ([]*chainio.Verdict, [][]int, error) {
	ks, err := rn.d.Snap()
	if err != nil {
		return nil, nil, err
	}
	c, err := rn.PackedCircuit(b.PolicyID)
	if err != nil {
		return nil, nil, err
	}
	id := keccak.Sum([]byte("fhegate/packed-batch/v1"), []byte(b.Session))
	r := &requestRun{rn: rn, req: chainio.Request{ID: id, PolicyID: b.PolicyID, Kind: chainio.KindPolicy}, ks: ks, bounds: circuit.BoundsOf(c),
		base: fmt.Sprintf("%s/%d", b.Session, ks.km.Epoch), slots: len(b.Requests), rescale: true,
		log: rn.d.Log.With(zap.String("batch", b.Session), zap.Int("requests", len(b.Requests))), mark: time.Now()}
	var packed []*fhe.Ciphertext
	if k := vectorWidth(c, len(b.Requests[0].Inputs)); k > 0 {
		packed, err = r.packVector(ctx, b.Requests, k)
	} else {
		packed, err = r.pack(ctx, b.Requests)
	}
	if err != nil {
		return nil, nil, err
	}
	return r.runPacked(ctx, c, packed, b.Requests, left)
}

// PackedCircuit resolves a policy id to the circuit a packed batch runs
// (PolicyCircuits.LookupPacked; Lookup for circuits without a packed form).
func (rn *Runner) PackedCircuit(id [32]byte) (circuit.Circuit, error) {
	if pc, ok := rn.d.Config.Circuits.(interface {
		LookupPacked([32]byte) (circuit.Circuit, error)
	}); ok {
		return pc.LookupPacked(id)
	}
	return rn.d.Config.Circuits.Lookup(id)
}

// vectorWidth returns K when a request with the given number of input
// handles is a vector request of circuit c (one ciphertext holding all K > 1
// attributes of the request, fhe/vector.go), 0 otherwise. Only compiled
// policies declare their input count; the built-in test circuits take any.
func vectorWidth(c circuit.Circuit, inputs int) int {
	if plan, ok := circuit.PlanOf(c); ok && inputs == 1 && len(plan.Inputs) > 1 {
		return len(plan.Inputs)
	}
	return 0
}

// VectorWidthOf is vectorWidth for a request of this member's circuits (0
// for a request that is not a policy request or whose policy has no
// circuit).
func (rn *Runner) VectorWidthOf(r chainio.Request) int {
	if r.Kind != chainio.KindPolicy {
		return 0
	}
	c, err := rn.d.Config.Circuits.Lookup(r.PolicyID)
	if err != nil {
		return 0
	}
	return vectorWidth(c, len(r.Inputs))
}

// viewInputs calls f with the stored bytes of q's inputs (fetching a
// missing one from the peers first), in one read transaction, after
// checking that each is stored under the run's key epoch.
func (r *requestRun) viewInputs(ctx context.Context, q chainio.Request, f func(raws [][]byte) error) error {
	rn := r.rn
	if err := rn.fetchInputs(ctx, q); err != nil {
		return err
	}
	err := rn.d.Store.ViewAll(q.Inputs, func(raws [][]byte, epochs []uint64) error {
		for j, e := range epochs {
			if err := r.rn.d.CheckEpoch(q.Inputs[j], e, r.ks.km.Epoch); err != nil {
				return err
			}
		}
		return f(raws)
	})
	if err != nil {
		return fmt.Errorf("consensus: request %x: %w", q.ID[:6], err)
	}
	return nil
}

// fetchInputs fetches from the other members every input of q this member
// does not hold.
func (rn *Runner) fetchInputs(ctx context.Context, q chainio.Request) error {
	for _, h := range q.Inputs {
		if !rn.d.Store.Has(h) {
			if _, err := rn.d.Fetch(ctx, h); err != nil {
				return fmt.Errorf("consensus: request %x: %w", q.ID[:6], err)
			}
		}
	}
	return nil
}

// pack builds the packed inputs at PackLevel and refreshes each to the top
// level (in parallel: independent sessions).
func (r *requestRun) pack(ctx context.Context, reqs []chainio.Request) ([]*fhe.Ciphertext, error) {
	rn := r.rn
	level, bounds, err := circuit.PackLevelBounds(rn.d.Params)
	if err != nil {
		return nil, err
	}
	sp, err := fhe.NewSlotPacker(rn.d.Params, level, len(reqs[0].Inputs))
	if err != nil {
		return nil, err
	}
	// Each request's inputs are masked straight from the store's bytes
	// (fhe.SlotPacker.AddEncoded: the ℓ+1 rows it needs, no decoding), in
	// one read transaction per request; a missing input is fetched from the
	// peers first.
	for s, q := range reqs {
		if err := r.viewInputs(ctx, q, func(raws [][]byte) error { return sp.AddEncoded(s, raws) }); err != nil {
			return nil, err
		}
	}
	low, err := sp.Ciphertexts()
	if err != nil {
		return nil, err
	}
	r.phase("pack")
	out := make([]*fhe.Ciphertext, len(low))
	err = par.ForEach(len(low), len(low), func(_, j int) (err error) { // at once: independent sessions
		if out[j], err = rn.RefreshLive(ctx, r.ks, fmt.Sprintf("%s/in%d", r.base, j), low[j], bounds); err == nil {
			out[j], err = r.dropRefreshNoise(out[j])
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("consensus: refresh of the packed inputs: %w", err)
	}
	r.phase("pack-refresh")
	return out, nil
}

// runPacked is run for a packed batch: evaluate once, agree on the digest,
// mask to the batch's slots, decrypt them together, sign the batch digest.
// A run with out-of-range slots signs only the requests isolationStep
// rejects, together under this run's result digest — ResultRejectedInput
// for the out-of-range ones (their deposits are burnt), ResultUnevaluable
// for in-range ones rejected with them once the budget is spent (only
// beside an input that broke its proof; their deposits are paid back) —
// and returns the parts to re-run; its in-range values are never signed.
func (r *requestRun) runPacked(ctx context.Context, circuit circuit.Circuit, packed []*fhe.Ciphertext, reqs []chainio.Request, left int) ([]*chainio.Verdict, [][]int, error) {
	rd, participants, dres, err := r.evaluateAndDecrypt(ctx, circuit, packed)
	if err != nil {
		return nil, nil, err
	}
	signed := make([]int, len(reqs)) // the slots this run signs
	for s := range signed {
		signed[s] = s
	}
	var parts [][]int
	bad := outOfRange(circuit, r.rn.d.Params, dres.Values[:len(reqs)])
	if len(bad) > 0 {
		signed, parts = isolationStep(len(reqs), bad, left)
		r.log.Warn("verdicts outside the plan's output range: requests rejected together, the rest re-run",
			zap.Int("outOfRange", len(bad)), zap.Int("rejected", len(signed)), zap.Int("parts", len(parts)), zap.Int("budgetLeft", left))
	}
	vs := make([]*chainio.Verdict, len(reqs))
	if len(signed) == 0 {
		return vs, parts, nil
	}
	vb := &chainio.VerdictBatch{PolicyID: r.req.PolicyID, ResultDigest: [32]byte(rd), Epoch: r.ks.km.Epoch, Items: make([]bls.VerdictItem, len(signed))}
	out := make(map[int]bool, len(bad))
	for _, s := range bad {
		out[s] = true
	}
	for i, s := range signed {
		vb.Items[i] = bls.VerdictItem{RequestID: reqs[s].ID, Result: new(big.Int).SetUint64(dres.Values[s])}
		switch {
		case out[s]: // a run out of range signs rejections only
			vb.Items[i].Result = new(big.Int).Set(chainio.ResultRejectedInput)
		case len(bad) > 0: // in range, rejected with its part: not its sender's doing
			vb.Items[i].Result = new(big.Int).Set(chainio.ResultUnevaluable)
		}
	}
	var n int
	if vb.Signature, vb.Signers, n, err = r.rn.d.SignDigest(ctx, r.base, vb.Digest(r.rn.d.Chain()), transport.Without(participants, dres.Bad), r.log); err != nil {
		return nil, nil, err
	}
	sv := make([]*chainio.Verdict, len(signed))
	for i, it := range vb.Items {
		sv[i] = &chainio.Verdict{RequestID: it.RequestID, PolicyID: vb.PolicyID, Result: it.Result, ResultDigest: vb.ResultDigest, Epoch: vb.Epoch,
			Signature: vb.Signature, Signers: vb.Signers, Batch: vb}
		vs[signed[i]] = sv[i]
	}
	if err := r.rn.d.SaveBatch(vb, sv); err != nil {
		return nil, nil, err
	}
	r.phase("sign")
	r.log.Debug("packed verdicts", zap.Int("signers", n), zap.Bool("checked", dres.Checked))
	return vs, parts, nil
}

// dropRefreshNoise rescales a refreshed ciphertext by one prime (a product
// with the constant-1 plaintext): the refresh's flooding noise is divided by
// the prime, the message is unchanged (see "Refresh noise" above).
func (r *requestRun) dropRefreshNoise(ct *fhe.Ciphertext) (*fhe.Ciphertext, error) {
	ones := make([]int64, r.rn.d.Params.Slots())
	for i := range ones {
		ones[i] = 1
	}
	return r.ks.ev.MulInts(ct, ones)
}
