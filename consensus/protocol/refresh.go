package protocol

import (
	"context"
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
	"github.com/fhegate/fhegate/policy/eval"
)

// ErrRefreshNoRoom is returned, before any share is issued, for a refresh
// whose input level is below eval.RefreshFloorLevel: its modulus cannot hold
// the input noise plus the flooding that hides it.
var ErrRefreshNoRoom = errors.New("protocol: refresh input level has no room for the flooding")

// RefreshShareSigmaBits is log2 of each active member's flooding σ_j in a
// refresh among t active members: σ_j = 2^eval.RefreshFlooding(noiseBits)/√t,
// so the t independent floodings sum to σ = 2^eval.RefreshFlooding(noiseBits).
func RefreshShareSigmaBits(noiseBits float64, t int) float64 {
	return eval.RefreshFlooding(noiseBits) - math.Log2(float64(t))/2
}

// refreshDigest is the ledger key of a refresh share: the ciphertext's
// digest and the active set. A member issues at most one refresh share per
// (ciphertext, active set, epoch) — so at most C(n−1, t−1) for one
// ciphertext — and a refresh whose active member died can be run again with
// another active set. A refresh share reveals no plaintext: the receivers
// learn the re-encryption, masked by each share's uniform mask.
func refreshDigest(ct *fhe.Ciphertext, active []transport.MemberID) [32]byte {
	d := ShareDigest(ct)
	ids := memberIDBytes(active)
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
	// plus the flooding, so the flooding is sized from it (eval.RefreshFlooding).
	// It must also cover the sanitisation's encryption of zero: a value
	// below eval.CiphertextNoiseBits (0 included) counts as eval.CiphertextNoiseBits.
	NoiseBits float64
	// WorstBits is log2 of a bound on the input's whole phase noise,
	// including parts an attacker knows and therefore need not be hidden
	// (inputs crafted at the input proof's accepted bound): it only has to
	// fit the level (eval.RefreshFloorLevel). A value below NoiseBits (0
	// included) counts as NoiseBits.
	WorstBits float64
}

