package consensus_test

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/policy/examples"
)

// floorChecker records every collective refresh a committee runs (through
// TestingKnobs.BeforeRefresh) and the ones whose input level is below
// noise.RefreshFloorLevel for the bounds the refresh was sized for: until
// protocol.Refresh refuses such a refresh itself, this is the check that
// every caller refreshes at a level with room for its flooding.
type floorChecker struct {
	p      *fhe.Params
	mu     sync.Mutex
	n      int
	levels map[int]int
	bad    []string
}

func newFloorChecker(p *fhe.Params) *floorChecker {
	return &floorChecker{p: p, levels: map[int]int{}}
}

func (c *floorChecker) knobs() TestingKnobs {
	return TestingKnobs{BeforeRefresh: func(level int, b circuit.RefreshBounds) {
		floor, err := noise.RefreshFloorLevel(c.p, b.NoiseBits, b.WorstBits)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.n++
		c.levels[level]++
		if err != nil || level < floor {
			c.bad = append(c.bad, fmt.Sprintf("refresh at level %d, bounds 2^%.1f/2^%.1f need level %d (%v)", level, b.NoiseBits, b.WorstBits, floor, err))
		}
	}}
}

// check requires at least min refreshes, none below its floor.
func (c *floorChecker) check(t *testing.T, min int) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	require.Empty(t, c.bad)
	require.GreaterOrEqual(t, c.n, min)
	t.Logf("%d refreshes, by input level: %v", c.n, c.levels)
}

// TestPresetRefreshFloors: the refresh floor the compiler keeps plans above
// (policy.PresetInfo.RefreshFloor, PolicyOptions for the test presets) is
// noise.RefreshFloorLevel for the default noise bound, on every BGV preset.
func TestPresetRefreshFloors(t *testing.T) {
	t.Parallel()
	for _, pi := range policy.Presets {
		p, err := fhe.NewParams(fhe.PresetID(pi.ID))
		require.NoError(t, err)
		floor, err := noise.RefreshFloorLevel(p, 0, 0)
		require.NoError(t, err)
		require.Equal(t, floor, pi.RefreshFloor, pi.Name)
		plan, err := policy.CompileWith(examples.MustGet("allowlist"), circuit.PolicyOptions(fhe.PresetID(pi.ID)))
		require.NoError(t, err)
		require.Equal(t, floor, plan.RefreshFloor, pi.Name)
	}
	for _, id := range []fhe.PresetID{fhetest.InsecureBGVN10, fhetest.InsecureBGVN10Deep} {
		p, err := fhe.NewParams(id)
		require.NoError(t, err)
		floor, err := noise.RefreshFloorLevel(p, 0, 0)
		require.NoError(t, err)
		require.Equal(t, floor, circuit.PolicyOptions(id).RefreshFloor, p.Preset.Name)
	}
}

