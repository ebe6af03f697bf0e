package consensus_test

import (
	"context"
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/pipeline"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/policy"
)

// forgedInput is the input-proof bypass: it encrypts vals and adds to c0 a
// polynomial uniform modulo every prime of the ciphertext (noise ≈ Q), and
// stores the result on every member directly (packFixture.put skips the
// upload path and its proof), i.e. what a forged proof of plaintext
// knowledge would get accepted. It decrypts to garbage in every slot, and
// so does every slot-masked product of it (consensus/pipeline/packed.go, "Mask level").
func (f *packFixture) forgedInput(r *rand.Rand, vals []int64) fhe.Handle {
	ct, err := f.enc.EncryptInts(vals)
	require.NoError(f.t, err)
	rq := f.p.RLWE().RingQ().AtLevel(ct.Level())
	c0 := ct.Lattigo().Value[0]
	for i, q := range rq.ModuliChain()[:ct.Level()+1] {
		for j := range c0.Coeffs[i] {
			c0.Coeffs[i][j] = (c0.Coeffs[i][j] + r.Uint64N(q)) % q
		}
	}
	return f.put(ct)
}

// refusedForged reports whether a packed vector batch holding a forged
// input (noise ≈ Q: every slot of its accumulator is garbage) was refused
// at its verified refresh transform: the t-subsets of a garbage
// accumulator decode it to different values (each subset's flooding moves
// a uniform phase across the decoding boundary somewhere), which the
// transform cannot tell from a deviating member, so every member fails the
// batch with ErrRefreshDisagree naming nobody and nothing is signed. The
// serve loop then retries the batch and answers its requests one by one;
// this checks that path on the forged request and on the first few honest
// ones: the forged one gets no value (an error, or ResultRejectedInput, or
// alone its own garbage in range, its sender's loss), each honest one its
// plaintext reference — or ResultRejectedInput when an isolation part that
// held the forged input was signed before a later part was refused; never
// a wrong value. When the subsets happened to agree on the garbage,
// it returns false and the caller checks the isolation.
func (kf *kycFixture) refusedForged(t *testing.T, b chainio.PackedBatch, errs []error, forged int, want map[[32]byte]uint64) bool {
	var dis *protocol.ErrRefreshDisagree
	if errs[0] == nil || !errors.As(errs[0], &dis) {
		return false
	}
	for i, err := range errs {
		require.ErrorAs(t, err, &dis, "member %d", i+1)
		require.Empty(t, dis.Named, "member %d named a member for a forged input", i+1)
	}
	t.Logf("the forged input's batch was refused at its refresh transform (%v): answering requests alone", errs[0])
	alone := []int{forged}
	for s := 0; s < len(b.Requests) && len(alone) < 4; s++ {
		if _, ok := want[b.Requests[s].ID]; ok {
			alone = append(alone, s)
		}
	}
	for _, s := range alone {
		req := b.Requests[s]
		out, errs := kf.onAll(func(m *Member) ([]*chainio.Verdict, error) {
			v, err := m.Process(context.Background(), req)
			return []*chainio.Verdict{v}, err
		})
		for i := range out {
			if s == forged {
				if errs[i] == nil {
					v := out[i][0]
					require.True(t, v.IsRejectedInput() || v.Result.Cmp(big.NewInt(1)) <= 0, "forged request alone: %v", v.Result)
				}
				continue
			}
			require.NoError(t, errs[i], "slot %d alone, member %d", s, i+1)
			if v := out[i][0]; !v.IsRejectedInput() && !v.IsUnevaluable() { // rejected beside the forged input in a part signed before the refusal
				require.Equal(t, new(big.Int).SetUint64(want[req.ID]), v.Result, "slot %d alone, member %d", s, i+1)
			}
		}
	}
	return true
}

