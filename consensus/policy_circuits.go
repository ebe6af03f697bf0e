package consensus

import (
	"context"
	"fmt"
	"sync"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
)

// PolicyCircuits resolves policy ids to compiled policy plans (package
// policy), evaluated with policy/eval, falling back to the built-in
// circuits. The chain adapter registers every PolicyRegistered spec.
type PolicyCircuits struct {
	Preset fhe.PresetID // the committee's preset: plans are compiled for it

	mu    sync.RWMutex
	plans map[[32]byte]*policy.Plan
}

// NewPolicyCircuits returns an empty registry for the committee preset.
func NewPolicyCircuits(preset fhe.PresetID) *PolicyCircuits {
	return &PolicyCircuits{Preset: preset, plans: map[[32]byte]*policy.Plan{}}
}

// Register compiles a policy spec (the bytes FHEPolicy.register stored) for
// the committee preset under the on-chain policy id.
func (pc *PolicyCircuits) Register(policyID [32]byte, spec []byte) error {
	plan, err := policy.CompileWith(spec, PolicyOptions(pc.Preset))
	if err != nil {
		return fmt.Errorf("consensus: policy %x: %w", policyID[:4], err)
	}
	pc.mu.Lock()
	pc.plans[policyID] = plan
	pc.mu.Unlock()
	return nil
}

// Lookup implements Circuits.
func (pc *PolicyCircuits) Lookup(id [32]byte) (Circuit, error) {
	pc.mu.RLock()
	plan, ok := pc.plans[id]
	pc.mu.RUnlock()
	if ok {
		return planCircuit{plan}, nil
	}
	return BuiltinCircuits{}.Lookup(id)
}

// PolicyOptions are the compile options that target a preset (insecure
// test presets need their depth and slot count spelled out).
func PolicyOptions(id fhe.PresetID) policy.Options {
	o := policy.Options{Preset: uint8(id)}
	if p, err := fhe.NewParams(id); err == nil && p.Preset.Insecure() {
		o.Depth, o.Slots = p.MaxLevel(), p.Slots()
	}
	return o
}

type planCircuit struct{ plan *policy.Plan }

func (c planCircuit) Evaluate(ctx context.Context, ev *fhe.Evaluator, in []*fhe.Ciphertext, refresh RefreshFunc) (*fhe.Ciphertext, error) {
	return eval.EvaluateWith(ctx, c.plan, ev, in, eval.Options{Refresh: eval.RefreshFunc(refresh)})
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
