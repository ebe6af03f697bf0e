package fhecheck

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/gpu/kernels"
	"github.com/fhegate/fhegate/internal/testseed"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/policy/examples"
)

func TestZZMeasureKYC(t *testing.T) {
	if os.Getenv("ZZ_MEASURE") == "" {
		t.Skip()
	}
	p := fhe.MustParams(fhe.BGVN14)
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
	if os.Getenv("ZZ_MEASURE") == "profile" {
		for i := 0; i < 3; i++ {
			_, err := eval.EvaluateWith(context.Background(), plan, ev, cts, eval.Options{Parallel: 1})
			require.NoError(t, err)
		}
		return
	}
	d := forced(t, kernels.Emulator{})
	require.NoError(t, d.Install())
	defer d.Uninstall()
	for i := 0; i < 1; i++ {
		_, err := eval.EvaluateWith(context.Background(), plan, ev, cts, eval.Options{Parallel: 1})
		require.NoError(t, err)
	}
	rs := d.RouterStats()
	t.Logf("BGVN14 kyc_aml x1: %d of %d routed, %d batches, median %d p95 %d", rs.Routed, rs.Transforms, rs.Batches, rs.MedianBatch, rs.P95Batch)
}
