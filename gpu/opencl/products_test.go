//go:build opencl && cgo

package opencl_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu/opencl"
	"github.com/fhegate/fhegate/internal/testseed"
)

// productRings returns the BGV presets' Q moduli at their N and, beyond
// the native kernels' 51 bits, 61-bit odd moduli at N = 2^12 (the products
// need only Lattigo's reduction constants, no NTT).
func productRings(t *testing.T, rng *rand.Rand) []*ring.SubRing {
	var out []*ring.SubRing
	for _, rs := range presetRings(t) {
		out = append(out, rs[0].SubRings...)
	}
	for range 2 {
		s, err := ring.NewSubRing(1<<12, (rng.Uint64N(1<<59)+1<<60)|1)
		require.NoError(t, err)
		out = append(out, s)
	}
	return out
}

// wildLimb is n random 64-bit words with 0, q−1, q and 2^64−1 planted: the
// products take every word (Lattigo's MRed does).
func wildLimb(rng *rand.Rand, n int, q uint64) []uint64 {
	l := make([]uint64, n)
	for x := range l {
		if x%3 == 0 {
			l[x] = rng.Uint64()
		} else {
			l[x] = rng.Uint64N(q)
		}
	}
	l[0], l[1], l[2], l[n-1] = 0, q-1, q, ^uint64(0)
	return l
}

// withProducts opens the device backend with the products on.
func withProducts(t *testing.T) *opencl.Backend {
	b := open(t).(*opencl.Backend)
	b.Products = true
	return b
}

// TestOpenCLLinComb: at every preset modulus and at 61-bit moduli, with 1,
// 3 and 9 terms, every word of the inputs random over all 64 bits (the
// output's too) and poisoned results, the device writes Lattigo's bytes:
// term after term MulScalarMontgomeryThenAdd (engine.LattigoMulAdd) on
// copies.
func TestOpenCLLinComb(t *testing.T) {
	b := withProducts(t)
	rng := testseed.Rand(t, 2611)
	subs := productRings(t, rng)
	for _, terms := range []int{1, 3, 9} {
		byN := map[int][]engine.LinCombJob{}
		for _, s := range subs {
			n, q := s.N, s.Modulus
			j := engine.LinCombJob{S: s, Out: wildLimb(rng, n, q)}
			for range terms {
				j.A = append(j.A, wildLimb(rng, n, q))
				j.W = append(j.W, rng.Uint64N(q))
			}
			j.W[0] = q - 1
			byN[n] = append(byN[n], j)
		}
		for n, jobs := range byN {
			want := make([][]uint64, len(jobs))
			for i, j := range jobs {
				want[i] = slices.Clone(j.Out)
				for k := range j.A {
					engine.LattigoMulAdd([]engine.MulAddJob{{S: j.S, A: j.A[k], W: j.W[k], Out: want[i]}})
				}
			}
			before, _ := b.ProductCounts()
			ok, err := b.LinComb(jobs)
			require.NoError(t, err)
			require.True(t, ok)
			for i, j := range jobs {
				require.Equal(t, want[i], j.Out, "N=%d terms=%d job %d (q=%d)", n, terms, i, j.S.Modulus)
			}
			after, _ := b.ProductCounts()
			require.Equal(t, before+uint64(len(jobs)), after)
		}
	}
}

// TestOpenCLMulAdd: the one-term case, with Out a separate limb and Out
// aliasing A (bgv's in-place multiply-add), against Lattigo's call.
func TestOpenCLMulAdd(t *testing.T) {
	b := withProducts(t)
	rng := testseed.Rand(t, 2612)
	for _, alias := range []bool{false, true} {
		byN := map[int][]engine.MulAddJob{}
		for _, s := range productRings(t, rng) {
			j := engine.MulAddJob{S: s, A: wildLimb(rng, s.N, s.Modulus), W: rng.Uint64N(s.Modulus), Out: wildLimb(rng, s.N, s.Modulus)}
			if alias {
				j.Out = j.A
			}
			byN[s.N] = append(byN[s.N], j)
		}
		for n, jobs := range byN {
			want := make([]engine.MulAddJob, len(jobs))
			for i, j := range jobs {
				w := j
				w.A, w.Out = slices.Clone(j.A), slices.Clone(j.Out)
				if alias {
					w.Out = w.A
				}
				engine.LattigoMulAdd([]engine.MulAddJob{w})
				want[i] = w
			}
			ok, err := b.MulAdd(jobs)
			require.NoError(t, err)
			require.True(t, ok)
			for i, j := range jobs {
				require.Equal(t, want[i].Out, j.Out, "N=%d alias=%v job %d", n, alias, i)
			}
		}
	}
}

