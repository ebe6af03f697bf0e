package corebackends

import (
	"fmt"

	"github.com/fhegate/fhegate/fhe/crdt/meta"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/precompiles"
)

// Policy compiles policy documents with package policy and admits them by
// the admission rule the committee applies too (eval.Admit, chain side).
type Policy struct{}

var _ precompiles.PolicyCompiler = Policy{}

// Compile implements precompiles.PolicyCompiler with eval.Register, the
// chain's side of the admission rule: the plan hash is the policy id, Depth
// the plan's depth between refreshes, Inputs the number of encrypted inputs
// (one handle each), and Cost the gas one evaluate() pays: PerRequestGas,
// the plan's gas amortised at the target occupancy. A plan whose packed
// form does not pass is reported Alone (eval.Register says how it is
// booked); a spec the committee could not evaluate is refused here, at
// registration. @fhegate/client's WebAssembly core calls eval.Register too,
// so contract mocks register specs under the same ids.
func (Policy) Compile(spec []byte) (precompiles.PlanInfo, error) {
	r, err := eval.Register(spec)
	if err != nil {
		return precompiles.PlanInfo{}, err
	}
	return precompiles.PlanInfo{
		PlanHash: precompiles.Hash(r.Plan.Hash()),
		Depth:    r.Depth,
		Cost:     r.Cost,
		Inputs:   r.Inputs,
		Alone:    r.Alone,
		AloneGas: r.AloneGas,
	}, nil
}

// Evaluate's gas model (docs/gas.md, "Gas that matches the work"): defined
// in policy/eval (eval.PerRequestGas), which the WebAssembly client builds too.
const (
	// OccupancyDivisor is eval.OccupancyDivisor.
	OccupancyDivisor = eval.OccupancyDivisor
	// RequestGasFloor is eval.RequestGasFloor.
	RequestGasFloor = eval.RequestGasFloor
)

// TargetOccupancy is eval.TargetOccupancy.
func TargetOccupancy(plan *policy.Plan) uint64 { return eval.TargetOccupancy(plan) }

// PerRequestGas is eval.PerRequestGas: the gas one evaluate() pays.
// TestPerRequestGasModel pins the figures for the shipped policies.
func PerRequestGas(plan *policy.Plan) uint64 { return eval.PerRequestGas(plan) }

// CRDTMeta merges fhe/crdt/meta canonical encodings; kind is meta.Type.
type CRDTMeta struct{}

var _ precompiles.CRDTMerger = CRDTMeta{}

func decode(kind uint8, b []byte) (*meta.State, error) {
	s, err := meta.Decode(b)
	if err != nil {
		return nil, err
	}
	if s.Layout.Type != meta.Type(kind) {
		return nil, fmt.Errorf("metadata is a %s state, kind %d requested", s.Layout.Type, kind)
	}
	return s, nil
}

// Validate implements precompiles.CRDTMerger.
func (CRDTMeta) Validate(kind uint8, b []byte) error {
	_, err := decode(kind, b)
	return err
}

// Merge implements precompiles.CRDTMerger (meta.Merge: the join of the two states).
func (CRDTMeta) Merge(kind uint8, a, b []byte) ([]byte, error) {
	if _, err := decode(kind, a); err != nil {
		return nil, err
	}
	return meta.Merge(a, b)
}

// Handles implements precompiles.CRDTMerger: the handles of the state's entries.
func (CRDTMeta) Handles(kind uint8, b []byte) ([]precompiles.Hash, error) {
	s, err := decode(kind, b)
	if err != nil {
		return nil, err
	}
	hs := s.Handles()
	out := make([]precompiles.Hash, len(hs))
	for i, h := range hs {
		out[i] = precompiles.Hash(h)
	}
	return out, nil
}
