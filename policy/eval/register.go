package eval

import (
	"fmt"

	"github.com/fhegate/fhegate/policy"
)

// Registration is what FHEPolicy.registerPolicy records for a spec the
// chain admits (precompiles/corebackends.Policy.Compile returns it as the
// precompile's PlanInfo; @fhegate/client's WebAssembly core returns it to
// contract mocks, so that a mock registers a spec under the id, depth, cost
// and input count the chain gives it).
type Registration struct {
	// Plan is the admitted plan; Plan.Hash() is the policy id.
	Plan *policy.Plan
	// Depth is the plan's depth between refreshes.
	Depth uint32
	// Cost is the gas one evaluate() pays (PerRequestGas).
	Cost uint64
	// Inputs is the number of encrypted inputs (one handle each).
	Inputs uint32
	// Alone: the packed form does not pass, so the committee evaluates each
	// request by itself and the chain books AloneGas (policy.Plan.AloneGas)
	// per request against the committee's per-block budget.
	Alone    bool
	AloneGas uint64
}

// Register applies the chain's side of the admission rule (Chain.Admit
// for the preset the plan needs) and describes what the chain records.
// A plan whose packed form does not pass (Admission.Alone: credit_limit
// and the deep examples on BGVN14, the allowlist on BGVN13) is evaluated
// by the committee request by request: it is reported Alone, and each
// request books its whole evaluation (policy.Plan.AloneGas) against the
// committee's per-block budget while paying the same Cost. A spec the
// committee could not evaluate — neither one by one nor packed, its result
// noise beyond what the flooding hides or a refresh without room for its
// flooding — is refused, at registration, instead of being accepted for
// the "unevaluable" sentinel (Chain: 1/256 bit stricter than the
// committee, so what the chain accepts the committee evaluates).
func Register(spec []byte) (*Registration, error) {
	a, err := Chain.Admit(spec, AutoPreset)
	if err != nil {
		return nil, err
	}
	plan := a.Unpacked.Plan
	if plan.Depth < 0 || len(plan.Inputs) == 0 {
		return nil, fmt.Errorf("policy: plan has depth %d and %d inputs", plan.Depth, len(plan.Inputs))
	}
	return &Registration{
		Plan:     plan,
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
// TestPerRequestGasModel (precompiles/corebackends) pins the figures for
// the shipped policies.
func PerRequestGas(plan *policy.Plan) uint64 {
	t := TargetOccupancy(plan)
	c := (plan.Gas() + t - 1) / t
	return max(c, RequestGasFloor)
}
