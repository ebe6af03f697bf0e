package circuit

import (
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// The packing bounds live in fhe/zkpok (level.go), which needs them for
// the upload level (zkpok.UploadLevel = PackLevel: clients encrypt their
// inputs at the level the committee packs them at); these delegate.

// PackHeadroomBits is the headroom PackLevel leaves for the refresh's
// masks on top of the worst packed noise bound (zkpok.PackHeadroomBits).
const PackHeadroomBits = zkpok.PackHeadroomBits

// AcceptedInputNoiseBits is log2 of the largest noise ‖e‖∞ an input accepted
// by its proof of plaintext knowledge may carry for a committee of up to
// noise.MaxMembers members (zkpok.AcceptedInputNoiseBits, fhe/zkpok doc,
// "Soundness slack").
func AcceptedInputNoiseBits(p *fhe.Params) (float64, error) {
	return zkpok.AcceptedInputNoiseBits(p)
}

// PackBounds returns the noise bounds of a packed input of up to Slots()
// requests (zkpok.PackBounds; docs/derivations.md, "Mask level").
func PackBounds(p *fhe.Params) (RefreshBounds, error) {
	b, err := zkpok.PackBounds(p)
	return RefreshBounds{NoiseBits: b.NoiseBits, WorstBits: b.WorstBits}, err
}

// PackLevel is the lowest level at which a packed input of Slots() requests
// stays decryptable even if every input carries the accepted worst-case
// noise, and its refresh has room for a flooding that hides the honest
// noise (zkpok.PackLevel; docs/derivations.md, "Mask level"). It is also
// the level clients upload at (zkpok.UploadLevel).
func PackLevel(p *fhe.Params) (int, error) {
	return zkpok.PackLevel(p)
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