// Refresh runs Lattigo's mpbgv RefreshProtocol (Mouchet et al., PETS 2021,
// §IV-D: masked decryption to additive shares and re-encryption at the top
// level) with t-of-t additive secrets obtained from the Shamir shares by the
// Combiner (Lagrange weights for the active set), on the input sanitised
// with a coin-toss-seeded encryption of zero (Sanitise: a refresh share
// exposes c1·s_j under a uniform mask, so c1 must not be chosen by anyone).
// Every receiver computes the same refreshed ciphertext; its digest is compared by the caller.
//
// Flooding (a member learning the refresh input's noise). Every
// receiver that finalises computes c0 + Σ_j h_j = t⁻¹(m − ΣM_j) + e_in +
// Σ_j E_j (mod Q_ℓ) from the masked-decryption (e2s) shares h_j; once it
// has decoded m − ΣM_j it knows e_in + ΣE_j exactly. e_in depends on s
// (rescale rounding, encryption noise times s) and on plaintexts (the
// carries of products), so each active member floods its h_j with its own
// E_j ← D_{Z,σ_j} (GaussianSampler, fresh crypto/rand key per share),
// σ_j = 2^RefreshShareSigmaBits = σ/√t, σ = 2^eval.RefreshFlooding(NoiseBits)
// = 2^30·2^NoiseBits the total. A coalition of the other t−1 active
// members knows its own E_j, so what hides e_in from it is one honest
// E_j: with R_2(D_{σ_j,c} ‖ D_{σ_j}) = exp(c²/σ_j²) and |c| ≤ 2^NoiseBits
// per coefficient, one refresh of N coefficients costs
// log R_2 ≤ N·t·2^−60 against a simulator that samples the flooding
// itself (ρ = σ_j/2^NoiseBits = 2^30/√t ≥ 2^28 for t ≤ 16, as the
// decryption's ρ = σ/(t·B_ct); docs/committee.md, "Refresh"), plus the
// sampler's δ (gaussian.go). The re-encryption (s2e) half carries only
// Lattigo's fresh-encryption noise: it becomes the output's noise, hidden in
// turn by whatever floods that ciphertext's later decryption or refresh.
// Decoding needs t_p·(2^WorstBits + 8σ) < Q_ℓ/4 (eval.RefreshFloorLevel); a
// ciphertext below that level is refused with ErrRefreshNoRoom before the
// coin toss, so no share is issued.
func Refresh(ctx context.Context, g Group, key *ThresholdKey, led Ledger, req RefreshRequest) (*fhe.Ciphertext, error) {
	p := key.Params
	if len(req.Active) != key.T {
		return nil, fmt.Errorf("protocol: refresh needs exactly t=%d active members, got %d", key.T, len(req.Active))
	}
	ct := req.Ciphertext
	if ct.Degree() != 1 {
		return nil, errors.New("protocol: refresh needs a degree-1 ciphertext")
	}
	if !ct.Lattigo().IsNTT {
		return nil, errors.New("protocol: refresh input not in the NTT domain")
	}
	sigmaBits, err := refreshRoom(p, key.T, ct.Level(), req.NoiseBits, req.WorstBits, "refresh")
	if err != nil {
		return nil, err
	}
	ct, session, _, err := sanitiseFor(ctx, g, key, req.PublicKey, req.Session, req.Receivers, ct)
	if err != nil {
		return nil, err
	}
	req.Session = session
	rfp, err := newRefreshProtocol(p)
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
	shares, err := exchangeShares(ctx, g, transport.TypeRefreshShare, req.Session, req.Active, req.Receivers, "refresh", func() ([]byte, error) {
		return led.Issue(KindRefresh, refreshDigest(ct, req.Active), key.Epoch, req.Session, func() ([]byte, error) {
			return genRefreshShare(g, key, rfp, ct, crp, req.Active, sigmaBits)
		})
	})
	if err != nil {
		return nil, err
	}
	// An honest share carries ct's metadata (mpbgv's GenShare copies it,
	// Finalize requires it): part of the structure every share must have.
	alloc := func() multiparty.RefreshShare {
		sh := rfp.AllocateShare(ct.Level(), maxLevel)
		sh.MetaData = *ct.Lattigo().MetaData
		return sh
	}
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

// refreshRoom is the no-room and flooding-size check of a refresh (Refresh,
// RefreshTransform) of inputs at level among t active members, run before
// any coin toss or share: it applies eval.RefreshNoiseBounds, refuses a level below
// eval.RefreshFloorLevel with ErrRefreshNoRoom, and returns log2 σ_j
// (RefreshShareSigmaBits), refused beyond the sampler's range.
func refreshRoom(p *fhe.Params, t, level int, noiseBits, worstBits float64, what string) (float64, error) {
	noiseBits, worstBits = eval.RefreshNoiseBounds(noiseBits, worstBits)
	floor, err := eval.RefreshFloorLevel(p, noiseBits, worstBits)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrRefreshNoRoom, err)
	}
	if level < floor {
		return 0, fmt.Errorf("%w: ciphertext at level %d, floor %d for noise 2^%.1f (worst 2^%.1f, flooding 2^%.1f) on %s",
			ErrRefreshNoRoom, level, floor, noiseBits, worstBits, eval.RefreshFlooding(noiseBits), p.Preset.Name)
	}
	sigmaBits := RefreshShareSigmaBits(noiseBits, t)
	if sigmaBits > maxSamplerSigmaBits {
		return 0, fmt.Errorf("protocol: %s flooding σ_j = 2^%.1f (noise 2^%.1f) beyond the sampler's 2^%d", what, sigmaBits, noiseBits, maxSamplerSigmaBits)
	}
	return sigmaBits, nil
}

// flood adds E_j ← D_{Z,2^sigmaBits} (NTT domain, at level), drawn by a
// fresh GaussianSampler (fresh crypto/rand key), to the masked-decryption
// share h. sigmaBits = 0 adds nothing (tests only: the view without
// flooding).
func flood(p *fhe.Params, level int, sigmaBits float64, h ring.Poly) error {
	if sigmaBits == 0 {
		return nil
	}
	fs, err := NewGaussianSampler(sigmaBits)
	if err != nil {
		return err
	}
	ringQ := p.RLWE().RingQ().AtLevel(level)
	e := ringQ.NewPoly()
	fs.ReadNTT(ringQ, e)
	ringQ.Add(h, e, h)
	return nil
}

