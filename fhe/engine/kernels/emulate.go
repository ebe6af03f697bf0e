package kernels

import (
	"math/bits"
	"runtime"
	"sync"
)

// Emulate runs the NTT kernel programs (ntt.cl, ntt.metal) in Go on buf, the
// device buffer of len(buf)/2^logN polynomials of 2^logN words each, in
// place: the same schedule (ForwardStages, InverseStages), the same
// per-work-item index map and the same arithmetic as ntt_arith.h, work item
// by work item, stage by stage over the whole buffer, with the work items of
// a stage spread over goroutines, then the epilogue (BRedAdd forward, MRed
// by nInv inverse). roots are Lattigo's RootsForward (forward) or
// RootsBackward (inverse) of the modulus q, mredc its Montgomery constant,
// bred0 the first word of its Barrett constant and nInv N^-1 in Montgomery
// form. It is the device-free model of the OpenCL and Metal hosts, not a
// fast path.
func Emulate(inverse bool, logN int, roots []uint64, q, mredc, bred0, nInv uint64, buf []uint64) {
	ln := uint32(logN)
	n := 1 << logN
	total := uint32(len(buf) / 2)
	stages := ForwardStages(logN)
	if inverse {
		stages = InverseStages(logN)
	}
	for _, st := range stages {
		parallel(total, func(gid uint32) {
			k := gid & (1<<(ln-1) - 1)
			a := buf[int(gid>>(ln-1))*n:]
			x := pairX(k, st.LogT)
			y := x + 1<<st.LogT
			psi := roots[rootIndex(k, ln, st.LogT)]
			if inverse {
				a[x], a[y] = invButterfly(a[x], a[y], psi, q, mredc)
			} else {
				a[x], a[y] = fwdButterfly(a[x], a[y], psi, q, mredc, st.Reduce)
			}
		})
	}
	parallel(2*total, func(gid uint32) {
		if inverse {
			buf[gid] = mred(buf[gid], nInv, q, mredc)
		} else {
			buf[gid] = bredAdd(buf[gid], q, bred0)
		}
	})
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
