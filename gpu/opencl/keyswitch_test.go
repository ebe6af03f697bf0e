//go:build opencl && cgo

package opencl_test

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/native"
	"github.com/fhegate/fhegate/gpu/opencl"
	"github.com/fhegate/fhegate/internal/testseed"
)

const poison = 0xABABABABABABABAB

func poisoned(n int) []uint64 {
	p := make([]uint64, n)
	for i := range p {
		p[i] = poison
	}
	return p
}

// below returns n random words < bound with the extremes 0 and bound−1
// planted.
func below(rng *rand.Rand, n int, bound uint64) []uint64 {
	p := make([]uint64, n)
	for i := range p {
		p[i] = rng.Uint64N(bound)
	}
	p[0], p[1], p[n-1] = bound-1, 0, bound-1
	return p
}

// presetRings returns the key-switch rings Q and P of the BGV presets at
// N = 2^13 and 2^14 (BGVN14's Q0 is a 51-bit prime, the rest 34-bit, P as
// the preset chooses).
func presetRings(t *testing.T) map[string][2]*ring.Ring {
	out := map[string][2]*ring.Ring{}
	for name, id := range map[string]fhe.PresetID{"BGVN13": fhe.BGVN13, "BGVN14": fhe.BGVN14} {
		p, err := fhe.NewParams(id)
		require.NoError(t, err)
		out[name] = [2]*ring.Ring{p.RLWE().RingQ(), p.RLWE().RingP()}
		var qb, pb []int
		for _, q := range p.RLWE().Q() {
			qb = append(qb, bits.Len64(q))
		}
		for _, q := range p.RLWE().P() {
			pb = append(pb, bits.Len64(q))
		}
		t.Logf("%s: N = %d, Q bits %v, P bits %v", name, p.N(), qb, pb)
	}
	return out
}

// nativeModels reports whether the native backend's emulated IFMA model
// takes every modulus (it is the second reference where it does).
func nativeModels(qs ...uint64) bool {
	return !slices.ContainsFunc(qs, func(q uint64) bool { return q >= native.NTTQBound })
}

// TestOpenCLGadgetMulAcc: at the presets' shapes (every modulus of Q∪P,
// 1, 3 and 5 digits, keys < q and digits < 2q with the bounds planted,
// poisoned outputs) every output word equals Lattigo's reduced Montgomery
// multiply-accumulate and the native backend's emulated kernel; a key = q
// or a digit word = 2q makes the call report false and write nothing.
func TestOpenCLGadgetMulAcc(t *testing.T) {
	b := open(t).(*opencl.Backend)
	rng := testseed.Rand(t, 2601)
	for name, rs := range presetRings(t) {
		subs := append(slices.Clone(rs[0].SubRings), rs[1].SubRings...)
		for _, digits := range []int{1, 3, 5} {
			var jobs []engine.MulAccJob
			var qs []uint64
			for _, s := range subs {
				j := engine.MulAccJob{S: s, Out0: poisoned(s.N), Out1: poisoned(s.N)}
				for range digits {
					j.K0 = append(j.K0, below(rng, s.N, s.Modulus))
					j.K1 = append(j.K1, below(rng, s.N, s.Modulus))
					j.D = append(j.D, below(rng, s.N, 2*s.Modulus))
				}
				jobs = append(jobs, j)
				qs = append(qs, s.Modulus)
			}
			ok, err := b.GadgetMulAcc(jobs)
			require.NoError(t, err)
			require.True(t, ok, "%s digits %d", name, digits)
			for _, j := range jobs {
				w0, w1 := lattigoMulAcc(j)
				require.Equal(t, w0, j.Out0, "%s digits %d q %d", name, digits, j.S.Modulus)
				require.Equal(t, w1, j.Out1, "%s digits %d q %d", name, digits, j.S.Modulus)
			}
			if nativeModels(qs...) {
				model := make([]engine.MulAccJob, len(jobs))
				for i, j := range jobs {
					j.Out0, j.Out1 = poisoned(j.S.N), poisoned(j.S.N)
					model[i] = j
				}
				ok, err := native.GadgetMulAcc(native.PathEmulated, 1, model)
				require.NoError(t, err)
				require.True(t, ok)
				for i := range jobs {
					require.Equal(t, model[i].Out0, jobs[i].Out0, "%s digits %d: native model", name, digits)
					require.Equal(t, model[i].Out1, jobs[i].Out1)
				}
			}

			// out of bounds: nothing written, false
			last := jobs[len(jobs)-1]
			for _, bad := range []struct {
				limb []uint64
				v    uint64
			}{{last.D[digits-1], 2 * last.S.Modulus}, {jobs[0].K1[0], jobs[0].S.Modulus}} {
				keep := bad.limb[7]
				bad.limb[7] = bad.v
				for _, j := range jobs {
					j.Out0[5], j.Out1[5] = poison, poison
				}
				ok, err = b.GadgetMulAcc(jobs)
				require.NoError(t, err)
				require.False(t, ok, "%s: a word outside the bounds", name)
				for _, j := range jobs {
					require.Equal(t, uint64(poison), j.Out0[5], "nothing written")
					require.Equal(t, uint64(poison), j.Out1[5])
				}
				bad.limb[7] = keep
			}
		}
	}
}

