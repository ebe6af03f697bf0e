package eval_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/policy/examples"
)

// deep is the test target: the insecure N=2^10 preset with BGVN14's depth.
var deep = eval.OptionsFor(fhe.MustParams(fhetest.InsecureBGVN10Deep))

var (
	kitMu sync.Mutex
	kits  = map[fhe.PresetID]*fhetest.Kit{}
)

// kit returns single-party keys for a preset (relinearisation key only: plans
// need no rotations). The keys and the evaluator (safe for concurrent use)
// are generated once per preset and shared; every call gets its own
// Encryptor and Decryptor, which are one per goroutine, so that tests can
// run in parallel.
func kit(t testing.TB, id fhe.PresetID) *fhetest.Kit {
	t.Helper()
	kitMu.Lock()
	defer kitMu.Unlock()
	k, ok := kits[id]
	if !ok {
		p, err := fhe.NewParams(id)
		require.NoError(t, err)
		keys := fhe.GenKeys(p, nil)
		ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: keys.Relin})
		require.NoError(t, err)
		k = &fhetest.Kit{Params: p, Keys: keys, Eval: ev}
		kits[id] = k
	}
	return &fhetest.Kit{Params: k.Params, Keys: k.Keys, Eval: k.Eval, Enc: fhe.NewEncryptor(k.Keys.Public), Dec: fhe.NewDecryptor(k.Keys.Secret)}
}

// randomInputs draws n decisions: uniform in the declared ranges, with both
// range boundaries of every input in the first slots.
func randomInputs(r *rand.Rand, plan *policy.Plan, n int) [][]int64 {
	out := make([][]int64, len(plan.Inputs))
	for j, in := range plan.Inputs {
		v := make([]int64, n)
		for i := range v {
			switch {
			case i < 4 && i%2 == j%2:
				v[i] = in.Min
			case i < 4:
				v[i] = in.Max
			default:
				v[i] = in.Min + r.Int64N(in.Max-in.Min+1)
			}
		}
		out[j] = v
	}
	return out
}

func encrypted(t *testing.T, plan *policy.Plan, k *fhetest.Kit, slots [][]int64, opt eval.Options) []int64 {
	t.Helper()
	cts, err := eval.EncryptSlots(k.Enc, slots)
	require.NoError(t, err)
	out, err := eval.EvaluateWith(context.Background(), plan, k.Eval, cts, opt)
	require.NoError(t, err)
	got, err := eval.DecryptVerdicts(k.Dec, out, len(slots[0]))
	require.NoError(t, err)
	return got
}

