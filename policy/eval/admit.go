package eval

import (
	"fmt"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/policy"
)

// The admission rule: which policy specs the chain registers and the
// committee evaluates. FHEPolicy.registerPolicy (precompiles/corebackends,
// Chain) and the committee's registry (consensus/circuit.PolicyCircuits, Committee)
// both call Admit, with fhe/noise's bounds, so they refuse the same specs
// by construction. A spec is admitted for a preset when it compiles and one
// of its two forms passes the noise checks:
//
//   - one by one: the plan compiled for inputs at the preset's top level,
//     each input refreshed alone first (the entry refresh), inputs at the
//     refresh's output (CommitteeNoiseModel);
//   - packed: the plan compiled for inputs one level lower (PackedPlan),
//     as a packed batch runs it (each packed input refreshed and rescaled
//     once, CommitteePackedNoiseModel).
//
// A form passes when its estimated result noise at decryption is at most
// noise.CiphertextBits (the B_ct the decryption's flooding hides) and each of
// its collective refreshes — at its refresh points, at its refresh floor,
// and of its result before the mask — has room for its flooding where the
// plan takes it (noise.RefreshFloorLevel). Everything here is deterministic
// arithmetic on public values; no ciphertext is touched.

// ChainMarginBits is how much stricter the chain's side of the rule is
// (Chain): its noise bounds sit 1/256 bit below the committee's, so that
// what the chain accepts the committee evaluates even where two
// architectures' math.Log2 differed in the last ulp (a spec landing within
// an ulp of a bound would need ~2^40 crafted attempts).
const ChainMarginBits = 1.0 / 256

// Rule is one side's use of the admission rule.
type Rule struct {
	// MarginBits lowers every noise bound (ChainMarginBits on the chain).
	MarginBits float64
}

var (
	// Chain is FHEPolicy.registerPolicy's side (precompiles/corebackends).
	// It checks both forms too: whether the packed form passes decides how
	// the chain books the policy's requests (Admission.Alone).
	Chain = Rule{MarginBits: ChainMarginBits}
	// Committee is the committee's side (consensus/circuit.PolicyCircuits).
	Committee = Rule{}
)

// AutoPreset asks Admit for the preset the plan needs: policy.Compile's
// choice (BGVN13 when the plan fits it, else BGVN14 with refreshes), what
// the chain registers.
const AutoPreset fhe.PresetID = 0

// Form is one evaluation form of an admitted spec.
type Form struct {
	Plan *policy.Plan // nil when the form does not compile (Err says why)
	// Top is the level the plan's registers start at: PresetDepth one by
	// one, PresetDepth − 1 packed.
	Top int
	// PointsBits and FinalBits are the noise bounds its refreshes are sized
	// for (RefreshRoom); zero when Err is set.
	PointsBits, FinalBits float64
	// Err is why the form cannot be evaluated (nil: it passes).
	Err error
}

// Admission is the rule's decision on a spec for one preset.
type Admission struct {
	Params   *fhe.Params
	Unpacked Form // Plan is set: the spec compiled
	Packed   Form // the packed form (eval.PackedPlan)
}

// Alone reports whether every request of the admitted spec is evaluated
// alone: its packed form does not pass, so the committee cannot pack its
// requests and runs each one by one (an entry refresh per input, the plan,
// the result's refresh, a threshold decryption), and the chain books each
// request as that whole evaluation (policy.Plan.AloneGas). The chain's
// margin makes this a superset of the committee's: a packed form that
// passes on the chain passes for the committee, so the chain never books a
// request as shared that the committee evaluates alone.
func (a *Admission) Alone() bool { return a.Packed.Err != nil }

// Admit compiles spec for preset (AutoPreset: the one it needs) once per
// form and applies the rule. It fails with the compile error when the spec
// does not compile, and with both forms' errors ("one-by-one error (packed:
// packed error)") when neither passes.
func (r Rule) Admit(spec []byte, preset fhe.PresetID) (*Admission, error) {
	var p *fhe.Params
	var opt policy.Options
	if preset != AutoPreset {
		var err error
		if p, err = fhe.NewParams(preset); err != nil {
			return nil, err
		}
		opt = CompileOptions(p)
	}
	plan, err := policy.CompileWith(spec, opt)
	if err != nil {
		return nil, err
	}
	if p == nil {
		if p, err = fhe.NewParams(fhe.PresetID(plan.Preset)); err != nil {
			return nil, err
		}
	}
	a := &Admission{Params: p, Unpacked: r.form(p, plan, plan.PresetDepth)}
	if a.Packed.Plan, err = PackedPlan(spec, p); err != nil {
		a.Packed.Err = err
	} else {
		a.Packed = r.form(p, a.Packed.Plan, a.Packed.Plan.PresetDepth-1) // refreshed registers are rescaled once
	}
	if a.Unpacked.Err != nil && a.Packed.Err != nil {
		return nil, fmt.Errorf("%w (packed: %w)", a.Unpacked.Err, a.Packed.Err)
	}
	return a, nil
}

