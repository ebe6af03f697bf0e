package protocol

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// sampleValue is a sample lo + 2^40·hi as a float64 (exact to 2^−52
// relative, enough for moments).
func sampleValue(g *GaussianSampler) float64 {
	lo, hi := g.Sample()
	return float64(lo) + float64(hi)*0x1p40
}

// sampleStats draws n samples at σ = 2^bits and checks mean and variance
// within 6 standard errors, and that none exceeds the tail cut.
func sampleStats(t *testing.T, bits float64, n int) {
	// a fixed key: the test checks the construction, not crypto/rand, and
	// must not flake at its 6-standard-error bounds
	g, err := newGaussianSamplerFromSeed(bits, [32]byte{byte(bits), 1})
	require.NoError(t, err)
	sigma := math.Exp2(bits)
	var sum, sum2 float64
	beyond3 := 0
	for range n {
		x := sampleValue(g)
		f := x / sigma
		sum += f
		sum2 += f * f
		require.LessOrEqual(t, math.Abs(x), g.Tail(), "sample beyond the tail cut")
		if math.Abs(f) > 3 {
			beyond3++
		}
	}
	mean := sum / float64(n)
	variance := sum2/float64(n) - mean*mean
	// standard errors: mean 1/√n, variance √(2/n) (in units of σ, σ²)
	require.Less(t, math.Abs(mean), 6/math.Sqrt(float64(n)), "mean")
	require.Less(t, math.Abs(variance-1), 6*math.Sqrt(2/float64(n)), "variance %v", variance)
	// tail mass P[|x| > 3σ] = 0.0026998
	p := 0.0026998
	sd := math.Sqrt(p * (1 - p) / float64(n))
	require.Less(t, math.Abs(float64(beyond3)/float64(n)-p), 6*sd, "tail mass beyond 3σ: %d", beyond3)
	t.Logf("σ=2^%v: mean %.2e σ, variance %.6f σ², P[|x|>3σ] %.5f", bits, mean, variance, float64(beyond3)/float64(n))
}

// TestFloodingSamplerMoments is the coarse-flooding attack: the old sampler
// rounded 2^46·NormFloat64() (a ziggurat, outputs on coarse grids). The
// sampler must have mean 0, variance σ² and the Gaussian's tail mass, at
// σ = 2^20, 2^46 and 2^60 (the convolution's range) and at 2^61, 2^75, 2^90
// and 2^99 (the wide convolution's, for the refresh of packed inputs).
func TestFloodingSamplerMoments(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 200_000
	}
	for _, tc := range []struct {
		bits float64
		n    int
	}{{20, n}, {46, n}, {60, n / 4}, {61, n / 4}, {75, n / 4}, {90, n / 2}, {99, n / 4}} {
		t.Run(fmt.Sprintf("2^%v", tc.bits), func(t *testing.T) { sampleStats(t, tc.bits, tc.n) })
	}
}

// TestFloodingSamplerNoLatticeGaps is attack (3): samples of a rounded
// ziggurat Gaussian at σ = 2^46 lie on a grid (their low bits are not
// uniform), which lets the shares' noise be stripped modulo the grid. The
// low 8 bits must be uniform (chi-square, 255 degrees of freedom: 99.9%
// quantile 330.5), and so must bits 20..27 (the convolution's seam) and,
// for σ > 2^60, bits 40..47 (the wide convolution's seam).
func TestFloodingSamplerNoLatticeGaps(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 300_000
	}
	for _, bits := range []float64{46, 60, 61, 90} {
		g, err := newGaussianSamplerFromSeed(bits, [32]byte{byte(bits), 2})
		require.NoError(t, err)
		var low, seam, wide [256]int
		for i := 0; i < n; i++ {
			lo, hi := g.Sample()
			x := uint64(lo) + uint64(hi)<<40 // x mod 2^64
			low[x&255]++
			seam[(x>>20)&255]++
			wide[(x>>40)&255]++
		}
		hs := map[string][256]int{"bits 0..7": low, "bits 20..27": seam}
		if g.Wide() {
			hs["bits 40..47"] = wide
		}
		for name, h := range hs {
			exp := float64(n) / 256
			chi := 0.0
			for _, c := range h {
				d := float64(c) - exp
				chi += d * d / exp
			}
			t.Logf("σ=2^%v %s: χ² = %.1f (255 dof)", bits, name, chi)
			require.Less(t, chi, 330.5, "σ=2^%v %s not uniform", bits, name)
		}
	}
}

