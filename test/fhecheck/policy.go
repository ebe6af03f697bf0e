package fhecheck

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/internal/testseed"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/policy/examples"
)

// RunPolicy proves the committee's evaluation path is routing-independent:
// the KYC/AML example policy (depth 9: polynomial evaluation, relinearisation,
// modulus switching — what a committee member runs before it compares result
// digests) evaluated through policy/eval on the insecure deep BGV preset gives
// a byte-identical result ciphertext with acc armed and forced on at threshold
// 1 and with no dispatcher, in parallel mode (two goroutines). Its
// relinearisations (Mul and the polynomial evaluator's power basis) are the
// engine's key switch, so the counters must show transforms routed.
// The accelerated verdicts are also decrypted against the plaintext plan.
func RunPolicy(t *testing.T, acc gpu.Backend) {
	require.Nil(t, gpu.Installed(), "another dispatcher is installed")
	p := fhe.MustParams(fhetest.InsecureBGVN10Deep)
	plan, err := policy.CompileWith(examples.MustGet("kyc_aml"), eval.OptionsFor(p))
	require.NoError(t, err)
	keys := fhe.GenKeys(p, nil)
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: keys.Relin})
	require.NoError(t, err)
	rng := testseed.Rand(t, 11)
	const n = 64
	slots := make([][]int64, len(plan.Inputs))
	for j, in := range plan.Inputs {
		slots[j] = make([]int64, n)
		for i := range slots[j] {
			slots[j][i] = in.Min + rng.Int64N(in.Max-in.Min+1)
		}
	}
	cts, err := eval.EncryptSlots(fhe.NewEncryptor(keys.Public), slots)
	require.NoError(t, err)
	run := func(gather bool) []byte {
		out, err := eval.EvaluateWith(context.Background(), plan, ev, cts, eval.Options{Parallel: 2, Gather: gather})
		require.NoError(t, err)
		b, err := out.MarshalBinary()
		require.NoError(t, err)
		return b
	}
	want := run(false)

	d := forced(t, acc)
	require.NoError(t, d.Install())
	got := run(false)
	// The gathered evaluation (whole-step batches, baby steps as linear
	// combinations where the backend has the kernel) gives the same bytes.
	gathered := run(true)
	d.Uninstall()
	require.Equal(t, want, got, "policy result bytes differ with %s", acc.Name())
	require.Equal(t, want, gathered, "gathered policy result bytes differ with %s", acc.Name())
	requireRouted(t, d, acc, "kyc_aml")

	ct, err := fhe.UnmarshalCiphertext(got)
	require.NoError(t, err)
	verdicts, err := eval.DecryptVerdicts(fhe.NewDecryptor(keys.Secret), ct, n)
	require.NoError(t, err)
	plain, err := plan.EvalPlain(slots)
	require.NoError(t, err)
	require.Equal(t, plain, verdicts)
}
