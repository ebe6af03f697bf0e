package consensus

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/chainio"
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

// TestSplitOutOfRange: a batch with some slots out of range splits into its
// in-range and out-of-range requests; with every slot out of range, into
// halves.
func TestSplitOutOfRange(t *testing.T) {
	reqs := make([]chainio.Request, 5)
	for i := range reqs {
		reqs[i].ID = [32]byte{byte(i)}
	}
	ids := func(rs []chainio.Request) []byte {
		var out []byte
		for _, r := range rs {
			out = append(out, r.ID[0])
		}
		return out
	}
	for _, tc := range []struct {
		bad  []int
		want [][]byte
	}{
		{[]int{1, 3}, [][]byte{{0, 2, 4}, {1, 3}}},
		{[]int{0, 1, 2, 3, 4}, [][]byte{{0, 1}, {2, 3, 4}}},
		{nil, [][]byte{{0, 1}, {2, 3, 4}}},
	} {
		parts := splitOutOfRange(reqs, tc.bad)
		require.Len(t, parts, 2)
		for i := range parts {
			require.Equal(t, tc.want[i], ids(parts[i]), "bad %v, part %d", tc.bad, i)
		}
	}
}