// TestFloodingSamplerReduction: the branch-free reductions (of int64s, and
// of wide samples lo + 2^40·hi) agree with big.Int.
func TestFloodingSamplerReduction(t *testing.T) {
	qs := []uint64{65537, 0x3fffffffef4001, 0x1fffffffffe00001, (1 << 61) - 1}
	xs := []int64{0, 1, -1, 65536, -65537, math.MaxInt64, math.MinInt64 + 1, 1 << 62, -(1 << 62), 123456789123456789, -987654321987654321}
	for _, q := range qs {
		b := newBarrett(q)
		for _, x := range xs {
			want := new(big.Int).Mod(big.NewInt(x), new(big.Int).SetUint64(q)).Uint64()
			require.Equal(t, want, b.reduce(x), "q=%d x=%d", q, x)
		}
		w := newWideReducer(q)
		for _, lo := range xs {
			for _, hi := range xs {
				x := new(big.Int).Lsh(big.NewInt(hi), 40)
				x.Add(x, big.NewInt(lo))
				want := x.Mod(x, new(big.Int).SetUint64(q)).Uint64()
				require.Equal(t, want, w.reduce(lo, hi), "q=%d lo=%d hi=%d", q, lo, hi)
			}
		}
	}
	_, err := NewGaussianSampler(100)
	require.Error(t, err)
	_, err = NewGaussianSampler(1)
	require.Error(t, err)
}

// TestFloodingSamplerWideCut: the 128-bit cut of the wide sampler agrees
// with big.Int at and around the boundary ±⌊8σ⌋ (both signs, lo of either
// sign, carries across the 64-bit limb), and no sample exceeds it.
func TestFloodingSamplerWideCut(t *testing.T) {
	for _, bits := range []float64{60.5, 64, 90, 99} {
		g, err := newGaussianSamplerFromSeed(bits, [32]byte{3, byte(bits)})
		require.NoError(t, err)
		require.True(t, g.Wide())
		tail := new(big.Int).Lsh(new(big.Int).SetUint64(g.tailHi), 64)
		tail.Add(tail, new(big.Int).SetUint64(g.tailLo))
		want, _ := new(big.Float).SetFloat64(math.Floor(g.Tail())).Int(nil)
		require.Equal(t, want, tail, "⌊tail⌋ split into two limbs")
		k := new(big.Int).Lsh(big.NewInt(1), 40)
		for _, d := range []int64{-2, -1, 0, 1, 2} {
			for _, sign := range []int64{1, -1} {
				x := new(big.Int).Add(tail, big.NewInt(d))
				x.Mul(x, big.NewInt(sign))
				for _, off := range []int64{0, 1, -1, 1 << 20, -(1 << 20)} {
					// x = lo + 2^40·hi with lo moved by off·2^40 (|lo| < 2^61)
					hi, lo := new(big.Int).DivMod(x, k, new(big.Int))
					if off != 0 {
						lo.Add(lo, new(big.Int).Mul(big.NewInt(off), k))
						hi.Sub(hi, big.NewInt(off))
					}
					require.True(t, hi.IsInt64() && lo.IsInt64())
					in := new(big.Int).Abs(x).Cmp(tail) <= 0
					require.Equal(t, in, wideWithin(lo.Int64(), hi.Int64(), g.tailHi, g.tailLo), "2^%v: x=%v (lo %v, hi %v)", bits, x, lo, hi)
				}
			}
		}
		for range 20_000 {
			lo, hi := g.Sample()
			x := new(big.Int).Lsh(big.NewInt(hi), 40)
			x.Add(x, big.NewInt(lo))
			require.LessOrEqual(t, x.Abs(x).Cmp(tail), 0)
		}
	}
}
