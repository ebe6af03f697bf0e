//go:build cgo

package native

/*
#include "native/native.h"
*/
import "C"

import (
	"fmt"
	"math/bits"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe/engine"
)

// inv2Pow returns 2^{-k} mod q for odd q (k halvings of 1 mod q).
func inv2Pow(q uint64, k int) uint64 {
	x := uint64(1)
	for range k {
		if x&1 == 1 {
			x = x>>1 + q>>1 + 1 // (x + q)/2 without overflow, both odd
		} else {
			x >>= 1
		}
	}
	return x
}

// mulMod is a·b mod q (a·b < q·2^64).
func mulMod(a, b, q uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return bits.Rem64(hi, lo, q)
}

// checkProductRing validates a product job's ring for the kernels.
func checkProductRing(s *ring.SubRing) error {
	switch {
	case s == nil:
		return fmt.Errorf("native: BGV product: nil SubRing")
	case s.N <= 0 || s.N%8 != 0:
		return fmt.Errorf("native: BGV product: N = %d not a positive multiple of 8", s.N)
	case s.Modulus&1 == 0 || s.Modulus < 3 || s.Modulus >= NTTQBound:
		return fmt.Errorf("native: BGV product: q = %d not odd in [3, 2^51)", s.Modulus)
	}
	return nil
}

func productPath(path Path) error {
	if path == PathIFMA && !DetectFeatures().IFMA() {
		return fmt.Errorf("native: BGV product: IFMA path not available here (%s)", DetectFeatures())
	}
	if path != PathIFMA && path != PathEmulated {
		return fmt.Errorf("native: BGV product: path %s has no kernel", path)
	}
	return nil
}

func cu64(s []uint64) *C.uint64_t { return (*C.uint64_t)(unsafe.Pointer(&s[0])) }

// Tensor runs BGV's tensor product (engine.TensorJob) for every job on
// path (PathIFMA or PathEmulated): every output word becomes the canonical
// residue, by the kernel up to the first 8-word block holding an input
// word ≥ q and by the job's Finish (Lattigo's arithmetic) from there. It
// returns how many words Finish computed; an error means nothing was
// written (shapes and moduli are checked first).
func Tensor(path Path, jobs []engine.TensorJob) (int, error) {
	if err := productPath(path); err != nil {
		return 0, err
	}
	for _, j := range jobs {
		if err := checkProductRing(j.S); err != nil {
			return 0, err
		}
		n := j.S.N
		for _, l := range [][]uint64{j.A0, j.A1, j.B0, j.B1, j.Out0, j.Out1, j.Out2} {
			if len(l) < n {
				return 0, fmt.Errorf("native: BGV tensor: a limb of %d words, N = %d", len(l), n)
			}
		}
	}
	tail := 0
	for _, j := range jobs {
		q, n := j.S.Modulus, j.S.N
		w := mulMod(j.TMont%q, inv2Pow(q, 76), q) // t·2^128·2^{-76} = t·2^52
		c, _ := NewMulAccConstants(q)
		o0, o1, o2 := cu64(j.Out0), cu64(j.Out1), cu64(j.Out2)
		a0, a1, b0, b1 := cu64(j.A0), cu64(j.A1), cu64(j.B0), cu64(j.B1)
		cn, cq, qinv := C.size_t(n), C.uint64_t(q), C.uint64_t(c.QInv52)
		cw, cwp := C.uint64_t(w), C.uint64_t(shoupOf(w, q))
		var done C.size_t
		if path == PathIFMA {
			done = C.fg_vec_tensor_ifma(o0, o1, o2, a0, a1, b0, b1, cn, cq, qinv, cw, cwp)
		} else {
			done = C.fg_vec_tensor_emu(o0, o1, o2, a0, a1, b0, b1, cn, cq, qinv, cw, cwp)
		}
		if int(done) < n {
			j.Finish(int(done))
			tail += n - int(done)
		}
	}
	return tail, nil
}

// MulAdd runs BGV's multiply-add by an integer (engine.MulAddJob) for every
// job on path, with the same conventions as Tensor (a block holding a word
// ≥ q in A or Out is finished by the job's Finish).
func MulAdd(path Path, jobs []engine.MulAddJob) (int, error) {
	if err := productPath(path); err != nil {
		return 0, err
	}
	for _, j := range jobs {
		if err := checkProductRing(j.S); err != nil {
			return 0, err
		}
		n := j.S.N
		if len(j.A) < n || len(j.Out) < n || j.W >= j.S.Modulus {
			return 0, fmt.Errorf("native: BGV multiply-add: limbs of %d and %d words, N = %d, w = %d", len(j.A), len(j.Out), n, j.W)
		}
	}
	tail := 0
	for _, j := range jobs {
		q, n := j.S.Modulus, j.S.N
		o, a, cn, cq := cu64(j.Out), cu64(j.A), C.size_t(n), C.uint64_t(q)
		w, wp := C.uint64_t(j.W), C.uint64_t(shoupOf(j.W, q))
		var done C.size_t
		if path == PathIFMA {
			done = C.fg_vec_muladd_ifma(o, a, cn, cq, w, wp)
		} else {
			done = C.fg_vec_muladd_emu(o, a, cn, cq, w, wp)
		}
		if int(done) < n {
			j.Finish(int(done))
			tail += n - int(done)
		}
	}
	return tail, nil
}

