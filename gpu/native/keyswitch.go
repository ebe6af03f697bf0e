//go:build cgo

package native

/*
#cgo CFLAGS: -O3 -I${SRCDIR}/../../fhe/engine/kernels
#include "native/native.h"
*/
import "C"

import (
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu"
)

// MulAccConstants are the per-modulus constants of GadgetMulAcc: QInv52 =
// q^{-1} mod 2^52 (Montgomery with R = 2^52) and Corr = 2^{-12} mod q with
// its Shoup constant CorrP = ⌊Corr·2^52/q⌋ (2^{-52}·2^{-12} is Lattigo's
// 2^{-64}).
type MulAccConstants struct{ Q, QInv52, Corr, CorrP uint64 }

// NewMulAccConstants returns the constants for an odd q < NTTQBound.
func NewMulAccConstants(q uint64) (MulAccConstants, error) {
	if q&1 == 0 || q < 3 || q >= NTTQBound {
		return MulAccConstants{}, fmt.Errorf("native: gadget multiply-accumulate: q = %d not odd in [3, 2^51)", q)
	}
	inv := q // q·q ≡ 1 (mod 8): 3 bits, doubled by each Newton step
	for range 5 {
		inv *= 2 - q*inv
	}
	corr := uint64(1)
	for range 12 { // halve mod q twelve times: 2^{-12}
		if corr&1 == 1 {
			corr = corr>>1 + q>>1 + 1 // (corr + q)/2 without overflow, both odd
		} else {
			corr >>= 1
		}
	}
	corrP, _ := bits.Div64(corr>>12, corr<<52, q)
	return MulAccConstants{Q: q, QInv52: inv & (1<<52 - 1), Corr: corr, CorrP: corrP}, nil
}

// GadgetMulAcc runs key switching's gadget multiply-accumulate
// (engine.MulAccJob) for every job on path (PathIFMA or PathEmulated) and
// reports whether every input was within the kernel's bounds (keys < q,
// digits < 2q); where one is not, the outputs are unspecified and the
// caller must recompute them. Jobs run on up to workers goroutines (0:
// GOMAXPROCS). An error means nothing usable was written.
func GadgetMulAcc(path Path, workers int, jobs []engine.MulAccJob) (bool, error) {
	if path == PathIFMA && !DetectFeatures().IFMA() {
		return false, fmt.Errorf("native: gadget multiply-accumulate: IFMA path not available here (%s)", DetectFeatures())
	}
	if path != PathIFMA && path != PathEmulated {
		return false, fmt.Errorf("native: gadget multiply-accumulate: path %s has no kernel", path)
	}
	cs := make([]MulAccConstants, len(jobs))
	for i, j := range jobs {
		if err := checkMulAccJob(j); err != nil {
			return false, err
		}
		c, err := NewMulAccConstants(j.S.Modulus)
		if err != nil {
			return false, err
		}
		cs[i] = c
	}
	var bad atomic.Bool
	run := func(i int) {
		if !mulAccOne(path, &jobs[i], cs[i]) {
			bad.Store(true)
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(jobs))
	if workers <= 1 {
		for i := range jobs {
			run(i)
		}
		return !bad.Load(), nil
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(jobs); i += workers {
				run(i)
			}
		}()
	}
	wg.Wait()
	return !bad.Load(), nil
}

func checkMulAccJob(j engine.MulAccJob) error {
	if err := j.Check(); err != nil {
		return fmt.Errorf("native: %w", err)
	}
	if j.S.N%8 != 0 {
		return fmt.Errorf("native: gadget multiply-accumulate: N = %d not a multiple of 8", j.S.N)
	}
	return nil
}

