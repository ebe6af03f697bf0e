package engine_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe/engine"
)

// TestRunLattigoParallel: RunLattigo writes the bytes of Lattigo's
// one-job-at-a-time loop into every Dst, in every direction (forward,
// inverse, lazy or not), in place and out of place, whatever GOMAXPROCS
// it spreads the jobs over (1, 2, 4), on a ring big enough to be spread
// (N = 2^12) and one that is not (N = 2^10).
func TestRunLattigoParallel(t *testing.T) {
	for _, logN := range []int{10, 12} {
		gen := ring.NewNTTFriendlyPrimesGenerator(50, uint64(2<<logN))
		qs, err := gen.NextAlternatingPrimes(4)
		require.NoError(t, err)
		primes, err := ring.NewRing(1<<logN, qs)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(uint64(logN), 3))
		for _, dir := range []struct{ inverse, lazy bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
			for _, inPlace := range []bool{false, true} {
				t.Run(fmt.Sprintf("logN%d_inv%v_lazy%v_inplace%v", logN, dir.inverse, dir.lazy, inPlace), func(t *testing.T) {
					// 3 polynomials × 4 moduli = 12 jobs
					src := make([][]uint64, 12)
					for i := range src {
						q := primes.SubRings[i%4].Modulus
						src[i] = make([]uint64, 1<<logN)
						for j := range src[i] {
							src[i][j] = r.Uint64N(q)
						}
					}
					jobsFor := func() ([]engine.Job, [][]uint64) {
						dst := make([][]uint64, len(src))
						jobs := make([]engine.Job, len(src))
						for i := range src {
							dst[i] = append([]uint64(nil), src[i]...)
							s := dst[i]
							if !inPlace {
								s = src[i]
								dst[i] = make([]uint64, len(src[i]))
							}
							jobs[i] = engine.Job{S: primes.SubRings[i%4], Src: s, Dst: dst[i]}
						}
						return jobs, dst
					}
					// the reference: Lattigo's calls, one after the other
					want := make([][]uint64, len(src))
					for i := range src {
						s := primes.SubRings[i%4]
						want[i] = make([]uint64, len(src[i]))
						switch {
						case !dir.inverse && !dir.lazy:
							s.NTT(src[i], want[i])
						case !dir.inverse:
							s.NTTLazy(src[i], want[i])
						case !dir.lazy:
							s.INTT(src[i], want[i])
						default:
							s.INTTLazy(src[i], want[i])
						}
					}
					for _, procs := range []int{1, 2, 4} {
						prev := runtime.GOMAXPROCS(procs)
						jobs, dst := jobsFor()
						engine.RunLattigo(dir.inverse, dir.lazy, jobs)
						runtime.GOMAXPROCS(prev)
						require.Equal(t, want, dst, "GOMAXPROCS %d", procs)
					}
				})
			}
		}
	}
}

type wanter bool

func (wanter) Transform(inverse, lazy bool, jobs []engine.Job) {
	engine.RunLattigo(inverse, lazy, jobs)
}
func (w wanter) WantsBatches() bool { return bool(w) }

// TestWantsBatches: no router, no gathering; a router that does not say
// gets batches; a BatchWanter decides.
func TestWantsBatches(t *testing.T) {
	defer engine.SetRouter(engine.CurrentRouter())
	engine.SetRouter(nil)
	require.False(t, engine.WantsBatches())
	engine.SetRouter(&callRecorder{})
	require.True(t, engine.WantsBatches())
	engine.SetRouter(wanter(false))
	require.False(t, engine.WantsBatches())
	engine.SetRouter(wanter(true))
	require.True(t, engine.WantsBatches())
}
