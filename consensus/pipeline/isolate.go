package pipeline

// Out-of-range slots: defence in depth for packed batches. An input that is
// not a valid encryption within its proof's noise bound (a forged proof, or a
// bug) wraps the slot mask modulo Q and turns EVERY slot of the batch into
// garbage, which the digest agreement cannot see (the honest members agree on
// the same wrong ciphertext). So before signing, the committee checks every
// decrypted verdict slot against the plan's declared output range, and a run
// with a slot out of range signs no value. Within a budget of IsolationRuns
// extra packed runs per batch (isolationStep), the out-of-range requests are
// signed ResultRejectedInput together and the in-range ones re-run, or a
// batch whose every slot is out is halved; once the budget is spent, the
// rest is rejected together: ResultRejectedInput for the slots out of range
// in that run, ResultUnevaluable for the in-range ones (which only an input
// that broke its proof can put there), so a neighbour's deposit is paid back
// (precompiles/deposit.go). No request ever gets a wrong value. Booked
// isolation, why an honest verdict never changes, cost, detection
// probability and limits: docs/derivations.md, "Out-of-range slots".

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/fhe"
)

// outOfRange returns the indices of vals (decrypted verdict slots, in
// [0, t)) outside the output range of circuit c: 0 or 1 for a bool plan,
// [Min, Max] centred mod t for a score plan. Circuits without a declared
// output range (the built-in test circuits) accept every value.
func outOfRange(c circuit.Circuit, p *fhe.Params, vals []uint64) []int {
	plan, ok := circuit.PlanOf(c)
	if !ok {
		return nil
	}
	t := p.PlaintextModulus()
	lo, hi := int64(0), int64(1)
	if plan.Output.Type != "bool" {
		lo, hi = plan.Output.Min, plan.Output.Max
	}
	var bad []int
	for s, v := range vals {
		x := int64(v % t)
		if uint64(x) > t/2 {
			x -= int64(t)
		}
		if x < lo || x > hi {
			bad = append(bad, s)
		}
	}
	return bad
}

// IsolationRuns is the most packed runs isolation adds to one batch
// (see "Booked isolation" above): one re-runs the in-range requests after
// the offenders are rejected together, two halve a batch whose every slot
// is out of range.
const IsolationRuns = 2

// isolationStep decides what a run of a batch of n requests whose slots bad
// (ascending, non-empty) decrypted out of range does, with left runs of the
// batch's isolation budget: the slots it signs ResultRejectedInput together
// in this run, and the parts (slot lists) it re-runs, each one run of the
// budget (see "Booked isolation" above).
func isolationStep(n int, bad []int, left int) (reject []int, parts [][]int) {
	switch {
	case n == 1:
		return []int{0}, nil
	case len(bad) < n && left >= 1:
		out := make(map[int]bool, len(bad))
		for _, s := range bad {
			out[s] = true
		}
		in := make([]int, 0, n-len(bad))
		for s := range n {
			if !out[s] {
				in = append(in, s)
			}
		}
		return bad, [][]int{in}
	case len(bad) == n && left >= 2:
		h := n / 2
		lo, hi := make([]int, 0, h), make([]int, 0, n-h)
		for s := range n {
			if s < h {
				lo = append(lo, s)
			} else {
				hi = append(hi, s)
			}
		}
		return nil, [][]int{lo, hi}
	}
	all := make([]int, n)
	for s := range all {
		all[s] = s
	}
	return all, nil
}

// isolation counts the extra work of one batch's isolation.
type isolation struct {
	runs     int // packed runs beyond the first
	rejected int // requests answered ResultRejectedInput
}

// processIsolating runs a checked batch with its isolation budget (see
// "Booked isolation" above); the verdicts come back in the batch's slot
// order, each carrying the batch (or part) it was signed in.
func (rn *Runner) processIsolating(ctx context.Context, b chainio.PackedBatch) ([]*chainio.Verdict, error) {
	var iso isolation
	vs, err := rn.isolate(ctx, b, &iso)
	if iso.runs > 0 || iso.rejected > 0 {
		rn.d.Log.Warn("packed batch had verdicts outside the plan's output range: offending requests rejected",
			zap.String("batch", b.Session), zap.Int("requests", len(b.Requests)), zap.Int("rejected", iso.rejected),
			zap.Int("extraRuns", iso.runs), zap.Int("budget", IsolationRuns), zap.Error(err))
	}
	return vs, err
}

func (rn *Runner) isolate(ctx context.Context, b chainio.PackedBatch, iso *isolation) ([]*chainio.Verdict, error) {
	vs, parts, err := rn.processPackedOnce(ctx, b, IsolationRuns-iso.runs)
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if v != nil && v.IsRejectedInput() {
			iso.rejected++
		}
	}
	if iso.runs+len(parts) > IsolationRuns { // isolationStep never asks for more
		return nil, fmt.Errorf("consensus: packed batch %s: isolation over its budget of %d runs", b.Session, IsolationRuns)
	}
	iso.runs += len(parts) // charged before any part runs: the parts share what is left
	for i, slots := range parts {
		part := make([]chainio.Request, len(slots))
		for j, s := range slots {
			part[j] = b.Requests[s]
		}
		pvs, err := rn.isolate(ctx, chainio.PackedBatch{PolicyID: b.PolicyID, Session: fmt.Sprintf("%s/part%d", b.Session, i), Requests: part}, iso)
		if err != nil {
			return nil, err
		}
		for j, s := range slots {
			vs[s] = pvs[j]
		}
	}
	for s, v := range vs {
		if v == nil {
			return nil, fmt.Errorf("consensus: packed batch %s: slot %d has no verdict after isolation", b.Session, s)
		}
	}
	return vs, nil
}

// VerdictBatches returns the distinct batches vs were signed in, in order
// of first appearance.
func VerdictBatches(vs []*chainio.Verdict) []*chainio.VerdictBatch {
	var out []*chainio.VerdictBatch
	seen := map[*chainio.VerdictBatch]bool{}
	for _, v := range vs {
		if v != nil && v.Batch != nil && !seen[v.Batch] {
			seen[v.Batch] = true
			out = append(out, v.Batch)
		}
	}
	return out
}