// mulAccOne runs one job; the limb pointers are pinned for the call (cgo's
// rule for Go memory holding Go pointers).
func mulAccOne(path Path, j *engine.MulAccJob, c MulAccConstants) bool {
	digits := len(j.D)
	ptrs := make([]*C.uint64_t, 3*digits)
	var pin runtime.Pinner
	defer pin.Unpin()
	for i := range digits {
		for k, s := range [3][]uint64{j.K0[i], j.K1[i], j.D[i]} {
			pin.Pin(&s[0])
			ptrs[k*digits+i] = (*C.uint64_t)(unsafe.Pointer(&s[0]))
		}
	}
	k0, k1, d := &ptrs[0], &ptrs[digits], &ptrs[2*digits]
	o0, o1 := (*C.uint64_t)(unsafe.Pointer(&j.Out0[0])), (*C.uint64_t)(unsafe.Pointer(&j.Out1[0]))
	n := C.size_t(j.S.N)
	if path == PathIFMA {
		return C.fg_vec_gadget_mac_ifma(o0, o1, k0, k1, d, C.size_t(digits), n, C.uint64_t(c.Q), C.uint64_t(c.QInv52),
			C.uint64_t(c.Corr), C.uint64_t(c.CorrP)) == 1
	}
	return C.fg_vec_gadget_mac_emu(o0, o1, k0, k1, d, C.size_t(digits), n, C.uint64_t(c.Q), C.uint64_t(c.QInv52),
		C.uint64_t(c.Corr), C.uint64_t(c.CorrP)) == 1
}

// GadgetMulAcc implements gpu.KeySwitchBackend on the backend's path
// (false on the scalar path: no kernel).
func (b *Backend) GadgetMulAcc(jobs []engine.MulAccJob) (bool, error) {
	if b.path != PathIFMA && b.path != PathEmulated {
		return false, nil
	}
	for _, j := range jobs {
		if j.S != nil && j.S.Modulus >= NTTQBound {
			return false, nil // a modulus the kernels do not take: the engine's loop
		}
	}
	ok, err := GadgetMulAcc(b.path, b.Workers, jobs)
	if ok && err == nil {
		b.mulAccMods.Add(uint64(len(jobs)))
	}
	return ok, err
}

// ModUp implements gpu.KeySwitchBackend on the backend's path (false on
// the scalar path: no kernel).
func (b *Backend) ModUp(jobs []engine.ModUpJob) (bool, error) {
	if b.path != PathIFMA && b.path != PathEmulated {
		return false, nil
	}
	for _, j := range jobs {
		if j.C != nil && !modUpSupported(j.C) {
			return false, nil // moduli the kernel does not take: the engine's loop
		}
	}
	ok, err := ModUp(b.path, jobs)
	if ok && err == nil {
		b.modUps.Add(uint64(len(jobs)))
	}
	return ok, err
}

// ModUpCount returns how many basis extensions the backend's kernels ran
// since it was opened.
func (b *Backend) ModUpCount() uint64 { return b.modUps.Load() }

// modUpSupported reports whether the kernel takes c's shape and moduli
// (declined, not an error: the engine runs Lattigo's).
func modUpSupported(c *engine.ModUpConstants) bool {
	if len(c.SrcQ) > MaxModUpSources {
		return false
	}
	for _, q := range c.SrcQ {
		if q >= NTTQBound {
			return false
		}
	}
	for _, p := range c.DstQ {
		if p >= NTTQBound {
			return false
		}
	}
	return true
}

// MaxModUpSources bounds the source moduli of the vector basis extension
// (its correction table is one 16-word permutation per target).
const MaxModUpSources = 15

// modUpTables are a ModUpConstants in the kernel's form: Shoup constants
// next to every multiplier, the correction table padded to 16 words.
type modUpTables struct {
	srcQ, add, inv, invp, dstQ, qhat, qhatp, vtab []uint64
}

var modUpTablesCache sync.Map // *engine.ModUpConstants → *modUpTables

func shoupOf(w, q uint64) uint64 {
	wp, _ := bits.Div64(w>>12, w<<52, q)
	return wp
}