// TestOperators: for every operator, the decrypted verdict equals the
// plaintext reference (EvalPlain) and the document's semantics (EvalSpec) on
// random in-range inputs including the range boundaries.
func TestOperators(t *testing.T) {
	t.Parallel()
	k := kit(t, fhetest.InsecureBGVN10Deep)
	x := "{name: x, min: 0, max: 31}"
	y := "{name: y, min: 0, max: 31}"
	s := "{name: s, min: -16, max: 15}"
	b := "{name: b, min: 0, max: 1}"
	for _, tc := range []struct {
		name, inputs, out string
	}{
		{"ge", x, "x >= 17"},
		{"gt", x, "x > 17"},
		{"le", x, "x <= 0"},
		{"lt", x, "x < 31"},
		{"eq", x, "x == 5"},
		{"ne", x, "x != 5"},
		{"signed", s, "s < -3"},
		{"two inputs", x + ", " + y, "x < y"},
		{"weighted", x + ", " + y, "3*x - 2*y + 7 >= 20"},
		{"heavy weights (rescale)", "{name: u, min: 0, max: 7}, {name: v, min: 0, max: 7}", "9*u + 5*v >= 40"},
		{"in", x, "x in {1, 3, 5..9, 30}"},
		{"not in", s, "s not in {-16, 0, 15}"},
		{"and", x + ", " + y, "x >= 3 && y <= 20"},
		{"or", x + ", " + y, "x >= 29 || y == 0"},
		{"not", x + ", " + y, "!(x >= 3 && y <= 20)"},
		{"and3 or", x + ", " + y + ", " + b, "(x > 4 and y > 4) or not b"},
		{"bool input", b + ", " + x, "b && x > 1"},
		{"fused", x, "(x >= 3 && x < 10) || x == 20"},
		{"if", x + ", " + y + ", " + b, "if(b, x > 10, y > 10)"},
		{"mul cmp", "{name: u, min: 0, max: 7}, {name: v, min: 0, max: 7}", "u*v >= 20"},
		{"score after poly", x + ", " + y, "score:-3:40:5*(x >= 3) - 3*(y > 8) + 35*(x < 1 && y > 9) - 0"},
		{"score mul", x + ", " + y, "score:0:961:x*y"},
		{"score weighted", x + ", " + y + ", " + s, "score:-200:300:4*x + 3*y - 2*s - 5"},
		{"score if", x + ", " + b, "score:0:31:if(b, x, 31 - x)"},
		{"score square", s, "score:0:256:s*s"},
		{"heavy weight after mul", x + ", " + y, "score:0:30000:30000*(x >= 3 && y < 20)"},
		{"heavy weights after polys", x + ", " + y + ", " + b, "score:-20000:30000:if(b, 1000*(x > 3) + 29000*(y < 9), -20000*(x == 5 || y == 6))"},
		{"score input", x, "score:0:31:x"},
		{"constant", x, "x >= 0"},
		// A 16-bit comparison from two encrypted 8-bit digits (lexicographic, depth 9).
		{"digits", "{name: hi, min: 0, max: 255}, {name: lo, min: 0, max: 255}", "if(hi == 12, lo >= 34, hi > 12)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := "{expr: \"" + tc.out + "\"}"
			var lo, hi int64
			if n, _ := fmt.Sscanf(tc.out, "score:%d:%d:", &lo, &hi); n == 2 {
				expr := tc.out[len(fmt.Sprintf("score:%d:%d:", lo, hi)):]
				out = fmt.Sprintf("{type: score, min: %d, max: %d, expr: \"%s\"}", lo, hi, expr)
			}
			doc := "fhegate_policy: 1\nname: op\ninputs: [" + tc.inputs + "]\noutput: " + out + "\n"
			plan, err := policy.CompileWith([]byte(doc), deep)
			require.NoError(t, err, doc)
			r := rand.New(rand.NewPCG(9, uint64(len(tc.name))))
			in := randomInputs(r, plan, 256)
			want, err := plan.EvalSpec(in)
			require.NoError(t, err)
			plain, err := plan.EvalPlain(in)
			require.NoError(t, err)
			require.Equal(t, want, plain)
			require.Equal(t, want, encrypted(t, plan, k, in, eval.Options{}))
		})
	}
}

func TestExamples(t *testing.T) {
	t.Parallel()
	k := kit(t, fhetest.InsecureBGVN10Deep)
	for _, name := range examples.Names() {
		t.Run(name, func(t *testing.T) {
			plan, err := policy.CompileWith(examples.MustGet(name), deep)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(1, uint64(len(name))))
			in := randomInputs(r, plan, plan.Slots)
			want, err := plan.EvalSpec(in)
			require.NoError(t, err)
			require.Equal(t, want, encrypted(t, plan, k, in, eval.Options{}))
			// Parallel evaluation gives the same bytes.
			cts, err := eval.EncryptSlots(k.Enc, in)
			require.NoError(t, err)
			a, err := eval.Evaluate(context.Background(), plan, k.Eval, cts)
			require.NoError(t, err)
			b, err := eval.EvaluateWith(context.Background(), plan, k.Eval, cts, eval.Options{Parallel: 4})
			require.NoError(t, err)
			ab, err := a.MarshalBinary()
			require.NoError(t, err)
			bb, err := b.MarshalBinary()
			require.NoError(t, err)
			require.True(t, bytes.Equal(ab, bb))
		})
	}
}

// TestOutOfRange proves the declared behaviour: for inputs outside the
// declared range the encrypted verdict equals EvalPlain (the plan over Z_t),
// and is not always 0/1.
func TestOutOfRange(t *testing.T) {
	t.Parallel()
	k := kit(t, fhetest.InsecureBGVN10Deep)
	plan, err := policy.CompileWith(examples.MustGet("kyc_aml"), deep)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(5, 5))
	in := randomInputs(r, plan, 512)
	age := plan.InputIndex("age")
	for i := range in[age] {
		in[age][i] = 128 + int64(i) // outside 0..127
	}
	in[plan.InputIndex("country")][7] = -3
	plain, err := plan.EvalPlain(in)
	require.NoError(t, err)
	got := encrypted(t, plan, k, in, eval.Options{})
	require.Equal(t, plain, got)
	nonBool := 0
	for _, v := range got {
		if v != 0 && v != 1 {
			nonBool++
		}
	}
	require.Positive(t, nonBool)
	_, err = plan.EvalSpec(in)
	require.ErrorIs(t, err, policy.ErrInput)
}

