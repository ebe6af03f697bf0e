package circuit

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
)

// ErrUnevaluable is returned by PolicyCircuits.Lookup for a policy whose
// on-chain spec definitely does not compile for the committee preset (see
// ResultUnevaluable). A policy that was never registered is not unevaluable:
// its lookup fails with ErrUnknownPolicy and the request is retried.
var ErrUnevaluable = errors.New("consensus: policy not compilable for the committee preset")

// PolicyCircuits resolves policy ids to compiled policy plans (package
// policy), evaluated with policy/eval, falling back to the built-in
// circuits. The chain adapter registers every PolicyRegistered spec.
//
// A spec that FHEPolicy.registerPolicy accepted (policy.Compile, which picks
// the preset the plan needs) may still fail to compile for the committee's
// own preset (e.g. a comparison polynomial too deep for it). Register records
// that compile error under the policy id; compilation is deterministic, so
// every honest member records the same error and Member.Process answers the
// policy's requests with the signed ResultUnevaluable verdict. Plans and
// errors live in memory; the specs they come from are persisted by
// Member.RegisterPolicy (store key "policy/<id hex>") and recompiled when
// the member starts (Member.LoadPolicies), besides the PolicyRegistered
// events the chain adapter replays. An answered request's verdict is
// persisted by the member, so its outcome is decided once.
type PolicyCircuits struct {
	Preset fhe.PresetID // the committee's preset: plans are compiled for it
	// NoiseLimitBits is the largest estimated decryption noise (log2) a plan
	// may have (policy.Plan.CheckNoise with PolicyNoiseModel); 0 means
	// protocol.CiphertextNoiseBits, the B_ct the flooding is sized for.
	NoiseLimitBits float64

	mu     sync.RWMutex
	plans  map[[32]byte]*policy.Plan
	failed map[[32]byte]error // policy id → compile error for Preset
	specs  map[[32]byte][]byte
	packed map[[32]byte]planCircuit // plans compiled for packed batches (PackedPlan)
	// packedFailed records why a policy has no packed plan: its requests are
	// then evaluated one by one, each input refreshed first (entryRefresh).
	packedFailed map[[32]byte]error
	bounds       map[[32]byte]PlanBounds
}

// NewPolicyCircuits returns an empty registry for the committee preset.
func NewPolicyCircuits(preset fhe.PresetID) *PolicyCircuits {
	return &PolicyCircuits{Preset: preset, plans: map[[32]byte]*policy.Plan{}, failed: map[[32]byte]error{}, bounds: map[[32]byte]PlanBounds{}}
}