func tablesOf(c *engine.ModUpConstants) (*modUpTables, error) {
	if t, ok := modUpTablesCache.Load(c); ok {
		return t.(*modUpTables), nil
	}
	ns, nt := len(c.SrcQ), len(c.DstQ)
	switch {
	case ns == 0 || ns > MaxModUpSources || nt == 0:
		return nil, fmt.Errorf("native: basis extension: %d sources (at most %d), %d targets", ns, MaxModUpSources, nt)
	case len(c.Add) != ns || len(c.Inv) != ns || len(c.QHat) != nt || len(c.VTab) != nt:
		return nil, fmt.Errorf("native: basis extension: inconsistent constants")
	}
	t := &modUpTables{srcQ: c.SrcQ, add: c.Add, inv: c.Inv, dstQ: c.DstQ, vtab: make([]uint64, 16*nt)}
	for i, q := range c.SrcQ {
		if q&1 == 0 || q >= NTTQBound || c.Add[i] >= q || c.Inv[i] >= q {
			return nil, fmt.Errorf("native: basis extension: source modulus %d outside the kernel's range", q)
		}
		t.invp = append(t.invp, shoupOf(c.Inv[i], q))
	}
	for k, p := range c.DstQ {
		if p&1 == 0 || p >= NTTQBound || len(c.QHat[k]) != ns || len(c.VTab[k]) != ns+1 {
			return nil, fmt.Errorf("native: basis extension: target modulus %d outside the kernel's range", p)
		}
		for _, w := range c.QHat[k] {
			if w >= p {
				return nil, fmt.Errorf("native: basis extension: constant %d ≥ %d", w, p)
			}
			t.qhat = append(t.qhat, w)
			t.qhatp = append(t.qhatp, shoupOf(w, p))
		}
		for v, w := range c.VTab[k] {
			if w >= p {
				return nil, fmt.Errorf("native: basis extension: constant %d ≥ %d", w, p)
			}
			t.vtab[16*k+v] = w
		}
	}
	modUpTablesCache.Store(c, t)
	return t, nil
}

// ModUp runs every basis extension (engine.ModUpJob) on path (PathIFMA or
// PathEmulated) and reports whether every source word was < 2q_i (else the
// outputs are unspecified and the caller recomputes them). Moduli must be
// odd and < NTTQBound, at most MaxModUpSources sources, N a multiple of 8.
func ModUp(path Path, jobs []engine.ModUpJob) (bool, error) {
	if path == PathIFMA && !DetectFeatures().IFMA() {
		return false, fmt.Errorf("native: basis extension: IFMA path not available here (%s)", DetectFeatures())
	}
	if path != PathIFMA && path != PathEmulated {
		return false, fmt.Errorf("native: basis extension: path %s has no kernel", path)
	}
	ts := make([]*modUpTables, len(jobs))
	for k, j := range jobs {
		if err := j.Check(); err != nil {
			return false, fmt.Errorf("native: %w", err)
		}
		if j.N%8 != 0 {
			return false, fmt.Errorf("native: basis extension: N = %d not a multiple of 8", j.N)
		}
		t, err := tablesOf(j.C)
		if err != nil {
			return false, err
		}
		ts[k] = t
	}
	all := true
	for k := range jobs {
		if !modUpOne(path, &jobs[k], ts[k]) {
			all = false
		}
	}
	return all, nil
}

func modUpOne(path Path, j *engine.ModUpJob, t *modUpTables) bool {
	ns, nt := len(j.Src), len(j.Dst)
	ptrs := make([]*C.uint64_t, ns+nt)
	var pin runtime.Pinner
	defer pin.Unpin()
	for i, l := range j.Src {
		pin.Pin(&l[0])
		ptrs[nt+i] = (*C.uint64_t)(unsafe.Pointer(&l[0]))
	}
	for i, l := range j.Dst {
		pin.Pin(&l[0])
		ptrs[i] = (*C.uint64_t)(unsafe.Pointer(&l[0]))
	}
	u := func(s []uint64) *C.uint64_t { return (*C.uint64_t)(unsafe.Pointer(&s[0])) }
	if path == PathIFMA {
		return C.fg_vec_modup_ifma(&ptrs[0], &ptrs[nt], C.size_t(ns), C.size_t(nt), C.size_t(j.N), u(t.srcQ), u(t.add),
			u(t.inv), u(t.invp), u(t.dstQ), u(t.qhat), u(t.qhatp), u(t.vtab)) == 1
	}
	return C.fg_vec_modup_emu(&ptrs[0], &ptrs[nt], C.size_t(ns), C.size_t(nt), C.size_t(j.N), u(t.srcQ), u(t.add),
		u(t.inv), u(t.invp), u(t.dstQ), u(t.qhat), u(t.qhatp), u(t.vtab)) == 1
}

