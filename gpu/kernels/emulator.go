package kernels

import (
	"math/bits"
	"runtime"
	"sync"

	"github.com/fhegate/fhegate/gpu"
)

// EmulatorName is the name of the Go kernel emulator backend.
const EmulatorName = "emulator"

// Emulator is a gpu.Backend that executes the kernel programs in Go: the
// same schedule, the same per-work-item index map and the same arithmetic
// as ntt_arith.h, work item by work item, stage by stage over the whole
// batch, with the work items of a stage spread over goroutines. It is the
// device-free model of the OpenCL and Metal hosts (tests, and a non-trivial
// accelerator for dispatcher tests), not a fast path.
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
	logN := uint32(p.LogN())
	n := p.N
	buf := make([]uint64, len(src)*n) // the device buffer
	for i := range src {
		copy(buf[i*n:], src[i])
	}
	total := uint32(len(src) * n / 2)
	roots, stages := p.RootsForward, ForwardStages(int(logN))
	if dir == gpu.Inverse {
		roots, stages = p.RootsBackward, InverseStages(int(logN))
	}
	for _, st := range stages {
		parallel(total, func(gid uint32) {
			k := gid & (1<<(logN-1) - 1)
			a := buf[int(gid>>(logN-1))*n:]
			x := pairX(k, st.LogT)
			y := x + 1<<st.LogT
			psi := roots[rootIndex(k, logN, st.LogT)]
			if dir == gpu.Inverse {
				a[x], a[y] = invButterfly(a[x], a[y], psi, p.Q, p.MRedConstant)
			} else {
				a[x], a[y] = fwdButterfly(a[x], a[y], psi, p.Q, p.MRedConstant, st.Reduce)
			}
		})
	}
	parallel(2*total, func(gid uint32) {
		if dir == gpu.Inverse {
			buf[gid] = mred(buf[gid], p.NInv, p.Q, p.MRedConstant)
		} else {
			buf[gid] = bredAdd(buf[gid], p.Q, p.BRedConstant[0])
		}
	})
	for i := range dst {
		copy(dst[i], buf[i*n:(i+1)*n])
	}
	return nil
}

func parallel(total uint32, f func(gid uint32)) {
	w := uint32(runtime.GOMAXPROCS(0))
	if total < 1<<14 || w <= 1 {
		for g := uint32(0); g < total; g++ {
			f(g)
		}
		return
	}
	var wg sync.WaitGroup
	chunk := (total + w - 1) / w
	for lo := uint32(0); lo < total; lo += chunk {
		hi := min(lo+chunk, total)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := lo; g < hi; g++ {
				f(g)
			}
		}()
	}
	wg.Wait()
}

// The functions below transcribe ntt_arith.h.

func mulhi(a, b uint64) uint64 { h, _ := bits.Mul64(a, b); return h }

func mredLazy(x, y, q, mredc uint64) uint64 {
	ahi := mulhi(x, y)
	alo := x * y
	h := mulhi(alo*mredc, q)
	return ahi - h + q
}

func mred(x, y, q, mredc uint64) uint64 {
	r := mredLazy(x, y, q, mredc)
	if r >= q {
		r -= q
	}
	return r
}

func bredAdd(a, q, bred0 uint64) uint64 {
	r := a - mulhi(a, bred0)*q
	if r >= q {
		r -= q
	}
	return r
}

func fwdButterfly(u, v, psi, q, mredc uint64, reduce uint32) (uint64, uint64) {
	if reduce != 0 && u >= q<<2 {
		u -= q << 2
	}
	V := mredLazy(v, psi, q, mredc)
	return u + V, u + q<<1 - V
}

func invButterfly(u, v, psi, q, mredc uint64) (uint64, uint64) {
	x := u + v
	if x >= q<<1 {
		x -= q << 1
	}
	return x, mredLazy(u+q<<2-v, psi, q, mredc)
}

func pairX(k, logT uint32) uint32 { return (k>>logT)<<(logT+1) + k&(1<<logT-1) }

func rootIndex(k, logN, logT uint32) uint32 { return 1<<(logN-1-logT) + k>>logT }
