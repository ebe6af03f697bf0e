package protocol

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"
	"github.com/tuneinsight/lattigo/v6/ring"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// ErrRefreshNoRoom is returned, before any share is issued, for a refresh
// whose input level is below noise.RefreshFloorLevel: its modulus cannot hold
// the input noise plus the flooding that hides it.
var ErrRefreshNoRoom = errors.New("protocol: refresh input level has no room for the flooding")

// RefreshShareSigmaBits is log2 of each member's flooding σ_j in one
// t-subset's decryption of a refresh: σ_j = 2^noise.RefreshFlooding(noiseBits)/√t,
// so the t independent floodings of a subset sum to σ =
// 2^noise.RefreshFlooding(noiseBits).
func RefreshShareSigmaBits(noiseBits float64, t int) float64 {
	return noise.RefreshFlooding(noiseBits) - math.Log2(float64(t))/2
}

// CheckedMembers is the number of members whose shares a decryption or a
// refresh needs before its output is used: max(t+1, 2t−1). With r shares of
// which at most t−1 are corrupt, some t-subset is all honest exactly when
// r ≥ 2t−1, so when every t-subset agrees the common value is the honest
// one; r ≥ t+1 also gives one cross-check when t = 1 (the whole argument:
// docs/committee.md, "Verified refresh and decryption").
func CheckedMembers(t int) int { return max(t+1, 2*t-1) }

// refreshDigest is the ledger key of a refresh share bundle: the digest of
// the masked ciphertext it decrypts and the contributing set. The masked
// ciphertext carries a fresh mask of every contributor, so it is new in
// every run; a member issues one bundle for it.
func refreshDigest(ct *fhe.Ciphertext, active []transport.MemberID) [32]byte {
	d := ShareDigest(ct)
	ids := memberIDBytes(active)
	return keccak([]byte("fhegate/refresh/ledger/v2"), d[:], ids)
}

// RefreshRequest is one collective refresh (MPC bootstrapping).
type RefreshRequest struct {
	Session    string
	Ciphertext *fhe.Ciphertext
	// Active are the members that contribute a mask and decryption shares
	// (ascending, at least CheckedMembers(t), at most MaxRefreshMembers);
	// Receivers (a superset) get everything and compute the result too.
	Active    []transport.MemberID
	Receivers []transport.MemberID
	// PublicKey is the collective public key (required): the input is
	// sanitised first (coin toss among the receivers, see Sanitise) and the
	// masks are encrypted under it.
	PublicKey *fhe.PublicKey
	// ProofKey is the input-proof key of PublicKey (zkpok.NewKey); nil: made
	// here (and cached per key).
	ProofKey *zkpok.Key
	// NoiseBits is log2 of a bound on the part of the input's phase noise
	// that must stay hidden from the members (anything that depends on the
	// secret key or on plaintexts nobody among the attackers knows: honest
	// encryption noise, rounding noise of rescales, plaintext carries of
	// products). Every member decrypting the masked input sees the input's
	// noise plus the flooding, so the flooding is sized from it
	// (noise.RefreshFlooding) and from the honest masks' encryption noise.
	// It must also cover the sanitisation's encryption of zero: a value
	// below noise.CiphertextBits (0 included) counts as noise.CiphertextBits.
	NoiseBits float64
	// WorstBits is log2 of a bound on the input's whole phase noise,
	// including parts an attacker knows and therefore need not be hidden
	// (inputs crafted at the input proof's accepted bound): it only has to
	// fit the level (noise.RefreshFloorLevel), with the masks' accepted
	// noise added. A value below NoiseBits (0 included) counts as NoiseBits.
	WorstBits float64
}

// ErrRefreshDisagree is a refresh whose t-subsets decrypted the masked input
// to different values: some contributor deviated. Named lists the members
// that every explanation with at most t−1 deviating members includes (they
// certainly deviated); it is empty when the contributors are too few to tell
// who (docs/committee.md, "Verified refresh and decryption").
type ErrRefreshDisagree struct {
	Session string
	Active  []transport.MemberID
	Values  int // distinct values among the t-subsets
	Named   []transport.MemberID
}