// lattigoMulAcc is the job's outputs by Lattigo's reduced Montgomery
// products (the digits reduced first).
func lattigoMulAcc(j engine.MulAccJob) (out0, out1 []uint64) {
	var outs [2][]uint64
	for k, key := range [][][]uint64{j.K0, j.K1} {
		outs[k] = make([]uint64, j.S.N)
		d := make([]uint64, j.S.N)
		for i := range j.D {
			j.S.Reduce(j.D[i], d)
			if i == 0 {
				j.S.MulCoeffsMontgomery(key[i], d, outs[k])
			} else {
				j.S.MulCoeffsMontgomeryThenAdd(key[i], d, outs[k])
			}
		}
	}
	return outs[0], outs[1]
}

// TestOpenCLKeyArena: the gadget keys stay resident across calls (a second
// call with the same keys uploads none of them), a key limb changed in
// place is uploaded again and used, and an arena smaller than the calls
// (emptied and refilled between calls with different keys) changes no
// output: every call equals Lattigo's multiply-accumulate.
func TestOpenCLKeyArena(t *testing.T) {
	rng := testseed.Rand(t, 2605)
	gen := ring.NewNTTFriendlyPrimesGenerator(50, 1<<11)
	qs, err := gen.NextDownstreamPrimes(3)
	require.NoError(t, err)
	r, err := ring.NewRing(1<<10, qs)
	require.NoError(t, err)
	const digits = 3
	keyJobs := func() []engine.MulAccJob {
		var jobs []engine.MulAccJob
		for _, s := range r.SubRings {
			j := engine.MulAccJob{S: s}
			for range digits {
				j.K0 = append(j.K0, below(rng, s.N, s.Modulus))
				j.K1 = append(j.K1, below(rng, s.N, s.Modulus))
			}
			jobs = append(jobs, j)
		}
		return jobs
	}
	fresh := func(jobs []engine.MulAccJob) { // new digits, poisoned outputs
		for i := range jobs {
			s := jobs[i].S
			jobs[i].D = nil
			for range digits {
				jobs[i].D = append(jobs[i].D, below(rng, s.N, 2*s.Modulus))
			}
			jobs[i].Out0, jobs[i].Out1 = poisoned(s.N), poisoned(s.N)
		}
	}
	check := func(b *opencl.Backend, jobs []engine.MulAccJob, what string) {
		fresh(jobs)
		ok, err := b.GadgetMulAcc(jobs)
		require.NoError(t, err, what)
		require.True(t, ok, what)
		for _, j := range jobs {
			w0, w1 := lattigoMulAcc(j)
			require.Equal(t, w0, j.Out0, what)
			require.Equal(t, w1, j.Out1, what)
		}
	}
	limbs := 2 * digits * len(qs)

	b := open(t).(*opencl.Backend)
	a := keyJobs()
	check(b, a, "first call")
	n, _, hits := b.KeyArenaStats()
	require.Equal(t, limbs, n)
	require.Zero(t, hits)
	check(b, a, "same keys")
	_, _, hits = b.KeyArenaStats()
	require.EqualValues(t, limbs, hits, "every limb resident")
	a[1].K1[2][17] = (a[1].K1[2][17] + 1) % a[1].S.Modulus // in place: same address
	a[2].K0[0][0] = 0
	check(b, a, "keys changed in place")
	_, _, hits = b.KeyArenaStats()
	require.EqualValues(t, 2*limbs-2, hits, "the two changed limbs uploaded again")

	small := open(t).(*opencl.Backend)
	small.KeyArenaWords = limbs * r.N() / 2 // smaller than one call: grown to it
	x, y := keyJobs(), keyJobs()
	for round := range 3 {
		check(small, x, fmt.Sprintf("round %d x", round))
		check(small, y, fmt.Sprintf("round %d y", round))
		n, words, _ := small.KeyArenaStats()
		require.LessOrEqual(t, n, 2*limbs)
		require.LessOrEqual(t, words, 2*limbs*r.N())
	}
}