// outOfRangeVals returns attribute values of plan, each outside its
// declared range, whose plaintext verdict is outside the plan's output range
// (a deterministic search: an honest encryption whose own slot decrypts out
// of range).
func outOfRangeVals(t *testing.T, plan *policy.Plan, tmod uint64) []int64 {
	for k := int64(1); k < 1000; k++ {
		vals := make([]int64, len(plan.Inputs))
		for j, in := range plan.Inputs {
			vals[j] = in.Max + k + int64(j)
		}
		col := make([][]int64, len(vals))
		for j, v := range vals {
			col[j] = []int64{v}
		}
		out, err := plan.EvalPlain(col)
		require.NoError(t, err)
		if v := mod(out[0], tmod); v > 1 {
			return vals
		}
	}
	t.Fatal("no out-of-range attribute values found")
	return nil
}

// TestPackedOutOfRangeIsolated is the defence in depth behind the input
// proof: a batch of 64 vector requests in which one request's input
// bypasses its proof with noise ≈ Q ("forged": every slot of the packed
// input decrypts to garbage), or one request's honest encryption holds
// attribute values outside their declared ranges ("out-of-range": only its
// own slot moves). The committee signs nothing out of the plan's output
// range: it splits the batch and re-runs the parts until the offender is
// rejected (ResultRejectedInput), within its isolation budget
// (pipeline.IsolationRuns extra runs: docs/derivations.md, "Booked isolation"); every other
// verdict equals the plaintext reference on every member — or, beside the
// forged input only, is rejected with it once the budget is spent, never a
// wrong value — and the chain accepts every part's batch. The extra packed
// runs and refreshes are logged (the isolation cost docs/committee.md
// reports): 2 (the halves) for garbage in every slot, 1 (the in-range
// rest) for an offender that moves only its own slot.
func TestPackedOutOfRangeIsolated(t *testing.T) {
	const n, bad = 64, 37
	for _, tc := range []struct {
		name     string
		forged   bool
		maxExtra int // extra packed runs allowed (beyond the first)
	}{
		{"forged", true, pipeline.IsolationRuns},
		{"out-of-range", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kf := newPolicyFixture(t, [32]byte{0xc0, 0x0e}, vectorTestPolicy, nil)
			f := kf.packFixture
			r := rand.New(rand.NewPCG(17, 64))
			b := chainio.PackedBatch{PolicyID: kf.id, Session: "test/pack/isolate/" + tc.name}
			want := map[[32]byte]uint64{}
			for k := range n {
				vals := make([]int64, len(kf.plan.Inputs))
				for j, in := range kf.plan.Inputs {
					vals[j] = in.Min + r.Int64N(in.Max-in.Min+1)
				}
				if k == bad && !tc.forged {
					vals = outOfRangeVals(t, kf.plan, f.p.PlaintextModulus())
				}
				slots, err := f.p.VectorInts(vals)
				require.NoError(t, err)
				var h fhe.Handle
				if k == bad && tc.forged {
					h = f.forgedInput(r, slots)
				} else {
					ct, err := f.enc.EncryptInts(slots)
					require.NoError(t, err)
					h = f.put(ct)
				}
				req := f.lc.Chain.Post(chainio.Request{ID: [32]byte{0xc1, byte(k)}, PolicyID: kf.id, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{h}})
				b.Requests = append(b.Requests, req)
				if k != bad {
					want[req.ID] = kf.ref(vals)
				}
			}
			before := f.lc.Member(1).Status()
			out, errs := kf.processAll(b)
			if tc.forged && kf.refusedForged(t, b, errs, bad, want) {
				return
			}
			after := f.lc.Member(1).Status()
			var lost int
			for i := range out {
				require.NoError(t, errs[i], "member %d", i+1)
				require.Len(t, out[i], n)
				for s, v := range out[i] {
					require.Equal(t, b.Requests[s].ID, v.RequestID)
					require.NotNil(t, v.Batch, "slot %d", s)
					if s == bad {
						continue
					}
					if tc.forged && (v.IsRejectedInput() || v.IsUnevaluable()) { // rejected with the forged input's part
						if i == 0 {
							lost++
						}
						continue
					}
					require.Equal(t, new(big.Int).SetUint64(want[v.RequestID]), v.Result, "member %d, slot %d", i+1, s)
				}
			}
			offender := out[0][bad]
			if tc.forged && !offender.IsRejectedInput() {
				// Alone, the offender's own slot is garbage: out of range
				// but with probability ρ ≈ 2^-10.5 for this plan
				// (docs/derivations.md, "Detection probability"), when it keeps
				// that value: its sender's loss only.
				t.Logf("the forged request's own garbage decrypted in range (%v)", offender.Result)
				require.True(t, offender.Result.Cmp(big.NewInt(1)) <= 0)
			} else {
				require.True(t, offender.IsRejectedInput(), "offender's verdict %v", offender.Result)
			}
			runs := after.Evaluations - before.Evaluations
			extra := int(runs) - 1
			refreshes := after.Refreshes - before.Refreshes
			t.Logf("isolation of 1 offender (%s) in %d vector requests: %d packed runs (%d extra, budget %d), %d refreshes on member 1 (1 without an offender), %d honest verdicts rejected with the forged input's part",
				tc.name, n, runs, extra, pipeline.IsolationRuns, refreshes, lost)
			require.Positive(t, extra)
			require.LessOrEqual(t, extra, tc.maxExtra)
			if !tc.forged {
				require.Equal(t, tc.maxExtra, extra, "an offender that moves only its own slot costs the rest's run")
				require.Zero(t, lost)
			}
			batches := VerdictBatches(out[0])
			require.LessOrEqual(t, len(batches), extra+1, "at most one batch per run")
			if !tc.forged {
				require.Len(t, batches, 2, "the offender's rejection and the in-range rest")
			}
			for _, vb := range batches {
				require.NoError(t, f.lc.Chain.SubmitVerdictBatch(context.Background(), vb.PolicyID, vb.ResultDigest, vb.Epoch, vb.Items, vb.Signature, vb.Signers))
			}
			for s, q := range b.Requests {
				v, ok := f.lc.Chain.Verdict(q.ID)
				require.True(t, ok, "slot %d", s)
				require.Equal(t, out[0][s].Result, v.Result, "slot %d", s)
			}
		})
	}
}

