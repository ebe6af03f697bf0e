package zkpok

import (
	"fmt"
	"math"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
)

// The upload level.
//
// The committee only uses an input after dropping it to the pack level
// (PackLevel): the lowest level at which a packed input of Slots() requests
// stays decryptable with every input at the noise its proof accepts, and
// its refresh has room to flood. Dropping a level is exact on Lattigo's BGV
// form (c0 + c1·s = [t^{-1}·m]_Q + ν: reducing mod Q_ℓ keeps
// [t^{-1}·m]_{Q_ℓ} and ν), so an input the client encrypts at that level
// carries the same noise as one encrypted at the top level and dropped
// there — with a third (BGVN14: 3 of 10 limbs) of the bytes. Clients
// therefore encrypt uploads at UploadLevel = PackLevel (NewUploadKey), and
// Verify accepts any level from UploadLevel to the top.
//
// Soundness at level ℓ (the package doc, "Soundness" and "Soundness
// slack"): the proof is over R_{Q_ℓ·P} with the public key reduced mod
// Q_ℓ·P (still (−a·s + e_pk, a) with the same e_pk), and nothing in the
// argument depends on Q beyond that: the knowledge error (2N)^{−r} depends
// on N and r only (X^i − X^j is invertible modulo every odd prime); the
// extracted relation 2·ĉ = A′·w̄ + ē over Q_ℓ·P gives, reduced mod P
// (γ ≡ 0 mod P), that the integer polynomial e_pk·w̄_u + ē0 + s·ē1 −
// 2·([ρ0]_P + [ρ1]_P·s) is divisible by P whatever Q_ℓ is, and then
// 2·(ct0 + ct1·s) = t^{-1}·w̄_m + (that)/P (mod Q_ℓ): the noise bound
// AcceptedNoiseBits is an integer bound independent of Q. What Q_ℓ must do
// is hold it: the input decrypts while t·2^AcceptedNoiseBits < Q_ℓ/2, and
// PackLevel asks far more (a packed sum of Slots() such inputs times N·t,
// plus the refresh's flooding). UploadLevel checks both (2^52 against
// Q_2 = 2^118 on BGVN14; 2^58 against Q_3 = 2^140 on BGVN13). The
// extracted witness (u 2^35, e 2^54, m 2^51 on BGVN14) stays far below
// Q_ℓ·P (2^198). The rounding modulus D (q_0 or a P prime) is a prime of
// every Q_ℓ·P, so the argument holds at every level with the same D. ĉ is a public-key RLWE encryption over Q_ℓ·P ⊂ QP (same N,
// same distributions, a smaller modulus: no less secure).

// PackHeadroomBits is the headroom PackLevel leaves for the refresh's masks
// on top of the worst packed noise bound.
const PackHeadroomBits = 3

// Bounds are noise bounds in bits: NoiseBits bounds what a refresh must
// hide (honest inputs), WorstBits the whole noise (attacker-known parts
// included). consensus/circuit.RefreshBounds has the same meaning.
type Bounds struct {
	NoiseBits float64
	WorstBits float64
}

// AcceptedInputNoiseBits is log2 of the largest noise ‖e‖∞ of 2·ct for an
// input ct accepted by its proof of plaintext knowledge, for a committee of
// up to noise.MaxMembers members (AcceptedNoiseBits; the package doc,
// "Soundness slack").
func AcceptedInputNoiseBits(p *fhe.Params) (float64, error) {
	return AcceptedNoiseBits(p, noise.MaxMembers)
}

// PackBounds returns the noise bounds of a packed input of up to Slots()
// requests (docs/derivations.md, "Mask level"): NoiseBits =
// log2(S·N·t·(E_h + 1) + S) for honest inputs (E_h = B_ct =
// 2^noise.CiphertextBits), WorstBits the same with the accepted bound E_in.
func PackBounds(p *fhe.Params) (Bounds, error) {
	honest := float64(noise.CiphertextBits)
	accepted, err := AcceptedInputNoiseBits(p)
	if err != nil {
		return Bounds{}, err
	}
	snt := float64(p.Slots()) * float64(p.N()) * float64(p.PlaintextModulus())
	packed := func(e float64) float64 { return math.Log2(snt*(math.Exp2(e)+1) + float64(p.Slots())) }
	return Bounds{NoiseBits: packed(honest), WorstBits: packed(accepted)}, nil
}

// PackLevel is the lowest level at which a packed input of Slots() requests
// stays decryptable even if every input carries the accepted worst-case
// noise, and its refresh has room for a flooding that hides the honest
// noise (noise.RefreshFloorLevel of PackBounds; docs/derivations.md, "Mask
// level").
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

// UploadLevel is the level clients encrypt uploads at: PackLevel, the
// level the committee drops every input to before it packs and refreshes
// it (see "The upload level" above). It also checks what the soundness
// argument needs of the level: an input at the accepted noise decrypts
// there (t·2^AcceptedInputNoiseBits < Q_ℓ/2) — PackLevel implies it; the
// check keeps the two from drifting apart. A preset that cannot pack has
// no upload level (an error): Verify then accepts top-level inputs only.
func UploadLevel(p *fhe.Params) (int, error) {
	if p.Scheme() != fhe.SchemeBGV {
		return 0, fmt.Errorf("zkpok: %s is not BGV", p.Preset.Name)
	}
	l, err := PackLevel(p)
	if err != nil {
		return 0, fmt.Errorf("zkpok: %s has no upload level: %w", p.Preset.Name, err)
	}
	accepted, err := AcceptedInputNoiseBits(p)
	if err != nil {
		return 0, err
	}
	logQ := 0.0
	for _, q := range p.Q()[:l+1] {
		logQ += math.Log2(float64(q))
	}
	if need := accepted + math.Log2(float64(p.PlaintextModulus())) + 1; need >= logQ {
		return 0, fmt.Errorf("zkpok: %s: level %d (Q = 2^%.0f) does not hold the accepted input noise (needs 2^%.1f)", p.Preset.Name, l, logQ, need)
	}
	return l, nil
}

// minVerifyLevel is the lowest level Verify accepts on p: UploadLevel, or
// the top level when the preset has none.
func minVerifyLevel(p *fhe.Params) int {
	if l, err := UploadLevel(p); err == nil {
		return l
	}
	return p.MaxLevel()
}
