package protocol

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"sort"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// Cross-committee key switch (CrossKeySwitch).
//
// Reencrypt (public-key switching, PCKS) lets each old active member write
// its own part h1_j of the output's c1. A member that adds K to h1_j puts
// K·s′ into the output's phase under the new secret s′, and the new
// committee's first refresh or decryption shows that phase to its members
// up to a flooding far below K: a corrupt new member reads s′
// (TestReencryptKShift). CrossKeySwitch is the collective key switching of
// Mouchet et al. (PETS 2021, §IV-B, "KeySwitch"), run jointly by t active
// members A of the old committee and t′ active members B of the new one:
//
//	old j ∈ A:  d_j = c1·s_j + E_j + M_j         s_j = λ_j·tsk_j  (Combiner over the old committee)
//	new k ∈ B:  d_k = −c1″·s′_k + E′_k + M_k     s′_k = λ′_k·tsk′_k (Combiner over the new committee)
//	output:     (c0 + Σ_{A∪B} d, c1″),  c1″ = c1 + r
//
// whose phase under s′ = Σ s′_k is c0 + c1·s + Σ E_j + Σ E′_k: the input's
// phase plus both sides' flooding (σ = 2^ReencryptSigmaBits each, as in
// Reencrypt, since the new committee will see this phase). r is uniform
// mod Q_ℓ from a PRG keyed by the target and the input's c1 (keySwitchC1):
// every participant derives it and none chooses it, so no member writes
// any part of the output's c1 and the K-shift has nothing to act on.
// Whatever a corrupt member sends instead of its d, it is an offset to c0
// that the member knows (its own s_j or s′_k, c1, r and its flooding are
// its own), so the phase the new committee later sees is the honest one
// plus an offset the coalition knows: it learns nothing from it that the
// honest run does not show (integrity of the plaintext is not protected:
// a corrupt active member can shift it, as in every protocol here without
// proofs).
//
// Forward secrecy. Every participant computes the output, and the old
// active members hold their own unmasked d_j, so the t old members — all
// of A, following the protocol — learn D = c0″ − c0 − Σ_A d_j = Σ_B d_k.
// Without E′ that is −c1·s′ exactly and D/c1 is s′
// (TestCrossKeySwitchForwardSecrecy). With E′ it is −c1″·s′ + ΣE′, one
// RLWE sample under s′ with a uniform c1″ and a Gaussian error of σ =
// 2^ReencryptSigmaBits·√t′, far wider than the key's own (σ = 3.2): given
// an RLWE sample of the key's width one makes such a sample by adding the
// difference of the Gaussians, so telling it from uniform is at least as
// hard as RLWE for pk′ (Regev's noise-flooding argument; the samples a
// rotation gives, one per input, have independent c1″). r matters: with
// the input's own c1, which the t old members pick (they all send the
// same stored bytes), a c1 = ⌊Q/16⌋ would make D = −⌊Q/16⌋·s′ + ΣE′ and
// rounding D/⌊Q/16⌋ reads s′ through any flooding below Q/32 (the test's
// second case). With r keyed by the input (a random oracle), c1″ is
// uniform for every input the old members try. A re-run of a switch draws
// fresh E′ on the same c1″; k re-runs let the old set average them to
// σ/√k, still ≫ 3.2 for any k below 2^80.
//
// Masks. A single d_j or d_k must stay hidden — Σ_{j∈A} d_j = c1·s + ΣE
// and c0 would decrypt — so every pair of participants p < q shares a
// fresh 32-byte seed (sent by p to q over the authenticated, confidential
// member transport) and M_p = Σ_{q>p} PRG(seed_pq) − Σ_{q<p} PRG(seed_qp),
// uniform polynomials mod Q_ℓ, with Σ M = 0 (pairwise-mask secure
// aggregation, Bonawitz et al., CCS 2017). A coalition of t−1 old and t′−1
// new members sees every masked share, but each honest share is masked by
// its seeds with the other honest participants (there are at least two: one
// in A, one in B), so the coalition learns Σ over the honest shares and
// nothing else — which is c0″ minus its own shares, the output everyone
// sees. A corrupt member that lies about seeds only adds an offset it
// knows. The masked shares are committed before they are revealed
// (exchangeCommitted). The old member's unmasked share c1·s_j + E_j is
// issued once per (ciphertext, target key, participants, epoch) through
// the ledger, and the ciphertext's target key is pinned per epoch, as in
// Reencrypt.

