package consensus_test

import (
	"context"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/pipeline"
	"github.com/fhegate/fhegate/fhe"
)

// TestIsolationBooked: the work isolation adds to a packed batch is bounded
// per batch (pipeline.IsolationRuns extra packed runs), however many offenders the
// batch holds, and an honest request's verdict never changes (pipeline/isolate.go,
// "Booked isolation"). A batch of 64 vector requests of the test plan:
//
//   - own-slot offenders (honest encryptions of out-of-range attributes:
//     what anyone can buy) at 16 slots: one extra run (the in-range rest),
//     the 16 offenders rejected together in the first run; every other
//     verdict equals the plaintext reference;
//   - a batch of offenders only: every request rejected, ≤ pipeline.IsolationRuns
//     extra runs;
//   - one forged input (noise ≈ Q, garbage in every slot: an input proof
//     broken) and four own-slot offenders: ≤ pipeline.IsolationRuns extra runs, no
//     signed value other than a plaintext reference or ResultRejectedInput,
//     the offenders rejected.
//
// With valid proofs the extra runs never outnumber the offenders, each of
// whose deposit (one packed run's booked gas, precompiles.Deposit) the
// ResultRejectedInput verdict burns: the isolation work is paid by them.
// Every member returns the same verdicts; the chain accepts every batch
// signed. The packed runs, refreshes and wall time are logged (docs/gas.md,
// "Isolation is booked").
func TestIsolationBooked(t *testing.T) {
	const n = 64
	for _, tc := range []struct {
		name     string
		offender func(k int) bool // own-slot offenders
		forged   int              // the slot of a forged input, or -1
		exact    int              // the extra runs expected exactly, or -1 for a bound only
	}{
		{"no offender", func(int) bool { return false }, -1, 0},
		{"16 own-slot offenders", func(k int) bool { return k%4 == 1 }, -1, 1},
		{"all offenders", func(int) bool { return true }, -1, -1},
		{"forged and 4 own-slot offenders", func(k int) bool { return k%16 == 3 }, 40, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kf := newPolicyFixture(t, [32]byte{0xc0, 0x1b}, vectorTestPolicy, nil)
			f := kf.packFixture
			r := rand.New(rand.NewPCG(23, 64))
			b := chainio.PackedBatch{PolicyID: kf.id, Session: "test/pack/booked/" + tc.name}
			want := map[[32]byte]uint64{}
			bad := map[int]bool{}
			for k := range n {
				vals := make([]int64, len(kf.plan.Inputs))
				for j, in := range kf.plan.Inputs {
					vals[j] = in.Min + r.Int64N(in.Max-in.Min+1)
				}
				if tc.offender(k) {
					vals = outOfRangeVals(t, kf.plan, f.p.PlaintextModulus())
					bad[k] = true
				}
				slots, err := f.p.VectorInts(vals)
				require.NoError(t, err)
				var h fhe.Handle
				if k == tc.forged {
					h = f.forgedInput(r, slots)
					bad[k] = true
				} else {
					ct, err := f.enc.EncryptInts(slots)
					require.NoError(t, err)
					h = f.put(ct)
				}
				req := f.lc.Chain.Post(chainio.Request{ID: [32]byte{0xc3, byte(k)}, PolicyID: kf.id, Kind: chainio.KindPolicy, Inputs: []fhe.Handle{h}})
				b.Requests = append(b.Requests, req)
				if !bad[k] {
					want[req.ID] = kf.ref(vals)
				}
			}
			before := f.lc.Member(1).Status()
			start := time.Now()
			out, errs := kf.processAll(b)
			if tc.forged >= 0 && kf.refusedForged(t, b, errs, tc.forged, want) {
				return
			}
			took := time.Since(start)
			after := f.lc.Member(1).Status()
			for i := range out {
				require.NoError(t, errs[i], "member %d", i+1)
				require.Len(t, out[i], n)
				require.Equal(t, out[0], out[i], "member %d", i+1)
			}
			var honestRejected int
			for s, v := range out[0] {
				require.Equal(t, b.Requests[s].ID, v.RequestID)
				require.NotNil(t, v.Batch, "slot %d", s)
				switch {
				case s == tc.forged:
					// alone or in a rejected part; its own garbage may decrypt
					// in range (ρ ≈ 2^-10.5 for this plan): its sender's loss
					require.True(t, v.IsRejectedInput() || v.Result.Cmp(big.NewInt(1)) <= 0, "slot %d: %v", s, v.Result)
				case bad[s]:
					require.True(t, v.IsRejectedInput(), "offender at slot %d: %v", s, v.Result)
				case v.IsRejectedInput() || v.IsUnevaluable():
					// only beside a forged input (an input proof broken):
					// rejected with its part — ResultUnevaluable (deposit
					// paid back) when its slot decrypted in range,
					// ResultRejectedInput when the garbage put it out
					require.GreaterOrEqual(t, tc.forged, 0, "honest slot %d rejected without a forged input", s)
					honestRejected++
				default:
					require.Equal(t, new(big.Int).SetUint64(want[v.RequestID]), v.Result, "slot %d", s)
				}
			}
			runs := after.Evaluations - before.Evaluations
			extra := int(runs) - 1
			t.Logf("%s in %d vector requests: %d packed runs (%d extra, bound %d), %d refreshes on member 1, %d honest requests rejected beside a forged input, %v",
				tc.name, n, runs, extra, pipeline.IsolationRuns, after.Refreshes-before.Refreshes, honestRejected, took)
			require.LessOrEqual(t, extra, pipeline.IsolationRuns)
			if tc.forged < 0 {
				// paid for: every offender's verdict is ResultRejectedInput,
				// which burns its deposit of one packed run's booked gas
				// (precompiles.Deposit), and with valid proofs the extra
				// runs never outnumber the offenders
				require.LessOrEqual(t, extra, len(bad), "extra runs beyond the offenders' deposits")
			}
			if tc.exact >= 0 {
				require.Equal(t, tc.exact, extra)
			}
			for _, vb := range VerdictBatches(out[0]) {
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
