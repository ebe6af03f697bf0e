package protocol

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
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

// UnmarshalPrivateReadShare decodes a share at level, checking its shape
// and that every coefficient is reduced (Lattigo's decoder does not).
func UnmarshalPrivateReadShare(p *fhe.Params, level int, b []byte) (multiparty.PublicKeySwitchShare, error) {
	var s multiparty.PublicKeySwitchShare
	if level < 0 || level > p.MaxLevel() {
		return s, fmt.Errorf("protocol: private-read share level %d outside 0..%d", level, p.MaxLevel())
	}
	s = multiparty.PublicKeySwitchShare{Element: *rlwe.NewElement(p.RLWE(), 1, level)}
	if want := s.BinarySize(); len(b) != want {
		return s, fmt.Errorf("protocol: private-read share of %d bytes, want %d (level %d)", len(b), want, level)
	}
	if err := safe("private-read share decode", func() error { return s.UnmarshalBinary(b) }); err != nil {
		return s, fmt.Errorf("protocol: private-read share: %w", err)
	}
	if len(s.Value) != 2 || s.Value[0].Level() != level || s.Value[1].Level() != level {
		return s, fmt.Errorf("protocol: private-read share not at level %d", level)
	}
	for _, v := range s.Value {
		for i, q := range p.Q()[:level+1] {
			for _, c := range v.Coeffs[i] {
				if c >= q {
					return s, errors.New("protocol: private-read share coefficient not reduced")
				}
			}
		}
	}
	return s, nil
}

// CombinePrivateRead is the requester's side: from the private-read shares
// of exactly the t members in set, for ct at the decryption level, it
// returns
//
//	(Δ·c0 + Σ_j Δλ_j·h0_j,  Σ_j Δλ_j·h1_j)
//
// (Δ = n!, Δλ_j the integer Lagrange coefficients, IntegerLagrange), an
// encryption of Δ·m under the requester's key, with the plaintext scale
// multiplied by Δ mod t so that an ordinary decryption with the
// requester's secret key (fhe.Decryptor) returns m. Its noise is
// Δ·e_ct + Σ Δλ_j (E_j + u_j·e' + e0_j + e1_j·s'), the threshold
// decryption's (8σ·Σ|Δλ| + Δ·B_ct, which PlanNoise keeps under Q_ℓ/(2t_p)
// with 2 bits of headroom) plus the fresh-encryption terms, ≈ 2^20·Σ|Δλ|,
// far below the flooding. Fewer than t shares give a uniformly masked
// value: the missing Shamir share is not determined.
func CombinePrivateRead(p *fhe.Params, n int, ct *fhe.Ciphertext, set []transport.MemberID, shares map[transport.MemberID][]byte) (*fhe.Ciphertext, error) {
	if ct == nil || ct.Params() != p || ct.Degree() != 1 {
		return nil, errors.New("protocol: private read needs a degree-1 ciphertext of the preset")
	}
	if len(set) == 0 {
		return nil, ErrTooFewShares
	}
	seen := map[transport.MemberID]bool{}
	for _, j := range set {
		if j < 1 || int(j) > n || seen[j] {
			return nil, fmt.Errorf("protocol: private read: member %d invalid or repeated in a %d-member committee", j, n)
		}
		seen[j] = true
	}
	level := ct.Level()
	lag, err := IntegerLagrange(n, set)
	if err != nil {
		return nil, err
	}
	ringQ := p.RLWE().RingQ().AtLevel(level)
	delta := Factorial(n)
	out := rlwe.NewCiphertext(p.RLWE(), 1, level)
	*out.MetaData = *ct.Lattigo().MetaData
	ringQ.MulScalarBigint(ct.Lattigo().Value[0], delta, out.Value[0])
	for _, j := range set {
		b, ok := shares[j]
		if !ok {
			return nil, fmt.Errorf("protocol: private read: no share from member %d", j)
		}
		s, err := UnmarshalPrivateReadShare(p, level, b)
		if err != nil {
			return nil, fmt.Errorf("member %d: %w", j, err)
		}
		ringQ.MulScalarBigintThenAdd(s.Value[0], lag[j], out.Value[0])
		ringQ.MulScalarBigintThenAdd(s.Value[1], lag[j], out.Value[1])
	}
	tmod := p.PlaintextModulus()
	scale := new(big.Int).SetUint64(ct.Lattigo().Scale.Uint64())
	scale.Mul(scale, delta).Mod(scale, new(big.Int).SetUint64(tmod))
	if scale.Sign() == 0 {
		return nil, errors.New("protocol: Δ is a multiple of the plaintext modulus")
	}
	out.Scale = rlwe.NewScaleModT(scale.Uint64(), tmod)
	return fhe.WrapCiphertext(p, out)
}
