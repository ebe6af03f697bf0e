package fhecheck_test

import (
	"testing"

	"github.com/fhegate/fhegate/gpu/gputest"
	"github.com/fhegate/fhegate/test/fhecheck"
)

// TestFHEByteIdenticalEmulator: FHE outputs are identical with every NTT
// routed to the kernel emulator (the device-free model of the GPU kernels).
func TestFHEByteIdenticalEmulator(t *testing.T) {
	fhecheck.RunFHE(t, gputest.Emulator{})
}

// TestWorkloadsByteIdenticalEmulator: every bench/workloads workload gives the
// same output bytes with every NTT on the kernel emulator.
func TestWorkloadsByteIdenticalEmulator(t *testing.T) {
	fhecheck.RunWorkloads(t, gputest.Emulator{})
}

// TestPolicyByteIdenticalEmulator: the committee's policy evaluation gives the
// same result bytes with every NTT on the kernel emulator.
func TestPolicyByteIdenticalEmulator(t *testing.T) {
	fhecheck.RunPolicy(t, gputest.Emulator{})
}