// TestOpenCLTensor: products and squares, separate outputs and outputs over
// the first operand (in place), every input word random over all 64 bits,
// against Lattigo's own loop (engine.LattigoTensor) on copies.
func TestOpenCLTensor(t *testing.T) {
	b := withProducts(t)
	rng := testseed.Rand(t, 2613)
	for _, mode := range []string{"product", "square", "in-place square"} {
		byN := map[int][]engine.TensorJob{}
		for _, s := range productRings(t, rng) {
			n, q := s.N, s.Modulus
			j := engine.TensorJob{S: s, TMont: tMontOf(65537, s), A0: wildLimb(rng, n, q), A1: wildLimb(rng, n, q),
				B0: wildLimb(rng, n, q), B1: wildLimb(rng, n, q), Out0: poisoned(n), Out1: poisoned(n), Out2: poisoned(n)}
			if mode != "product" {
				j.B0, j.B1 = j.A0, j.A1
			}
			if mode == "in-place square" {
				j.Out0, j.Out1 = j.A0, j.A1
			}
			byN[n] = append(byN[n], j)
		}
		for n, jobs := range byN {
			want := make([]engine.TensorJob, len(jobs))
			for i, j := range jobs {
				w := j
				w.A0, w.A1, w.B0, w.B1 = slices.Clone(j.A0), slices.Clone(j.A1), slices.Clone(j.B0), slices.Clone(j.B1)
				w.Out0, w.Out1, w.Out2 = poisoned(n), poisoned(n), poisoned(n)
				engine.LattigoTensor([]engine.TensorJob{w}, mode != "product")
				want[i] = w
			}
			_, tBefore := b.ProductCounts()
			ok, err := b.Tensor(jobs)
			require.NoError(t, err)
			require.True(t, ok)
			for i, j := range jobs {
				require.Equal(t, want[i].Out0, j.Out0, "%s N=%d job %d out0", mode, n, i)
				require.Equal(t, want[i].Out1, j.Out1, "%s N=%d job %d out1", mode, n, i)
				require.Equal(t, want[i].Out2, j.Out2, "%s N=%d job %d out2", mode, n, i)
			}
			_, tAfter := b.ProductCounts()
			require.Equal(t, tBefore+uint64(len(jobs)), tAfter)
		}
	}
}

// tMontOf is Lattigo's tMontgomery limb over s: t·2^64 in Montgomery form.
func tMontOf(t uint64, s *ring.SubRing) uint64 {
	x := ring.MForm(t%s.Modulus, s.Modulus, s.BRedConstant) // t·2^64
	return ring.MForm(x, s.Modulus, s.BRedConstant)         // ·2^64
}

// TestOpenCLProductsDecline: with the products off (the default), a modulus
// ≥ 2^62 or jobs of two N the calls report false and write nothing; a
// malformed job is an error.
func TestOpenCLProductsDecline(t *testing.T) {
	b := open(t).(*opencl.Backend)
	rng := testseed.Rand(t, 2614)
	s, err := ring.NewSubRing(1<<10, (1<<62)+1+2*rng.Uint64N(1<<40))
	require.NoError(t, err)
	small, err := ring.NewSubRing(1<<11, 0x1fffffffffe00001)
	require.NoError(t, err)
	job := func(s *ring.SubRing) engine.LinCombJob {
		return engine.LinCombJob{S: s, A: [][]uint64{wildLimb(rng, s.N, s.Modulus)}, W: []uint64{3}, Out: poisoned(s.N)}
	}
	ok, err := b.LinComb([]engine.LinCombJob{job(small)})
	require.NoError(t, err)
	require.False(t, ok, "products are off by default")
	b.Products = true
	for name, jobs := range map[string][]engine.LinCombJob{
		"q ≥ 2^62":  {job(s)},
		"two sizes": {job(small), job(s)},
	} {
		ok, err := b.LinComb(jobs)
		require.NoError(t, err, name)
		require.False(t, ok, name)
		for _, j := range jobs {
			require.Equal(t, poisoned(j.S.N), j.Out, name)
		}
	}
	bad := job(small)
	bad.W = []uint64{small.Modulus}
	_, err = b.LinComb([]engine.LinCombJob{bad})
	require.Error(t, err)
	_, err = b.MulAdd([]engine.MulAddJob{{S: small, A: make([]uint64, 8), Out: make([]uint64, small.N)}})
	require.Error(t, err)
	_, err = b.Tensor([]engine.TensorJob{{S: small}})
	require.Error(t, err)
}
