package eval_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/internal/testseed"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/policy/examples"
)

// refreshDoc is a plan deeper than the test preset (it needs a refresh).
const refreshDoc = "fhegate_policy: 1\nname: deep\ninputs:\n  - {name: a, min: 0, max: 255}\n  - {name: b, min: 0, max: 255}\n  - {name: c, min: 0, max: 255}\noutput: {expr: \"a >= 100 && b < 200 && c != 7\"}\n"

// recorder is a router that runs Lattigo's transforms and records the size
// of every batch it is handed.
type recorder struct {
	mu    sync.Mutex
	sizes []int
}

func (r *recorder) Transform(inverse, lazy bool, jobs []engine.Job) {
	r.mu.Lock()
	r.sizes = append(r.sizes, len(jobs))
	r.mu.Unlock()
	engine.RunLattigo(inverse, lazy, jobs)
}

func (r *recorder) median() int {
	s := slices.Clone(r.sizes)
	slices.Sort(s)
	return s[len(s)/2]
}

func (r *recorder) total() (n int) {
	for _, s := range r.sizes {
		n += s
	}
	return n
}

// TestGatherByteIdentical evaluates the shipped policies on fresh random
// inputs sequentially and gathered (one engine.Gather, width 1 and 2),
// compares the result ciphertexts byte for byte, decrypts against the
// plaintext reference, and checks that the gathered evaluation handed the
// router the same transforms in fewer, larger batches.
func TestGatherByteIdentical(t *testing.T) {
	seed := testseed.Seed(t)
	for _, name := range []string{"kyc_aml", "credit_limit"} {
		t.Run(name, func(t *testing.T) {
			k := kit(t, fhetest.InsecureBGVN10Deep)
			plan, err := policy.CompileWith(examples.MustGet(name), deep)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(seed, uint64(len(name))))
			slots := randomInputs(r, plan, plan.Slots)
			cts, err := eval.EncryptSlots(k.Enc, slots)
			require.NoError(t, err)

			seq := &recorder{}
			want, err := eval.EvaluateWith(context.Background(), plan, k.Eval.WithRouter(seq), cts, eval.Options{})
			require.NoError(t, err)
			wantBytes, err := want.MarshalBinary()
			require.NoError(t, err)

			ref, err := plan.EvalPlain(slots)
			require.NoError(t, err)
			for _, width := range []int{1, 2} {
				gat := &recorder{}
				got, err := eval.EvaluateWith(context.Background(), plan, k.Eval, cts, eval.Options{Gather: true, Parallel: width, Router: gat})
				require.NoError(t, err)
				gotBytes, err := got.MarshalBinary()
				require.NoError(t, err)
				require.True(t, bytes.Equal(wantBytes, gotBytes), "width %d: gathered ciphertext differs from the sequential one", width)
				verdicts, err := eval.DecryptVerdicts(k.Dec, got, plan.Slots)
				require.NoError(t, err)
				require.Equal(t, ref, verdicts)

				require.Equal(t, seq.total(), gat.total(), "the same transforms")
				require.Less(t, len(gat.sizes), len(seq.sizes), "fewer batches")
				require.GreaterOrEqual(t, gat.median(), seq.median(), "batches no smaller")
				require.Greater(t, slices.Max(gat.sizes), slices.Max(seq.sizes), "the largest batch larger")
				t.Logf("%s width %d: %d transforms in %d batches (median %d) sequentially, %d batches (median %d) gathered",
					name, width, seq.total(), len(seq.sizes), seq.median(), len(gat.sizes), gat.median())
			}
		})
	}
}

// TestGatherBatch evaluates several sets in one gathered EvaluateBatch and
// compares each with its sequential evaluation.
func TestGatherBatch(t *testing.T) {
	seed := testseed.Seed(t)
	k := kit(t, fhetest.InsecureBGVN10Deep)
	plan, err := policy.CompileWith(examples.MustGet("credit_limit"), deep)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 7))
	var sets [][]*fhe.Ciphertext
	for range 3 {
		cts, err := eval.EncryptSlots(k.Enc, randomInputs(r, plan, 16))
		require.NoError(t, err)
		sets = append(sets, cts)
	}
	gat := &recorder{}
	outs, err := eval.EvaluateBatch(context.Background(), plan, k.Eval, sets, eval.Options{Gather: true, Router: gat})
	require.NoError(t, err)
	require.Len(t, outs, len(sets))
	for i, in := range sets {
		want, err := eval.Evaluate(context.Background(), plan, k.Eval, in)
		require.NoError(t, err)
		a, err := want.MarshalBinary()
		require.NoError(t, err)
		b, err := outs[i].MarshalBinary()
		require.NoError(t, err)
		require.True(t, bytes.Equal(a, b), "set %d", i)
	}
}