// LinComb runs linear combinations (engine.LinCombJob) for every job on
// path (PathIFMA or PathEmulated): every output word becomes the canonical
// residue of out + Σ_k w_k·a_k; a block holding a word ≥ q is finished with
// Lattigo's term-by-term arithmetic (engine.LinCombJob.Finish). It returns
// the number of output words finished that way; an error (nothing written)
// for a malformed job.
func LinComb(path Path, jobs []engine.LinCombJob) (int, error) {
	if err := productPath(path); err != nil {
		return 0, err
	}
	for _, j := range jobs {
		if err := checkProductRing(j.S); err != nil {
			return 0, err
		}
		if err := j.Check(); err != nil {
			return 0, fmt.Errorf("native: %w", err)
		}
	}
	tail := 0
	for _, j := range jobs {
		if done := linCombOne(path, j); done < j.S.N {
			j.Finish(done)
			tail += j.S.N - done
		}
	}
	return tail, nil
}

// linCombOne runs one job's kernel; the term pointers are pinned for the
// call (cgo's rule for Go memory holding Go pointers).
func linCombOne(path Path, j engine.LinCombJob) int {
	terms := len(j.A)
	if terms == 0 {
		return j.S.N
	}
	q := j.S.Modulus
	ptrs := make([]*C.uint64_t, terms)
	ws := make([]C.uint64_t, 2*terms)
	var pin runtime.Pinner
	defer pin.Unpin()
	for k, a := range j.A {
		pin.Pin(&a[0])
		ptrs[k] = cu64(a)
		ws[k], ws[terms+k] = C.uint64_t(j.W[k]), C.uint64_t(shoupOf(j.W[k], q))
	}
	o, n, cq, t := cu64(j.Out), C.size_t(j.S.N), C.uint64_t(q), C.size_t(terms)
	if path == PathIFMA {
		return int(C.fg_vec_lincomb_ifma(o, &ptrs[0], &ws[0], &ws[terms], t, n, cq))
	}
	return int(C.fg_vec_lincomb_emu(o, &ptrs[0], &ws[0], &ws[terms], t, n, cq))
}

// runProduct runs a product kernel (run) for the backend when its path
// has one and every modulus sub(0…n−1) is one the kernels take (else
// false, nothing written: the engine runs Lattigo's loops), and counts the
// limbs and the words finished in Go.
func (b *Backend) runProduct(n int, sub func(i int) *ring.SubRing, run func(Path) (int, error), limbs *atomic.Uint64) (bool, error) {
	if b.path != PathIFMA && b.path != PathEmulated {
		return false, nil
	}
	for i := range n {
		if s := sub(i); s == nil || s.Modulus >= NTTQBound {
			return false, nil
		}
	}
	tail, err := run(b.path)
	if err != nil {
		return false, err
	}
	limbs.Add(uint64(n))
	b.productTail.Add(uint64(tail))
	return true, nil
}

// Tensor implements gpu.ProductBackend on the backend's path (false on
// the scalar path: no kernel).
func (b *Backend) Tensor(jobs []engine.TensorJob) (bool, error) {
	return b.runProduct(len(jobs), func(i int) *ring.SubRing { return jobs[i].S },
		func(p Path) (int, error) { return Tensor(p, jobs) }, &b.tensors)
}

// MulAdd implements gpu.ProductBackend on the backend's path.
func (b *Backend) MulAdd(jobs []engine.MulAddJob) (bool, error) {
	return b.runProduct(len(jobs), func(i int) *ring.SubRing { return jobs[i].S },
		func(p Path) (int, error) { return MulAdd(p, jobs) }, &b.mulAdds)
}

// LinComb implements gpu.LinCombBackend on the backend's path.
func (b *Backend) LinComb(jobs []engine.LinCombJob) (bool, error) {
	return b.runProduct(len(jobs), func(i int) *ring.SubRing { return jobs[i].S },
		func(p Path) (int, error) { return LinComb(p, jobs) }, &b.linCombs)
}

// LinCombCount returns how many linear-combination limbs the backend's
// kernels ran since it was opened.
func (b *Backend) LinCombCount() uint64 { return b.linCombs.Load() }

// TensorCount returns how many tensor limbs the backend's kernels ran
// since it was opened.
func (b *Backend) TensorCount() uint64 { return b.tensors.Load() }

// ProductTailWords returns how many output words of the product kernels
// Lattigo's arithmetic finished (an input word ≥ q in their block) since
// the backend was opened.
func (b *Backend) ProductTailWords() uint64 { return b.productTail.Load() }

// MulAddCount returns how many multiply-add limbs the backend's kernels
// ran since it was opened.
func (b *Backend) MulAddCount() uint64 { return b.mulAdds.Load() }
