package pipeline

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/policy"
)

// TestOutOfRange: the output-range check of bool and score plans (values
// mod t, centred) and the built-in circuits (no declared range).
func TestOutOfRange(t *testing.T) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	tm := p.PlaintextModulus()
	boolPlan := circuit.NewPlan(&policy.Plan{Output: policy.Output{Type: "bool"}}, circuit.PlanBounds{})
	score := circuit.NewPlan(&policy.Plan{Output: policy.Output{Type: "score", Min: -3, Max: 100}}, circuit.PlanBounds{})
	for _, tc := range []struct {
		name string
		c    circuit.Circuit
		vals []uint64
		bad  []int
	}{
		{"bool in range", boolPlan, []uint64{0, 1, 1, 0}, nil},
		{"bool out", boolPlan, []uint64{0, 2, 1, tm - 1}, []int{1, 3}},
		{"score in range", score, []uint64{0, 100, tm - 3}, nil},
		{"score out", score, []uint64{101, tm - 4, tm / 2, 7}, []int{0, 1, 2}},
		{"builtin", circuit.ProductSum{}, []uint64{5, tm - 1}, nil},
	} {
		require.Equal(t, tc.bad, outOfRange(tc.c, p, tc.vals), tc.name)
	}
}

// TestIsolationStep: a run with some slots out of range rejects them
// together and re-runs the in-range rest as one part (one run of the
// budget); with every slot out of range it halves (two runs); with the
// budget spent, or alone, it rejects every request of the run.
func TestIsolationStep(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		bad    []int
		left   int
		reject []int
		parts  [][]int
	}{
		{"some out", 5, []int{1, 3}, 2, []int{1, 3}, [][]int{{0, 2, 4}}},
		{"some out, one run left", 5, []int{1, 3}, 1, []int{1, 3}, [][]int{{0, 2, 4}}},
		{"some out, budget spent", 5, []int{1, 3}, 0, []int{0, 1, 2, 3, 4}, nil},
		{"all out", 5, []int{0, 1, 2, 3, 4}, 2, nil, [][]int{{0, 1}, {2, 3, 4}}},
		{"all out, one run left", 5, []int{0, 1, 2, 3, 4}, 1, []int{0, 1, 2, 3, 4}, nil},
		{"all out, budget spent", 2, []int{0, 1}, 0, []int{0, 1}, nil},
		{"alone", 1, []int{0}, 2, []int{0}, nil},
	} {
		reject, parts := isolationStep(tc.n, tc.bad, tc.left)
		require.Equal(t, tc.reject, reject, tc.name)
		require.Equal(t, tc.parts, parts, tc.name)
		runs := 0
		seen := map[int]bool{}
		for _, p := range parts {
			runs++
			for _, s := range p {
				seen[s] = true
			}
		}
		for _, s := range reject {
			require.False(t, seen[s], "%s: slot %d rejected and re-run", tc.name, s)
			seen[s] = true
		}
		require.Len(t, seen, tc.n, "%s: every slot rejected or re-run", tc.name)
		require.LessOrEqual(t, runs, tc.left, "%s: within the budget", tc.name)
	}
}
