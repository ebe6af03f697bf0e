package circuit

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/fhe/noise"
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

	mu     sync.RWMutex
	plans  map[[32]byte]*policy.Plan
	failed map[[32]byte]error       // policy id → compile error for Preset
	packed map[[32]byte]planCircuit // plans compiled for packed batches (eval.PackedPlan)
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
	// (Member.Process): the policy is evaluable when either passes — the
	// admission rule the chain's registerPolicy applies too (eval.Admit).
	var plan, packed *policy.Plan
	var bounds, packedBounds PlanBounds
	var packedErr error
	a, err := eval.Committee.Admit(spec, pc.Preset)
	if err == nil {
		plan, bounds = a.Unpacked.Plan, formBounds(a.Unpacked)
		if packed, packedErr = a.Packed.Plan, a.Packed.Err; packedErr == nil {
			packedBounds = formBounds(a.Packed)
		} else {
			packed, packedErr = nil, fmt.Errorf("consensus: policy %x for packed batches: %w", policyID[:4], packedErr)
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
	if pc.packed == nil {
		pc.packed = map[[32]byte]planCircuit{}
	}
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
// policy compiled with one level less than the preset has (eval.PackedPlan,
// compiled once by Register), so that every collective refresh can be
// followed by a rescale (consensus/pipeline/packed.go, "Refresh noise"). Built-in circuits are
// returned as Lookup does.
func (pc *PolicyCircuits) LookupPacked(id [32]byte) (Circuit, error) {
	pc.mu.RLock()
	c, done := pc.packed[id]
	perr := pc.packedFailed[id]
	pc.mu.RUnlock()
	if done {
		return c, nil
	}
	if perr != nil {
		return nil, perr
	}
	return pc.Lookup(id)
}

// formBounds are the refresh bounds of an admitted form.
func formBounds(f eval.Form) PlanBounds {
	return PlanBounds{Points: RefreshBounds{NoiseBits: f.PointsBits}, Final: RefreshBounds{NoiseBits: f.FinalBits}}
}

// PlanBounds are the noise bounds of a compiled plan's refreshes: Points
// for its refresh points, Final for the refresh of its result before the
// mask (when the result has no level left above the decryption level).
type PlanBounds struct {
	Points, Final RefreshBounds
}

// PlanRefreshBounds returns the noise bounds of the ciphertexts a plan's
// collective refreshes take (top: the level of fresh, or refreshed,
// registers — PresetDepth, one less for packed plans), checked for room as
// admission checks them (eval.RefreshRoom, under eval.NoiseModelFor).
func PlanRefreshBounds(p *fhe.Params, plan *policy.Plan, top int) (PlanBounds, error) {
	return planRefreshBounds(p, plan, top, eval.NoiseModelFor(p, plan, top))
}

// FreshInputRefreshBounds is PlanRefreshBounds for a plan whose inputs are
// fresh encryptions under the collective public key rather than uploads
// (no input proof, no entry refresh: `fhegate policy eval`'s in-process
// committee and benches that encrypt their own inputs): inputs start at
// the model's FreshBits.
func FreshInputRefreshBounds(p *fhe.Params, plan *policy.Plan, top int) (PlanBounds, error) {
	m := eval.NoiseModelFor(p, plan, top)
	m.InputBits = m.FreshBits
	return planRefreshBounds(p, plan, top, m)
}

func planRefreshBounds(p *fhe.Params, plan *policy.Plan, top int, m policy.NoiseModel) (PlanBounds, error) {
	points, final, err := eval.RefreshRoom(p, plan, plan.EstimateNoise(m), top, 0)
	if err != nil {
		return PlanBounds{}, err
	}
	return PlanBounds{Points: RefreshBounds{NoiseBits: points}, Final: RefreshBounds{NoiseBits: final}}, nil
}

// PolicyNoiseModel is the noise model of a preset's plans for a committee of
// at most noise.MaxMembers members: eval.CommitteeNoiseModel, the model of
// the admission rule (eval.Admit) the chain's registerPolicy applies too.
func PolicyNoiseModel(p *fhe.Params) policy.NoiseModel {
	return eval.CommitteeNoiseModel(p, noise.MaxMembers)
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

// PolicyOptions are the compile options that target a preset
// (eval.CompileOptions).
func PolicyOptions(id fhe.PresetID) policy.Options {
	p, err := fhe.NewParams(id)
	if err != nil {
		return policy.Options{Preset: uint8(id)}
	}
	return eval.CompileOptions(p)
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
	// concurrent collective refreshes (distinct sessions). With a router
	// installed in fhe/engine (the GPU gate) the evaluation is also
	// gathered (eval.Options.Gather).
	wide bool
}

// NewPlan is the circuit of a compiled plan whose refreshes are sized for
// bounds (PlanRefreshBounds).
func NewPlan(plan *policy.Plan, bounds PlanBounds) Circuit {
	return planCircuit{plan: plan, bounds: bounds}
}

// BoundsOf returns the refresh bounds of a circuit: a compiled plan's,
// the defaults for the built-in circuits (fresh inputs, products at the
// rescale floor: within noise.CiphertextBits).
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
		// with an accelerator routing, hand it every transform of one
		// step of the plan at once (eval.Options.Gather): same bytes,
		// batches a GPU can use. Not for a CPU-only dispatcher, where
		// the rounds only add waits (engine.WantsBatches). A collective
		// refresh runs outside the Gather (Gather.Outside), so members
		// that reach the plan's refresh points in different orders do
		// not wait on each other's rounds.
		opt.Gather = engine.WantsBatches()
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
