package policy

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math/bits"
)

// The cost model. Per-operation times were measured on this project's
// reference machine by a Go benchmark (the command is in costs.json and
// docs/gas-policy.md) and are committed in costs.json, so that Gas is a pure
// function of the plan: nothing is measured at compile time. Changing
// costs.json changes the gas of every policy and is a network upgrade.

//go:embed costs.json
var costsJSON []byte

// GasPerMicrosecond converts estimated single-core CPU time to gas. It is the
// calibration rate of the precompiles' schedule (precompiles.GasPerMicrosecond:
// ecrecover's 3000 gas for ≈50 µs), i.e. 60 Mgas per CPU-second, the target
// EIP-7904 uses for compute pricing.
const GasPerMicrosecond = 60

// OpCosts are the measured costs of one preset, in microseconds, for one
// ciphertext at the top level (an upper bound for lower levels).
type OpCosts struct {
	Preset     uint8   `json:"preset"`
	Name       string  `json:"name"`
	AddUS      float64 `json:"add_us"`       // ct + ct (also ct − ct, −ct)
	AddConstUS float64 `json:"add_const_us"` // ct + (c, c, …, c) as an encoded plaintext
	MulConstUS float64 `json:"mul_const_us"` // c · ct, scalar (no level; informational: plans multiply by doubling and adding)
	MulUS      float64 `json:"mul_us"`       // ct × ct, relinearise, rescale
	MulPlainUS float64 `json:"mul_plain_us"` // ct × plaintext vector, rescale (OpRescale)
	RotateUS   float64 `json:"rotate_us"`    // slot rotation (unused by slot-wise plans)
	// PolyUS[k−1] is the time of a degree-(2^k − 1) polynomial (k levels).
	PolyUS []float64 `json:"poly_us"`
}

// CostTable is the committed measurement.
type CostTable struct {
	Version     int       `json:"version"`
	Command     string    `json:"command"`
	Machine     string    `json:"machine"`
	Date        string    `json:"date"`
	RefreshUS   int64     `json:"refresh_us"` // per refresh (committee MPC bootstrap): one member's share of the committee's CPU time measured by `fhegate bench committee` (RefreshNote)
	RefreshNote string    `json:"refresh_note"`
	Presets     []OpCosts `json:"presets"`
}

var costTable = mustCostTable()

func mustCostTable() *CostTable {
	var t CostTable
	if err := json.Unmarshal(costsJSON, &t); err != nil {
		panic(fmt.Sprintf("policy: costs.json: %v", err)) // the committed file is checked by a test
	}
	return &t
}

// Costs returns the committed cost table.
func Costs() CostTable { return *costTable }

// costsFor returns the cost row of a preset; presets that are not public
// (test presets) are priced as the deepest public preset.
func costsFor(preset uint8) OpCosts {
	for _, c := range costTable.Presets {
		if c.Preset == preset {
			return c
		}
	}
	return costTable.Presets[len(costTable.Presets)-1]
}

// µs as integer nanoseconds for exact, platform-independent sums.
func ns(us float64) int64 { return int64(us*1000 + 0.5) }

func polyNS(c OpCosts, d int) int64 {
	if d < 1 || len(c.PolyUS) == 0 {
		return 0
	}
	k := depthOf(d)
	if k > len(c.PolyUS) {
		// Beyond the measured table: extrapolate linearly in the degree.
		top := ns(c.PolyUS[len(c.PolyUS)-1])
		return top * int64(d) / int64(1<<len(c.PolyUS)-1)
	}
	hi := ns(c.PolyUS[k-1])
	var lo int64
	loDeg := 0
	if k >= 2 {
		lo = ns(c.PolyUS[k-2])
		loDeg = 1<<(k-1) - 1
	}
	span := int64(1<<k-1) - int64(loDeg)
	return lo + (hi-lo)*int64(d-loDeg)/span
}

// EstimatedNanos is the estimated single-threaded time of one evaluation of
// the plan (one ciphertext set, i.e. up to Slots decisions), in nanoseconds,
// from the committed cost table; refreshes are included at RefreshUS.
func (p *Plan) EstimatedNanos() int64 {
	c := costsFor(p.Preset)
	var t int64
	for _, op := range p.Ops {
		switch op.Kind {
		case OpLinear:
			for _, w := range op.Weights {
				// |w|·x by doubling and adding: (bitlen−1) doublings + (popcount−1) adds.
				if w < 0 {
					w = -w
				}
				t += int64(bits.Len64(uint64(w))-1+bits.OnesCount64(uint64(w))-1) * ns(c.AddUS)
			}
			if n := len(op.Args); n > 1 {
				t += int64(n-1) * ns(c.AddUS)
			} else if n == 1 && op.Weights[0] == -1 {
				t += ns(c.AddUS)
			}
			if len(op.Args) == 0 {
				t += ns(c.AddUS) // x − x
			}
			if op.Const != 0 {
				t += ns(c.AddConstUS)
			}
		case OpPoly:
			t += polyNS(c, op.Degree())
		case OpMul:
			t += ns(c.MulUS)
		case OpRescale:
			t += ns(c.MulPlainUS)
		}
		if op.Refresh {
			t += costTable.RefreshUS * 1000
		}
	}
	return t
}

// EstimatedMillis is EstimatedNanos in milliseconds (for display).
func (p *Plan) EstimatedMillis() float64 { return float64(p.EstimatedNanos()) / 1e6 }

// Gas is the gas of one evaluation of the plan: ⌈estimated µs⌉ ×
// GasPerMicrosecond. It is deterministic (integer arithmetic over the
// committed table) and independent of the number of decisions packed.
func (p *Plan) Gas() uint64 {
	us := (p.EstimatedNanos() + 999) / 1000
	return uint64(us) * GasPerMicrosecond
}

// RefreshGas is the gas of one collective refresh (RefreshUS at
// GasPerMicrosecond): what Gas adds per refresh point, and the price of
// each refresh the committee runs outside a plan (entry refreshes, the
// final refresh of a result before its mask).
func RefreshGas() uint64 { return uint64(costTable.RefreshUS) * GasPerMicrosecond }

// AloneGas is the gas of one request evaluated alone, i.e. when the
// committee cannot pack the policy's requests (its packed plan does not
// pass: eval.Admission.Alone): one entry refresh per input
// (every upload is refreshed before a plan consumes it), the plan with its
// refresh points (Gas), and the final refresh of the result before the mask
// unless the result is a refresh point itself — the refreshes
// CheckRefreshRoom sizes. No occupancy divides it: the evaluation serves one
// request. The chain books it per request against the committee's
// per-block budget; the requester is charged the plan's per-request price
// as for a packed policy (docs/gas.md, "Requests evaluated alone").
func (p *Plan) AloneGas() uint64 {
	n := uint64(len(p.Inputs))
	if p.Result < 0 || p.Result >= len(p.Ops) || !p.Ops[p.Result].Refresh {
		n++
	}
	return p.Gas() + n*RefreshGas()
}

// GasPerDecision is Gas amortised over a full ciphertext set: the share of
// one decision when the committee packs Slots requests into one evaluation.
func (p *Plan) GasPerDecision() uint64 {
	return (p.Gas() + uint64(p.Slots) - 1) / uint64(p.Slots)
}
