package gpu

import (
	"runtime"
	"sync"

	"github.com/tuneinsight/lattigo/v6/ring"
)

// CPUName is the name of the always-available CPU backend.
const CPUName = "cpu"

// CPU is the reference backend: Lattigo's own NTTStandard / INTTStandard (the
// functions SubRing.NTT and SubRing.INTT run when no dispatcher takes the
// call), spread over Workers goroutines when B > 1. It never calls
// SubRing.NTT, so it cannot re-enter the dispatcher.
type CPU struct {
	// Workers bounds the parallelism for B > 1; 0 means GOMAXPROCS.
	Workers int
}

// NewCPU returns the CPU backend.
func NewCPU() *CPU { return &CPU{} }

// Name implements Backend.
func (*CPU) Name() string { return CPUName }

// Info implements Backend.
func (*CPU) Info() DeviceInfo {
	return DeviceInfo{Backend: CPUName, Device: "go " + runtime.GOARCH, Driver: runtime.Version(), HostCPU: HostCPU()}
}

// Close implements Backend.
func (*CPU) Close() error { return nil }

// NTT implements Backend.
func (c *CPU) NTT(dir Direction, p *Params, src, dst [][]uint64) error {
	if err := CheckBatch(p, src, dst); err != nil {
		return err
	}
	w := c.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	if w > len(src) {
		w = len(src)
	}
	if w <= 1 {
		for i := range src {
			LatticeNTT(dir, p, src[i], dst[i])
		}
		return nil
	}
	var wg sync.WaitGroup
	wg.Add(w)
	for k := 0; k < w; k++ {
		go func(k int) {
			defer wg.Done()
			for i := k; i < len(src); i += w {
				LatticeNTT(dir, p, src[i], dst[i])
			}
		}(k)
	}
	wg.Wait()
	return nil
}

// LatticeNTT runs Lattigo's Go NTT for one polynomial, exactly what
// SubRing.NTT / SubRing.INTT execute without a dispatcher.
func LatticeNTT(dir Direction, p *Params, src, dst []uint64) {
	if dir == Inverse {
		ring.INTTStandard(src, dst, p.N, p.NInv, p.Q, p.MRedConstant, p.RootsBackward)
		return
	}
	ring.NTTStandard(src, dst, p.N, p.Q, p.MRedConstant, p.BRedConstant, p.RootsForward)
}

// NTTMulti implements MultiBackend: every (modulus, polynomial) of b on the
// worker pool at once. With b.Lazy it runs Lattigo's lazy transforms
// (NTTStandardLazy / INTTStandardLazy, what SubRing.NTTLazy / INTTLazy run),
// so its output is byte-identical to Lattigo's in both modes.
func (c *CPU) NTTMulti(b *Batch) error {
	if err := CheckMulti(b); err != nil {
		return err
	}
	ParallelJobs(b, c.Workers, func(i, k int) {
		l := b.Limbs[i]
		LatticeNTTMode(b.Dir, b.Lazy, l.P, l.Src[k], l.Dst[k])
	})
	return nil
}

// LatticeNTTMode is LatticeNTT, or with lazy Lattigo's lazy transform
// (SubRing.NTTLazy / SubRing.INTTLazy).
func LatticeNTTMode(dir Direction, lazy bool, p *Params, src, dst []uint64) {
	switch {
	case !lazy:
		LatticeNTT(dir, p, src, dst)
	case dir == Inverse:
		ring.INTTStandardLazy(src, dst, p.N, p.NInv, p.Q, p.MRedConstant, p.RootsBackward)
	default:
		ring.NTTStandardLazy(src, dst, p.N, p.Q, p.MRedConstant, p.RootsForward)
	}
}