// KeySwitchRequest is one cross-committee key switch of Ciphertext from
// the old committee's collective secret to the new committee's.
type KeySwitchRequest struct {
	Session    string
	Ciphertext *fhe.Ciphertext // under the old key, identical on every participant
	// Target is the new committee's collective public key: the old members
	// pin it for the ciphertext and epoch (the new members check that it is
	// their key).
	Target *fhe.PublicKey
	// Old and New are the two committees' members as IDs on g's transport,
	// disjoint; OldActive (t of Old) and NewActive (t′ of New) take part.
	// An old member's Shamir point is its ID minus OldOffset, a new
	// member's its ID minus NewOffset (the committees number their members
	// 1..n each; a joint transport shifts one of them: the in-process
	// rotation the new ones, `fhegate committee rotate switch` the old ones,
	// so that a new member's joint ID is its committee ID).
	Old, New             []transport.MemberID
	OldActive, NewActive []transport.MemberID
	OldOffset, NewOffset transport.MemberID
	// Receivers (optional) also compute the output without sending a share
	// (the new committee's members that are not active).
	Receivers []transport.MemberID
}

// CrossKeySwitch runs this member's part of a cross-committee key switch:
// key is its old-committee key if it is in req.OldActive, its
// new-committee key if in req.NewActive. Every participant returns the same
// ciphertext, under the new key, at the input's level.
func CrossKeySwitch(ctx context.Context, g Group, key *ThresholdKey, plan NoisePlan, led Ledger, req KeySwitchRequest) (*fhe.Ciphertext, error) {
	self := g.Self()
	isOld, isNew := contains(req.OldActive, self), contains(req.NewActive, self)
	receiver := !isOld && !isNew && contains(req.Receivers, self)
	if err := checkKeySwitch(key, req, isOld, isNew, receiver); err != nil {
		return nil, err
	}
	p := req.Ciphertext.Params()
	ct := req.Ciphertext
	level := ct.Level()
	ringQ := p.RLWE().RingQ().AtLevel(level)
	parts := union(req.OldActive, req.NewActive)
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	pkb, err := req.Target.MarshalBinary()
	if err != nil {
		return nil, err
	}
	target := keccak(pkb)
	c1 := keySwitchC1(ringQ, target, ct)
	if receiver {
		shares, err := exchangeCommitted(ctx, g, transport.TypeReencryptShare, req.Session, parts, union(parts, req.Receivers), nil)
		if err != nil {
			return nil, err
		}
		return keySwitchOutput(g, p, ct, c1, parts, shares, req.Session)
	}
	if isNew && target != key.PKDigest {
		return nil, errors.New("protocol: key switch target is not this (new) committee's public key")
	}
	// Both sides flood with the re-encryption σ of their own plan; the
	// level must carry every participant's flooding.
	sigmaBits, err := ReencryptSigmaBits(p, plan, level, len(parts))
	if err != nil {
		return nil, err
	}

	seeds, err := exchangeSeeds(ctx, g, req.Session+"/seed", parts)
	if err != nil {
		return nil, err
	}
	var unmasked []byte
	if isOld {
		pin := fmt.Sprintf("reenc/target/%x", target)
		if _, err := led.Issue(KindReencrypt, reencryptTargetDigest(ct), key.Epoch, pin, func() ([]byte, error) { return target[:], nil }); err != nil {
			if errors.Is(err, ErrAlreadyShared) {
				return nil, fmt.Errorf("%w (%v)", ErrTargetPinned, err)
			}
			return nil, err
		}
		rd := reencryptShareDigest(ct, target, parts)
		d := keccak([]byte("fhegate/keyswitch/share/v1"), rd[:])
		unmasked, err = led.Issue(KindReencrypt, d, key.Epoch, req.Session, func() ([]byte, error) {
			return keySwitchShare(key, shift(req.Old, req.OldOffset), shift(req.OldActive, req.OldOffset), self-req.OldOffset, level, ct.Lattigo().Value[1], sigmaBits, false)
		})
	} else {
		unmasked, err = keySwitchShare(key, shift(req.New, req.NewOffset), shift(req.NewActive, req.NewOffset), self-req.NewOffset, level, c1, sigmaBits, true)
	}
	if err != nil {
		return nil, err
	}
	share := ringQ.NewPoly()
	if err := decodeLevelPoly(p, level, unmasked, &share); err != nil {
		return nil, fmt.Errorf("protocol: own key-switch share: %w", err)
	}
	if err := addMasks(ringQ, req.Session, self, parts, seeds, share); err != nil {
		return nil, err
	}
	masked, err := share.MarshalBinary()
	if err != nil {
		return nil, err
	}
	shares, err := exchangeCommitted(ctx, g, transport.TypeReencryptShare, req.Session, parts, union(parts, req.Receivers), func() ([]byte, error) { return masked, nil })
	if err != nil {
		return nil, err
	}
	return keySwitchOutput(g, p, ct, c1, parts, shares, req.Session)
}