// newRefreshProtocol is mpbgv's RefreshProtocol with no flooding of its
// own: Lattigo's KeySwitchProtocol then samples the fresh-encryption noise
// (σ = NoiseFreshSK, 3.2) for both halves; the e2s half gets the large
// flooding from genRefreshShare instead (Lattigo's sampler does not reduce
// samples above a prime, so it cannot draw 2^46, let alone 2^90).
func newRefreshProtocol(p *fhe.Params) (mpbgv.RefreshProtocol, error) {
	return mpbgv.NewRefreshProtocol(p.BGV(), ring.DiscreteGaussian{Sigma: 0, Bound: 0})
}

// genRefreshShare is this member's refresh share of ct: its Shamir share
// turned into an additive share of s for the active set (Combiner, Lagrange
// weights), then mpbgv's masked-decryption-and-re-encryption share, whose
// masked-decryption part h_j = c1·s_j − t⁻¹M_j + e_j (NTT domain, at ct's
// level) gets E_j ← D_{Z,2^sigmaBits} added. sigmaBits = 0 adds nothing
// (tests only: the view without flooding).
func genRefreshShare(g Group, key *ThresholdKey, rfp mpbgv.RefreshProtocol, ct *fhe.Ciphertext, crp multiparty.KeySwitchCRP, activeIDs []transport.MemberID, sigmaBits float64) ([]byte, error) {
	p := key.Params
	add, err := additiveShare(g, key, activeIDs)
	if err != nil {
		return nil, err
	}
	defer zero(add)
	share := rfp.AllocateShare(ct.Level(), p.MaxLevel())
	if err := rfp.GenShare(add, ct.Lattigo(), crp, &share); err != nil {
		return nil, err
	}
	if err := flood(p, ct.Level(), sigmaBits, share.EncToShareShare.Value); err != nil {
		return nil, err
	}
	return share.MarshalBinary()
}

// additiveShare turns this member's Shamir share of the collective secret
// into its additive share for the active set (Lattigo's Combiner: Lagrange
// weights over the committee's points), as the t-of-t protocols need. The
// caller zeroes it after use.
func additiveShare(g Group, key *ThresholdKey, activeIDs []transport.MemberID) (*rlwe.SecretKey, error) {
	return additiveShareAt(key, g.Self(), g.Members, activeIDs)
}

// additiveShareAt is additiveShare for the member at Shamir point self of
// a committee whose points are members.
func additiveShareAt(key *ThresholdKey, self transport.MemberID, members, activeIDs []transport.MemberID) (*rlwe.SecretKey, error) {
	points := make([]multiparty.ShamirPublicPoint, len(members))
	for i, id := range members {
		points[i] = multiparty.ShamirPublicPoint(id)
	}
	active := make([]multiparty.ShamirPublicPoint, len(activeIDs))
	for i, id := range activeIDs {
		active[i] = multiparty.ShamirPublicPoint(id)
	}
	cmb := multiparty.NewCombiner(key.Params.RLWE(), multiparty.ShamirPublicPoint(self), points, key.T)
	add := rlwe.NewSecretKey(key.Params.RLWE())
	if err := cmb.GenAdditiveShare(active, multiparty.ShamirPublicPoint(self), key.Share, add); err != nil {
		return nil, err
	}
	return add, nil
}

// exchangeShares is the share round of the protocols whose t active
// members' shares are summed (refresh, refresh transform, re-encryption):
// exchangeActive with every share committed before it is revealed
// (exchangeCommitted).
func exchangeShares(ctx context.Context, g Group, typ transport.Type, session string, active, receivers []transport.MemberID, what string, issue func() ([]byte, error)) (map[transport.MemberID][]byte, error) {
	if g.insecureNoCommit {
		return exchangeActive(ctx, g, typ, session, active, receivers, what, issue)
	}
	return exchangeCommitted(ctx, g, typ, session, active, receivers, issue)
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
		if g.hook != nil {
			b = g.hook(hookSend, session, typ, b, func() map[transport.MemberID][]byte { return nil })
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
