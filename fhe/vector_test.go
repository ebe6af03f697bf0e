package fhe_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// TestVectorInts: the periodic client layout (attribute i in every slot ≡ i
// mod K', zero in the padding slots) and its refusals.
func TestVectorInts(t *testing.T) {
	p := fhetest.MustKit(fhetest.InsecureBGVN10).Params
	for _, tc := range []struct {
		k, stride int
	}{{1, 1}, {2, 2}, {3, 4}, {5, 8}, {8, 8}, {33, 64}, {fhe.MaxVectorWidth, fhe.MaxVectorWidth}} {
		require.Equal(t, tc.stride, fhe.VectorStride(tc.k), "k=%d", tc.k)
		attrs := make([]int64, tc.k)
		for i := range attrs {
			attrs[i] = int64(10*i - 7)
		}
		v, err := p.VectorInts(attrs)
		require.NoError(t, err)
		require.Len(t, v, p.Slots())
		for i, x := range v {
			want := int64(0)
			if i%tc.stride < tc.k {
				want = attrs[i%tc.stride]
			}
			require.Equal(t, want, x, "k=%d, slot %d", tc.k, i)
		}
	}
	for _, bad := range [][]int64{nil, {}, make([]int64, fhe.MaxVectorWidth+1)} {
		_, err := p.VectorInts(bad)
		require.Error(t, err, "%d attributes", len(bad))
	}
}

// TestVectorLayout: Place is a bijection of the requests onto distinct
// (accumulator, block) pairs, each block aligned and inside one slot row,
// with consecutive requests r = A·b + a sharing block b; Unpack puts request
// r's attributes in slot r of each output and zero elsewhere; bad shapes are
// refused.
func TestVectorLayout(t *testing.T) {
	p := fhetest.MustKit(fhetest.InsecureBGVN10).Params
	S, half := p.Slots(), p.Slots()/2
	for _, tc := range []struct {
		k, requests, accs int
	}{
		{1, 1, 1}, {1, S, 1}, {3, S / 4, 1}, {3, S/4 + 1, 2}, {3, S, 4},
		{8, 130, 2}, {8, S, 8}, {5, 77, 1}, {64, 17, 2}, {64, S, 64}, {33, S - 1, 64},
	} {
		l, err := fhe.NewVectorLayout(p, tc.k, tc.requests)
		require.NoError(t, err)
		require.Equal(t, fhe.VectorLayout{K: tc.k, Stride: fhe.VectorStride(tc.k), Accs: tc.accs, Requests: tc.requests, Slots: S}, l)
		seen := map[[2]int]int{}
		for r := 0; r < tc.requests; r++ {
			a, s := l.Place(r)
			require.True(t, a >= 0 && a < l.Accs, "k=%d r=%d: acc %d", tc.k, r, a)
			require.True(t, s >= 0 && s+l.Stride <= S, "k=%d r=%d: block %d", tc.k, r, s)
			require.Zero(t, s%l.Stride)
			require.Equal(t, s/half, (s+l.K-1)/half, "k=%d r=%d: block %d straddles a row", tc.k, r, s)
			prev, dup := seen[[2]int{a, s}]
			require.False(t, dup, "k=%d: requests %d and %d share (%d, %d)", tc.k, prev, r, a, s)
			seen[[2]int{a, s}] = r
			require.Equal(t, [2]int{r % l.Accs, (r / l.Accs) * l.Stride}, [2]int{a, s})
		}

		// Unpack: every accumulator slot holds a distinct code
		in := make([][]uint64, l.Accs)
		for a := range in {
			in[a] = make([]uint64, S)
			for i := range in[a] {
				in[a][i] = uint64(a*S + i + 1)
			}
		}
		out := make([][]uint64, l.K)
		for k := range out {
			out[k] = make([]uint64, S)
			for i := range out[k] {
				out[k][i] = 99 // overwritten
			}
		}
		require.NoError(t, l.Unpack(in, out))
		for k, o := range out {
			for r, x := range o {
				var want uint64
				if r < l.Requests {
					a, s := l.Place(r)
					want = uint64(a*S + s + k + 1)
				}
				require.Equal(t, want, x, "k=%d: output %d, slot %d", tc.k, k, r)
			}
		}
	}

	for _, bad := range []struct{ k, requests int }{{0, 1}, {fhe.MaxVectorWidth + 1, 1}, {3, 0}, {3, S + 1}, {3, -1}} {
		_, err := fhe.NewVectorLayout(p, bad.k, bad.requests)
		require.Error(t, err, "k=%d requests=%d", bad.k, bad.requests)
	}
	tiny := fhetest.MustKit(fhetest.InsecureBGVN4).Params // 16 slots, rows of 8
	_, err := fhe.NewVectorLayout(tiny, 9, 1)
	require.Error(t, err, "a stride of 16 does not fit a row of 8")
	_, err = fhe.NewVectorLayout(tiny, 8, 2)
	require.NoError(t, err)

	l, err := fhe.NewVectorLayout(p, 3, S/4+1) // 2 accumulators, 3 outputs
	require.NoError(t, err)
	mk := func(n, size int) [][]uint64 {
		v := make([][]uint64, n)
		for i := range v {
			v[i] = make([]uint64, size)
		}
		return v
	}
	require.NoError(t, l.Unpack(mk(2, S), mk(3, S)))
	require.Error(t, l.Unpack(mk(1, S), mk(3, S)), "accumulators")
	require.Error(t, l.Unpack(mk(2, S), mk(2, S)), "outputs")
	require.Error(t, l.Unpack(mk(2, S-1), mk(3, S)), "accumulator length")
	require.Error(t, l.Unpack(mk(2, S), mk(3, S+1)), "output length")
}