// TestOpenCLModUp: the key switch's extensions at the presets' shapes —
// Q (every level count ≥ 2) → P as ModDown and Lattigo's ModUpQtoP, and a
// decomposition digit (two moduli of Q) → the rest of Q∪P — several jobs
// and two constant sets per call, sources < 2q with the bounds planted,
// poisoned targets: every word equals engine.ModUpJob.Reference and the
// native emulated kernel, and Lattigo's ModUpQtoP (reduced) on reduced
// inputs; a source word = 2q reports false and writes nothing.
func TestOpenCLModUp(t *testing.T) {
	b := open(t).(*opencl.Backend)
	rng := testseed.Rand(t, 2602)
	for name, rs := range presetRings(t) {
		rQ, rP := rs[0], rs[1]
		qs, ps := rQ.ModuliChain(), rP.ModuliChain()
		n := rQ.N()
		for _, levels := range []int{2, len(qs)} {
			toP := engine.NewModUpConstants(qs[:levels], ps)
			digit := engine.NewModUpConstants(qs[:2], append(slices.Clone(qs[2:levels]), ps...))
			var jobs []engine.ModUpJob
			for _, c := range []*engine.ModUpConstants{toP, toP, digit} {
				j := engine.ModUpJob{N: n, C: c}
				for _, q := range c.SrcQ {
					j.Src = append(j.Src, below(rng, n, 2*q))
				}
				for range c.DstQ {
					j.Dst = append(j.Dst, poisoned(n))
				}
				jobs = append(jobs, j)
			}
			// the first job's sources reduced, for Lattigo's leg
			for i, q := range toP.SrcQ {
				for x := range jobs[0].Src[i] {
					jobs[0].Src[i][x] %= q
				}
			}
			ok, err := b.ModUp(jobs)
			require.NoError(t, err)
			require.True(t, ok, "%s levels %d", name, levels)
			for k, j := range jobs {
				want := make([][]uint64, len(j.Dst))
				for i := range want {
					want[i] = make([]uint64, n)
				}
				j.Reference(want, n)
				require.Equal(t, want, j.Dst, "%s levels %d job %d: Go model", name, levels, k)
			}
			if nativeModels(append(slices.Clone(qs), ps...)...) {
				model := slices.Clone(jobs)
				for k := range model {
					model[k].Dst = make([][]uint64, len(jobs[k].Dst))
					for i := range model[k].Dst {
						model[k].Dst[i] = poisoned(n)
					}
				}
				ok, err := native.ModUp(native.PathEmulated, model)
				require.NoError(t, err)
				require.True(t, ok)
				for k := range jobs {
					require.Equal(t, model[k].Dst, jobs[k].Dst, "%s levels %d job %d: native model", name, levels, k)
				}
			}
			// Lattigo: ModUpQtoP of the reduced first job
			polQ, polP := rQ.AtLevel(levels-1).NewPoly(), rP.NewPoly()
			for i := range levels {
				copy(polQ.Coeffs[i], jobs[0].Src[i])
			}
			ring.NewBasisExtender(rQ, rP).ModUpQtoP(levels-1, len(ps)-1, polQ, polP)
			for k, p := range ps {
				for x := range polP.Coeffs[k] {
					polP.Coeffs[k][x] %= p
				}
				require.Equal(t, polP.Coeffs[k], jobs[0].Dst[k], "%s levels %d target %d: Lattigo ModUpQtoP", name, levels, k)
			}

			// a source word = 2q: false, nothing written
			jobs[2].Src[1][9] = 2 * jobs[2].C.SrcQ[1]
			for _, j := range jobs {
				j.Dst[0][3] = poison
			}
			ok, err = b.ModUp(jobs)
			require.NoError(t, err)
			require.False(t, ok)
			for _, j := range jobs {
				require.Equal(t, uint64(poison), j.Dst[0][3], "nothing written")
			}
		}
	}
}

