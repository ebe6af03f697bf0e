package gpu_test

import (
	"math/bits"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu"
)

// ksFake is fake with key-switch kernels computed in Go (the canonical
// multiply-accumulate, ModUpJob.Reference), optionally corrupted.
type ksFake struct {
	fake
	corrupt      bool
	macs, modUps int
}

func (f *ksFake) GadgetMulAcc(jobs []engine.MulAccJob) (bool, error) {
	for _, j := range jobs {
		d := make([]uint64, j.S.N)
		for i := range j.D {
			j.S.Reduce(j.D[i], d)
			if i == 0 {
				j.S.MulCoeffsMontgomery(j.K0[i], d, j.Out0)
				j.S.MulCoeffsMontgomery(j.K1[i], d, j.Out1)
			} else {
				j.S.MulCoeffsMontgomeryThenAdd(j.K0[i], d, j.Out0)
				j.S.MulCoeffsMontgomeryThenAdd(j.K1[i], d, j.Out1)
			}
		}
		if f.corrupt {
			j.Out1[3] ^= 1
		}
	}
	f.macs++
	return true, nil
}

func (f *ksFake) ModUp(jobs []engine.ModUpJob) (bool, error) {
	for _, j := range jobs {
		j.Reference(j.Dst, j.N)
		if f.corrupt {
			j.Dst[0][0] ^= 1
		}
	}
	f.modUps++
	return true, nil
}

func (f *ksFake) ScaleDiff(jobs []engine.ScaleDiffJob) (bool, error) {
	for _, j := range jobs {
		q := j.S.Modulus
		for x := range j.Out[:j.S.N] {
			hi, lo := bits.Mul64((j.X[x]%q+q-j.Y[x]%q)%q, j.W)
			j.Out[x] = bits.Rem64(hi, lo, q)
		}
		if f.corrupt {
			j.Out[2] ^= 1
		}
	}
	return true, nil
}

// keySwitchJobs returns one multiply-accumulate job per modulus of r (3
// digits) and one extension from r's first two moduli to the rest, with the
// expected outputs.
func keySwitchJobs(r *ring.Ring, seed uint64) ([]engine.MulAccJob, [][2][]uint64, engine.ModUpJob, [][]uint64) {
	var macs []engine.MulAccJob
	var want [][2][]uint64
	for _, s := range r.SubRings {
		j := engine.MulAccJob{S: s, Out0: make([]uint64, s.N), Out1: make([]uint64, s.N)}
		for i := range 3 {
			j.K0 = append(j.K0, randPoly(s, seed+uint64(10*i)))
			j.K1 = append(j.K1, randPoly(s, seed+uint64(10*i+1)))
			j.D = append(j.D, randPoly(s, seed+uint64(10*i+2)))
		}
		w := [2][]uint64{make([]uint64, s.N), make([]uint64, s.N)}
		for k, key := range [][][]uint64{j.K0, j.K1} {
			for i := range j.D {
				if i == 0 {
					s.MulCoeffsMontgomery(key[i], j.D[i], w[k])
				} else {
					s.MulCoeffsMontgomeryThenAdd(key[i], j.D[i], w[k])
				}
			}
		}
		macs = append(macs, j)
		want = append(want, w)
	}
	qs := r.ModuliChain()
	ext := engine.ModUpJob{N: r.N(), C: engine.NewModUpConstants(qs[:2], qs[2:])}
	for i := range 2 {
		ext.Src = append(ext.Src, randPoly(r.SubRings[i], seed+100+uint64(i)))
	}
	var wantExt [][]uint64
	for range qs[2:] {
		ext.Dst = append(ext.Dst, make([]uint64, r.N()))
		wantExt = append(wantExt, make([]uint64, r.N()))
	}
	ext.Reference(wantExt, r.N())
	return macs, want, ext, wantExt
}

// testRing is a ring of N = 2^10 over n 40-bit NTT-friendly primes.
func testRing(t *testing.T, n int) *ring.Ring {
	t.Helper()
	gen := ring.NewNTTFriendlyPrimesGenerator(40, 1<<11)
	qs, err := gen.NextDownstreamPrimes(n)
	require.NoError(t, err)
	r, err := ring.NewRing(1<<10, qs)
	require.NoError(t, err)
	return r
}