// keySwitchC1 is the output's c1″ = c1 + r: r uniform mod Q_ℓ (NTT
// domain) from a PRG keyed by keccak of the target key's digest and the
// input's c1 digest — a value every participant derives, none chooses, and
// that changes with any change of c1 (a random oracle: a participant that
// grinds inputs draws a fresh uniform c1″ per try).
func keySwitchC1(ringQ *ring.Ring, target [32]byte, ct *fhe.Ciphertext) ring.Poly {
	d := ShareDigest(ct)
	k := keccak([]byte("fhegate/keyswitch/rerand/v1"), target[:], d[:])
	prng, _ := sampling.NewKeyedPRNG(k[:]) // never fails for a 32-byte key
	c1 := ringQ.NewPoly()
	ring.NewUniformSampler(prng, ringQ).Read(c1)
	ringQ.Add(c1, ct.Lattigo().Value[1], c1)
	return c1
}

// keySwitchOutput is (c0 + Σ shares, c1″).
func keySwitchOutput(g Group, p *fhe.Params, ct *fhe.Ciphertext, c1 ring.Poly, parts []transport.MemberID, shares map[transport.MemberID][]byte, session string) (*fhe.Ciphertext, error) {
	level := ct.Level()
	ringQ := p.RLWE().RingQ().AtLevel(level)
	out := rlwe.NewCiphertext(p.RLWE(), 1, level)
	out.Value[0].CopyLvl(level, ct.Lattigo().Value[0])
	out.Value[1].CopyLvl(level, c1)
	out.MetaData = ct.Lattigo().MetaData.CopyNew()
	sh := ringQ.NewPoly()
	for _, id := range parts {
		if err := decodeLevelPoly(p, level, shares[id], &sh); err != nil {
			return nil, fmt.Errorf("protocol: member %d: key-switch share: %w", id, err)
		}
		ringQ.Add(out.Value[0], sh, out.Value[0])
	}
	g.log().Debug("cross-committee key switch", zap.String("session", session), zap.Int("participants", len(parts)))
	return fhe.WrapCiphertext(p, out)
}

func checkKeySwitch(key *ThresholdKey, req KeySwitchRequest, isOld, isNew, receiver bool) error {
	if isOld && isNew || !isOld && !isNew && !receiver {
		return errors.New("protocol: a key-switch participant is active in exactly one of the two committees, or a receiver")
	}
	ct := req.Ciphertext
	if ct == nil || ct.Degree() != 1 || !ct.Lattigo().IsNTT {
		return errors.New("protocol: key switch needs a degree-1 ciphertext in the NTT domain")
	}
	for _, id := range req.Old {
		if contains(req.New, id) {
			return fmt.Errorf("protocol: member %d is in both committees of a key switch (their transport IDs must differ)", id)
		}
	}
	for _, s := range []struct {
		active, all []transport.MemberID
		what        string
	}{{req.OldActive, req.Old, "old"}, {req.NewActive, req.New, "new"}} {
		for _, id := range s.active {
			if !contains(s.all, id) {
				return fmt.Errorf("protocol: active member %d is not in the %s committee", id, s.what)
			}
		}
	}
	if receiver {
		return nil
	}
	if key == nil {
		return errors.New("protocol: key switch without a key")
	}
	if t := len(req.OldActive); isOld && t != key.T {
		return fmt.Errorf("protocol: key switch needs exactly t=%d active old members, got %d", key.T, t)
	}
	if t := len(req.NewActive); isNew && t != key.T {
		return fmt.Errorf("protocol: key switch needs exactly t=%d active new members, got %d", key.T, t)
	}
	if ct.Params() != key.Params || req.Target == nil || req.Target.Params() != key.Params {
		return errors.New("protocol: key switch ciphertext, key and target presets differ")
	}
	return nil
}

