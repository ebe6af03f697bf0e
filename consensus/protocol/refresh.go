package protocol

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"
	"github.com/tuneinsight/lattigo/v6/multiparty/mpbgv"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// RefreshSigma is the flooding σ of the collective refresh for a ciphertext
// at `level`: the largest power of two for which t shares still decrypt the
// masked value correctly at that level (8σ·t < Q_level/(4t_p)), capped at
// 2^20 so that Lattigo's sampler (which does not reduce samples above a
// prime) stays exact. A refresh hides the plaintext with a uniform mask, so
// this σ protects the secret shares, not the message.
func RefreshSigma(p *fhe.Params, level, t int) float64 {
	logQ := 0.0
	for _, q := range p.Q()[:level+1] {
		logQ += math.Log2(float64(q))
	}
	bits := logQ - math.Log2(float64(p.PlaintextModulus())) - 2 - math.Log2(tailSigmas*float64(t)) - CiphertextNoiseBits/2
	bits = math.Floor(math.Min(bits, 20))
	if bits < 2 {
		bits = 2
	}
	return math.Exp2(bits)
}

// refreshDigest is the ledger key of a refresh share: the ciphertext's
// digest and the active set. A member issues at most one refresh share per
// (ciphertext, active set, epoch) — so at most C(n−1, t−1) for one
// ciphertext — and a refresh whose active member died can be run again with
// another active set. A refresh share reveals no plaintext: the receivers
// learn the re-encryption, masked by each share's uniform mask.
func refreshDigest(ct *fhe.Ciphertext, active []transport.MemberID) [32]byte {
	d := ShareDigest(ct)
	ids := make([]byte, 0, 4*len(active))
	for _, id := range active {
		ids = binary.BigEndian.AppendUint32(ids, uint32(id))
	}
	return keccak([]byte("fhegate/refresh/ledger/v1"), d[:], ids)
}

// RefreshRequest is one collective refresh (MPC bootstrapping).
type RefreshRequest struct {
	Session    string
	Ciphertext *fhe.Ciphertext
	// Active are exactly t members that generate shares (ascending);
	// Receivers (a superset) get the shares and compute the result too.
	Active    []transport.MemberID
	Receivers []transport.MemberID
	// PublicKey is the collective public key (required): the input is
	// sanitised first (coin toss among the receivers, see Sanitise).
	PublicKey *fhe.PublicKey
	// NoiseBits is log2 of a bound on the part of the input's phase noise
	// that must stay hidden from the members (anything that depends on the
	// secret key or on plaintexts nobody among the attackers knows: honest
	// encryption noise, rounding noise of rescales, plaintext carries of
	// products). Every member finalising the refresh sees the input's noise
	// plus the flooding, so the flooding is sized from it (RefreshFlooding).
	// 0 means CiphertextNoiseBits.
	NoiseBits float64
	// WorstBits is log2 of a bound on the input's whole phase noise,
	// including parts an attacker knows and therefore need not be hidden
	// (inputs crafted at the input proof's accepted bound): it only has to
	// fit the level (RefreshFloorLevel). 0 means NoiseBits.
	WorstBits float64
}

// RefreshFlooding returns log2 of the total flooding σ (summed over the t
// active shares) that hides an input noise of 2^noiseBits with
// DefaultFloodingBits of statistical margin, as the decryption does.
func RefreshFlooding(noiseBits float64) float64 {
	if noiseBits <= 0 {
		noiseBits = CiphertextNoiseBits
	}
	return DefaultFloodingBits + noiseBits
}

// RefreshFloorLevel is the lowest level at which a refresh of an input with
// the given noise bounds (see RefreshRequest) has room for its flooding:
// t_p·(2^worstBits + tailSigmas·σ) < Q_ℓ/4 with log2 σ = RefreshFlooding.
// It fails when no level of p has room.
func RefreshFloorLevel(p *fhe.Params, noiseBits, worstBits float64) (int, error) {
	if noiseBits <= 0 {
		noiseBits = CiphertextNoiseBits
	}
	if worstBits < noiseBits {
		worstBits = noiseBits
	}
	need := math.Log2(float64(p.PlaintextModulus())) + 2 +
		math.Log2(math.Exp2(worstBits)+tailSigmas*math.Exp2(RefreshFlooding(noiseBits)))
	logQ := 0.0
	for l, q := range p.Q() {
		logQ += math.Log2(float64(q))
		if need < logQ {
			return l, nil
		}
	}
	return 0, fmt.Errorf("protocol: no level of %s has room for a refresh flooding of 2^%.1f over noise 2^%.1f (needs %.1f bits of modulus, has %.1f)",
		p.Preset.Name, RefreshFlooding(noiseBits), worstBits, need, logQ)
}