// keySwitchCall hands d one call of each key-switch loop on fresh inputs
// (seed): the multiply-accumulate, the extension and the scale-difference in
// place on modulus sd (Out aliases Y, as in the rescale), and checks every
// routed output against the Go models. With a corrupt backend only call 0
// of the multiply-accumulate and scale-difference is routed (then caught)
// and no extension is.
func keySwitchCall(t *testing.T, d *gpu.Dispatcher, r *ring.Ring, seed uint64, sd int, corrupt bool, call int) {
	t.Helper()
	macs, want, ext, wantExt := keySwitchJobs(r, seed)
	routed := d.GadgetMulAcc(macs)
	require.Equal(t, !corrupt || call == 0, routed, "corrupt %v call %d", corrupt, call)
	if routed {
		for i, j := range macs {
			require.Equal(t, want[i][0], j.Out0, "corrupt %v call %d modulus %d", corrupt, call, i)
			require.Equal(t, want[i][1], j.Out1)
		}
	}
	require.Equal(t, !corrupt, d.ModUp([]engine.ModUpJob{ext}), "corrupt %v call %d", corrupt, call)
	if !corrupt {
		require.Equal(t, wantExt, ext.Dst)
	}
	s := r.SubRings[sd]
	x, y := randPoly(s, 10*seed+1), randPoly(s, 10*seed+2)
	w := randPoly(s, 10*seed+3)[0]
	wantSD := make([]uint64, s.N)
	for i := range wantSD {
		hi, lo := bits.Mul64((x[i]+s.Modulus-y[i])%s.Modulus, w)
		wantSD[i] = bits.Rem64(hi, lo, s.Modulus)
	}
	routedSD := d.ScaleDiff([]engine.ScaleDiffJob{{S: s, X: x, Y: y, Out: y, W: w}})
	require.Equal(t, !corrupt || call == 0, routedSD, "corrupt %v call %d", corrupt, call)
	if routedSD {
		require.Equal(t, wantSD, y, "corrupt %v call %d", corrupt, call)
	}
}

// TestKeySwitchRouting: the dispatcher hands the key switch's
// multiply-accumulate and basis extensions to an armed KeySwitchBackend
// when it routes; a backend whose first answer differs from the Go models
// is caught on first use (the multiply-accumulate keeps the CPU result, the
// extension reports false for the engine to recompute) and never asked
// again for those moduli; a plain backend or a CPU-only dispatcher takes
// neither.
func TestKeySwitchRouting(t *testing.T) {
	r := testRing(t, 4)

	for _, corrupt := range []bool{false, true} {
		acc := &ksFake{corrupt: corrupt}
		d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: acc, ForceThreshold: 1})
		require.True(t, d.Status().Armed)
		require.True(t, d.WantsBatches(), "a routing dispatcher wants whole-step batches")
		for call := range 2 {
			keySwitchCall(t, d, r, 7+uint64(call), 1, corrupt, call)
		}
		wantCalls := 2
		if corrupt {
			wantCalls = 1
		}
		require.Equal(t, wantCalls, acc.macs, "corrupt %v", corrupt)
		require.Equal(t, wantCalls, acc.modUps, "corrupt %v", corrupt)
		if corrupt {
			require.Positive(t, stat(d, "fake").Fallbacks)
		} else {
			rs := d.RouterStats()
			require.EqualValues(t, 2*len(r.SubRings), rs.MulAcc)
			require.EqualValues(t, 2, rs.ModUp)
		}
	}

	macs, _, ext, _ := keySwitchJobs(r, 1)
	plain := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: &fake{}, ForceThreshold: 1})
	require.False(t, plain.GadgetMulAcc(macs))
	require.False(t, plain.ModUp([]engine.ModUpJob{ext}))
	require.False(t, plain.ScaleDiff([]engine.ScaleDiffJob{{S: r.SubRings[0], X: ext.Src[0], Y: ext.Src[0], Out: ext.Dst[0]}}))
	cpuOnly := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: &ksFake{}})
	require.False(t, cpuOnly.GadgetMulAcc(macs))
	require.False(t, cpuOnly.ModUp([]engine.ModUpJob{ext}))
	require.False(t, cpuOnly.ScaleDiff([]engine.ScaleDiffJob{{S: r.SubRings[0], X: ext.Src[0], Y: ext.Src[0], Out: ext.Dst[0]}}))
	require.False(t, cpuOnly.WantsBatches(), "a dispatcher that routes nothing does not gather")
	require.False(t, gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t)}).WantsBatches())
}
