//go:build cgo

package muladd

import (
	"encoding/binary"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// muladdCase is a random (acc, c, w, wp, q) with c read from unaligned
// little-endian bytes.
type muladdCase struct {
	q          uint64
	acc, w, wp []uint64
	c          []byte // 8·n bytes at an odd offset
}

func newMuladdCase(rng *rand.Rand, n int, qbits uint) muladdCase {
	q := rng.Uint64N(1<<qbits-1<<(qbits-1)) + 1<<(qbits-1) | 1
	m := muladdCase{q: q, acc: make([]uint64, n), w: make([]uint64, n), wp: make([]uint64, n)}
	buf := make([]byte, 8*n+3)
	m.c = buf[3:]
	for j := range n {
		m.acc[j] = rng.Uint64()
		m.w[j] = rng.Uint64N(q)
		m.wp[j], _ = bits.Div64(m.w[j]>>12, m.w[j]<<52, q)
		binary.LittleEndian.PutUint64(m.c[8*j:], rng.Uint64N(q))
	}
	return m
}

// TestMulAdd: on fresh random inputs, every lane adds r ∈ [0, 2q) with
// r ≡ w·c (mod q) (checked with big.Int), the IFMA kernel (where the CPU has
// it) and the emulated one agree bit for bit, a word ≥ q is reported, and a
// call with sub undoes its add exactly.
func TestMulAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 7))
	paths := []Path{PathEmulated}
	if Best() == PathIFMA {
		paths = append(paths, PathIFMA)
	} else {
		t.Log("no IFMA here: emulated kernel only")
	}
	for _, qbits := range []uint{20, 34, 42, 49, 50, 51} {
		for _, n := range []int{8, 64, 1 << 14} {
			m := newMuladdCase(rng, n, qbits)
			var outs [][]uint64
			for _, p := range paths {
				acc := append([]uint64(nil), m.acc...)
				ok, err := MulAdd(p, acc, m.c, m.w, m.wp, m.q, false)
				require.NoError(t, err)
				require.True(t, ok)
				outs = append(outs, acc)
				Q := new(big.Int).SetUint64(m.q)
				for j := range acc {
					r := acc[j] - m.acc[j]
					require.Less(t, r, 2*m.q, "q %d bits, n %d, lane %d: r outside [0, 2q)", qbits, n, j)
					want := new(big.Int).Mul(new(big.Int).SetUint64(m.w[j]), new(big.Int).SetUint64(binary.LittleEndian.Uint64(m.c[8*j:])))
					require.Equal(t, want.Mod(want, Q).Uint64(), r%m.q, "q %d bits, lane %d", qbits, j)
				}
				ok, err = MulAdd(p, acc, m.c, m.w, m.wp, m.q, true)
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, m.acc, acc, "sub undoes add")
			}
			for _, o := range outs[1:] {
				require.Equal(t, outs[0], o, "IFMA and emulated kernels differ")
			}
		}
	}

	// a word ≥ q anywhere (here q itself, then 2^64 − 1) is reported, and the
	// sub of the same call restores the sums
	for _, p := range paths {
		for _, bad := range []uint64{0, 1<<64 - 1} {
			m := newMuladdCase(rng, 64, 40)
			v := bad
			if v == 0 {
				v = m.q
			}
			binary.LittleEndian.PutUint64(m.c[8*37:], v)
			acc := append([]uint64(nil), m.acc...)
			ok, err := MulAdd(p, acc, m.c, m.w, m.wp, m.q, false)
			require.NoError(t, err)
			require.False(t, ok, "%s: word %d ≥ q not reported", p, v)
			_, err = MulAdd(p, acc, m.c, m.w, m.wp, m.q, true)
			require.NoError(t, err)
			require.Equal(t, m.acc, acc)
		}
	}

	// misuse is an error, not a crash
	m := newMuladdCase(rng, 8, 30)
	_, err := MulAdd(PathEmulated, make([]uint64, 7), m.c, m.w, m.wp, m.q, false)
	require.Error(t, err)
	_, err = MulAdd(PathEmulated, m.acc, m.c[:60], m.w, m.wp, m.q, false)
	require.Error(t, err)
	_, err = MulAdd(PathEmulated, m.acc, m.c, m.w, m.wp, QBound, false)
	require.Error(t, err)
	_, err = MulAdd(PathGo, m.acc, m.c, m.w, m.wp, m.q, false)
	require.Error(t, err)
}

// BenchmarkMulAdd: one 2^14-word row, the IFMA kernel against the Go
// loop fhe.SlotPacker runs without it (Shoup in 64-bit words).
func BenchmarkMulAdd(b *testing.B) {
	m := newMuladdCase(rand.New(rand.NewPCG(1, 2)), 1<<14, 40)
	b.Run("ifma", func(b *testing.B) {
		if Best() != PathIFMA {
			b.Skip("no IFMA")
		}
		for i := 0; i < b.N; i++ {
			if _, err := MulAdd(PathIFMA, m.acc, m.c, m.w, m.wp, m.q, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go", func(b *testing.B) {
		w64 := make([]uint64, len(m.w))
		for j, w := range m.w {
			w64[j], _ = bits.Div64(w, 0, m.q)
		}
		for i := 0; i < b.N; i++ {
			for j := range m.acc {
				x := binary.LittleEndian.Uint64(m.c[8*j:])
				hi, _ := bits.Mul64(w64[j], x)
				m.acc[j] += m.w[j]*x - hi*m.q
			}
		}
	})
}