// TestOpenCLScaleDiff: ModDown's and the rescale's last step over every
// modulus of Q, two polynomials, inputs < 2q with the bounds planted, half
// the jobs in place (Out aliases Y): every word equals Lattigo's
// SubThenMulScalarMontgomeryTwoModulus (W in Montgomery form) and the
// native emulated kernel; an input word = 2q reports false and leaves
// every output, the aliased Y included, as it was.
func TestOpenCLScaleDiff(t *testing.T) {
	b := open(t).(*opencl.Backend)
	rng := testseed.Rand(t, 2603)
	for name, rs := range presetRings(t) {
		var jobs []engine.ScaleDiffJob
		var want [][]uint64
		var qs []uint64
		for k := range 2 {
			for _, s := range rs[0].SubRings {
				q := s.Modulus
				j := engine.ScaleDiffJob{S: s, X: below(rng, s.N, 2*q), Y: below(rng, s.N, 2*q), W: rng.Uint64N(q)}
				j.Out = poisoned(s.N)
				if k == 1 {
					j.Out = j.Y
				}
				w := make([]uint64, s.N)
				s.SubThenMulScalarMontgomeryTwoModulus(j.X, j.Y, ring.MForm(j.W, q, s.BRedConstant), w)
				jobs, want, qs = append(jobs, j), append(want, w), append(qs, q)
			}
		}
		var model [][]uint64
		if nativeModels(qs...) {
			mj := slices.Clone(jobs)
			for i := range mj {
				mj[i].Out = poisoned(mj[i].S.N)
				model = append(model, mj[i].Out)
			}
			ok, err := native.ScaleDiff(native.PathEmulated, mj)
			require.NoError(t, err)
			require.True(t, ok)
		}
		// out of bounds first: nothing written (Y of in-place jobs intact)
		before := make([][]uint64, len(jobs))
		for i, j := range jobs {
			before[i] = slices.Clone(j.Out)
		}
		keep := jobs[1].X[4]
		jobs[1].X[4] = 2 * jobs[1].S.Modulus
		ok, err := b.ScaleDiff(jobs)
		require.NoError(t, err)
		require.False(t, ok)
		for i, j := range jobs {
			require.Equal(t, before[i], j.Out, "%s job %d: nothing written", name, i)
		}
		jobs[1].X[4] = keep

		ok, err = b.ScaleDiff(jobs)
		require.NoError(t, err)
		require.True(t, ok, name)
		for i, j := range jobs {
			require.Equal(t, want[i], j.Out, "%s job %d: Lattigo", name, i)
			if model != nil {
				require.Equal(t, model[i], j.Out, "%s job %d: native model", name, i)
			}
		}
	}
}

