package mb

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"
)

const n = 16384 * 3 * 2

var q uint64 = (1 << 49) - 123

func setup() ([]uint64, []byte, []uint64, []uint64, []uint64) {
	r := rand.New(rand.NewPCG(1, 2))
	acc := make([]uint64, n)
	acc2 := make([]uint64, 2*n)
	c := make([]byte, 8*n)
	w := make([]uint64, n)
	sh := make([]uint64, n)
	for i := range w {
		w[i] = r.Uint64N(q)
		sh[i], _ = bits.Div64(w[i], 0, q)
		binary.LittleEndian.PutUint64(c[8*i:], r.Uint64N(q))
	}
	_ = acc2
	return acc, c, w, sh, acc2
}

func shoup(acc []uint64, c []byte, w, shoup []uint64, q uint64) bool {
	n := len(acc)
	c, w, shoup = c[:8*n], w[:n], shoup[:n]
	var ok uint64 = 1
	j := 0
	for ; j+4 <= n; j += 4 {
		a, ww, ss, cc := acc[j:j+4:j+4], w[j:j+4:j+4], shoup[j:j+4:j+4], c[8*j:8*j+32:8*j+32]
		x0, x1 := binary.LittleEndian.Uint64(cc[0:8]), binary.LittleEndian.Uint64(cc[8:16])
		x2, x3 := binary.LittleEndian.Uint64(cc[16:24]), binary.LittleEndian.Uint64(cc[24:32])
		_, l0 := bits.Sub64(x0, q, 0)
		_, l1 := bits.Sub64(x1, q, 0)
		_, l2 := bits.Sub64(x2, q, 0)
		_, l3 := bits.Sub64(x3, q, 0)
		ok &= l0 & l1 & l2 & l3
		h0, _ := bits.Mul64(ss[0], x0)
		h1, _ := bits.Mul64(ss[1], x1)
		h2, _ := bits.Mul64(ss[2], x2)
		h3, _ := bits.Mul64(ss[3], x3)
		a[0] += ww[0]*x0 - h0*q
		a[1] += ww[1]*x1 - h1*q
		a[2] += ww[2]*x2 - h2*q
		a[3] += ww[3]*x3 - h3*q
	}
	return ok == 1
}

// wide accumulates 128-bit products: acc[2j] lo, acc[2j+1] hi.
func wide(acc []uint64, c []byte, w []uint64, q uint64) bool {
	n := len(w)
	c, acc = c[:8*n], acc[:2*n]
	var ok uint64 = 1
	j := 0
	for ; j+4 <= n; j += 4 {
		a, ww, cc := acc[2*j:2*j+8:2*j+8], w[j:j+4:j+4], c[8*j:8*j+32:8*j+32]
		x0, x1 := binary.LittleEndian.Uint64(cc[0:8]), binary.LittleEndian.Uint64(cc[8:16])
		x2, x3 := binary.LittleEndian.Uint64(cc[16:24]), binary.LittleEndian.Uint64(cc[24:32])
		_, l0 := bits.Sub64(x0, q, 0)
		_, l1 := bits.Sub64(x1, q, 0)
		_, l2 := bits.Sub64(x2, q, 0)
		_, l3 := bits.Sub64(x3, q, 0)
		ok &= l0 & l1 & l2 & l3
		h0, lo0 := bits.Mul64(ww[0], x0)
		h1, lo1 := bits.Mul64(ww[1], x1)
		h2, lo2 := bits.Mul64(ww[2], x2)
		h3, lo3 := bits.Mul64(ww[3], x3)
		var cy uint64
		a[0], cy = bits.Add64(a[0], lo0, 0)
		a[1] += h0 + cy
		a[2], cy = bits.Add64(a[2], lo1, 0)
		a[3] += h1 + cy
		a[4], cy = bits.Add64(a[4], lo2, 0)
		a[5] += h2 + cy
		a[6], cy = bits.Add64(a[6], lo3, 0)
		a[7] += h3 + cy
	}
	return ok == 1
}

func BenchmarkShoup(b *testing.B) {
	acc, c, w, sh, _ := setup()
	for b.Loop() {
		shoup(acc, c, w, sh, q)
	}
}

func BenchmarkWide(b *testing.B) {
	_, c, w, _, acc2 := setup()
	for b.Loop() {
		wide(acc2, c, w, q)
	}
}
