package protocol

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
)

// KindReencrypt is the ledger kind of the collective public-key switch
// (Reencrypt). It keys two kinds of entry, told apart by their digest's
// domain tag (see reencryptTargetDigest and reencryptShareDigest): the
// target pin — the one public key a ciphertext may ever be re-encrypted to
// under a key epoch — and the shares themselves.
const KindReencrypt ShareKind = "reenc"

// ReencryptSigmaBits returns log2 σ of the flooding noise each re-encryption
// share carries, and checks that t shares still decrypt correctly under the
// target key at `level`.
//
// The σ is the threshold decryption's configured one: σ = 2^BaseSigmaBits
// of the committee's NoisePlan (PlanNoise; a decryption may raise it with
// its level's headroom, a re-encryption does not), by default 2^(noise.CiphertextBits+noise.DefaultFloodingBits)
// = 2^46, i.e. 2^30 times the noise bound B_ct of the ciphertext whose
// phase the share exposes. The reason is the same: the switched ciphertext's
// noise is e_ct + Σ_j E_j (+ small terms), and it is exposed — to every new
// member by the collective refresh that follows (whose masked decryption
// reveals its input's noise up to the refresh's own, smaller flooding), and
// to anyone holding the target secret — so the old key's ciphertext noise
// e_ct, a function of the old secret, must be hidden by the flooding exactly
// as in a decryption share. Unlike decryption, the
// shares are not combined with Lagrange weights (the Combiner has already
// folded λ_j into the secret), so the flooding adds up to t·8σ, not
// 8σ·Σ|Δλ_j|; correctness needs (t·8σ + B_ct)·t_p < Q_level/2, checked with
// 2 bits of headroom.
func ReencryptSigmaBits(p *fhe.Params, plan NoisePlan, level, t int) (float64, error) {
	if level < 0 || level > p.MaxLevel() {
		return 0, fmt.Errorf("protocol: re-encryption level %d outside 0..%d", level, p.MaxLevel())
	}
	sigmaBits := plan.BaseSigmaBits
	if sigmaBits <= 0 {
		sigmaBits = noise.CiphertextBits + noise.DefaultFloodingBits
	}
	if sigmaBits > maxSigmaBits {
		sigmaBits = maxSigmaBits
	}
	logQ := 0.0
	for _, q := range p.Q()[:level+1] {
		logQ += math.Log2(float64(q))
	}
	total := math.Max(sigmaBits+math.Log2(noise.FloodTailSigmas*float64(t)), noise.CiphertextBits) + 1
	if head := logQ - 1 - math.Log2(float64(p.PlaintextModulus())) - total; head < 2 {
		return 0, fmt.Errorf("protocol: level %d cannot carry 2^%.0f flooding for %d re-encryption shares", level, sigmaBits, t)
	}
	return sigmaBits, nil
}

// reencryptTargetDigest keys the target pin of ct: one per (ciphertext c1,
// key epoch), whatever the active set.
func reencryptTargetDigest(ct *fhe.Ciphertext) [32]byte {
	d := ShareDigest(ct)
	return keccak([]byte("fhegate/reencrypt/target/v1"), d[:])
}

// reencryptShareDigest keys one re-encryption share: the ciphertext, the
// target key and the active set (the additive secret, hence the share,
// depends on the active set, so a run whose active member died can be
// repeated with another set — towards the same target key only).
func reencryptShareDigest(ct *fhe.Ciphertext, target [32]byte, active []transport.MemberID) [32]byte {
	d := ShareDigest(ct)
	ids := memberIDBytes(active)
	return keccak([]byte("fhegate/reencrypt/share/v1"), d[:], target[:], ids)
}

// ReencryptRequest is one collective public-key switch of a stored
// ciphertext from the committee's collective secret to Target.
type ReencryptRequest struct {
	Session    string
	Ciphertext *fhe.Ciphertext
	Target     *fhe.PublicKey
	// Active are exactly t members that generate shares (ascending);
	// Receivers (a superset) get the shares and compute the result too.
	Active    []transport.MemberID
	Receivers []transport.MemberID
}

// ErrTargetPinned is returned (wrapping ErrAlreadyShared) when a member is
// asked to re-encrypt a ciphertext to a key other than the one it already
// re-encrypted it to under the same key epoch.
var ErrTargetPinned = fmt.Errorf("protocol: ciphertext already re-encrypted to another key in this epoch: %w", ErrAlreadyShared)

