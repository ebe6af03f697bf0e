package eval

import (
	"math"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
	"github.com/fhegate/fhegate/policy"
)

// CommitteeNoiseModel is the noise model of a preset's plans for a committee
// of at most maxMembers members (policy.NoiseModel): a fresh
// encryption 6·3.2·√(4/3·N·16) (u·e_pk + e0 + e1·s, e_pk and s sums of up to
// 16 members' Gaussian and ternary secrets), the measured rescale floor 2^7,
// a refresh's 6·2^20·√16 (RefreshSigma ≤ 2^20, a sum of ≤ 16 independent
// Gaussian shares: 6 standard deviations, heuristic like the fresh bound),
// and the mask's √N·t/2 divided by the smallest prime it may drop.
//
// InputBits is where a plan's inputs start: the output of the ENTRY
// REFRESH (RefreshBits) at the top level, for a plan evaluated one by one
// (CommitteePackedNoiseModel: rescaled once by the top prime, as the packed
// path does). An accepted input's own noise bound, for the 2·ct
// the committee evaluates (zkpok.AcceptedNoiseBits(p, maxMembers): 2^41.0
// on BGVN13 with every public-key share's error at its proven bound, 2^33.0
// with an honest DKG's key, 2^35.0 on BGVN14; an attacker reaches ≈ 2^22
// with 2^40 work),
// is far above what any plan's flooding hides, so the committee never
// evaluates an upload directly: a compiled policy's request goes through
// the packed path (a batch of one when alone), whose collective refresh of
// each packed input takes the accepted bound as attacker-known noise that
// only has to fit its level (consensus/circuit.PackLevel), or — when the policy has
// no packed plan — has each input refreshed alone first
// (consensus/pipeline requestRun.entryRefresh, same bounds); either refresh returns
// a ciphertext whose noise is the refresh's output. AcceptedBits records the accepted bound
// (FreshBits on presets without an input proof); it enters no plan
// estimate. The worst-case rules' gains use N·t instead of the heuristic
// √N·t. DecryptLevel is −1 (unknown): a caller that knows
// its committee's decryption level (protocol.PlanNoise) sets it to credit the
// modulus switch. Everything here is cheap and deterministic: the chain's
// registerPolicy computes it per registration.
func CommitteeNoiseModel(p *fhe.Params, maxMembers int) policy.NoiseModel {
	n := float64(p.N())
	t := float64(p.PlaintextModulus())
	minQ := math.Inf(1)
	qBits := make([]float64, len(p.Q()))
	for i, q := range p.Q() {
		qBits[i] = math.Log2(float64(q))
		if i > 0 {
			minQ = math.Min(minQ, qBits[i])
		}
	}
	m := policy.NoiseModel{
		FreshBits:         math.Log2(6 * 3.2 * math.Sqrt(4.0/3*n*float64(maxMembers))),
		FloorBits:         7,
		RefreshBits:       math.Log2(6 * math.Exp2(20) * math.Sqrt(float64(maxMembers))),
		MaskGainBits:      math.Log2(math.Sqrt(n)*t/2) - minQ,
		MulGainBits:       math.Log2(t*n) - minQ,
		MaskWorstGainBits: math.Log2(n*t/2) - minQ,
		MinQBits:          minQ,
		QBits:             qBits,
		DecryptLevel:      -1,
		SwitchRescales:    2, // consensus/protocol.MaxSwitchRescales
	}
	m.InputBits = m.RefreshBits
	m.AcceptedBits = m.FreshBits
	if b, err := zkpok.AcceptedNoiseBits(p, maxMembers); err == nil {
		m.AcceptedBits = b
	}
	return m
}

// CommitteePackedNoiseModel is CommitteeNoiseModel for the plans of packed
// batches (PackedPlan): every packed input's entry refresh is followed by a
// rescale by the top prime (consensus/pipeline/packed.go, "Refresh noise"), so
// inputs start at that rescale's output, by OpRescale's rule (≈ 2^8, the
// rescale floor).
func CommitteePackedNoiseModel(p *fhe.Params, maxMembers int) policy.NoiseModel {
	m := CommitteeNoiseModel(p, maxMembers)
	m.InputBits = math.Max(m.FloorBits+1, math.Log2(math.Exp2(m.FloorBits)+math.Exp2(m.RefreshBits-m.MinQBits)))
	return m
}