// Register compiles a policy spec (the bytes FHEPolicy.registerPolicy stored) for
// the committee preset under the on-chain policy id. A compile error is
// returned and also recorded: Lookup then reports ErrUnevaluable for the id.
func (pc *PolicyCircuits) Register(policyID [32]byte, spec []byte) error {
	// A compiled policy's request is evaluated packed (a batch of one when
	// alone) when its packed plan compiles and passes the noise checks,
	// one by one after an entry refresh of each input otherwise
	// (Member.Process): the policy is evaluable when either passes — what
	// the chain's registerPolicy checks (precompiles/corebackends).
	plan, err := policy.CompileWith(spec, PolicyOptions(pc.Preset))
	var bounds PlanBounds
	if err == nil {
		bounds, err = pc.checkNoise(plan, plan.PresetDepth)
	}
	var packed *policy.Plan
	var packedBounds PlanBounds
	var packedErr error
	if plan != nil {
		var perr error
		if packed, perr = PackedPlan(spec, pc.Preset); perr == nil {
			packedBounds, perr = pc.checkNoise(packed, packed.PresetDepth-1) // refreshed registers are rescaled once
		}
		switch {
		case perr == nil:
			err = nil
		case err != nil:
			err = fmt.Errorf("%w (packed: %w)", err, perr)
			fallthrough
		default:
			packed, packedErr = nil, fmt.Errorf("consensus: policy %x for packed batches: %w", policyID[:4], perr)
		}
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.failed == nil {
		pc.failed, pc.bounds = map[[32]byte]error{}, map[[32]byte]PlanBounds{}
	}
	if err != nil {
		err = fmt.Errorf("consensus: policy %x: %w", policyID[:4], err)
		if _, ok := pc.plans[policyID]; !ok {
			pc.failed[policyID] = err
		}
		return err
	}
	pc.plans[policyID] = plan
	pc.bounds[policyID] = bounds
	delete(pc.failed, policyID)
	if pc.specs == nil {
		pc.specs, pc.packed = map[[32]byte][]byte{}, map[[32]byte]planCircuit{}
	}
	pc.specs[policyID] = append([]byte(nil), spec...)
	delete(pc.packed, policyID)
	delete(pc.packedFailed, policyID)
	if packed != nil {
		pc.packed[policyID] = planCircuit{plan: packed, bounds: packedBounds, wide: true}
	} else {
		if pc.packedFailed == nil {
			pc.packedFailed = map[[32]byte]error{}
		}
		pc.packedFailed[policyID] = packedErr
	}
	return nil
}

// LookupPacked resolves a policy id to the circuit a packed batch runs: the
// policy compiled with one level less than the preset has (PackedPlan), so
// that every collective refresh can be followed by a rescale (packed.go,
// "Refresh noise"). Built-in circuits are returned as Lookup does.
func (pc *PolicyCircuits) LookupPacked(id [32]byte) (Circuit, error) {
	pc.mu.RLock()
	spec, ok := pc.specs[id]
	c, done := pc.packed[id]
	perr := pc.packedFailed[id]
	pc.mu.RUnlock()
	if done {
		return c, nil
	}
	if perr != nil {
		return nil, perr
	}
	if !ok {
		return pc.Lookup(id)
	}
	plan, err := PackedPlan(spec, pc.Preset)
	if err == nil {
		c.plan, c.wide = plan, true
		c.bounds, err = pc.checkNoise(plan, plan.PresetDepth-1) // refreshed registers are rescaled once
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("consensus: policy %x for packed batches: %w", id[:4], err)
		if pc.packedFailed == nil {
			pc.packedFailed = map[[32]byte]error{}
		}
		pc.packedFailed[id] = err
		return nil, err
	}
	pc.packed[id] = c
	return c, nil
}

// PackedPlan compiles spec for the committee preset as packed batches run
// it (eval.PackedPlan: MaxLevel − 1 levels above the preset's refresh
// floor, bound to the preset).
func PackedPlan(spec []byte, id fhe.PresetID) (*policy.Plan, error) {
	p, err := fhe.NewParams(id)
	if err != nil {
		return nil, err
	}
	floor, err := protocol.RefreshFloorLevel(p, 0, 0)
	if err != nil {
		return nil, err
	}
	return eval.PackedPlan(spec, p, floor)
}

// checkNoise refuses a plan whose estimated decryption noise exceeds what
// the flooding hides (the flooding σ = 2^floodingBits·B_ct only
// hides a result noise ≤ B_ct), or whose refreshes would have no room for
// their flooding at the plan's refresh floor (PlanRefreshBounds), and
// returns the bounds its refreshes are sized for. Deterministic: every
// member refuses alike.
func (pc *PolicyCircuits) checkNoise(plan *policy.Plan, top int) (PlanBounds, error) {
	p, err := fhe.NewParams(pc.Preset)
	if err != nil {
		return PlanBounds{}, err
	}
	limit := pc.NoiseLimitBits
	if limit <= 0 {
		limit = protocol.CiphertextNoiseBits
	}
	if _, err = plan.CheckNoise(noiseModelFor(p, plan, top), limit); err != nil {
		return PlanBounds{}, err
	}
	return PlanRefreshBounds(p, plan, top)
}

// PlanBounds are the noise bounds of a compiled plan's refreshes: Points
// for its refresh points, Final for the refresh of its result before the
// mask (when the result has no level left above the decryption level).
type PlanBounds struct {
	Points, Final RefreshBounds
}

// PlanRefreshBounds returns the noise bounds of the ciphertexts a plan's
// collective refreshes take, and checks that each has room for its flooding
// where the plan takes it: NoiseBits is the plan's honest estimate under
// PolicyNoiseModel (policy.NoiseEstimate.RefreshInputBits for the refresh
// points, ResultBits for the result — KYC/AML on BGVN14: 2^20.6 at its
// refresh points, 2^22.6 for its result, a product of refreshed registers),
// at least protocol.CiphertextNoiseBits;
// a refresh point sits at level ≥ the plan's refresh floor, the result at
// top − its depth (top: the level of fresh, or refreshed, registers —
// PresetDepth, one less for packed plans). WorstBits is left to NoiseBits:
// the adversarial estimate of a register behind a polynomial of a crafted
// input exceeds every modulus (it wraps, which corrupts only that input's
// own verdict), so no level could promise room for it. It fails (wrapping
// policy.ErrTooNoisy) when a bound needs a higher level than the plan
// leaves.
func PlanRefreshBounds(p *fhe.Params, plan *policy.Plan, top int) (PlanBounds, error) {
	return planRefreshBounds(p, plan, top, noiseModelFor(p, plan, top))
}

// FreshInputRefreshBounds is PlanRefreshBounds for a plan whose inputs are
// fresh encryptions under the collective public key rather than uploads
// (no input proof, no entry refresh: `fhegate policy eval`'s in-process
// committee and benches that encrypt their own inputs): inputs start at
// the model's FreshBits.
func FreshInputRefreshBounds(p *fhe.Params, plan *policy.Plan, top int) (PlanBounds, error) {
	m := noiseModelFor(p, plan, top)
	m.InputBits = m.FreshBits
	return planRefreshBounds(p, plan, top, m)
}

func planRefreshBounds(p *fhe.Params, plan *policy.Plan, top int, m policy.NoiseModel) (PlanBounds, error) {
	est := plan.EstimateNoise(m)
	floor := func(bits float64) (int, error) { return protocol.RefreshFloorLevel(p, bits, 0) }
	points, final, err := plan.CheckRefreshRoom(est, top, protocol.CiphertextNoiseBits, 0, floor)
	if err != nil {
		return PlanBounds{}, err
	}
	return PlanBounds{Points: RefreshBounds{NoiseBits: points}, Final: RefreshBounds{NoiseBits: final}}, nil
}

// PolicyNoiseModel is the noise model of a preset's plans for a committee of
// at most protocol.MaxMembers members: eval.CommitteeNoiseModel, the same
// model the chain's compiler (precompiles/corebackends) checks at
// registerPolicy, so the chain refuses what the committee would refuse.
func PolicyNoiseModel(p *fhe.Params) policy.NoiseModel {
	return eval.CommitteeNoiseModel(p, protocol.MaxMembers)
}

// noiseModelFor is PolicyNoiseModel for plans evaluated one by one (top =
// PresetDepth: inputs at the entry refresh's output) and
// eval.CommitteePackedNoiseModel for packed plans (top = PresetDepth − 1:
// the refreshed inputs are rescaled once).
func noiseModelFor(p *fhe.Params, plan *policy.Plan, top int) policy.NoiseModel {
	if top < plan.PresetDepth {
		return eval.CommitteePackedNoiseModel(p, protocol.MaxMembers)
	}
	return PolicyNoiseModel(p)
}

// CompileError returns the recorded compile error of a policy id (nil if
// it compiled or was never registered).
func (pc *PolicyCircuits) CompileError(id [32]byte) error {
	pc.mu.RLock()
	defer pc.mu.RUnlock()
	return pc.failed[id]
}

// Lookup implements Circuits. For a policy whose spec did not compile for
// the committee preset the error wraps ErrUnevaluable.
func (pc *PolicyCircuits) Lookup(id [32]byte) (Circuit, error) {
	pc.mu.RLock()
	plan, ok := pc.plans[id]
	cerr := pc.failed[id]
	b := pc.bounds[id]
	pc.mu.RUnlock()
	if ok {
		return planCircuit{plan: plan, bounds: b}, nil
	}
	if cerr != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnevaluable, cerr)
	}
	return BuiltinCircuits{}.Lookup(id)
}