// TestRequestAloneOutOfRangeRejected: a request evaluated alone (Process,
// one handle per attribute: a packed batch of one, so that its inputs get
// their entry refresh) whose own attributes are outside their declared
// ranges decrypts outside the plan's output range and is signed with
// ResultRejectedInput on every member; the chain accepts its batch. An in-range
// request beside it gets its plaintext reference.
func TestRequestAloneOutOfRangeRejected(t *testing.T) {
	kf := newPolicyFixture(t, [32]byte{0xc0, 0x0f}, vectorTestPolicy, nil)
	f := kf.packFixture
	for _, tc := range []struct {
		name string
		vals []int64
		want *big.Int
	}{
		{"out of range", outOfRangeVals(t, kf.plan, f.p.PlaintextModulus()), chainio.ResultRejectedInput},
		{"in range", []int64{2, 1, 0}, new(big.Int).SetUint64(kf.ref([]int64{2, 1, 0}))},
	} {
		hs := make([]fhe.Handle, len(tc.vals))
		for j, v := range tc.vals {
			hs[j] = f.replicated(v)
		}
		req := f.lc.Chain.Post(chainio.Request{ID: [32]byte{0xc2, byte(len(tc.name))}, PolicyID: kf.id, Kind: chainio.KindPolicy, Inputs: hs})
		out, errs := f.onAll(func(m *Member) ([]*chainio.Verdict, error) {
			v, err := m.Process(context.Background(), req)
			return []*chainio.Verdict{v}, err
		})
		for i := range out {
			require.NoError(t, errs[i], "%s: member %d", tc.name, i+1)
			require.Equal(t, tc.want, out[i][0].Result, "%s: member %d", tc.name, i+1)
			require.NotNil(t, out[i][0].Batch, "a request alone is a packed batch of one")
		}
		b := out[0][0].Batch
		require.NoError(t, f.lc.Chain.SubmitVerdictBatch(context.Background(), b.PolicyID, b.ResultDigest, b.Epoch, b.Items, b.Signature, b.Signers), tc.name)
		v, ok := f.lc.Chain.Verdict(req.ID)
		require.True(t, ok)
		require.Equal(t, tc.want, v.Result, tc.name)
	}
}
