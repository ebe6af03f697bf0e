package gpu_test

import (
	"testing"

	"github.com/luxfi/lattice/v7/ring"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
)

func newRing(t testing.TB, n int, conj bool) *ring.Ring {
	t.Helper()
	q := gpu.SelfTestPrimes()[1]
	var r *ring.Ring
	var err error
	if conj {
		r, err = ring.NewRingConjugateInvariant(n, []uint64{q})
	} else {
		r, err = ring.NewRing(n, []uint64{q})
	}
	require.NoError(t, err)
	return r
}
