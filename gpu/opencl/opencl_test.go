//go:build opencl && cgo

package opencl_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/gputest"
	"github.com/fhegate/fhegate/gpu/opencl"
)

func open(t testing.TB) gpu.Backend {
	t.Helper()
	b, err := opencl.New()
	require.NoError(t, err, "the opencl tag needs an OpenCL device (CI: PoCL)")
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	t.Logf("device %+v", b.Info())
	return b
}

func TestOpenCLConformance(t *testing.T) { gputest.Run(t, open(t)) }

// TestOpenCLMultiConformance: OpenCL's own NTTMulti (one lock, device
// buffer and twiddles resident, one launch sequence per modulus, outputs
// committed only when every limb succeeded) meets the multi-modulus suite.
func TestOpenCLMultiConformance(t *testing.T) {
	b := open(t)
	_, ok := b.(gpu.MultiBackend)
	require.True(t, ok)
	gputest.RunMulti(t, b)
	gputest.RunMultiErrors(t, b)
}

func TestOpenCLErrors(t *testing.T) { gputest.RunErrors(t, open(t)) }

func TestOpenCLSelfTest(t *testing.T) { require.NoError(t, gpu.SelfTest(open(t), 3)) }

func TestOpenCLClosed(t *testing.T) {
	b, err := opencl.New()
	require.NoError(t, err)
	require.NoError(t, b.Close())
	require.NoError(t, b.Close())
	p, err := gpu.NewParams(1<<10, gpu.SelfTestPrimes()[0])
	require.NoError(t, err)
	x := [][]uint64{make([]uint64, p.N)}
	require.ErrorIs(t, b.NTT(gpu.Forward, p, x, x), gpu.ErrClosed)
}

// The byte-identity checks of FHE, workload and policy evaluations on OpenCL
// (TestOpenCL*ByteIdentical) are in test/fhecheck.

// TestOpenCLConformanceUnfused runs the one-launch-per-stage path too.
func TestOpenCLConformanceUnfused(t *testing.T) {
	b := open(t).(*opencl.Backend)
	b.NoFusion = true
	gputest.Run(t, b)
}

func TestOpenCLFusesStages(t *testing.T) {
	b := open(t).(*opencl.Backend)
	t.Logf("fused block 2^%d coefficients", b.FusedLogL())
	require.GreaterOrEqual(t, b.FusedLogL(), 2, "PoCL offers large work groups and local memory")
}
