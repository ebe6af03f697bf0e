package eval_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/policy/examples"
	"github.com/fhegate/fhegate/policy/policytest"
)

// TestCompileOptionsMatchPresets: for the public presets, CompileOptions
// (from the parameters) is policy.Presets' row (what the chain's automatic
// choice compiles for), so a plan compiled for a committee preset has the
// hash the chain registered.
func TestCompileOptionsMatchPresets(t *testing.T) {
	t.Parallel()
	for _, pi := range policy.Presets {
		o := eval.CompileOptions(fhe.MustParams(fhe.PresetID(pi.ID)))
		require.Equal(t, policy.Options{Preset: pi.ID, Depth: pi.Depth, Slots: pi.Slots, RefreshFloor: pi.RefreshFloor}, o, pi.Name)
		for _, name := range examples.AllNames() {
			want, werr := policy.CompileWith(examples.MustGet(name), policy.Options{Preset: pi.ID})
			got, gerr := policy.CompileWith(examples.MustGet(name), o)
			if werr != nil {
				require.EqualError(t, gerr, werr.Error(), "%s %s", pi.Name, name)
				continue
			}
			require.NoError(t, gerr)
			require.Equal(t, want.CanonicalBytes(), got.CanonicalBytes(), "%s %s", pi.Name, name)
			require.Equal(t, want.PresetName, got.PresetName)
			require.Equal(t, want.RefreshFloor, got.RefreshFloor)
		}
	}
}

// TestPackedPlanIsAShallowerTarget: the packed plan is the plan for inputs
// one level lower — the same ops, depths and refresh points as a plan
// compiled for a preset of MaxLevel − 1 levels — bound to the real preset
// (its id, name and depth), with no placeholder preset in between.
func TestPackedPlanIsAShallowerTarget(t *testing.T) {
	t.Parallel()
	for _, id := range []fhe.PresetID{fhe.BGVN13, fhe.BGVN14, fhetest.InsecureBGVN10Deep} {
		p := fhe.MustParams(id)
		floor, err := noise.RefreshFloorLevel(p, 0, 0)
		require.NoError(t, err)
		shallow := policy.Options{Preset: 0xfe, Depth: p.MaxLevel() - 1, Slots: p.Slots(), RefreshFloor: floor}
		for _, name := range examples.AllNames() {
			spec := examples.MustGet(name)
			want, werr := policy.CompileWith(spec, shallow)
			got, gerr := eval.PackedPlan(spec, p)
			if werr != nil {
				require.ErrorIs(t, gerr, policy.ErrTooDeep, "%s %s", p.Preset.Name, name)
				require.ErrorIs(t, werr, policy.ErrTooDeep)
				continue
			}
			require.NoError(t, gerr, "%s %s", p.Preset.Name, name)
			require.Equal(t, want.Ops, got.Ops, "%s %s", p.Preset.Name, name)
			require.Equal(t, want.Depth, got.Depth)
			require.Equal(t, want.RefreshFloor, got.RefreshFloor)
			require.Equal(t, uint8(id), got.Preset)
			if !p.Preset.Insecure() {
				require.Equal(t, p.Preset.Name, got.PresetName)
			}
			require.Equal(t, p.MaxLevel(), got.PresetDepth)
			for _, op := range got.Ops {
				require.GreaterOrEqual(t, p.MaxLevel()-1-op.Depth, got.RefreshFloor, "%s %s", p.Preset.Name, name)
			}
		}
	}
}

// aloneOnChain are the shipped examples without a passing packed form at
// the preset the chain compiles them for: their comparison polynomial needs
// every level of the preset, and the packed plan has one less.
var aloneOnChain = map[string]bool{"allowlist": true, "credit_limit": true, "deep/nested_checks": true, "deep/set_screening": true}

