package protocol

import (
	"errors"
	"fmt"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/pkswitch"
)

// KindPrivateRead is the ledger kind of a private-read share
// (GenPrivateReadShare): one per (ciphertext, requester key, key epoch).
const KindPrivateRead ShareKind = "pread"

// PrivateReadShareDigest keys a member's private-read share of ct (at the
// decryption level) towards the requester key whose canonical bytes hash to
// target. It does not depend on the active set: the share is the member's
// Shamir share times c1, not an additive share, so one share serves every
// t-subset (the requester weights it, CombinePrivateRead).
func PrivateReadShareDigest(ct *fhe.Ciphertext, target [32]byte) [32]byte {
	d := ShareDigest(ct)
	return keccak([]byte("fhegate/private-read/share/v1"), d[:], target[:])
}

// GenPrivateReadShare is member j's share of a client-driven public-key
// switch of ct (already at plan.Level, PrepareForDecryption) towards the
// requester's public key pk' = (pk'0, pk'1) = (−a·s' + e', a):
//
//	h0_j = c1·tsk_j + u_j·pk'0 + e0_j + E_j,   h1_j = u_j·pk'1 + e1_j
//
// with tsk_j the member's Shamir share (not weighted by any Lagrange
// coefficient), (u_j, e0_j, e1_j) Lattigo's fresh public-key encryption of
// zero (PublicKeySwitchProtocol, Mouchet et al., PETS 2021, §IV-C) and E_j
// flooding noise of σ = 2^plan.SigmaBits from GaussianSampler — the
// threshold decryption's σ, so that h0_j + h1_j·s' = c1·tsk_j + E_j + small,
// all that the requester learns of member j, is distributed like a
// decryption share d_j (GenDecryptionShare) and hides tsk_j just as well.
// It reads crypto/rand; the caller issues it through the share ledger
// (KindPrivateRead, PrivateReadShareDigest) so it is computed once.
func GenPrivateReadShare(key *ThresholdKey, plan NoisePlan, ct *fhe.Ciphertext, target *fhe.PublicKey) ([]byte, error) {
	p := key.Params
	if ct == nil || ct.Params() != p || target == nil || target.Params() != p {
		return nil, errors.New("protocol: private read: ciphertext, key and requester key presets differ")
	}
	if ct.Level() != plan.Level || ct.Degree() != 1 {
		return nil, fmt.Errorf("protocol: private read wants degree 1 at level %d, got degree %d level %d", plan.Level, ct.Degree(), ct.Level())
	}
	c := ct.Lattigo()
	if !c.IsNTT {
		return nil, errors.New("protocol: ciphertext not in the NTT domain")
	}
	pcks, err := multiparty.NewPublicKeySwitchProtocol(p.RLWE(), ring.DiscreteGaussian{Sigma: rlwe.DefaultNoise, Bound: rlwe.DefaultNoiseBound})
	if err != nil {
		return nil, err
	}
	share := pcks.AllocateShare(plan.Level)
	sk := &rlwe.SecretKey{Value: key.Share.Poly}
	if err := safe("private-read share", func() error { pcks.GenShare(sk, target.Lattigo(), c, &share); return nil }); err != nil {
		return nil, err
	}
	fs, err := NewGaussianSampler(plan.SigmaBits)
	if err != nil {
		return nil, err
	}
	ringQ := p.RLWE().RingQ().AtLevel(plan.Level)
	e := ringQ.NewPoly()
	fs.ReadNTT(ringQ, e)
	ringQ.Add(share.Value[0], e, share.Value[0])
	return share.MarshalBinary()
}

// UnmarshalPrivateReadShare decodes a share at level (pkswitch.UnmarshalShare).
func UnmarshalPrivateReadShare(p *fhe.Params, level int, b []byte) (multiparty.PublicKeySwitchShare, error) {
	e, err := pkswitch.UnmarshalShare(p, level, b)
	return multiparty.PublicKeySwitchShare{Element: e}, err
}

// CombinePrivateRead is the requester's side (pkswitch.Combine): from the
// private-read shares of exactly the t members in set, for ct at the
// decryption level, it returns (Δ·c0 + Σ_j Δλ_j·h0_j, Σ_j Δλ_j·h1_j), an
// encryption of Δ·m under the requester's key whose plaintext scale is
// multiplied by Δ mod t, so that an ordinary decryption with the
// requester's secret key returns m. Its noise is Δ·e_ct + Σ Δλ_j (E_j +
// u_j·e' + e0_j + e1_j·s'): the threshold decryption's, which PlanNoise
// keeps under Q_ℓ/(2t_p) with 2 bits of headroom, plus fresh-encryption
// terms ≈ 2^11·Σ|Δλ|. Fewer than t shares leave a Shamir share
// undetermined: the value is masked.
func CombinePrivateRead(p *fhe.Params, n int, ct *fhe.Ciphertext, set []transport.MemberID, shares map[transport.MemberID][]byte) (*fhe.Ciphertext, error) {
	ids := make([]uint32, len(set))
	for i, id := range set {
		ids[i] = uint32(id)
	}
	sh := make(map[uint32][]byte, len(shares))
	for id, b := range shares {
		sh[uint32(id)] = b
	}
	out, err := pkswitch.Combine(p, n, ct, ids, sh)
	if errors.Is(err, pkswitch.ErrTooFewShares) {
		return nil, fmt.Errorf("%w: %w", ErrTooFewShares, err)
	}
	return out, err
}
