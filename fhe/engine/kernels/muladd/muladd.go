//go:build cgo

package muladd

/*
#cgo CFLAGS: -O3
#include "muladd.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// MulAdd is the vector multiply-add of fhe.SlotPacker: for
// j < len(acc), acc[j] += r_j (acc[j] −= r_j when sub) with
// r_j = w[j]·c_j − ⌊c_j·wp[j]/2^52⌋·q ∈ [0, 2q), Shoup's product in 52-bit
// limbs (wp[j] = ⌊w[j]·2^52/q⌋, see doc.go), where c_j is the j-th
// little-endian 64-bit word of c. It reports whether every c_j < q; where one
// is not, the sums hold a well-defined function of the words and a call with
// sub undoes them exactly (64-bit wrapping arithmetic). path is PathIFMA
// (Best() must be PathIFMA) or PathEmulated (any host, slow: tests).
// len(acc) must be a multiple of 8 with len(c) ≥ 8·len(acc), len(w),
// len(wp) ≥ len(acc) and q < QBound.
func MulAdd(path Path, acc []uint64, c []byte, w, wp []uint64, q uint64, sub bool) (bool, error) {
	n := len(acc)
	switch {
	case n%8 != 0 || len(c) < 8*n || len(w) < n || len(wp) < n:
		return false, fmt.Errorf("muladd: %d words, %d bytes, %d and %d constants", n, len(c), len(w), len(wp))
	case q == 0 || q >= QBound:
		return false, fmt.Errorf("muladd: q = %d outside (0, 2^51)", q)
	case !littleEndian:
		return false, fmt.Errorf("muladd: big-endian host")
	case n == 0:
		return true, nil
	}
	s := C.int(0)
	if sub {
		s = 1
	}
	pa, pc := (*C.uint64_t)(unsafe.Pointer(&acc[0])), (*C.uint64_t)(unsafe.Pointer(&c[0]))
	pw, pwp := (*C.uint64_t)(unsafe.Pointer(&w[0])), (*C.uint64_t)(unsafe.Pointer(&wp[0]))
	switch path {
	case PathIFMA:
		if Best() != PathIFMA {
			return false, fmt.Errorf("muladd: IFMA path not available here")
		}
		return C.fg_muladd_ifma(pa, pc, pw, pwp, C.uint64_t(q), C.size_t(n), s) == 1, nil
	case PathEmulated:
		return C.fg_muladd_emu(pa, pc, pw, pwp, C.uint64_t(q), C.size_t(n), s) == 1, nil
	}
	return false, fmt.Errorf("muladd: path %s has no multiply-add", path)
}

// ifmaBuilt reports whether the IFMA kernel was compiled in (x86-64 with
// GCC or Clang).
func ifmaBuilt() bool { return C.fg_muladd_ifma_built() == 1 }

// emulatedBuilt: the portable model is compiled in wherever cgo is.
const emulatedBuilt = true

var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()
