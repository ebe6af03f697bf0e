package eval_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/policy/examples"
)

// deep is the test target: the insecure N=2^10 preset with BGVN14's depth.
var deep = policy.Options{Preset: uint8(fhetest.InsecureBGVN10Deep), Depth: 9, Slots: 1024}

var kits = map[fhe.PresetID]*fhetest.Kit{}

func kit(t testing.TB, id fhe.PresetID) *fhetest.Kit {
	t.Helper()
	if k, ok := kits[id]; ok {
		return k
	}
	p, err := fhe.NewParams(id)
	require.NoError(t, err)
	keys := fhe.GenKeys(p, nil)
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: keys.Relin})
	require.NoError(t, err)
	k := &fhetest.Kit{Params: p, Keys: keys, Eval: ev, Enc: fhe.NewEncryptor(keys.Public), Dec: fhe.NewDecryptor(keys.Secret)}
	kits[id] = k
	return k
}

// randomInputs draws n decisions per input: uniformly in the declared range,
// with the range boundaries forced into the first slots.
func randomInputs(r *rand.Rand, plan *policy.Plan, n int) [][]int64 {
	out := make([][]int64, len(plan.Inputs))
	for j, in := range plan.Inputs {
		v := make([]int64, n)
		for i := range v {
			switch {
			case i == j%4:
				v[i] = in.Min
			case i == 4+j%4:
				v[i] = in.Max
			default:
				v[i] = in.Min + r.Int64N(in.Max-in.Min+1)
			}
		}
		out[j] = v
	}
	return out
}

func runEncrypted(t *testing.T, plan *policy.Plan, k *fhetest.Kit, slots [][]int64, opt eval.Options) []int64 {
	t.Helper()
	cts, err := eval.EncryptSlots(k.Enc, slots)
	require.NoError(t, err)
	out, err := eval.EvaluateWith(context.Background(), plan, k.Eval, cts, opt)
	require.NoError(t, err)
	got, err := eval.DecryptVerdicts(k.Dec, out, len(slots[0]))
	require.NoError(t, err)
	return got
}

func TestExamplesEncryptedMatchPlain(t *testing.T) {
	k := kit(t, fhetest.InsecureBGVN10Deep)
	for _, name := range examples.Names() {
		t.Run(name, func(t *testing.T) {
			plan, err := policy.CompileWith(examples.MustGet(name), deep)
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(1, uint64(len(name))))
			in := randomInputs(r, plan, plan.Slots)
			want, err := plan.EvalSpec(in)
			require.NoError(t, err)
			plain, err := plan.EvalPlain(in)
			require.NoError(t, err)
			require.Equal(t, want, plain)
			got := runEncrypted(t, plan, k, in, eval.Options{})
			require.Equal(t, want, got)
		})
	}
}
