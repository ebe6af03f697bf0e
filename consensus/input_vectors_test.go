package consensus

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// TestInputSlotVectors: a client's slot vectors for one request — one
// replicated vector per value, or one vector input holding them all in
// every aligned block of K' slots (fhe.VectorInts) — and the refusals.
func TestInputSlotVectors(t *testing.T) {
	p, err := fhe.NewParams(fhetest.InsecureBGVN10)
	require.NoError(t, err)
	vals := []int64{5, -3, 7}
	rep, err := api.InputSlotVectors(p, false, vals)
	require.NoError(t, err)
	require.Len(t, rep, 3)
	for j, v := range rep {
		require.Len(t, v, p.Slots())
		for _, x := range v {
			require.Equal(t, vals[j], x)
		}
	}
	vec, err := api.InputSlotVectors(p, true, vals)
	require.NoError(t, err)
	require.Len(t, vec, 1)
	require.Len(t, vec[0], p.Slots())
	for i, x := range vec[0] {
		want := int64(0)
		if i%4 < 3 {
			want = vals[i%4]
		}
		require.Equal(t, want, x, "slot %d", i)
	}
	for _, n := range []int{0, fhe.MaxVectorWidth + 1} {
		_, err := api.InputSlotVectors(p, true, make([]int64, n))
		require.Error(t, err, "%d values", n)
	}
}
