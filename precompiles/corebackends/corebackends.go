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

// Compile implements precompiles.PolicyCompiler: the plan hash is the policy
// id, Depth the plan's depth between refreshes, Inputs the number of encrypted
// inputs (one handle each), and Cost the gas one evaluate() pays:
// PerRequestGas, the plan's gas amortised at the target occupancy. A plan
// whose packed form does not pass (eval.Admission.Alone: credit_limit and
// the deep examples on BGVN14, the allowlist on BGVN13) is evaluated by the
// committee request by request: it is reported Alone, and each request
// books its whole evaluation (policy.Plan.AloneGas) against the
// committee's per-block budget while paying the same Cost. The plan
// is compiled for the preset it needs (eval.AutoPreset); a spec the
// committee could not evaluate — neither one by one nor packed, its result
// noise beyond what the flooding hides or a refresh without room for its
// flooding — is refused here, at registration, instead of being accepted for
// the "unevaluable" sentinel (eval.Chain: 1/256 bit stricter than the
// committee, so what the chain accepts the committee evaluates).
func (Policy) Compile(spec []byte) (precompiles.PlanInfo, error) {
	a, err := eval.Chain.Admit(spec, eval.AutoPreset)
	if err != nil {
		return precompiles.PlanInfo{}, err
	}
	plan := a.Unpacked.Plan
	if plan.Depth < 0 || len(plan.Inputs) == 0 {
		return precompiles.PlanInfo{}, fmt.Errorf("policy: plan has depth %d and %d inputs", plan.Depth, len(plan.Inputs))
	}
	return precompiles.PlanInfo{
		PlanHash: precompiles.Hash(plan.Hash()),
		Depth:    uint32(plan.Depth),
		Cost:     PerRequestGas(plan),
		Inputs:   uint32(len(plan.Inputs)),
		Alone:    a.Alone(),
		AloneGas: plan.AloneGas(),
	}, nil
}

// Evaluate's gas model (docs/gas.md, "Gas that matches the work").
const (
	// OccupancyDivisor sets the target occupancy: requests are priced as if
	// the committee's packed evaluations were 1/OccupancyDivisor full
	// (4,096 of BGVN14's 16,384 slots). The committee packs the requests of
	// one policy that arrive within a window, so a batch is full only under
	// load; pricing at full batches would sell the committee's CPU 4× below
	// its cost whenever occupancy is lower.
	OccupancyDivisor = 4
	// RequestGasFloor is the least a request pays: its per-request committee
	// work (event decode, packing, unpacking, its verdict slot) is not
	// amortised by packing (≈ 17 µs at 60 gas/µs).
	RequestGasFloor uint64 = 1_000
)

// TargetOccupancy is the number of requests per evaluation the price
// assumes: plan.Slots / OccupancyDivisor, at least 1.
func TargetOccupancy(plan *policy.Plan) uint64 {
	t := uint64(1)
	if plan.Slots > OccupancyDivisor {
		t = uint64(plan.Slots) / OccupancyDivisor
	}
	return t
}

// PerRequestGas is the gas one evaluate() pays for the committee's work:
// max(⌈plan.Gas() / TargetOccupancy(plan)⌉, RequestGasFloor). plan.Gas() is
// the committee's CPU for one packed evaluation (policy/costs.json at
// 60 gas/µs); one evaluation decides up to Slots requests (slot i of every
// input = request i), and the price assumes TargetOccupancy of them.
// TestPerRequestGasModel pins the figures for the shipped policies.
func PerRequestGas(plan *policy.Plan) uint64 {
	t := TargetOccupancy(plan)
	c := (plan.Gas() + t - 1) / t
	return max(c, RequestGasFloor)
}

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