// TestRefresh: a plan deeper than the preset runs with a refresh function
// (here: decrypt and re-encrypt with the test key, standing in for the
// committee's collective bootstrapping).
func TestRefresh(t *testing.T) {
	t.Parallel()
	k := kit(t, fhetest.InsecureBGVN10Deep)
	doc := "fhegate_policy: 1\nname: deep\ninputs:\n  - {name: a, min: 0, max: 255}\n  - {name: b, min: 0, max: 255}\n  - {name: c, min: 0, max: 255}\noutput: {expr: \"a >= 100 && b < 200 && c != 7\"}\n"
	plan, err := policy.CompileWith([]byte(doc), deep)
	require.NoError(t, err)
	require.True(t, plan.NeedsRefresh)
	cts, err := eval.EncryptSlots(k.Enc, [][]int64{{1}, {1}, {1}})
	require.NoError(t, err)
	_, err = eval.Evaluate(context.Background(), plan, k.Eval, cts)
	require.ErrorIs(t, err, eval.ErrNeedsRefresh)

	refreshes := 0
	var mu sync.Mutex
	refresh := func(_ context.Context, ct *fhe.Ciphertext) (*fhe.Ciphertext, error) {
		mu.Lock()
		refreshes++
		mu.Unlock()
		v, err := k.Dec.DecryptInts(ct)
		if err != nil {
			return nil, err
		}
		return k.Enc.EncryptInts(v)
	}
	r := rand.New(rand.NewPCG(2, 2))
	in := randomInputs(r, plan, 128)
	want, err := plan.EvalSpec(in)
	require.NoError(t, err)
	require.Equal(t, want, encrypted(t, plan, k, in, eval.Options{Refresh: refresh}))
	require.Equal(t, plan.Counts.Refreshes, refreshes)
}

// TestRefreshFloor: with a refresh floor, the same plan refreshes only at
// levels ≥ the floor (the refresh function sees it), needs inputs at level
// ≥ Depth + RefreshFloor, and still decrypts to the reference.
func TestRefreshFloor(t *testing.T) {
	t.Parallel()
	k := kit(t, fhetest.InsecureBGVN10Deep)
	doc := "fhegate_policy: 1\nname: deep\ninputs:\n  - {name: a, min: 0, max: 255}\n  - {name: b, min: 0, max: 255}\n  - {name: c, min: 0, max: 255}\noutput: {expr: \"a >= 100 && b < 200 && c != 7\"}\n"
	opt := deep
	opt.RefreshFloor = 1
	plan, err := policy.CompileWith([]byte(doc), opt)
	require.NoError(t, err)
	require.Equal(t, 1, plan.RefreshFloor)
	require.LessOrEqual(t, plan.Depth, plan.PresetDepth-plan.RefreshFloor)
	refresh, levels := recordingRefresh(k)
	r := rand.New(rand.NewPCG(2, 3))
	in := randomInputs(r, plan, 128)
	want, err := plan.EvalSpec(in)
	require.NoError(t, err)
	require.Equal(t, want, encrypted(t, plan, k, in, eval.Options{Refresh: refresh}))
	require.Len(t, levels(), plan.Counts.Refreshes)
	require.Positive(t, plan.Counts.Refreshes)
	for _, l := range levels() {
		require.GreaterOrEqual(t, l, plan.RefreshFloor)
	}
	// Inputs too low for Depth + RefreshFloor are refused before any work.
	cts, err := eval.EncryptSlots(k.Enc, [][]int64{{1}, {1}, {1}})
	require.NoError(t, err)
	low, err := k.Eval.DropLevels(cts[0], cts[0].Level()-(plan.Depth+plan.RefreshFloor-1))
	require.NoError(t, err)
	require.ErrorIs(t, eval.Check(plan, k.Eval, []*fhe.Ciphertext{low, cts[1], cts[2]}), fhe.ErrLevel)
	// A floor outside 0 … Depth − 1 is refused.
	opt.RefreshFloor = opt.Depth
	_, err = policy.CompileWith([]byte(doc), opt)
	require.ErrorIs(t, err, policy.ErrSchema)
}