// form checks one form: the noise bound, then the refresh room.
func (r Rule) form(p *fhe.Params, plan *policy.Plan, top int) Form {
	f := Form{Plan: plan, Top: top}
	est, err := plan.CheckNoise(NoiseModelFor(p, plan, top), noise.CiphertextBits-r.MarginBits)
	if err == nil {
		f.PointsBits, f.FinalBits, err = RefreshRoom(p, plan, est, top, r.MarginBits)
	}
	f.Err = err
	return f
}

// RefreshRoom returns the noise bounds of the ciphertexts a plan's
// collective refreshes take, and checks that each has room for its flooding
// where the plan takes it (policy.Plan.CheckRefreshRoom with
// noise.RefreshFloorLevel): est is the plan's honest estimate
// (policy.NoiseEstimate.RefreshInputBits for the refresh points, ResultBits
// for the result — KYC/AML on BGVN14: 2^20.6 at its refresh points, 2^22.6
// for its result, a product of refreshed registers), each at least
// noise.CiphertextBits; a refresh point sits at level ≥ the plan's refresh
// floor, the result at top − its depth. The bounds are checked marginBits
// stricter and returned without the margin. The adversarial estimate of a
// register behind a polynomial of a crafted input exceeds every modulus (it
// wraps, which corrupts only that input's own verdict), so no level could
// promise room for it: the bounds are honest ones. It fails (wrapping
// policy.ErrTooNoisy) when a bound needs a higher level than the plan
// leaves.
func RefreshRoom(p *fhe.Params, plan *policy.Plan, est policy.NoiseEstimate, top int, marginBits float64) (points, final float64, err error) {
	floor := func(bits float64) (int, error) { return noise.RefreshFloorLevel(p, bits, 0) }
	return plan.CheckRefreshRoom(est, top, noise.CiphertextBits, marginBits, floor)
}

// NoiseModelFor is the committee's noise model of a plan whose registers
// start at level top: CommitteeNoiseModel for plans evaluated one by one
// (top = PresetDepth: inputs at the entry refresh's output),
// CommitteePackedNoiseModel for packed plans (top = PresetDepth − 1: the
// refreshed inputs are rescaled once).
func NoiseModelFor(p *fhe.Params, plan *policy.Plan, top int) policy.NoiseModel {
	if top < plan.PresetDepth {
		return CommitteePackedNoiseModel(p, noise.MaxMembers)
	}
	return CommitteeNoiseModel(p, noise.MaxMembers)
}

// CompileOptions are the compile options that target a preset, public or
// not: its depth (MaxLevel), slot count and refresh floor
// (noise.RefreshFloorLevel for fresh-input noise). For the public presets they
// equal policy.Presets' rows (TestCompileOptionsMatchPresets), so a plan
// compiled with them has the hash the chain registers.
func CompileOptions(p *fhe.Params) policy.Options {
	o := policy.Options{Preset: uint8(p.Preset.ID), Depth: p.MaxLevel(), Slots: p.Slots()}
	var err error
	if o.RefreshFloor, err = noise.RefreshFloorLevel(p, 0, 0); err != nil {
		o.RefreshFloor = p.MaxLevel() // no level has room: compiling fails
	}
	return o
}

// PackedPlan compiles spec as the committee evaluates it in a packed batch
// (a batch of one for a request alone), whose inputs come out of the entry
// refresh rescaled by the top prime, so with MaxLevel − 1 levels above the
// preset's refresh floor (refresh points where the plan needs more: a
// refreshed register is rescaled to MaxLevel − 1, and every register stays
// at level ≥ the floor): CompileOptions with Top = MaxLevel − 1.
func PackedPlan(spec []byte, p *fhe.Params) (*policy.Plan, error) {
	opt := CompileOptions(p)
	if p.MaxLevel()-1 <= opt.RefreshFloor {
		return nil, fmt.Errorf("%s has too few levels above its refresh floor %d for packed plans", p.Preset.Name, opt.RefreshFloor)
	}
	opt.Top = p.MaxLevel() - 1
	return policy.CompileWith(spec, opt)
}