// TestOpenCLKeySwitchDeclines: moduli outside the kernels' range and
// mixed ring degrees are declined (false, no error, nothing written);
// malformed jobs are errors; a closed backend says so; the counters count
// what ran.
func TestOpenCLKeySwitchDeclines(t *testing.T) {
	b := open(t).(*opencl.Backend)
	rng := testseed.Rand(t, 2604)
	mk := func(n int, q uint64) engine.MulAccJob {
		return engine.MulAccJob{S: &ring.SubRing{N: n, Modulus: q}, K0: [][]uint64{below(rng, n, q)}, K1: [][]uint64{below(rng, n, q)},
			D: [][]uint64{below(rng, n, q)}, Out0: poisoned(n), Out1: poisoned(n)}
	}
	q := uint64(1<<40 + 15) // odd (the kernels need no NTT-friendly prime)
	for name, jobs := range map[string][]engine.MulAccJob{
		"even modulus":   {mk(64, 1<<40)},
		"2^62 modulus":   {mk(64, 1<<62+1)},
		"mixed N":        {mk(64, q), mk(128, q)},
		"no jobs at all": nil,
	} {
		ok, err := b.GadgetMulAcc(jobs)
		require.NoError(t, err, name)
		require.False(t, ok, name)
		for _, j := range jobs {
			require.Equal(t, poisoned(j.S.N), j.Out0, name)
		}
	}
	short := mk(64, q)
	short.Out1 = short.Out1[:10]
	_, err := b.GadgetMulAcc([]engine.MulAccJob{short})
	require.Error(t, err)
	ok, err := b.GadgetMulAcc([]engine.MulAccJob{mk(64, q)})
	require.NoError(t, err)
	require.True(t, ok)

	c := engine.NewModUpConstants([]uint64{q, q + 2}, []uint64{q + 4})
	wide := engine.NewModUpConstants([]uint64{1<<62 + 1, q}, []uint64{q + 4})
	src := [][]uint64{below(rng, 64, q), below(rng, 64, q)}
	ok, err = b.ModUp([]engine.ModUpJob{{N: 64, C: wide, Src: src, Dst: [][]uint64{poisoned(64)}}})
	require.NoError(t, err)
	require.False(t, ok)
	_, err = b.ModUp([]engine.ModUpJob{{N: 64, C: c, Src: src[:1], Dst: [][]uint64{poisoned(64)}}})
	require.Error(t, err)
	_, err = b.ScaleDiff([]engine.ScaleDiffJob{{S: &ring.SubRing{N: 64, Modulus: q}, X: src[0], Y: src[1], Out: poisoned(64), W: q}})
	require.Error(t, err, "w ≥ q")

	mac, modUp, sd := b.KeySwitchCounts()
	require.Equal(t, [3]uint64{1, 0, 0}, [3]uint64{mac, modUp, sd})

	closed, err := opencl.New()
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	_, err = closed.(*opencl.Backend).GadgetMulAcc([]engine.MulAccJob{mk(64, q)})
	require.ErrorIs(t, err, gpu.ErrClosed)
}

// TestOpenCLKeySwitchOpsOff: a loop switched off is declined (false, no
// error, nothing written).
func TestOpenCLKeySwitchOpsOff(t *testing.T) {
	b := open(t).(*opencl.Backend)
	b.KeySwitch = opencl.OpModUp
	rng := testseed.Rand(t, 2606)
	q := uint64(1<<40 + 15)
	j := engine.MulAccJob{S: &ring.SubRing{N: 64, Modulus: q}, K0: [][]uint64{below(rng, 64, q)}, K1: [][]uint64{below(rng, 64, q)},
		D: [][]uint64{below(rng, 64, q)}, Out0: poisoned(64), Out1: poisoned(64)}
	ok, err := b.GadgetMulAcc([]engine.MulAccJob{j})
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, poisoned(64), j.Out0)
	x := below(rng, 64, q)
	ok, err = b.ScaleDiff([]engine.ScaleDiffJob{{S: j.S, X: x, Y: x, Out: j.Out1, W: 3}})
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, poisoned(64), j.Out1)
}