// Refresh runs Lattigo's mpbgv RefreshProtocol (Mouchet et al., PETS 2021,
// §IV-D: masked decryption to additive shares and re-encryption at the top
// level) with t-of-t additive secrets obtained from the Shamir shares by the
// Combiner (Lagrange weights for the active set), on the input sanitised
// with a coin-toss-seeded encryption of zero (Sanitise: a refresh share
// exposes c1·s_j under a uniform mask, so c1 must not be chosen by anyone).
// Every receiver computes the same refreshed ciphertext; its digest is compared by the caller.
func Refresh(ctx context.Context, g Group, key *ThresholdKey, led Ledger, req RefreshRequest) (*fhe.Ciphertext, error) {
	p := key.Params
	if len(req.Active) != key.T {
		return nil, fmt.Errorf("protocol: refresh needs exactly t=%d active members, got %d", key.T, len(req.Active))
	}
	ct := req.Ciphertext
	if ct.Degree() != 1 {
		return nil, errors.New("protocol: refresh needs a degree-1 ciphertext")
	}
	ct, session, _, err := sanitiseFor(ctx, g, key, req.PublicKey, req.Session, req.Receivers, ct)
	if err != nil {
		return nil, err
	}
	req.Session = session
	sigma := RefreshSigma(p, ct.Level(), key.T)
	rfp, err := mpbgv.NewRefreshProtocol(p.BGV(), ring.DiscreteGaussian{Sigma: sigma, Bound: 6 * sigma})
	if err != nil {
		return nil, err
	}
	crsKey := keccak([]byte("fhegate/refresh/crs"), []byte(req.Session))
	crs, err := sampling.NewKeyedPRNG(crsKey[:])
	if err != nil {
		return nil, err
	}
	maxLevel := p.MaxLevel()
	crp := rfp.SampleCRP(maxLevel, crs)
	shares, err := exchangeActive(ctx, g, transport.TypeRefreshShare, req.Session, req.Active, req.Receivers, "refresh", func() ([]byte, error) {
		return led.Issue(KindRefresh, refreshDigest(ct, req.Active), key.Epoch, req.Session, func() ([]byte, error) {
			return genRefreshShare(g, key, rfp, ct, crp, req.Active)
		})
	})
	if err != nil {
		return nil, err
	}
	alloc := func() multiparty.RefreshShare { return rfp.AllocateShare(ct.Level(), maxLevel) }
	agg, err := aggregateShares("refresh", req.Active, shares, alloc, nil, rfp.AggregateShares)
	if err != nil {
		return nil, err
	}
	out := rlwe.NewCiphertext(p.RLWE(), 1, maxLevel)
	*out.MetaData = *ct.Lattigo().MetaData
	if err := safe("refresh finalize", func() error { return rfp.Finalize(ct.Lattigo(), crp, agg, out) }); err != nil {
		return nil, err
	}
	return fhe.WrapCiphertext(p, out)
}

// genRefreshShare is this member's refresh share of ct: its Shamir share
// turned into an additive share of s for the active set (Combiner, Lagrange
// weights), then mpbgv's masked-decryption-and-re-encryption share.
func genRefreshShare(g Group, key *ThresholdKey, rfp mpbgv.RefreshProtocol, ct *fhe.Ciphertext, crp multiparty.KeySwitchCRP, activeIDs []transport.MemberID) ([]byte, error) {
	p := key.Params
	add, err := additiveShare(g, key, activeIDs)
	if err != nil {
		return nil, err
	}
	share := rfp.AllocateShare(ct.Level(), p.MaxLevel())
	if err := rfp.GenShare(add, ct.Lattigo(), crp, &share); err != nil {
		return nil, err
	}
	zero(add)
	return share.MarshalBinary()
}

// additiveShare turns this member's Shamir share of the collective secret
// into its additive share for the active set (Lattigo's Combiner: Lagrange
// weights over the committee's points), as the t-of-t protocols need. The
// caller zeroes it after use.
func additiveShare(g Group, key *ThresholdKey, activeIDs []transport.MemberID) (*rlwe.SecretKey, error) {
	points := make([]multiparty.ShamirPublicPoint, len(g.Members))
	for i, id := range g.Members {
		points[i] = multiparty.ShamirPublicPoint(id)
	}
	active := make([]multiparty.ShamirPublicPoint, len(activeIDs))
	for i, id := range activeIDs {
		active[i] = multiparty.ShamirPublicPoint(id)
	}
	cmb := multiparty.NewCombiner(key.Params.RLWE(), multiparty.ShamirPublicPoint(g.Self()), points, key.T)
	add := rlwe.NewSecretKey(key.Params.RLWE())
	if err := cmb.GenAdditiveShare(active, multiparty.ShamirPublicPoint(g.Self()), key.Share, add); err != nil {
		return nil, err
	}
	return add, nil
}

// exchangeActive is the share round of the protocols in which the t active
// members each send one share to every receiver (refresh, re-encryption): an
// active member issues its share through issue (the share ledger) and
// broadcasts it; every member collects the active members' shares. A
// missing active member fails the round with ErrMissing.
func exchangeActive(ctx context.Context, g Group, typ transport.Type, session string, active, receivers []transport.MemberID, what string, issue func() ([]byte, error)) (map[transport.MemberID][]byte, error) {
	rctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	shares := map[transport.MemberID][]byte{}
	if contains(active, g.Self()) {
		b, err := issue()
		if err != nil {
			return nil, err
		}
		shares[g.Self()] = b
		if err := g.Mux.BroadcastAllowing(rctx, receivers, g.Members, transport.Message{Type: typ, Session: session, Payload: b}); err != nil {
			g.log().Debug(what+" broadcast incomplete", zap.Error(err))
		}
	}
	got := g.Mux.Collect(rctx, session, typ, active)
	g.Mux.Forget(session)
	if len(got.Missing) > 0 {
		return nil, &ErrMissing{Session: session, Missing: got.Missing}
	}
	for id, m := range got.Got {
		shares[id] = m.Payload
	}
	return shares, nil
}