// Reencrypt runs Lattigo's PublicKeySwitchProtocol (collective public-key
// switching, Mouchet et al., PETS 2021, §IV-C) among the t active members:
// member j, with its additive share s_j = λ_j^S·tsk_j of the collective
// secret (Combiner, as in Refresh), sends
//
//	(h0_j, h1_j) = (c1·s_j + u_j·pk'0 + e0_j + E_j,  u_j·pk'1 + e1_j)
//
// where pk' = Target, u_j, e0_j, e1_j are the fresh public-key encryption of
// zero Lattigo draws and E_j is flooding noise of σ = 2^ReencryptSigmaBits,
// drawn by GaussianSampler (Lattigo's sampler does not reduce samples larger
// than a prime). Every receiver computes (c0 + Σh0_j, Σh1_j), an encryption
// of the same plaintext under Target at the input level, whose noise is
// e_ct + Σ_j (E_j + e0_j + u_j·e' + e1_j·s') ≈ t·2^46: the result carries
// the flooding and should be refreshed by the target committee before it is
// evaluated.
//
// No rotation uses it: one corrupt active member can shift the output's c1
// (the K-shift, TestReencryptKShift), so committee rotation runs the
// cross-committee key switch (CrossKeySwitch) instead. Reencrypt stays as
// the reference that test demonstrates the attack against.
//
// Before its first share for ct, a member pins Target for (ct, key epoch)
// in the ledger; a request for another target is refused with
// ErrTargetPinned, because re-encrypting to a key someone holds is a
// decryption for them. Each share itself is issued once per (ct, target,
// active set, epoch) and persisted before it is sent.
func Reencrypt(ctx context.Context, g Group, key *ThresholdKey, plan NoisePlan, led Ledger, req ReencryptRequest) (*fhe.Ciphertext, error) {
	p := key.Params
	if len(req.Active) != key.T {
		return nil, fmt.Errorf("protocol: re-encryption needs exactly t=%d active members, got %d", key.T, len(req.Active))
	}
	ct := req.Ciphertext
	if ct == nil || ct.Degree() != 1 {
		return nil, errors.New("protocol: re-encryption needs a degree-1 ciphertext")
	}
	if ct.Params() != p || req.Target == nil || req.Target.Params() != p {
		return nil, errors.New("protocol: re-encryption ciphertext, key and target presets differ")
	}
	sigmaBits, err := ReencryptSigmaBits(p, plan, ct.Level(), key.T)
	if err != nil {
		return nil, err
	}
	pkb, err := req.Target.MarshalBinary()
	if err != nil {
		return nil, err
	}
	target := keccak(pkb)
	// Lattigo's own noise: the standard RLWE σ; the flooding is added apart.
	pcks, err := multiparty.NewPublicKeySwitchProtocol(p.RLWE(), ring.DiscreteGaussian{Sigma: rlwe.DefaultNoise, Bound: rlwe.DefaultNoiseBound})
	if err != nil {
		return nil, err
	}
	shares, err := exchangeShares(ctx, g, transport.TypeReencryptShare, req.Session, req.Active, req.Receivers, "re-encryption", func() ([]byte, error) {
		pin := fmt.Sprintf("reenc/target/%x", target)
		if _, err := led.Issue(KindReencrypt, reencryptTargetDigest(ct), key.Epoch, pin, func() ([]byte, error) { return target[:], nil }); err != nil {
			if errors.Is(err, ErrAlreadyShared) {
				return nil, fmt.Errorf("%w (%v)", ErrTargetPinned, err)
			}
			return nil, err
		}
		return led.Issue(KindReencrypt, reencryptShareDigest(ct, target, req.Active), key.Epoch, req.Session, func() ([]byte, error) {
			return genReencryptShare(g, key, pcks, sigmaBits, ct, req.Target, req.Active)
		})
	})
	if err != nil {
		return nil, err
	}
	level := ct.Level()
	alloc := func() multiparty.PublicKeySwitchShare { return pcks.AllocateShare(level) }
	check := func(id transport.MemberID, s multiparty.PublicKeySwitchShare) error {
		if s.Level() != level || len(s.Value) != 2 {
			return fmt.Errorf("protocol: member %d: re-encryption share at level %d, want %d", id, s.Level(), level)
		}
		return nil
	}
	agg, err := aggregateShares("re-encryption", req.Active, shares, alloc, check, pcks.AggregateShares)
	if err != nil {
		return nil, err
	}
	out := rlwe.NewCiphertext(p.RLWE(), 1, level)
	if err := safe("re-encryption key switch", func() error { pcks.KeySwitch(ct.Lattigo(), agg, out); return nil }); err != nil {
		return nil, err
	}
	return fhe.WrapCiphertext(p, out)
}

// genReencryptShare is this member's PCKS share of ct towards target, with
// its additive secret for the active set and flooding noise 2^sigmaBits.
func genReencryptShare(g Group, key *ThresholdKey, pcks multiparty.PublicKeySwitchProtocol, sigmaBits float64, ct *fhe.Ciphertext, target *fhe.PublicKey, activeIDs []transport.MemberID) ([]byte, error) {
	p := key.Params
	add, err := additiveShare(g, key, activeIDs)
	if err != nil {
		return nil, err
	}
	defer zero(add)
	c := ct.Lattigo()
	if !c.IsNTT {
		return nil, errors.New("protocol: ciphertext not in the NTT domain")
	}
	level := ct.Level()
	share := pcks.AllocateShare(level)
	if err := safe("re-encryption share", func() error { pcks.GenShare(add, target.Lattigo(), c, &share); return nil }); err != nil {
		return nil, err
	}
	fs, err := NewGaussianSampler(sigmaBits)
	if err != nil {
		return nil, err
	}
	ringQ := p.RLWE().RingQ().AtLevel(level)
	e := ringQ.NewPoly()
	fs.ReadNTT(ringQ, e)
	ringQ.Add(share.Value[0], e, share.Value[0])
	return share.MarshalBinary()
}
