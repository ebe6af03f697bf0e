package protocol

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// sampleStats draws n samples at σ = 2^bits and checks mean and variance
// within 6 standard errors, and that none exceeds the tail cut.
func sampleStats(t *testing.T, bits float64, n int) []int64 {
	// a fixed key: the test checks the construction, not crypto/rand, and
	// must not flake at its 6-standard-error bounds
	g, err := newGaussianSamplerFromSeed(bits, [32]byte{byte(bits), 1})
	require.NoError(t, err)
	sigma := math.Exp2(bits)
	xs := make([]int64, n)
	var sum, sum2 float64
	beyond3 := 0
	for i := range xs {
		x := g.Int64()
		xs[i] = x
		f := float64(x) / sigma
		sum += f
		sum2 += f * f
		require.LessOrEqual(t, math.Abs(float64(x)), g.Tail(), "sample beyond the tail cut")
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
	return xs
}

// TestFloodingSamplerMoments is attack (3) of issue 11: the old sampler
// rounded 2^46·NormFloat64() (a ziggurat, outputs on coarse grids). The
// sampler must have mean 0, variance σ² and the Gaussian's tail mass, at
// σ = 2^20, 2^46 and 2^60 (the convolution's range).
func TestFloodingSamplerMoments(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 200_000
	}
	sampleStats(t, 20, n)
	sampleStats(t, 46, n)
	sampleStats(t, 60, n/4)
}

// TestFloodingSamplerNoLatticeGaps is attack (3): samples of a rounded
// ziggurat Gaussian at σ = 2^46 lie on a grid (their low bits are not
// uniform), which lets the shares' noise be stripped modulo the grid. The
// low 8 bits must be uniform (chi-square, 255 degrees of freedom: 99.9%
// quantile 330.5), and so must bits 20..27 (the convolution's seam).
func TestFloodingSamplerNoLatticeGaps(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 300_000
	}
	for _, bits := range []float64{46, 60} {
		g, err := newGaussianSamplerFromSeed(bits, [32]byte{byte(bits), 2})
		require.NoError(t, err)
		var low, seam [256]int
		for i := 0; i < n; i++ {
			x := uint64(g.Int64())
			low[x&255]++
			seam[(x>>20)&255]++
		}
		for name, h := range map[string][256]int{"bits 0..7": low, "bits 20..27": seam} {
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

// TestFloodingSamplerReduction: the branch-free reduction agrees with big.Int.
func TestFloodingSamplerReduction(t *testing.T) {
	qs := []uint64{65537, 0x3fffffffef4001, 0x1fffffffffe00001, (1 << 61) - 1}
	xs := []int64{0, 1, -1, 65536, -65537, math.MaxInt64, math.MinInt64 + 1, 1 << 62, -(1 << 62), 123456789123456789, -987654321987654321}
	for _, q := range qs {
		b := newBarrett(q)
		for _, x := range xs {
			want := new(big.Int).Mod(big.NewInt(x), new(big.Int).SetUint64(q)).Uint64()
			require.Equal(t, want, b.reduce(x), "q=%d x=%d", q, x)
		}
	}
	_, err := NewGaussianSampler(61)
	require.Error(t, err)
}
