package eval

import (
	"fmt"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/policy"
)

// packedPresetTag is the placeholder preset id under which a packed plan is
// compiled (policy.Options for a non-public preset take an explicit depth);
// the plan is then bound to the committee preset.
const packedPresetTag = 0xfe

// PackedPlan compiles spec as the committee evaluates it: in a packed batch
// (a batch of one for a request alone), whose inputs come out of the entry
// refresh rescaled by the top prime, so with MaxLevel − 1 levels above the
// preset's refresh floor (refresh points where the plan needs more: a
// refreshed register is rescaled to MaxLevel − 1, and every register stays
// at level ≥ the floor), bound to the preset. refreshFloor is the preset's
// refresh floor for fresh-input noise (consensus/protocol.RefreshFloorLevel
// (p, 0, 0)). The chain's registerPolicy (precompiles/corebackends) and
// the committee (consensus.PolicyCircuits) both compile it, so they refuse
// the same specs.
func PackedPlan(spec []byte, p *fhe.Params, refreshFloor int) (*policy.Plan, error) {
	if p.MaxLevel()-1 <= refreshFloor {
		return nil, fmt.Errorf("%s has too few levels above its refresh floor %d for packed plans", p.Preset.Name, refreshFloor)
	}
	plan, err := policy.CompileWith(spec, policy.Options{Preset: packedPresetTag, Depth: p.MaxLevel() - 1, Slots: p.Slots(), RefreshFloor: refreshFloor})
	if err != nil {
		return nil, err
	}
	plan.Preset, plan.PresetName, plan.PresetDepth = uint8(p.Preset.ID), p.Preset.Name, p.MaxLevel()
	return plan, nil
}
