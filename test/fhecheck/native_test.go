//go:build cgo

package fhecheck_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/native"
	"github.com/fhegate/fhegate/test/fhecheck"
)

func openNative(t *testing.T) gpu.Backend {
	t.Helper()
	b, err := native.New()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	_, multi := b.(gpu.MultiBackend)
	require.True(t, multi, "native runs whole multi-modulus batches")
	t.Logf("device %+v", b.Info())
	return b
}

// TestNativeFHEByteIdentical: FHE outputs through package fhe are
// byte-identical with every engine batch on the native backend's NTTMulti
// (threshold forced to 1; IFMA path where the CPU has it, else scalar C).
func TestNativeFHEByteIdentical(t *testing.T) { fhecheck.RunFHE(t, openNative(t)) }

// TestNativePolicyByteIdentical: the committee's policy evaluation gives the
// same result bytes with every engine batch on the native backend.
func TestNativePolicyByteIdentical(t *testing.T) { fhecheck.RunPolicy(t, openNative(t)) }

// TestNativeWorkloadsByteIdentical: every bench/workloads workload gives the
// same output bytes with every engine batch on the native backend.
func TestNativeWorkloadsByteIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("workloads on native: long")
	}
	fhecheck.RunWorkloads(t, openNative(t))
}

// openNativePath opens the native backend on path p (skipping where p cannot
// run here).
func openNativePath(t *testing.T, p native.Path) *native.Backend {
	t.Helper()
	b, err := native.NewPath(p)
	if err != nil {
		t.Skipf("native %s path: %v", p, err)
	}
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

// TestNativeKeySwitchByteIdentical: with the key switch's multiply-accumulate
// basis extensions (decomposition, ModDown) and ModDown's and the rescale's
// last step, and BGV's tensor product, multiply-add by an integer and baby
// steps (linear combinations, gathered evaluation), on the native kernels as
// well as every NTT (threshold forced to 1), FHE
// outputs and policy results are byte-identical with the unrouted engine, on
// the emulated IFMA model (any host) and the real IFMA kernels (where the
// CPU has them); the kernels did run.
func TestNativeKeySwitchByteIdentical(t *testing.T) {
	for _, p := range []native.Path{native.PathEmulated, native.PathIFMA} {
		t.Run(p.String(), func(t *testing.T) {
			b := openNativePath(t, p)
			fhecheck.RunFHE(t, b)
			if p == native.PathIFMA || !testing.Short() {
				fhecheck.RunPolicy(t, b)
			}
			require.Positive(t, b.MulAccCount(), "no multiply-accumulate reached the kernels")
			require.Positive(t, b.ModUpCount(), "no basis extension reached the kernels")
			require.Positive(t, b.ScaleDiffCount(), "no ModDown/rescale step reached the kernels")
			require.Positive(t, b.TensorCount(), "no BGV tensor product reached the kernels")
			t.Logf("product kernels: %d tensor limbs, %d multiply-add limbs, %d linear-combination limbs, %d words finished by Lattigo's arithmetic",
				b.TensorCount(), b.MulAddCount(), b.LinCombCount(), b.ProductTailWords())
			if p == native.PathIFMA || !testing.Short() {
				require.Positive(t, b.MulAddCount(), "no multiply-add by an integer reached the kernels")
				require.Positive(t, b.LinCombCount(), "no baby step reached the linear-combination kernel")
			}
		})
	}
}
