package circuit

import (
	"fmt"
	"math"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// PackHeadroomBits is the headroom PackLevel leaves for the refresh's
// masks on top of the worst packed noise bound.
const PackHeadroomBits = 3

// AcceptedInputNoiseBits is log2 of the largest noise ‖e‖∞ an input accepted
// by its proof of plaintext knowledge may carry for a committee of up to
// noise.MaxMembers members (zkpok.AcceptedNoiseBits, fhe/zkpok doc,
// "Soundness slack").
func AcceptedInputNoiseBits(p *fhe.Params) (float64, error) {
	return zkpok.AcceptedNoiseBits(p, noise.MaxMembers)
}

// PackBounds returns the noise bounds of a packed input of up to Slots()
// requests (docs/derivations.md, "Mask level"): NoiseBits = log2(S·N·t·(E_h + 1) + S)
// for honest inputs (E_h = B_ct = 2^noise.CiphertextBits), WorstBits
// the same with the accepted bound E_in.
func PackBounds(p *fhe.Params) (RefreshBounds, error) {
	honest := float64(noise.CiphertextBits)
	accepted, err := AcceptedInputNoiseBits(p)
	if err != nil {
		return RefreshBounds{}, err
	}
	snt := float64(p.Slots()) * float64(p.N()) * float64(p.PlaintextModulus())
	packed := func(e float64) float64 { return math.Log2(snt*(math.Exp2(e)+1) + float64(p.Slots())) }
	return RefreshBounds{NoiseBits: packed(honest), WorstBits: packed(accepted)}, nil
}

// PackLevel is the lowest level at which a packed input of Slots() requests
// stays decryptable even if every input carries the accepted worst-case
// noise, and its refresh has room for a flooding that hides the honest
// noise (noise.RefreshFloorLevel of PackBounds; docs/derivations.md, "Mask level").
func PackLevel(p *fhe.Params) (int, error) {
	b, err := PackBounds(p)
	if err != nil {
		return 0, err
	}
	floor, err := noise.RefreshFloorLevel(p, b.NoiseBits, b.WorstBits)
	if err != nil {
		return 0, fmt.Errorf("consensus: %s cannot pack: %w", p.Preset.Name, err)
	}
	logT := math.Log2(float64(p.PlaintextModulus()))
	need := b.WorstBits + logT + PackHeadroomBits
	logQ := 0.0
	for l, q := range p.Q() {
		logQ += math.Log2(float64(q))
		if need <= logQ && l >= floor {
			return l, nil
		}
	}
	return 0, fmt.Errorf("consensus: %s cannot pack: the noise bound needs 2^%.0f, Q is 2^%.0f", p.Preset.Name, need, logQ)
}

// PackLevelBounds returns PackLevel and PackBounds of p.
func PackLevelBounds(p *fhe.Params) (int, RefreshBounds, error) {
	level, err := PackLevel(p)
	if err != nil {
		return 0, RefreshBounds{}, err
	}
	bounds, err := PackBounds(p)
	return level, bounds, err
}