// TestPlanRefreshBounds: every shipped policy compiled for the committee
// presets (per request and packed) refreshes within its floor: its
// registers stay at level ≥ the floor, the floor of the bounds its refresh
// points are sized for (PlanRefreshBounds) is at most the plan's floor, and
// that of its result's bounds at most the result's level.
func TestPlanRefreshBounds(t *testing.T) {
	t.Parallel()
	for _, id := range []fhe.PresetID{fhe.BGVN13, fhe.BGVN14, fhetest.InsecureBGVN10, fhetest.InsecureBGVN10Deep} {
		p, err := fhe.NewParams(id)
		require.NoError(t, err)
		for _, name := range examples.AllNames() {
			spec := examples.MustGet(name)
			refused, deep := map[bool]bool{}, map[bool]bool{}
			for _, packed := range []bool{false, true} {
				var plan *policy.Plan
				if packed {
					plan, err = eval.PackedPlan(spec, p)
				} else {
					plan, err = policy.CompileWith(spec, circuit.PolicyOptions(id))
				}
				if err != nil {
					require.ErrorIs(t, err, policy.ErrTooDeep, "%s %s", p.Preset.Name, name)
					deep[packed] = true
					continue
				}
				top := plan.PresetDepth
				if packed {
					top-- // refreshed registers are rescaled once
				}
				for i, op := range plan.Ops {
					require.GreaterOrEqual(t, top-op.Depth, plan.RefreshFloor, "%s %s register %d", p.Preset.Name, name, i)
				}
				b, err := circuit.PlanRefreshBounds(p, plan, top)
				if err != nil {
					// evaluable when the other form passes (PolicyCircuits.Register)
					require.ErrorIs(t, err, policy.ErrTooNoisy, "%s %s", p.Preset.Name, name)
					refused[packed] = true
					continue
				}
				floor, err := noise.RefreshFloorLevel(p, b.Points.NoiseBits, b.Points.WorstBits)
				require.NoError(t, err)
				require.LessOrEqual(t, floor, plan.RefreshFloor, "%s %s", p.Preset.Name, name)
				floor, err = noise.RefreshFloorLevel(p, b.Final.NoiseBits, b.Final.WorstBits)
				require.NoError(t, err)
				require.LessOrEqual(t, floor, top-plan.Ops[plan.Result].Depth, "%s %s", p.Preset.Name, name)
			}
			// On the public presets every example is evaluable in one form
			// (the insecure N = 2^10 test presets are too small for some
			// once inputs start at the entry refresh's output).
			if (refused[false] || refused[true]) && !p.Preset.Insecure() {
				require.False(t, (refused[false] || deep[false]) && (refused[true] || deep[true]),
					"%s %s: refused for noise in one form, not evaluable in the other", p.Preset.Name, name)
			}
		}
	}
}

// TestPackLevelFloor: PackLevel is the lowest level that satisfies both the
// no-overflow rule for the worst (accepted) packed noise and the refresh
// floor of the packed bounds (PackBounds); the numbers of docs/committee.md
// ("Mask level") are the ones computed here.
func TestPackLevelFloor(t *testing.T) {
	t.Parallel()
	want := map[fhe.PresetID]int{fhe.BGVN13: 3, fhe.BGVN14: 2}
	for _, id := range []fhe.PresetID{fhe.BGVN13, fhe.BGVN14, fhetest.InsecureBGVN10, fhetest.InsecureBGVN10Deep} {
		p, err := fhe.NewParams(id)
		require.NoError(t, err)
		l, err := circuit.PackLevel(p)
		require.NoError(t, err)
		b, err := circuit.PackBounds(p)
		require.NoError(t, err)
		honest := float64(noise.CiphertextBits)
		accepted, err := circuit.AcceptedInputNoiseBits(p)
		require.NoError(t, err)
		// S·N·t·E written out.
		logSNT := math.Log2(float64(p.Slots())) + math.Log2(float64(p.N())) + math.Log2(float64(p.PlaintextModulus()))
		require.InDelta(t, honest+logSNT, b.NoiseBits, 0.01)
		require.InDelta(t, accepted+logSNT, b.WorstBits, 0.01)
		floor, err := noise.RefreshFloorLevel(p, b.NoiseBits, b.WorstBits)
		require.NoError(t, err)
		logT := math.Log2(float64(p.PlaintextModulus()))
		logQ := func(l int) float64 {
			s := 0.0
			for _, q := range p.Q()[:l+1] {
				s += math.Log2(float64(q))
			}
			return s
		}
		fits := func(l int) bool { return l >= floor && b.WorstBits+logT+circuit.PackHeadroomBits <= logQ(l) }
		require.True(t, fits(l), p.Preset.Name)
		if l > 0 {
			require.False(t, fits(l-1), p.Preset.Name)
		}
		if w, ok := want[id]; ok {
			require.Equal(t, w, l, p.Preset.Name)
		}
		t.Logf("%s: honest input 2^%.1f, accepted 2^%.1f; packed honest 2^%.1f, worst 2^%.1f; refresh floor %d, Q_%d = 2^%.1f: pack level %d",
			p.Preset.Name, honest, accepted, b.NoiseBits, b.WorstBits, floor, l, logQ(l), l)
	}
}