func (e *ErrRefreshDisagree) Error() string {
	if len(e.Named) > 0 {
		return fmt.Sprintf("protocol: %s: refresh shares of members %v decrypt to %d different values: members %v deviated", e.Session, e.Active, e.Values, e.Named)
	}
	return fmt.Sprintf("protocol: %s: refresh shares of members %v decrypt to %d different values: a member deviated, and %d members cannot tell which (naming needs every explanation to share a member); no output is used",
		e.Session, e.Active, e.Values, len(e.Active))
}

// Refresh is the committee's verified collective refresh: masked
// decryption by public, proven masks (the route argued in docs/committee.md,
// "Verified refresh and decryption"). With Y the input sanitised (Sanitise)
// at its level ℓ, and the r = |Active| ≥ CheckedMembers(t) contributors:
//
//  1. Mask round (committed): each of the first t contributors (one of them
//     honest) draws a uniform slot vector, encrypts it under the collective
//     public key at the top level with the input proof of plaintext
//     knowledge (zkpok: knowledge-sound to 2^−SoundnessBits, bound to its
//     sender, the epoch and a nonce), X_i = Enc(M_i), and sends (X_i, π_i).
//     Every receiver verifies every other proof; a bad one names its
//     sender. M_i is a polynomial mod t; its encryption puts t⁻¹·M_i in the
//     phase, which dropping limbs keeps (t⁻¹ mod Q reduces to t⁻¹ mod Q_ℓ),
//     so Z = Y + Σ_i X_i|ℓ has plaintext polynomial m + ΣM_i, uniform given
//     one honest M_i.
//  2. Share round (committed): for every t-subset S of the contributors that
//     holds it, contributor j sends h_j^S = c1(Z)·λ_j^S·tsk_j + E_j^S, its
//     additive share of s for S (Lagrange weights mod Q, Lattigo's
//     Combiner) times c1, flooded with E_j^S ← D_{Z,σ_j}, σ_j =
//     2^RefreshShareSigmaBits: C(r−1, t−1) shares, issued once through the
//     ledger.
//  3. Every receiver decodes c0(Z) + Σ_{j∈S} h_j^S for every t-subset S. If
//     all C(r, t) agree, the value z = m + ΣM_i is the honest one (some
//     subset is all honest when at most t−1 of r ≥ 2t−1 deviate); if not,
//     the refresh fails with ErrRefreshDisagree, naming the members every
//     explanation needs.
//  4. The output is (Enc_top(z), 0) − Σ_i X_i at the top level with the
//     input's metadata: its plaintext is z − ΣM_i = m, whatever the masks
//     are, and its noise the masks' encryption noise (each at most the
//     input proof's accepted bound).
//
// A contributor can thus move no output: its mask cancels whatever it
// encrypts, its proof fixes that it knows it (so it cannot cancel an honest
// mask and read m), and a decryption share off the honest value changes the
// subsets that hold it and not the honest one. Every receiver computes the
// same output; the caller compares digests.
//
// Flooding: a receiver that decodes subset S learns e_Z + Σ_{j∈S} E_j^S,
// where e_Z is the input's noise plus the masks' (each depending on s); a
// coalition of t−1 knows its own E_j^S, and one honest E_j^S of σ_j hides
// e_Z. With C(r, t) subsets each member's view of e_Z is flooded C(r−1,
// t−1) times by independent samples of one honest member, which multiplies
// the Rényi bound of one flooding (log R_2 ≤ N·t·2^−60, docs/committee.md)
// by that count. Decoding needs t_p·(2^WorstBits + 8σ) < Q_ℓ/4 with the
// masks' accepted noise counted in WorstBits (noise.RefreshFloorLevel); a
// ciphertext below that level is refused with ErrRefreshNoRoom before the
// coin toss, so no share is issued.
func Refresh(ctx context.Context, g Group, key *ThresholdKey, led Ledger, req RefreshRequest) (*fhe.Ciphertext, error) {
	p := key.Params
	if err := checkContributors("refresh", key.T, req.Active, req.Receivers); err != nil {
		return nil, err
	}
	ct := req.Ciphertext
	if ct.Degree() != 1 {
		return nil, errors.New("protocol: refresh needs a degree-1 ciphertext")
	}
	if !ct.Lattigo().IsNTT {
		return nil, errors.New("protocol: refresh input not in the NTT domain")
	}
	zk, err := proofKey(req.PublicKey, req.ProofKey)
	if err != nil {
		return nil, err
	}
	noiseBits, worstBits := maskedBounds(zk, len(g.Members), key.T, req.NoiseBits, req.WorstBits)
	sigmaBits, err := refreshRoom(p, key.T, ct.Level(), noiseBits, worstBits, "refresh")
	if err != nil {
		return nil, err
	}
	ct, session, _, err := sanitiseFor(ctx, g, key, req.PublicKey, req.Session, req.Receivers, ct)
	if err != nil {
		return nil, err
	}
	// The first t contributors mask: with at most t−1 deviating members one
	// of them is honest, and one honest mask hides m.
	maskers := req.Active[:key.T]
	masks, err := exchangeMasks(ctx, g, key, zk, led, ct, session+"/mask", maskers, req.Receivers)
	if err != nil {
		return nil, err
	}
	z, err := maskedInput(ct, masks, maskers)
	if err != nil {
		return nil, err
	}
	subsets := subsetsOf(req.Active, key.T)
	shares, err := exchangeShares(ctx, g, transport.TypeRefreshShare, session, req.Active, req.Receivers, "refresh", func() ([]byte, error) {
		return led.Issue(KindRefresh, refreshDigest(z, req.Active), key.Epoch, session, func() ([]byte, error) {
			return genSubsetShares(key, g.Self(), g.Members, z, subsets, sigmaBits)
		})
	})
	if err != nil {
		return nil, err
	}
	vals, err := combineSubsetShares(g, key, session, z, req.Active, subsets, shares)
	if err != nil {
		return nil, err
	}
	return unmask(p, z, vals, masks, maskers)
}