// PolicyOptions are the compile options that target a preset (insecure
// test presets need their depth, slot count and refresh floor spelled out;
// the public presets' floors are policy.Presets' RefreshFloor, which
// TestPresetRefreshFloors checks against protocol.RefreshFloorLevel).
func PolicyOptions(id fhe.PresetID) policy.Options {
	o := policy.Options{Preset: uint8(id)}
	if p, err := fhe.NewParams(id); err == nil && p.Preset.Insecure() {
		o.Depth, o.Slots = p.MaxLevel(), p.Slots()
		if o.RefreshFloor, err = protocol.RefreshFloorLevel(p, 0, 0); err != nil {
			o.RefreshFloor = p.MaxLevel() // no level has room: compiling fails
		}
	}
	return o
}

// planCircuit is a compiled plan and the noise bounds its refreshes are
// sized for (PlanRefreshBounds).
type planCircuit struct {
	plan   *policy.Plan
	bounds PlanBounds
	// wide: evaluate independent ops concurrently (eval.Options.Parallel =
	// GOMAXPROCS): a packed batch's one evaluation (LookupPacked), where a
	// member has no other requests of the batch to keep its cores busy. The
	// result does not depend on it; refresh points of one wave run as
	// concurrent collective refreshes (distinct sessions).
	wide bool
}

// NewPlan is the circuit of a compiled plan whose refreshes are sized for
// bounds (PlanRefreshBounds).
func NewPlan(plan *policy.Plan, bounds PlanBounds) Circuit {
	return planCircuit{plan: plan, bounds: bounds}
}

// BoundsOf returns the refresh bounds of a circuit: a compiled plan's,
// the defaults for the built-in circuits (fresh inputs, products at the
// rescale floor: within CiphertextNoiseBits).
func BoundsOf(c Circuit) PlanBounds {
	switch c := c.(type) {
	case planCircuit:
		return c.bounds
	case *CRDT:
		return PlanBounds{Final: c.bounds}
	}
	return PlanBounds{}
}

// PlanOf returns the compiled policy plan c evaluates, if c is one
// (PolicyCircuits.Lookup, LookupPacked).
func PlanOf(c Circuit) (*policy.Plan, bool) {
	pc, ok := c.(planCircuit)
	return pc.plan, ok
}

func (c planCircuit) Evaluate(ctx context.Context, ev *fhe.Evaluator, in []*fhe.Ciphertext, refresh RefreshFunc) (*fhe.Ciphertext, error) {
	opt := eval.Options{Refresh: eval.RefreshFunc(refresh)}
	if c.wide {
		opt.Parallel = runtime.GOMAXPROCS(0)
	}
	return eval.EvaluateWith(ctx, c.plan, ev, in, opt)
}

func (c planCircuit) Reference(p *fhe.Params, in []int64) uint64 {
	cols := make([][]int64, len(in))
	for j, x := range in {
		cols[j] = []int64{x}
	}
	out, err := c.plan.EvalPlain(cols)
	if err != nil || len(out) == 0 {
		return 0
	}
	return mod(out[0], p.PlaintextModulus())
}
