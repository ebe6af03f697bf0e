package main

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
)

// TestReferencesAgreeWithCompiler: the hand-written references and the
// compiler's plaintext evaluation of the same YAML agree on random inputs
// (two independent readings of each policy), and every shipped example has
// a reference.
func TestReferencesAgreeWithCompiler(t *testing.T) {
	t.Parallel()
	require.ElementsMatch(t, examples.AllNames(), names0(), "every shipped example needs a hand-written reference")
	r := rand.New(rand.NewPCG(1, 2))
	for _, rp := range refPolicies {
		plan, err := policy.Compile(examples.MustGet(rp.name))
		require.NoError(t, err, rp.name)
		if rp.wide() {
			checkWide(t, r, rp, plan)
			continue
		}
		require.Len(t, plan.Inputs, len(rp.ranges), rp.name)
		for j, in := range plan.Inputs {
			require.Equal(t, [2]int64{in.Min, in.Max}, rp.ranges[j], "%s input %s", rp.name, in.Name)
		}
		rows := make([][]int64, 400)
		approved := 0
		for k := range rows {
			rows[k] = rp.draw(r, k)
		}
		packed, err := plan.PackInputs(rows)
		require.NoError(t, err)
		got, err := plan.EvalPlain(packed)
		require.NoError(t, err)
		for k, row := range rows {
			want := rp.ref(row)
			require.Equal(t, want, got[k], "%s inputs %v", rp.name, row)
			approved += int(want)
		}
		require.Positive(t, approved, "%s: no approval in 400 draws", rp.name)
		require.Less(t, approved, len(rows), "%s: no denial in 400 draws", rp.name)
	}
}

// checkWide is TestReferencesAgreeWithCompiler for a policy over wide
// unsigned integers: declared maxima, then 400 draws through the digits.
func checkWide(t *testing.T, r *rand.Rand, rp refPolicy, plan *policy.Plan) {
	t.Helper()
	decl := plan.Declared()
	require.Len(t, decl, len(rp.umax), rp.name)
	for j, d := range decl {
		require.Equal(t, rp.umax[j], d.UMax, "%s input %s", rp.name, d.Name)
	}
	rows := make([][]int64, 400)
	vals := make([][]uint64, len(rows))
	for k := range rows {
		vals[k] = rp.drawWide(r, k)
		var err error
		rows[k], err = wideRow(plan, vals[k])
		require.NoError(t, err)
	}
	packed, err := plan.PackInputs(rows)
	require.NoError(t, err)
	got, err := plan.EvalPlain(packed)
	require.NoError(t, err)
	approved := 0
	for k, v := range vals {
		want := rp.uref(v)
		require.Equal(t, want, got[k], "%s inputs %v", rp.name, v)
		approved += int(want)
	}
	require.Positive(t, approved, "%s: no approval in 400 draws", rp.name)
	require.Less(t, approved, len(rows), "%s: no denial in 400 draws", rp.name)
}
