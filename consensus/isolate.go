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
// Isolation. A batch with out-of-range slots is not signed. It is split and
// each part is re-run as its own packed batch (a fresh session named after
// the parent's, identically on every member, because every honest member
// decrypted the same values):
//
//   - some but not all slots out of range: [the in-range requests] and
//     [the out-of-range requests] (an input out of its declared range only
//     moves its own slot, so its sender is usually the one whose slot is
//     out; the in-range part is re-run all the same, since cross-slot
//     garbage can leave a slot in range by chance);
//   - every slot out of range: the two halves (bisection).
//
// A part of ONE request whose slot is out of range is that request's own
// evaluation on its own inputs: it is signed with ResultRejectedInput (its
// ResultDigest is the handle of that result ciphertext). Every other
// request ends in a part that decrypted entirely in range, and gets that
// part's verdict. A request evaluated alone (Process) gets
// ResultRejectedInput the same way.
//
// Cost. One offender whose garbage reaches every slot of a batch of B costs
// 2·⌈log2 B⌉ extra packed runs (two per halving; 12 for B = 64); k
// offenders at most 2·k·⌈log2 B⌉. An offender that only moves its own slot
// (an out-of-range plaintext under a valid proof) costs 2 extra runs (the
// in-range rest, and itself), k of them 2k. TestPackedOutOfRangeIsolated
// measures it. This work is not booked by the chain (docs/gas.md); it
// needs an input outside its declared range, which the offender pays for
// with its own verdict.
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
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/fhe"
)

// OutOfRangeError reports a packed run whose decrypted verdicts leave the
// plan's output range: the slots (ascending) of a batch of Requests.
type OutOfRangeError struct {
	Slots    []int
	Requests int
}

func (e *OutOfRangeError) Error() string {
	return fmt.Sprintf("consensus: %d of %d packed verdicts outside the plan's output range", len(e.Slots), e.Requests)
}

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

// splitOutOfRange returns the parts a batch of reqs with out-of-range slots
// bad is re-run as (see "Isolation" above): the in-range requests and the
// out-of-range ones when both exist, the two halves otherwise.
func splitOutOfRange(reqs []chainio.Request, bad []int) [][]chainio.Request {
	if len(bad) > 0 && len(bad) < len(reqs) {
		out := make(map[int]bool, len(bad))
		for _, s := range bad {
			out[s] = true
		}
		var in, off []chainio.Request
		for s, q := range reqs {
			if out[s] {
				off = append(off, q)
			} else {
				in = append(in, q)
			}
		}
		return [][]chainio.Request{in, off}
	}
	h := len(reqs) / 2
	return [][]chainio.Request{reqs[:h:h], reqs[h:]}
}

// isolation counts the extra work of one batch's isolation.
type isolation struct {
	runs     int // packed runs beyond the first
	rejected int // requests answered ResultRejectedInput
}

// processIsolating runs a checked batch, splitting it until every request
// is in a part that decrypts in range or alone (see "Isolation" above); the
// verdicts come back in the batch's slot order, each carrying the batch
// (or part) it was signed in.
func (m *Member) processIsolating(ctx context.Context, b chainio.PackedBatch) ([]*chainio.Verdict, error) {
	var iso isolation
	vs, err := m.isolate(ctx, b, &iso)
	if iso.runs > 0 {
		m.log.Warn("packed batch had verdicts outside the plan's output range: offending requests isolated",
			zap.String("batch", b.Session), zap.Int("requests", len(b.Requests)), zap.Int("rejected", iso.rejected),
			zap.Int("extraRuns", iso.runs), zap.Error(err))
	}
	return vs, err
}

func (m *Member) isolate(ctx context.Context, b chainio.PackedBatch, iso *isolation) ([]*chainio.Verdict, error) {
	vs, err := m.processPackedOnce(ctx, b)
	var oor *OutOfRangeError
	if !errors.As(err, &oor) {
		if err == nil && len(vs) == 1 && vs[0].IsRejectedInput() {
			iso.rejected++
		}
		return vs, err
	}
	got := make(map[[32]byte]*chainio.Verdict, len(b.Requests))
	for i, part := range splitOutOfRange(b.Requests, oor.Slots) {
		iso.runs++
		pvs, err := m.isolate(ctx, chainio.PackedBatch{PolicyID: b.PolicyID, Session: fmt.Sprintf("%s/part%d", b.Session, i), Requests: part}, iso)
		if err != nil {
			return nil, err
		}
		for _, v := range pvs {
			got[v.RequestID] = v
		}
	}
	out := make([]*chainio.Verdict, len(b.Requests))
	for s, q := range b.Requests {
		out[s] = got[q.ID]
	}
	return out, nil
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
