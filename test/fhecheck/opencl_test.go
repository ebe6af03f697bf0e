//go:build opencl && cgo

package fhecheck_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/opencl"
	"github.com/fhegate/fhegate/test/fhecheck"
)

func openCL(t *testing.T) gpu.Backend {
	t.Helper()
	b, err := opencl.New()
	require.NoError(t, err, "the opencl tag needs an OpenCL device (CI: PoCL)")
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	t.Logf("device %+v", b.Info())
	return b
}

// TestOpenCLFHEByteIdentical: FHE outputs through package fhe are
// byte-identical with every NTT, and the key switch's multiply-accumulate,
// basis extensions and ModDown/rescale step, on OpenCL (threshold forced to
// 1); the key-switch kernels did run.
func TestOpenCLFHEByteIdentical(t *testing.T) {
	b := openCL(t)
	fhecheck.RunFHE(t, b)
	requireKeySwitchRan(t, b)
}

// requireKeySwitchRan asserts that every key-switch kernel of b ran.
func requireKeySwitchRan(t *testing.T, b gpu.Backend) {
	t.Helper()
	mac, modUp, sd := b.(*opencl.Backend).KeySwitchCounts()
	t.Logf("OpenCL key-switch kernels: %d multiply-accumulate moduli, %d basis extensions, %d ModDown/rescale limbs", mac, modUp, sd)
	require.Positive(t, mac, "no multiply-accumulate reached the kernels")
	require.Positive(t, modUp, "no basis extension reached the kernels")
	require.Positive(t, sd, "no ModDown/rescale step reached the kernels")
}

// TestOpenCLWorkloadsByteIdentical: every bench/workloads workload gives the
// same output bytes with every NTT on OpenCL.
func TestOpenCLWorkloadsByteIdentical(t *testing.T) { fhecheck.RunWorkloads(t, openCL(t)) }

// TestOpenCLPolicyByteIdentical: the committee's policy evaluation (KYC/AML,
// depth 9) gives the same result bytes with every NTT and the key switch on
// OpenCL.
func TestOpenCLPolicyByteIdentical(t *testing.T) {
	b := openCL(t)
	fhecheck.RunPolicy(t, b)
	requireKeySwitchRan(t, b)
}

// TestOpenCLProductsByteIdentical: with BGV's products on the device too
// (Backend.Products: tensor, multiply-add and the gathered evaluation's
// baby steps as linear combinations) besides every NTT and the key switch,
// FHE outputs and the KYC/AML policy result are byte-identical with the
// unrouted engine; the product kernels did run.
func TestOpenCLProductsByteIdentical(t *testing.T) {
	b := openCL(t)
	b.(*opencl.Backend).Products = true
	fhecheck.RunFHE(t, b)
	fhecheck.RunPolicy(t, b)
	requireKeySwitchRan(t, b)
	lc, tensors := b.(*opencl.Backend).ProductCounts()
	t.Logf("OpenCL product kernels: %d linear-combination limbs (multiply-adds included), %d tensor limbs", lc, tensors)
	require.Positive(t, tensors, "no tensor product reached the kernel")
	require.Positive(t, lc, "no multiply-add or baby step reached the linear-combination kernel")
}
