package consensus

// Out-of-range slots: defence in depth for packed batches.
//
// Packing assumes every input is a valid encryption whose noise is within
// the bound its input proof accepts (packed.go, "Mask level"). An input that
// is not — a forged proof, or a bug — has noise near Q; the slot mask
// L_s·ct then wraps modulo Q and the packed input decrypts to garbage in
// EVERY slot, not only in the sender's: the collective refresh decrypts
// (under its masks) whatever the packed input holds and re-encrypts it, and
// every verdict of the batch would be computed on garbage. The digest
// agreement cannot see this (the honest members agree on the same wrong
// ciphertext), so before signing, the committee checks every decrypted
// verdict slot against the plan's declared output range: 0 or 1 for a bool
// plan, [min, max] (mod t, centred) for a score plan. Slots ≥ B are checked
// to be zero as before (verdictShape).
//
// Booked isolation. A run whose decrypted verdicts leave the range signs
// no value. Each batch carries a budget of IsolationRuns extra packed runs
// (isolationStep decides, identically on every member, because every
// honest member decrypted the same values and spent the same budget):
//
//   - some but not all slots out of range, budget left: the out-of-range
//     requests are signed ResultRejectedInput TOGETHER in this run (one
//     batch, its ResultDigest the handle of this run's result ciphertext),
//     and the in-range requests are re-run as one packed batch (one run of
//     the budget: cross-slot garbage can leave a slot in range by chance,
//     so no value of a run with an out-of-range slot is ever signed);
//   - every slot out of range, two runs of budget left: the two halves
//     (bisection: garbage that reaches every slot comes from an input that
//     broke its proof, and halving keeps the honest half's verdicts);
//   - otherwise (budget spent): every request of the run is signed
//     ResultRejectedInput together.
//
// A run of one request out of range is that request's own evaluation on
// its own inputs: ResultRejectedInput. A request evaluated alone (Process)
// gets ResultRejectedInput the same way.
//
// Why an honest verdict never changes. Let every input of the batch be an
// encryption within the noise bound its input proof accepts (the proof
// holds). The packing mask confines each input to its own slot (packed.go,
// "Mask level"), so each slot decrypts to its own request's plan output on
// its own plaintexts, in every run it is part of: an honest request
// (attributes in their declared ranges) is in range in every run, a
// request with an out-of-range attribute ("own-slot offender") is out of
// range in every run. The first run's out-of-range slots are therefore
// exactly the offenders (rejected together: the verdict each gets alone),
// the in-range re-run holds only honest requests and decrypts in range, and
// its values are signed: k offenders among B cost ONE extra run, whatever
// k (two when every request of the batch is an offender, the halves).
// Every signed value comes from a run that decrypted entirely in range, so
// no request ever gets a wrong value, with or without a proof broken. What
// a broken proof can still do (garbage ≈ Q in every slot) is cost the
// honest requests that share the budget-spent part with it their verdict:
// they are answered ResultRejectedInput, never a wrong value (with
// IsolationRuns = 2: the forged input's half, and the other half too when
// it holds an out-of-range request — TestIsolationBooked's forged case
// loses 59 of 64).
//
// Cost. At most IsolationRuns extra packed runs per batch, each with its
// refreshes, whatever the number of offenders: TestIsolationBooked measures
// 1 extra run for 16 own-slot offenders among 64 (32 before the budget),
// ≤ 2 for a batch of offenders only (126 before) and for a forged input
// beside 4 own-slot offenders (20 before). The chain books one evaluation
// per batch (docs/gas.md, "Booked work"), so the committee runs at most
// 1 + IsolationRuns evaluations per booked one (docs/gas.md, "Isolation is
// booked").
//
// Detection probability. Let p be a fused predicate of the plan: the
// interpolation polynomial of degree d < |D| of a comparison or membership
// on its operand's declared value set D (policy, "Compilation"). For y
// outside D, p(y) ∈ {0, 1} for at most 2d values of y (the roots of p and
// of p − 1), so a uniformly random operand y ∈ Z_t gives an in-range
// predicate with probability ≤ (|D| + 2d)/t < 3|D|/t, and any one value
// with probability < 2|D|/t. Booleans of different bases combine as
// products and 1 − b; a product is in {0, 1} only when a factor is 0 or the
// last factor is the inverse of the others' product, so a plan's output
// over random operands is in range with probability ρ ≤ 5·Σ_p |D_p|/t:
// ≈ 2^−5.1 for KYC/AML (three bases of 128, 128 and 125 values, t = 65537),
// ≈ 2^−10.5 for a plan of two small bases (TestPackedOutOfRangeIsolated's).
// Garbage that depends on the secret key (noise in c1·s; the attacker knows
// neither s nor the honest inputs) is uniform and independent across slots
// (the slots are an invertible linear map of the coefficients mod t), so a
// batch of B corrupted slots passes the check with probability ≤ ρ^B: on
// KYC/AML ≤ 2^−81 for B = 16, ≤ 2^−326 for B = 64, and 2^−10 for B = 2.
// Limits: this is a check of the output, not of the inputs. An input that
// stays in range can still flip its own slot (it only costs its sender).
// An attacker that can forge proofs and whose garbage it knows exactly
// (noise placed in c0) could search its candidate forgeries for one whose
// wrapped garbage is zero in every other slot; each candidate succeeds with
// probability t^−(B−1), so packing windows of ≥ 2 requests (serve.go)
// bounds that search only for large B. The input proof (fhe/zkpok) is the
// first line; this check bounds what a proof failure can do.

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
func (m *Member) processIsolating(ctx context.Context, b chainio.PackedBatch) ([]*chainio.Verdict, error) {
	var iso isolation
	vs, err := m.isolate(ctx, b, &iso)
	if iso.runs > 0 || iso.rejected > 0 {
		m.log.Warn("packed batch had verdicts outside the plan's output range: offending requests rejected",
			zap.String("batch", b.Session), zap.Int("requests", len(b.Requests)), zap.Int("rejected", iso.rejected),
			zap.Int("extraRuns", iso.runs), zap.Int("budget", IsolationRuns), zap.Error(err))
	}
	return vs, err
}

func (m *Member) isolate(ctx context.Context, b chainio.PackedBatch, iso *isolation) ([]*chainio.Verdict, error) {
	vs, parts, err := m.processPackedOnce(ctx, b, IsolationRuns-iso.runs)
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
		pvs, err := m.isolate(ctx, chainio.PackedBatch{PolicyID: b.PolicyID, Session: fmt.Sprintf("%s/part%d", b.Session, i), Requests: part}, iso)
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

// verdictBatches returns the distinct batches vs were signed in, in order
// of first appearance.
func verdictBatches(vs []*chainio.Verdict) []*chainio.VerdictBatch {
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