// TestAdmit: the rule admits every shipped example, on the chain's
// automatic preset and on both public committee presets' evaluable forms,
// refuses a too noisy plan (both forms) and a spec that does not compile,
// and reports which examples are evaluated alone (Admission.Alone).
func TestAdmit(t *testing.T) {
	t.Parallel()
	for _, name := range examples.AllNames() {
		spec := examples.MustGet(name)
		a, err := eval.Chain.Admit(spec, eval.AutoPreset)
		require.NoError(t, err, name)
		want, err := policy.Compile(spec)
		require.NoError(t, err)
		require.Equal(t, want.Hash(), a.Unpacked.Plan.Hash(), name)
		require.Equal(t, fhe.PresetID(want.Preset), a.Params.Preset.ID)
		// the chain checks both forms: a spec without a passing packed
		// form is evaluated alone (booked per request)
		require.Equal(t, aloneOnChain[name], a.Alone(), name)
		require.Equal(t, a.Packed.Err != nil, a.Alone(), name)
		c, err := eval.Committee.Admit(spec, fhe.BGVN14)
		require.NoError(t, err, name)
		require.True(t, c.Unpacked.Err == nil || c.Packed.Err == nil, name)
		if !a.Alone() {
			// what the chain books as shared, a BGVN14 committee packs
			require.NoError(t, c.Packed.Err, "%s: booked as packed, evaluated alone", name)
		}
		t.Logf("%s: chain (%s) alone %v; BGVN14 committee alone %v", name, a.Params.Preset.Name, a.Alone(), c.Alone())
		if c.Packed.Err == nil {
			require.Equal(t, c.Packed.Plan.PresetDepth-1, c.Packed.Top)
			require.GreaterOrEqual(t, c.Packed.PointsBits, float64(noise.CiphertextBits))
			require.GreaterOrEqual(t, c.Packed.FinalBits, float64(noise.CiphertextBits))
		}
	}
	for _, r := range []eval.Rule{eval.Chain, eval.Committee} {
		_, err := r.Admit([]byte(policytest.TooNoisy), eval.AutoPreset)
		require.ErrorIs(t, err, policy.ErrTooNoisy)
		require.ErrorContains(t, err, "(packed: ")
		_, err = r.Admit([]byte("fhegate_policy: 1\nname: x\n"), fhe.BGVN14)
		require.ErrorIs(t, err, policy.ErrSchema)
		_, err = r.Admit(examples.MustGet("allowlist"), fhe.PresetID(200))
		require.Error(t, err)
	}
}

// TestRefreshRoom: the rule refuses a plan whose result would be refreshed
// before the mask without room for the flooding: the allowlist's result sits
// at level 1 of BGVN13 (Q_1 = 2^76), where a refresh hides at most
// 2^(76 − 16 − 2 − 33) = 2^25 of noise; 2^25.5 passes the decryption bound
// (−10.5 bits of mask gain) but not the refresh's, and the chain's margin
// refuses 1/256 bit earlier than the committee.
func TestRefreshRoom(t *testing.T) {
	t.Parallel()
	plan, err := policy.Compile(examples.MustGet("allowlist"))
	require.NoError(t, err)
	require.Equal(t, policy.PresetBGVN13, plan.Preset)
	require.Equal(t, 1, plan.PresetDepth-plan.Ops[plan.Result].Depth)
	p := fhe.MustParams(fhe.BGVN13)
	est := plan.EstimateNoise(eval.CommitteeNoiseModel(p, noise.MaxMembers))
	_, _, err = eval.RefreshRoom(p, plan, est, plan.PresetDepth, eval.ChainMarginBits)
	require.NoError(t, err)
	est.ResultBits = 24.5
	_, final, err := eval.RefreshRoom(p, plan, est, plan.PresetDepth, eval.ChainMarginBits)
	require.NoError(t, err)
	require.Equal(t, 24.5, final)
	est.ResultBits = 25.5
	_, _, err = eval.RefreshRoom(p, plan, est, plan.PresetDepth, eval.ChainMarginBits)
	require.ErrorIs(t, err, policy.ErrTooNoisy)
	require.ErrorContains(t, err, "final refresh")
	// find the committee's bound to 2^-20 and check the chain's sits one margin below
	lo, hi := 24.5, 25.5
	for hi-lo > 1.0/(1<<20) {
		est.ResultBits = (lo + hi) / 2
		if _, _, err := eval.RefreshRoom(p, plan, est, plan.PresetDepth, 0); err == nil {
			lo = est.ResultBits
		} else {
			hi = est.ResultBits
		}
	}
	est.ResultBits = lo - eval.ChainMarginBits/2
	_, _, err = eval.RefreshRoom(p, plan, est, plan.PresetDepth, 0)
	require.NoError(t, err)
	_, _, err = eval.RefreshRoom(p, plan, est, plan.PresetDepth, eval.ChainMarginBits)
	require.ErrorIs(t, err, policy.ErrTooNoisy)
}

// TestRefreshFloorLevel: the floor grows with the noise it must hide
// (noise.RefreshFlooding = noise.DefaultFloodingBits + max(noise, B_ct)), noise below
// B_ct counts as B_ct, and a noise no level holds is refused.
func TestRefreshFloorLevel(t *testing.T) {
	t.Parallel()
	p := fhe.MustParams(fhe.BGVN14)
	require.Equal(t, float64(noise.DefaultFloodingBits+noise.CiphertextBits), noise.RefreshFlooding(0))
	require.Equal(t, noise.RefreshFlooding(3), noise.RefreshFlooding(noise.CiphertextBits))
	f0, err := noise.RefreshFloorLevel(p, 0, 0)
	require.NoError(t, err)
	require.Equal(t, 1, f0)
	prev := f0
	for bits := 20.0; bits <= 2000; bits += 20 {
		f, err := noise.RefreshFloorLevel(p, bits, 0)
		if err != nil {
			require.ErrorContains(t, err, "no level of")
			require.Greater(t, bits, 100.0)
			return
		}
		require.GreaterOrEqual(t, f, prev)
		prev = f
	}
	t.Fatal("no noise bound was refused")
}