// keySwitchShare is c1·s_j + E_j (old member: c1 the input's) or
// −c1″·s′_k + E′_k (new member, negate: c1″ the re-randomised c1 of
// keySwitchC1), s_j this member's additive share for the active set over
// its committee and E of 2^sigmaBits, encoded.
func keySwitchShare(key *ThresholdKey, committee, active []transport.MemberID, self transport.MemberID, level int, c1 ring.Poly, sigmaBits float64, negate bool) ([]byte, error) {
	add, err := additiveShareAt(key, self, committee, active)
	if err != nil {
		return nil, err
	}
	defer zero(add)
	ringQ := key.Params.RLWE().RingQ().AtLevel(level)
	h := ringQ.NewPoly()
	ringQ.MulCoeffsMontgomery(c1, add.Value.Q, h)
	if negate {
		ringQ.Neg(h, h)
	}
	fs, err := NewGaussianSampler(sigmaBits)
	if err != nil {
		return nil, err
	}
	e := ringQ.NewPoly()
	fs.ReadNTT(ringQ, e)
	ringQ.Add(h, e, h)
	return h.MarshalBinary()
}

// shift is ids minus off.
func shift(ids []transport.MemberID, off transport.MemberID) []transport.MemberID {
	out := make([]transport.MemberID, len(ids))
	for i, id := range ids {
		out[i] = id - off
	}
	return out
}

// exchangeSeeds gives every pair p < q of parts a fresh 32-byte seed: this
// member draws one for every q above it and sends it to q alone, and
// collects one from every q below it.
func exchangeSeeds(ctx context.Context, g Group, session string, parts []transport.MemberID) (map[transport.MemberID][32]byte, error) {
	rctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	defer g.Mux.Forget(session)
	self := g.Self()
	seeds := map[transport.MemberID][32]byte{}
	var below []transport.MemberID
	for _, q := range parts {
		switch {
		case q < self:
			below = append(below, q)
		case q > self:
			var s [32]byte
			if _, err := crand.Read(s[:]); err != nil {
				return nil, err
			}
			seeds[q] = s
			if err := g.Mux.Send(rctx, q, transport.Message{Type: transport.TypeMaskSeed, Session: session, Payload: s[:]}); err != nil {
				return nil, fmt.Errorf("protocol: mask seed to %d: %w", q, err)
			}
		}
	}
	got := g.Mux.Collect(rctx, session, transport.TypeMaskSeed, below)
	if len(got.Missing) > 0 {
		return nil, &ErrMissing{Session: session, Missing: got.Missing}
	}
	for _, q := range below {
		b := got.Got[q].Payload
		if len(b) != 32 {
			return nil, fmt.Errorf("protocol: member %d: mask seed of %d bytes, want 32", q, len(b))
		}
		seeds[q] = [32]byte(b)
	}
	return seeds, nil
}

// addMasks adds M_self = Σ_{q>self} PRG(seed) − Σ_{q<self} PRG(seed) to h:
// uniform polynomials mod Q_ℓ (NTT domain) from a PRNG keyed by the pair's
// seed and the session.
func addMasks(ringQ *ring.Ring, session string, self transport.MemberID, parts []transport.MemberID, seeds map[transport.MemberID][32]byte, h ring.Poly) error {
	m := ringQ.NewPoly()
	for _, q := range parts {
		if q == self {
			continue
		}
		seed := seeds[q]
		k := keccak([]byte("fhegate/keyswitch/mask/v1"), []byte(session), seed[:])
		prng, err := sampling.NewKeyedPRNG(k[:])
		if err != nil {
			return err
		}
		ring.NewUniformSampler(prng, ringQ).Read(m)
		if q > self {
			ringQ.Add(h, m, h)
		} else {
			ringQ.Sub(h, m, h)
		}
	}
	return nil
}

// decodeLevelPoly decodes a polynomial at exactly `level` into out,
// checking the encoded length before anything is allocated.
func decodeLevelPoly(p *fhe.Params, level int, b []byte, out *ring.Poly) error {
	tmpl := p.RLWE().RingQ().AtLevel(level).NewPoly()
	if want := tmpl.BinarySize(); len(b) != want {
		return fmt.Errorf("share of %d bytes, want %d", len(b), want)
	}
	if err := fhe.SameLattigoShape(b, func(fill uint64) ([]byte, error) {
		for _, row := range tmpl.Coeffs {
			for k := range row {
				row[k] = fill
			}
		}
		return tmpl.MarshalBinary()
	}); err != nil {
		return fmt.Errorf("key-switch share: %w", err)
	}
	var x ring.Poly
	if err := safe("key-switch share", func() error { return x.UnmarshalBinary(b) }); err != nil {
		return err
	}
	if x.Level() != level || x.N() != p.N() {
		return fmt.Errorf("share at level %d, want %d", x.Level(), level)
	}
	q := p.Q()
	for i := 0; i <= level; i++ {
		for _, c := range x.Coeffs[i] {
			if c >= q[i] {
				return errors.New("share coefficient not reduced")
			}
		}
	}
	*out = x
	return nil
}