// checkContributors checks the contributors of a verified refresh (what:
// "refresh", "refresh transform"): at least CheckedMembers(t), at most as
// many as MaxRefreshSubsets t-subsets, ascending and distinct, each a
// receiver.
func checkContributors(what string, t int, active, receivers []transport.MemberID) error {
	r := len(active)
	if r < CheckedMembers(t) {
		return fmt.Errorf("%w: a %s needs %d contributing members for t=%d, got %v", ErrUnchecked, what, CheckedMembers(t), t, active)
	}
	if RefreshSubsets(r, t) > MaxRefreshSubsets {
		return fmt.Errorf("protocol: a %s among %d members with t=%d decodes more than %d subsets", what, r, t, MaxRefreshSubsets)
	}
	for i := 1; i < r; i++ {
		if active[i] <= active[i-1] {
			return fmt.Errorf("protocol: %s contributors %v not ascending and distinct", what, active)
		}
	}
	for _, id := range active {
		if !contains(receivers, id) {
			return fmt.Errorf("protocol: %s contributor %d is not a receiver", what, id)
		}
	}
	return nil
}

// refreshRoom is the no-room and flooding-size check of a refresh (Refresh,
// RefreshTransform) of inputs at level among t active members, run before
// any coin toss or share: it applies noise.RefreshBounds, refuses a level below
// noise.RefreshFloorLevel with ErrRefreshNoRoom, and returns log2 σ_j
// (RefreshShareSigmaBits), refused beyond the sampler's range.
func refreshRoom(p *fhe.Params, t, level int, noiseBits, worstBits float64, what string) (float64, error) {
	noiseBits, worstBits = noise.RefreshBounds(noiseBits, worstBits)
	floor, err := noise.RefreshFloorLevel(p, noiseBits, worstBits)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrRefreshNoRoom, err)
	}
	if level < floor {
		return 0, fmt.Errorf("%w: ciphertext at level %d, floor %d for noise 2^%.1f (worst 2^%.1f, flooding 2^%.1f) on %s",
			ErrRefreshNoRoom, level, floor, noiseBits, worstBits, noise.RefreshFlooding(noiseBits), p.Preset.Name)
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
// members each send one share to every receiver (refresh, re-encryption, an
// agreed value): an active member issues its share through issue (the share
// ledger, or a whole computation: AgreedFromActive) and broadcasts it;
// every member collects the active members' shares. A missing active
// member fails the round with ErrMissing.
//
// The round's deadline (Group.Timeout) bounds the exchange, not issue: an
// active member starts it once its share exists, so a computation longer
// than a round (a packed plan under load) does not expire the round it
// produces a value for. A receiver that is not active waits Timeout plus
// Group.ProduceWait for the active members' values. An active member whose
// issue fails tells the receivers at once with an empty message
// (ErrActiveFailed there, returned as soon as it arrives, whatever the other
// active members are still computing) instead of letting them wait out the
// round.
func exchangeActive(ctx context.Context, g Group, typ transport.Type, session string, active, receivers []transport.MemberID, what string, issue func() ([]byte, error)) (map[transport.MemberID][]byte, error) {
	shares := map[transport.MemberID][]byte{}
	wait := g.timeout()
	if contains(active, g.Self()) {
		b, err := issue()
		if err != nil {
			actx, cancel := context.WithTimeout(ctx, g.grace())
			if berr := g.Mux.BroadcastAllowing(actx, receivers, g.Members, transport.Message{Type: typ, Session: session}); berr != nil {
				g.log().Debug(what+" abort broadcast incomplete", zap.Error(berr))
			}
			cancel()
			g.Mux.Forget(session)
			return nil, err
		}
		if g.hook != nil {
			b = g.hook(hookSend, session, typ, b, func() map[transport.MemberID][]byte { return nil })
		}
		shares[g.Self()] = b
		bctx, cancel := context.WithTimeout(ctx, wait)
		err = g.Mux.BroadcastAllowing(bctx, receivers, g.Members, transport.Message{Type: typ, Session: session, Payload: b})
		cancel()
		if err != nil {
			g.log().Debug(what+" broadcast incomplete", zap.Error(err))
		}
	} else {
		wait += g.ProduceWait
	}
	rctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	got := collectUntilAbort(rctx, g.Mux, session, typ, active)
	g.Mux.Forget(session)
	for _, id := range active {
		if m, ok := got.Got[id]; ok && len(m.Payload) == 0 {
			return nil, &ErrActiveFailed{Session: session, Member: id}
		}
	}
	if len(got.Missing) > 0 {
		return nil, &ErrMissing{Session: session, Missing: got.Missing}
	}
	for id, m := range got.Got {
		shares[id] = m.Payload
	}
	return shares, nil
}

// collectUntilAbort is Mux.Collect that stops waiting as soon as one sender's
// message is empty (an active member's abort, exchangeActive): the round
// has failed whatever the others send.
func collectUntilAbort(ctx context.Context, mux *transport.Mux, session string, typ transport.Type, from []transport.MemberID) transport.Gather {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type res struct {
		id  transport.MemberID
		msg transport.Message
		err error
	}
	ch := make(chan res, len(from))
	n := 0
	for _, id := range from {
		if id == mux.Self() {
			continue
		}
		n++
		go func() {
			msg, err := mux.Recv(ctx, transport.Key{Session: session, Type: typ, From: id})
			ch <- res{id, msg, err}
		}()
	}
	out := transport.Gather{Got: map[transport.MemberID]transport.Message{}}
	for range n {
		r := <-ch
		switch {
		case r.err != nil:
			out.Missing = append(out.Missing, r.id)
		default:
			out.Got[r.id] = r.msg
			if len(r.msg.Payload) == 0 {
				cancel()
			}
		}
	}
	slices.Sort(out.Missing)
	return out
}
