//go:build opencl && cgo

package fhecheck_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/fhecheck"
	"github.com/fhegate/fhegate/gpu/opencl"
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
// byte-identical with every NTT on OpenCL (threshold forced to 1).
func TestOpenCLFHEByteIdentical(t *testing.T) { fhecheck.RunFHE(t, openCL(t)) }

// TestOpenCLWorkloadsByteIdentical: every bench/workloads workload gives the
// same output bytes with every NTT on OpenCL.
func TestOpenCLWorkloadsByteIdentical(t *testing.T) { fhecheck.RunWorkloads(t, openCL(t)) }

// TestOpenCLPolicyByteIdentical: the committee's policy evaluation (KYC/AML,
// depth 9) gives the same result bytes with every NTT on OpenCL.
func TestOpenCLPolicyByteIdentical(t *testing.T) { fhecheck.RunPolicy(t, openCL(t)) }
