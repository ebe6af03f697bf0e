package corebackends

import (
	"fmt"

	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/precompiles"
)

// Policy compiles policy documents with package policy.
type Policy struct {
	Options policy.Options
}

var _ precompiles.PolicyCompiler = Policy{}

// Compile implements precompiles.PolicyCompiler: the plan hash is the policy
// id, Depth the plan's depth between refreshes, Inputs the number of encrypted
// inputs (one handle each), and Cost the gas one evaluate() pays:
// PerRequestGas, the plan's gas amortised at the target occupancy.
func (p Policy) Compile(spec []byte) (precompiles.PlanInfo, error) {
	plan, err := policy.CompileWith(spec, p.Options)
	if err != nil {
		return precompiles.PlanInfo{}, err
	}
	if plan.Depth < 0 || len(plan.Inputs) == 0 {
		return precompiles.PlanInfo{}, fmt.Errorf("policy: plan has depth %d and %d inputs", plan.Depth, len(plan.Inputs))
	}
	// A plan whose result noise the committee's flooding cannot hide is one
	// the committee refuses (consensus.PolicyCircuits, the same model):
	// refuse it here, at registration, instead of accepting it for the
	// "unevaluable" sentinel. The chain's bound sits 1/256 bit below the
	// committee's, so what the chain accepts the committee evaluates; the
	// estimate is float arithmetic on public values (log2 of sums), and a
	// spec landing within an ulp of the bound — where two architectures'
	// math.Log could disagree — would need ~2^40 crafted attempts.
	params, err := fhe.NewParams(fhe.PresetID(plan.Preset))
	if err != nil {
		return precompiles.PlanInfo{}, err
	}
	//
	// The committee evaluates a request packed (a batch of one when alone)
	// when the policy's packed plan passes, one by one after an entry
	// refresh of each input otherwise (consensus.PolicyCircuits.Register):
	// either form passing admits the policy.
	if err := checkUnpacked(params, plan); err != nil {
		if perr := checkPacked(params, spec); perr != nil {
			return precompiles.PlanInfo{}, fmt.Errorf("%w (packed: %w)", err, perr)
		}
	}
	return precompiles.PlanInfo{
		PlanHash: precompiles.Hash(plan.Hash()),
		Depth:    uint32(plan.Depth),
		Cost:     PerRequestGas(plan),
		Inputs:   uint32(len(plan.Inputs)),
	}, nil
}

// checkRefreshRoom refuses, as the committee does (consensus.PlanRefreshBounds,
// the same estimate), a plan whose collective refreshes would have no room
// for their flooding where the plan takes them: its refresh points at its
// refresh floor, its result (refreshed before the mask when it has no level
// left above the decryption level) at its own level. The flooding hides the
// honest noise estimate, at least B_ct (protocol.RefreshFloorLevel). As for
// the noise bound, the chain's side is 1/256 bit stricter, so what the chain
// accepts the committee evaluates.
func checkRefreshRoom(params *fhe.Params, plan *policy.Plan, est policy.NoiseEstimate, top int) error {
	floor := func(bits float64) (int, error) { return protocol.RefreshFloorLevel(params, bits, 0) }
	_, _, err := plan.CheckRefreshRoom(est, top, protocol.CiphertextNoiseBits, 1.0/256, floor)
	return err
}

// checkUnpacked is the noise bound and the refresh room of plan evaluated
// one by one, its inputs at the entry refresh's output
// (eval.CommitteeNoiseModel).
func checkUnpacked(params *fhe.Params, plan *policy.Plan) error {
	est, err := plan.CheckNoise(eval.CommitteeNoiseModel(params, eval.MaxCommitteeMembers), eval.NoiseLimitBits-1.0/256)
	if err != nil {
		return err
	}
	return checkRefreshRoom(params, plan, est, plan.PresetDepth)
}

// checkPacked refuses, as the committee does (consensus.PolicyCircuits.Register),
// a spec whose packed plan (eval.PackedPlan) does not compile or fails the
// same noise and refresh-room checks with one level less (refreshed
// registers are rescaled once; inputs at eval.CommitteePackedNoiseModel's
// start). Every input, an accepted upload's noise being only bounded by
// zkpok.AcceptedNoiseBits, goes through a collective refresh (the entry
// refresh) before any plan consumes it: the packed path's, or one of its
// own when the request is evaluated one by one.
func checkPacked(params *fhe.Params, spec []byte) error {
	floor, err := protocol.RefreshFloorLevel(params, 0, 0)
	if err != nil {
		return err
	}
	plan, err := eval.PackedPlan(spec, params, floor)
	if err != nil {
		return err
	}
	est, err := plan.CheckNoise(eval.CommitteePackedNoiseModel(params, eval.MaxCommitteeMembers), eval.NoiseLimitBits-1.0/256)
	if err != nil {
		return err
	}
	return checkRefreshRoom(params, plan, est, plan.PresetDepth-1)
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