func TestBadInputs(t *testing.T) {
	t.Parallel()
	k := kit(t, fhetest.InsecureBGVN10Deep)
	k4 := kit(t, fhetest.InsecureBGVN10)
	plan, err := policy.CompileWith(examples.MustGet("credit_limit"), deep)
	require.NoError(t, err)
	good, err := eval.EncryptSlots(k.Enc, [][]int64{{1}, {2}, {3}, {0}})
	require.NoError(t, err)
	other, err := k4.Enc.EncryptInts([]int64{1})
	require.NoError(t, err)
	low, err := k.Eval.DropLevels(good[2], 1)
	require.NoError(t, err)
	ctx := context.Background()
	with := func(j int, ct *fhe.Ciphertext) []*fhe.Ciphertext {
		out := append([]*fhe.Ciphertext(nil), good...)
		out[j] = ct
		return out
	}
	for _, tc := range []struct {
		name   string
		ev     *fhe.Evaluator
		inputs []*fhe.Ciphertext
		kind   error
		index  int
	}{
		{"too few", k.Eval, good[:3], eval.ErrArity, -1},
		{"too many", k.Eval, append(good, good[0]), eval.ErrArity, -1},
		{"nil input", k.Eval, with(1, nil), eval.ErrCiphertext, 1},
		{"wrong preset input", k.Eval, with(3, other), eval.ErrPreset, 3},
		{"level too low", k.Eval, with(2, low), fhe.ErrLevel, 2},
		{"wrong evaluator", k4.Eval, good, eval.ErrPreset, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := eval.Evaluate(ctx, plan, tc.ev, tc.inputs)
			require.ErrorIs(t, err, tc.kind)
			var ie *eval.InputError
			if tc.index >= 0 {
				require.True(t, errors.As(err, &ie), err.Error())
				require.Equal(t, tc.index, ie.Index)
				require.Equal(t, plan.Inputs[tc.index].Name, ie.Name)
			}
		})
	}
	// A plan compiled for BGVN14 refuses the test preset's evaluator.
	real, err := policy.Compile(examples.MustGet("credit_limit"))
	require.NoError(t, err)
	_, err = eval.Evaluate(ctx, real, k.Eval, good)
	require.ErrorIs(t, err, eval.ErrPreset)
	// Cancelled context.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = eval.Evaluate(cctx, plan, k.Eval, good)
	require.ErrorIs(t, err, context.Canceled)
}

func TestBatch(t *testing.T) {
	t.Parallel()
	k := kit(t, fhetest.InsecureBGVN10Deep)
	plan, err := policy.CompileWith(examples.MustGet("credit_limit"), deep)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(4, 4))
	var sets [][]*fhe.Ciphertext
	var wants [][]int64
	for s := 0; s < 3; s++ {
		decisions := make([][]int64, 100)
		for i := range decisions {
			decisions[i] = []int64{r.Int64N(64), r.Int64N(16), r.Int64N(16), r.Int64N(2)}
		}
		cts, err := eval.EncryptDecisions(k.Enc, plan, decisions)
		require.NoError(t, err)
		sets = append(sets, cts)
		packed, err := plan.PackInputs(decisions)
		require.NoError(t, err)
		w, err := plan.EvalSpec(packed)
		require.NoError(t, err)
		wants = append(wants, w)
	}
	outs, err := eval.EvaluateBatch(context.Background(), plan, k.Eval, sets, eval.Options{Parallel: 2})
	require.NoError(t, err)
	for s, out := range outs {
		got, err := eval.DecryptVerdicts(k.Dec, out, 100)
		require.NoError(t, err)
		require.Equal(t, wants[s], got)
	}
}

// TestPresetsMirrorFHE: policy's preset table matches package fhe.
func TestPresetsMirrorFHE(t *testing.T) {
	t.Parallel()
	for _, pi := range policy.Presets {
		p, err := fhe.NewParams(fhe.PresetID(pi.ID))
		require.NoError(t, err)
		require.Equal(t, pi.Name, p.Preset.Name)
		require.Equal(t, pi.Depth, p.MaxLevel())
		require.Equal(t, pi.Depth, p.Preset.Depth)
		require.Equal(t, pi.Slots, p.Slots())
		require.Equal(t, uint64(policy.PlaintextModulus), p.PlaintextModulus())
	}
}