// ScaleDiff runs every engine.ScaleDiffJob on path (PathIFMA or
// PathEmulated) and reports whether they ran: every input is checked first
// (< 2q), and if one is not, nothing is written (an output may alias an
// input) and the caller recomputes them all.
func ScaleDiff(path Path, jobs []engine.ScaleDiffJob) (bool, error) {
	if path == PathIFMA && !DetectFeatures().IFMA() {
		return false, fmt.Errorf("native: scale-difference: IFMA path not available here (%s)", DetectFeatures())
	}
	if path != PathIFMA && path != PathEmulated {
		return false, fmt.Errorf("native: scale-difference: path %s has no kernel", path)
	}
	for _, j := range jobs {
		switch {
		case j.S == nil:
			return false, fmt.Errorf("native: scale-difference: nil SubRing")
		case j.S.N <= 0 || j.S.N%8 != 0 || len(j.X) < j.S.N || len(j.Y) < j.S.N || len(j.Out) < j.S.N:
			return false, fmt.Errorf("native: scale-difference: N = %d, limbs of %d, %d, %d words", j.S.N, len(j.X), len(j.Y), len(j.Out))
		case j.S.Modulus&1 == 0 || j.S.Modulus >= NTTQBound || j.W >= j.S.Modulus:
			return false, fmt.Errorf("native: scale-difference: q = %d, w = %d outside the kernel's range", j.S.Modulus, j.W)
		}
	}
	for _, check := range []C.int{1, 0} { // every job checked before any is written
		for _, j := range jobs {
			q := j.S.Modulus
			u := func(s []uint64) *C.uint64_t { return (*C.uint64_t)(unsafe.Pointer(&s[0])) }
			out, x, y, n := u(j.Out), u(j.X), u(j.Y), C.size_t(j.S.N)
			w, wp := C.uint64_t(j.W), C.uint64_t(shoupOf(j.W, q))
			var ok C.int
			if path == PathIFMA {
				ok = C.fg_vec_scalediff_ifma(out, x, y, n, C.uint64_t(q), w, wp, check)
			} else {
				ok = C.fg_vec_scalediff_emu(out, x, y, n, C.uint64_t(q), w, wp, check)
			}
			if ok != 1 {
				return false, nil
			}
		}
	}
	return true, nil
}

// ScaleDiff implements gpu.KeySwitchBackend on the backend's path (false on
// the scalar path: no kernel).
func (b *Backend) ScaleDiff(jobs []engine.ScaleDiffJob) (bool, error) {
	if b.path != PathIFMA && b.path != PathEmulated {
		return false, nil
	}
	for _, j := range jobs {
		if j.S != nil && j.S.Modulus >= NTTQBound {
			return false, nil // a modulus the kernel does not take: the engine's loop
		}
	}
	ok, err := ScaleDiff(b.path, jobs)
	if ok && err == nil {
		b.scaleDiffs.Add(uint64(len(jobs)))
	}
	return ok, err
}

// ScaleDiffCount returns how many ModDown/rescale limbs the backend's
// kernels ran since it was opened.
func (b *Backend) ScaleDiffCount() uint64 { return b.scaleDiffs.Load() }

// MulAccCount returns how many moduli of key-switch multiply-accumulates the
// backend's kernels ran since it was opened.
func (b *Backend) MulAccCount() uint64 { return b.mulAccMods.Load() }

var _ gpu.KeySwitchBackend = (*Backend)(nil)
