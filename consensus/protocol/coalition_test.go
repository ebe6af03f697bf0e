package protocol

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
)

// bruteCoalition is max over an honest member h and a coalition C of t−1
// others of |1/λ_h| = Π_{k∈C} |h−k|/k, by enumeration.
func bruteCoalition(n, t int) *big.Rat {
	best := new(big.Rat)
	for h := 1; h <= n; h++ {
		var rec func(start int, c []int)
		rec = func(start int, c []int) {
			if len(c) == t-1 {
				r := big.NewRat(1, 1)
				for _, k := range c {
					d := h - k
					if d < 0 {
						d = -d
					}
					r.Mul(r, big.NewRat(int64(d), int64(k)))
				}
				if r.Cmp(best) > 0 {
					best = r
				}
				return
			}
			for k := start; k <= n; k++ {
				if k != h {
					rec(k+1, append(c, k))
				}
			}
		}
		rec(1, nil)
	}
	return best
}

// TestCoalitionAmplification: the factor by which t−1 colluding members see
// an honest decryption share's flooding shrunk is C(n−1, t−1) (the closed
// form PlanNoise uses), checked against every honest member and coalition.
func TestCoalitionAmplification(t *testing.T) {
	for _, tc := range []struct{ t, n int }{{1, 1}, {1, 4}, {2, 3}, {2, 4}, {3, 5}, {4, 7}, {5, 9}, {6, 11}, {9, 16}, {16, 16}} {
		t.Run(fmt.Sprintf("%d-of-%d", tc.t, tc.n), func(t *testing.T) {
			got, err := CoalitionAmplification(tc.n, tc.t)
			require.NoError(t, err)
			require.Equal(t, 0, new(big.Rat).SetInt(got).Cmp(bruteCoalition(tc.n, tc.t)), "C(%d, %d) = %s", tc.n-1, tc.t-1, got)
		})
	}
	_, err := CoalitionAmplification(17, 3)
	require.Error(t, err)
}

// TestPlanNoiseCoalitionRho: the plan's ρ is σ/(C(n−1, t−1)·B_ct): for
// BGVN14, 2^30.4 at 3-of-5 (σ = 2^49) and 2^30.3 at 9-of-16 (σ = 2^59), not
// the 2^33 and 2^43 a single share's σ/B_ct suggests; docs/committee.md
// quotes these.
func TestPlanNoiseCoalitionRho(t *testing.T) {
	for _, tc := range []struct {
		preset     fhe.PresetID
		t, n       int
		sigma, rho float64
	}{
		{fhe.BGVN13, 2, 3, 0, 0}, {fhe.BGVN13, 3, 5, 0, 0}, {fhe.BGVN13, 5, 9, 0, 0},
		{fhe.BGVN14, 2, 3, 0, 0}, {fhe.BGVN14, 3, 5, 49, 30.42}, {fhe.BGVN14, 4, 7, 0, 0}, {fhe.BGVN14, 9, 16, 59, 30.35},
	} {
		p := fhe.MustParams(tc.preset)
		plan, err := PlanNoise(p, tc.n, tc.t, 0)
		require.NoError(t, err)
		amp, err := CoalitionAmplification(tc.n, tc.t)
		require.NoError(t, err)
		c, _ := new(big.Float).SetInt(amp).Float64()
		require.InDelta(t, math.Log2(c), plan.CoalitionBits, 1e-9)
		require.InDelta(t, plan.SigmaBits-noise.CiphertextBits-math.Log2(c), plan.RhoBits, 1e-9)
		if tc.sigma > 0 {
			require.Equal(t, tc.sigma, plan.SigmaBits)
			require.InDelta(t, tc.rho, plan.RhoBits, 0.01)
		}
		t.Logf("%s %d-of-%d: level %d σ 2^%.0f C(n−1,t−1) 2^%.2f ρ 2^%.2f, decryptions with log R_2 ≤ 1.44: 2^%.1f",
			p.Preset.Name, tc.t, tc.n, plan.Level, plan.SigmaBits, plan.CoalitionBits, plan.RhoBits, 2*plan.RhoBits-math.Log2(float64(p.N())))
	}
}