// TestKYCOnBGVN14 runs the KYC example on the real preset with 16384 packed
// decisions (slow: skipped with -short). Its plan stays above BGVN14's
// refresh floor (level 1), so it refreshes twice (here by decrypting and
// re-encrypting with the test key), each time at a level ≥ the floor.
func TestKYCOnBGVN14(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("BGVN14: key generation and a depth-9 evaluation at N=2^14")
	}
	k := kit(t, fhe.BGVN14)
	plan, err := policy.Compile(examples.MustGet("kyc_aml"))
	require.NoError(t, err)
	require.Equal(t, policy.PresetBGVN14, plan.Preset)
	require.Equal(t, 1, plan.RefreshFloor)
	refresh, levels := recordingRefresh(k)
	r := rand.New(rand.NewPCG(14, 14))
	in := randomInputs(r, plan, plan.Slots)
	want, err := plan.EvalSpec(in)
	require.NoError(t, err)
	require.Equal(t, want, encrypted(t, plan, k, in, eval.Options{Refresh: refresh}))
	require.Len(t, levels(), plan.Counts.Refreshes)
	for _, l := range levels() {
		require.GreaterOrEqual(t, l, plan.RefreshFloor)
	}
}

// TestNoiseBudget backs policy.NoiseBudget: a two-input weighted sum with
// Σ|w| = NoiseBudget feeding a degree-448 polynomial (depth 9) decrypts
// correctly without a rescale; one more unit of weight inserts the rescale.
func TestNoiseBudget(t *testing.T) {
	t.Parallel()
	k := kit(t, fhetest.InsecureBGVN10Deep)
	head := "fhegate_policy: 1\nname: nb\ninputs: [{name: a, min: 0, max: 63}, {name: b, min: 0, max: 7}]\n"
	plan, err := policy.CompileWith([]byte(head+"output: {expr: \"7*a + b >= 200\"}\n"), deep)
	require.NoError(t, err)
	require.Zero(t, plan.Counts.CtPt)
	require.Equal(t, 9, plan.Depth)
	r := rand.New(rand.NewPCG(8, 8))
	in := randomInputs(r, plan, 1024)
	want, err := plan.EvalSpec(in)
	require.NoError(t, err)
	require.Equal(t, want, encrypted(t, plan, k, in, eval.Options{}))

	over, err := policy.CompileWith([]byte(head+"output: {expr: \"8*a + b >= 200\"}\n"), deep)
	require.NoError(t, err)
	require.Equal(t, 1, over.Counts.CtPt)
	require.Greater(t, over.UnrefreshedDepth, plan.UnrefreshedDepth)
}

// TestNoiseBudgetIsNeeded shows why the compiler rescales heavy weighted
// sums: 32·x (noise ×32) into a degree-255 polynomial no longer decrypts on
// the test preset, while x itself does.
func TestNoiseBudgetIsNeeded(t *testing.T) {
	t.Parallel()
	k := kit(t, fhetest.InsecureBGVN10Deep)
	r := rand.New(rand.NewPCG(6, 6))
	x := make([]int64, 64)
	for i := range x {
		x[i] = int64(i)
	}
	coeffs := make([]int64, 256)
	for i := range coeffs {
		coeffs[i] = r.Int64N(policy.PlaintextModulus)
	}
	ct, err := k.Enc.EncryptInts(x)
	require.NoError(t, err)
	wrong := func(in *fhe.Ciphertext, w int64) int {
		out, err := k.Eval.EvalPolyInts(in, coeffs)
		require.NoError(t, err)
		got, err := k.Dec.DecryptUints(out)
		require.NoError(t, err)
		bad := 0
		for i, xi := range x {
			v := uint64(w * xi % policy.PlaintextModulus)
			var acc uint64
			for j := len(coeffs) - 1; j >= 0; j-- {
				acc = (acc*v + uint64(coeffs[j])) % policy.PlaintextModulus
			}
			if acc != got[i] {
				bad++
			}
		}
		return bad
	}
	require.Zero(t, wrong(ct, 1))
	heavy := ct
	for i := 0; i < 5; i++ { // ×32 by doubling
		heavy, err = k.Eval.Add(heavy, heavy)
		require.NoError(t, err)
	}
	require.Greater(t, wrong(heavy, 32), len(x)/2)
}

// recordingRefresh is a stand-in for the committee's refresh (decrypt and
// re-encrypt with the test keys) that records the level of every ciphertext
// it refreshes.
func recordingRefresh(k *fhetest.Kit) (func(context.Context, *fhe.Ciphertext) (*fhe.Ciphertext, error), func() []int) {
	var mu sync.Mutex
	var levels []int
	return func(_ context.Context, ct *fhe.Ciphertext) (*fhe.Ciphertext, error) {
			mu.Lock()
			levels = append(levels, ct.Level())
			mu.Unlock()
			v, err := k.Dec.DecryptInts(ct)
			if err != nil {
				return nil, err
			}
			return k.Enc.EncryptInts(v)
		}, func() []int {
			mu.Lock()
			defer mu.Unlock()
			return append([]int(nil), levels...)
		}
}
