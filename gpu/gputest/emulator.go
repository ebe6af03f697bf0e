package gputest

import (
	"runtime"

	"github.com/fhegate/fhegate/fhe/engine/kernels"
	"github.com/fhegate/fhegate/gpu"
)

// EmulatorName is the name of the Go kernel emulator backend.
const EmulatorName = "emulator"

// Emulator is a gpu.Backend that executes the kernel programs in Go
// (kernels.Emulate): the same schedule, index map and arithmetic as the
// OpenCL and Metal kernels, over the whole batch as one device buffer. It is
// the device-free model of the OpenCL and Metal hosts (tests, and a
// non-trivial accelerator for dispatcher tests), not a fast path.
type Emulator struct{}

// Name implements gpu.Backend.
func (Emulator) Name() string { return EmulatorName }

// Info implements gpu.Backend.
func (Emulator) Info() gpu.DeviceInfo {
	return gpu.DeviceInfo{Backend: EmulatorName, Device: "go kernel emulator", Driver: runtime.Version(), HostCPU: gpu.HostCPU()}
}

// Close implements gpu.Backend.
func (Emulator) Close() error { return nil }

// NTT implements gpu.Backend.
func (Emulator) NTT(dir gpu.Direction, p *gpu.Params, src, dst [][]uint64) error {
	if err := gpu.CheckBatch(p, src, dst); err != nil {
		return err
	}
	n := p.N
	buf := make([]uint64, len(src)*n) // the device buffer
	for i := range src {
		copy(buf[i*n:], src[i])
	}
	roots := p.RootsForward
	if dir == gpu.Inverse {
		roots = p.RootsBackward
	}
	kernels.Emulate(dir == gpu.Inverse, p.LogN(), roots, p.Q, p.MRedConstant, p.BRedConstant[0], p.NInv, buf)
	for i := range dst {
		copy(dst[i], buf[i*n:(i+1)*n])
	}
	return nil
}