// TestGatherErrors: a failing op is reported as the sequential evaluation
// reports it (its dependents are skipped, nothing hangs), and a plan that
// needs a refresh without one is refused before any participant starts.
func TestGatherErrors(t *testing.T) {
	k := kit(t, fhetest.InsecureBGVN10Deep)
	plan, err := policy.CompileWith(examples.MustGet("kyc_aml"), deep)
	require.NoError(t, err)
	slots := randomInputs(rand.New(rand.NewPCG(1, 2)), plan, 8)
	cts, err := eval.EncryptSlots(k.Enc, slots)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, seqErr := eval.EvaluateWith(ctx, plan, k.Eval, cts, eval.Options{})
	_, gatErr := eval.EvaluateWith(ctx, plan, k.Eval, cts, eval.Options{Gather: true})
	require.ErrorIs(t, gatErr, context.Canceled)
	require.Equal(t, fmt.Sprint(seqErr), fmt.Sprint(gatErr))

	refreshing, err := policy.CompileWith([]byte(refreshDoc), deep)
	require.NoError(t, err)
	require.True(t, refreshing.NeedsRefresh)
	_, err = eval.EvaluateBatch(context.Background(), refreshing, k.Eval, nil, eval.Options{Gather: true})
	require.ErrorIs(t, err, eval.ErrNeedsRefresh)
}

// gatheredMatchesSequential evaluates plan on fresh random inputs both
// ways (refresh points through refresh), compares the bytes and decrypts
// against the plaintext reference.
func gatheredMatchesSequential(t *testing.T, k *fhetest.Kit, plan *policy.Plan, seed uint64, refresh eval.RefreshFunc) {
	t.Helper()
	slots := randomInputs(rand.New(rand.NewPCG(seed, 3)), plan, plan.Slots)
	cts, err := eval.EncryptSlots(k.Enc, slots)
	require.NoError(t, err)
	want, err := eval.EvaluateWith(context.Background(), plan, k.Eval, cts, eval.Options{Refresh: refresh})
	require.NoError(t, err)
	got, err := eval.EvaluateWith(context.Background(), plan, k.Eval, cts, eval.Options{Refresh: refresh, Gather: true})
	require.NoError(t, err)
	a, err := want.MarshalBinary()
	require.NoError(t, err)
	b, err := got.MarshalBinary()
	require.NoError(t, err)
	require.True(t, bytes.Equal(a, b), "gathered ciphertext differs from the sequential one")
	ref, err := plan.EvalPlain(slots)
	require.NoError(t, err)
	verdicts, err := eval.DecryptVerdicts(k.Dec, got, plan.Slots)
	require.NoError(t, err)
	require.Equal(t, ref, verdicts)
}

// TestGatherRefresh: a plan with refresh points (called inside the
// participants) evaluates gathered to the sequential bytes.
func TestGatherRefresh(t *testing.T) {
	k := kit(t, fhetest.InsecureBGVN10Deep)
	plan, err := policy.CompileWith([]byte(refreshDoc), deep)
	require.NoError(t, err)
	require.True(t, plan.NeedsRefresh)
	gatheredMatchesSequential(t, k, plan, testseed.Seed(t), eval.LocalRefresh(k.Keys))
}

// TestGatherOnBGVN14: the shipped KYC/AML and credit-limit plans on the
// real preset (refresh floor 1: they refresh), gathered and sequential,
// byte for byte (slow: skipped with -short).
func TestGatherOnBGVN14(t *testing.T) {
	if testing.Short() {
		t.Skip("BGVN14: key generation and four depth-9 evaluations at N=2^14")
	}
	k := kit(t, fhe.BGVN14)
	for _, name := range []string{"kyc_aml", "credit_limit"} {
		t.Run(name, func(t *testing.T) {
			plan, err := policy.Compile(examples.MustGet(name))
			require.NoError(t, err)
			gatheredMatchesSequential(t, k, plan, testseed.Seed(t), eval.LocalRefresh(k.Keys))
		})
	}
}
