package gpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"

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
