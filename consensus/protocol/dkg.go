package protocol

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"
	"go.uber.org/zap"
	"golang.org/x/crypto/sha3"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// DKGConfig parameterises a distributed key generation.
type DKGConfig struct {
	Params         *fhe.Params
	Epoch          uint64
	GaloisElements []uint64 // rotation keys the plans need (deduplicated, sorted here)
	// Knobs make this member misbehave (tests only).
	Knobs DKGKnobs
	// Shared, if set, is the public material cache of the members in this
	// process (an in-process committee): each Galois key this member
	// derives is swapped for an equal one another member already holds
	// (SharedPublic.GaloisKey), so one copy stays in memory, not one per
	// member. Nil: this member keeps its own.
	Shared *SharedPublic
}

// DKGKnobs are test-only misbehaviours of one member in a DKG: each sends a
// key share that is well-formed but wrong, which only the self-test catches.
type DKGKnobs struct {
	CorruptRelinShare  bool // perturb one coefficient of the round-2 relinearisation-key share
	CorruptGaloisShare bool // perturb one coefficient of every Galois-key share
	// InconsistentShamirShare deals the next member a Shamir share off the
	// polynomial (and commits to it): the open-on-abort names this member.
	InconsistentShamirShare bool
	// DealOtherSecret deals a consistent polynomial whose constant is not
	// the secret behind this member's public-key share.
	DealOtherSecret bool
	// OversizedPKShareError adds 2^30 to one coefficient of the error of
	// this member's public-key share (decryptable, far above βe) and sends
	// the proof of the share it would have sent: refused at the round, the
	// member named.
	OversizedPKShareError bool
}

// perturb adds 1 to the first NTT coefficient of a gadget ciphertext's first
// polynomial: a dense error in the coefficient domain.
func perturb(gc *rlwe.GadgetCiphertext, q uint64) {
	c := &gc.Value[0][0][0].Q.Coeffs[0][0]
	*c = (*c + 1) % q
}

// KeyMaterial is the public output of a DKG, identical on every member.
type KeyMaterial struct {
	Params   *fhe.Params
	Epoch    uint64
	N, T     int
	Public   *fhe.PublicKey
	Relin    *fhe.RelinKey
	Galois   *fhe.GaloisKeys
	PKDigest [32]byte // keccak256 of the canonical public key
	Digest   [32]byte // keccak256(pk ‖ rlk ‖ gks) — pinned on chain
	CRSSeed  [32]byte // jointly generated common reference string seed

	// dealing is this member's record of the Shamir round, kept until
	// SelfTest passes (dkg_open.go); nil for loaded key material.
	dealing *dealingRecord
}

// MaterialDigest recomputes the digest of public key material:
// keccak256(pk ‖ rlk ‖ gks) over their canonical encodings, streamed (the
// Galois keys a key at a time: the whole encoding is never in memory).
func MaterialDigest(pk *fhe.PublicKey, rlk *fhe.RelinKey, gks *fhe.GaloisKeys) (pkd, all [32]byte, err error) {
	pb, err := pk.MarshalBinary()
	if err != nil {
		return pkd, all, err
	}
	h := sha3.NewLegacyKeccak256()
	h.Write(pb)
	if _, err := rlk.WriteTo(h); err != nil {
		return pkd, all, err
	}
	if _, err := gks.WriteTo(h); err != nil {
		return pkd, all, err
	}
	h.Sum(all[:0])
	return keccak(pb), all, nil
}

// RunDKG runs the n-of-n distributed key generation of Mouchet et al.
// (PETS 2021, "Multiparty Homomorphic Encryption from Ring-Learning-with-
// Errors") followed by the t-of-n thresholdisation of Mouchet, Bertrand and
// Hubaux (ePrint 2022/780). Every member of g must take part.
//
// Rounds, one dkgSession method each and in this order: the seed's commit,
// echo and reveal (CRS = keccak of all contributions, so no member chooses
// it);
// public-key shares; relinearisation-key shares (two rounds); one round per
// Galois element; private Shamir shares of every member's secret; a final
// comparison of the digest of the public material. Every share round is
// committed and echoed (exchangeCommitted): a member that commits
// differently to different members is named by every honest member before
// any reveal. Each member's own RLWE
// secret s_i is dropped at the end: only its Shamir share tsk_i = Σ_k P_k(i)
// of s = Σ s_k remains — and, inside the returned KeyMaterial, the
// member's Shamir polynomial with the dealing commitments, for SelfTest's
// open-on-abort (dkg_open.go); SelfTest drops them whatever its outcome.
// RunDKG does not run SelfTest; the caller must.
func RunDKG(ctx context.Context, g Group, cfg DKGConfig) (*KeyMaterial, *ThresholdKey, error) {
	s, err := newDKGSession(ctx, g, cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := s.commonReference(); err != nil {
		return nil, nil, err
	}
	s.sk = rlwe.NewKeyGenerator(s.rp).GenSecretKeyNew()
	for _, round := range []func() error{s.publicKey, s.relinearizationKey, s.galoisKeys, s.thresholdize} {
		if err := round(); err != nil {
			return nil, nil, err
		}
	}
	km, err := s.checkDigest()
	if err != nil {
		return nil, nil, err
	}
	km.dealing = s.dealing
	key := &ThresholdKey{Params: s.p, Epoch: cfg.Epoch, ID: g.Self(), N: s.n, T: s.t, Threshold: s.t, Share: s.tsk, PKDigest: km.PKDigest}
	s.log.Info("dkg complete", zap.String("digest", fmt.Sprintf("%x", km.Digest[:8])))
	return km, key, nil
}

// dkgSession is one member's state in a RunDKG. Its methods are the rounds,
// as Lattigo's multiparty package splits key generation into one protocol
// per key; each fills in the fields the later rounds read.
type dkgSession struct {
	ctx  context.Context
	g    Group
	cfg  DKGConfig
	p    *fhe.Params
	rp   rlwe.Parameters
	n, t int
	log  *zap.Logger

	crsSeed [32]byte            // commonReference
	crs     *sampling.KeyedPRNG // commonReference; every round draws its CRPs from it, in round order
	sk      *rlwe.SecretKey     // s_i, zeroed by thresholdize
	pk      *rlwe.PublicKey
	rlk     *rlwe.RelinearizationKey
	gks     []*rlwe.GaloisKey
	tsk     multiparty.ShamirSecretShare // tsk_i = Σ_k P_k(i)
	dealing *dealingRecord               // thresholdize: the open-on-abort record (dkg_open.go)
}

func newDKGSession(ctx context.Context, g Group, cfg DKGConfig) (*dkgSession, error) {
	n, t := g.N(), g.Threshold
	if t < 1 || t > n || n > noise.MaxMembers {
		return nil, fmt.Errorf("protocol: dkg: %d-of-%d committee outside 1 ≤ t ≤ n ≤ %d", t, n, noise.MaxMembers)
	}
	if !contains(g.Members, g.Self()) {
		return nil, errors.New("protocol: dkg: self is not a member")
	}
	return &dkgSession{ctx: ctx, g: g, cfg: cfg, p: cfg.Params, rp: cfg.Params.RLWE(), n: n, t: t,
		log: g.log().With(zap.Uint64("epoch", cfg.Epoch))}, nil
}

// session names a round: "dkg/<epoch>/<round>".
func (s *dkgSession) session(round string) string {
	return fmt.Sprintf("dkg/%d/%s", s.cfg.Epoch, round)
}

// exchange is an n-of-n round: payload to every member, one answer from each.
func (s *dkgSession) exchange(round string, typ transport.Type, payload []byte) (map[transport.MemberID][]byte, error) {
	return exchangeAll(s.ctx, s.g, s.g.Members, s.session(round), typ, payload)
}

// exchangeShare is an n-of-n round of protocol shares: this member's own
// share to every member, every member's encoded share back, committed
// before it is revealed (exchangeCommitted).
func (s *dkgSession) exchangeShare(round string, typ transport.Type, own encoding.BinaryMarshaler) (map[transport.MemberID][]byte, error) {
	b, err := own.MarshalBinary()
	if err != nil {
		return nil, err
	}
	if s.g.insecureNoCommit {
		return s.exchange(round, typ, b)
	}
	return exchangeCommitted(s.ctx, s.g, typ, s.session(round), s.g.Members, s.g.Members, func() ([]byte, error) { return b, nil })
}

// commonReference runs the committed round of the CRS seed (commit, echo,
// reveal: exchangeCommitted): every member commits to 32 random bytes,
// confirms it holds every other member's commitment, then reveals them; the
// seed is keccak of the epoch, the preset and every contribution in member
// order. The later rounds bind the seed into their signed commitments
// (Group.commitContext).
func (s *dkgSession) commonReference() error {
	var contrib [32]byte
	if _, err := crand.Read(contrib[:]); err != nil {
		return err
	}
	var reveals map[transport.MemberID][]byte
	var err error
	if s.g.insecureNoCommit {
		reveals, err = s.exchange("seed", transport.TypeSeedReveal, contrib[:])
	} else {
		reveals, err = exchangeCommitted(s.ctx, s.g, transport.TypeSeedReveal, s.session("seed"), s.g.Members, s.g.Members,
			func() ([]byte, error) { return contrib[:], nil })
	}
	if err != nil {
		return err
	}
	var ep [8]byte
	binary.BigEndian.PutUint64(ep[:], s.cfg.Epoch)
	parts := [][]byte{[]byte("fhegate/dkg/crs"), ep[:], {byte(s.p.Preset.ID)}}
	for _, id := range s.g.Members {
		r := reveals[id]
		if len(r) != 32 {
			return fmt.Errorf("protocol: dkg: member %d revealed a seed contribution of %d bytes, want 32", id, len(r))
		}
		parts = append(parts, r)
	}
	s.crsSeed = keccak(parts...)
	s.g.commitContext = s.crsSeed
	s.crs, err = sampling.NewKeyedPRNG(s.crsSeed[:])
	return err
}

// publicKey is the collective public-key round (PublicKeyGenProtocol):
// pk = (Σ_i (−a·s_i + e_i), a) for a common a. Each member's share travels
// with a proof that it is short (zkpok.ShareKey: s_i ternary, e_i ≤ βe up
// to the proof's slack, bound to the epoch, the member and the CRS seed),
// committed and echoed with the share; a share whose proof fails is
// refused at the round and its sender named (ErrBadKeyShare).
func (s *dkgSession) publicKey() error {
	ckg := multiparty.NewPublicKeyGenProtocol(s.rp)
	crp := ckg.SampleCRP(s.crs)
	own := ckg.AllocateShare()
	ckg.GenShare(s.sk, crp, &own)
	sk, err := zkpok.NewShareKey(s.p, crp.Value)
	if err != nil {
		return err
	}
	proof, err := sk.Prove(s.sk, own.Value, s.shareContext(s.g.Self()))
	if err != nil {
		return fmt.Errorf("protocol: dkg: proof of this member's public-key share: %w", err)
	}
	if s.cfg.Knobs.OversizedPKShareError {
		oversize(s.rp, &own)
	}
	shareBytes, err := own.MarshalBinary()
	if err != nil {
		return err
	}
	payload := encodeKeyShare(shareBytes, proof)
	var all map[transport.MemberID][]byte
	if s.g.insecureNoCommit {
		all, err = s.exchange("pk", transport.TypePKShare, payload)
	} else {
		all, err = exchangeCommitted(s.ctx, s.g, transport.TypePKShare, s.session("pk"), s.g.Members, s.g.Members,
			func() ([]byte, error) { return payload, nil })
	}
	if err != nil {
		return err
	}
	if all, err = s.checkKeyShares(ckg, sk, len(shareBytes), all); err != nil {
		return err
	}
	s.recordPublicKeyShares(crp, all)
	agg, err := aggregateShares("pk", s.g.Members, all, ckg.AllocateShare, nil,
		func(a, b multiparty.PublicKeyGenShare, out *multiparty.PublicKeyGenShare) error {
			ckg.AggregateShares(a, b, out)
			return nil
		})
	if err != nil {
		return err
	}
	s.pk = rlwe.NewPublicKey(s.rp)
	ckg.GenPublicKey(agg, crp, s.pk)
	s.log.Debug("dkg: public key")
	return nil
}

// shareContext is what member id's public-key share proof binds.
func (s *dkgSession) shareContext(id transport.MemberID) zkpok.ShareContext {
	return zkpok.ShareContext{Epoch: s.cfg.Epoch, Member: uint32(id), Seed: s.crsSeed}
}

// checkKeyShares splits every member's public-key round payload into its
// share and proof (lengths checked against this member's own before
// anything is decoded), decodes the share and verifies its proof; it
// returns the shares' bytes, or the identifiable abort naming the first
// member (in member order) whose payload or proof fails.
func (s *dkgSession) checkKeyShares(ckg multiparty.PublicKeyGenProtocol, key *zkpok.ShareKey, shareLen int,
	payloads map[transport.MemberID][]byte) (map[transport.MemberID][]byte, error) {
	guard, err := shapeGuard(ckg.AllocateShare())
	if err != nil {
		return nil, fmt.Errorf("protocol: pk share template: %w", err)
	}
	out := make(map[transport.MemberID][]byte, len(payloads))
	for _, id := range s.g.Members {
		share, proof, err := decodeKeyShare(payloads[id], shareLen, key.SP.Size())
		if err == nil && id != s.g.Self() {
			sh := ckg.AllocateShare()
			if guard != nil {
				err = guard(share)
			}
			if err == nil {
				err = safe("pk share", func() error { return sh.UnmarshalBinary(share) })
			}
			if err == nil {
				err = key.Verify(sh.Value, s.shareContext(id), proof)
			}
		}
		if err != nil {
			e := &ErrBadKeyShare{Session: s.session("pk"), Member: id, Reason: err.Error()}
			s.log.Error("dkg: public-key share refused: its sender is named", zap.Uint32("member", uint32(id)), zap.Error(err))
			return nil, e
		}
		out[id] = share
	}
	return out, nil
}

// ErrBadKeyShare is the identifiable abort of the DKG's public-key round:
// Member's share is malformed or its shortness proof fails (an error
// larger than the proof admits, or a proof for another share, member,
// epoch or reference string).
type ErrBadKeyShare struct {
	Session string
	Member  transport.MemberID
	Reason  string
}

func (e *ErrBadKeyShare) Error() string {
	return fmt.Sprintf("protocol: %s: member %d sent a public-key share refused at the round: %s", e.Session, e.Member, e.Reason)
}

// encodeKeyShare is a public-key round payload: the share's length (4
// bytes, big-endian) ‖ the share (Lattigo's encoding) ‖ its proof.
func encodeKeyShare(share, proof []byte) []byte {
	out := make([]byte, 0, 4+len(share)+len(proof))
	out = binary.BigEndian.AppendUint32(out, uint32(len(share)))
	return append(append(out, share...), proof...)
}

// decodeKeyShare splits a public-key round payload; the share must be
// shareLen bytes and the proof proofLen (both fixed by the preset), so a
// payload of any other length is refused before anything is decoded.
func decodeKeyShare(b []byte, shareLen, proofLen int) (share, proof []byte, err error) {
	if len(b) != 4+shareLen+proofLen {
		return nil, nil, fmt.Errorf("public-key share payload of %d bytes, want %d", len(b), 4+shareLen+proofLen)
	}
	if n := binary.BigEndian.Uint32(b); uint64(n) != uint64(shareLen) {
		return nil, nil, fmt.Errorf("public-key share of %d bytes, want %d", n, shareLen)
	}
	return b[4 : 4+shareLen], b[4+shareLen:], nil
}

// oversize adds 2^30 to the constant coefficient of a public-key share's
// error (knob OversizedPKShareError): decryptable on every preset (it is
// divided by P in every encryption), invisible without the proof.
func oversize(rp rlwe.Parameters, sh *multiparty.PublicKeyGenShare) {
	rqp := rp.RingQP()
	e := rqp.NewPoly()
	for i := range e.Q.Coeffs {
		e.Q.Coeffs[i][0] = (1 << 30) % rqp.RingQ.SubRings[i].Modulus
	}
	if rqp.RingP != nil {
		for i := range e.P.Coeffs {
			e.P.Coeffs[i][0] = (1 << 30) % rqp.RingP.SubRings[i].Modulus
		}
	}
	rqp.NTT(e, e)
	rqp.MForm(e, e)
	rqp.Add(sh.Value, e, sh.Value)
}

// relinearizationKey is the two-round RelinearizationKeyGenProtocol: round
// one uses an ephemeral secret, round two the aggregate of round one.
func (s *dkgSession) relinearizationKey() error {
	rkg := multiparty.NewRelinearizationKeyGenProtocol(s.rp)
	crp := rkg.SampleCRP(s.crs)
	eph, r1, r2 := rkg.AllocateShare()
	rkg.GenShareRoundOne(s.sk, crp, eph, &r1)
	agg1, err := s.relinRound(rkg, "rlk1", transport.TypeRLKShare1, r1)
	if err != nil {
		return err
	}
	rkg.GenShareRoundTwo(eph, s.sk, agg1, &r2)
	if s.cfg.Knobs.CorruptRelinShare {
		perturb(&r2.GadgetCiphertext, s.p.Q()[0])
	}
	agg2, err := s.relinRound(rkg, "rlk2", transport.TypeRLKShare2, r2)
	if err != nil {
		return err
	}
	s.rlk = rlwe.NewRelinearizationKey(s.rp)
	rkg.GenRelinearizationKey(agg1, agg2, s.rlk)
	s.log.Debug("dkg: relinearization key")
	return nil
}

// relinRound sends own, this member's share of one relinearisation round,
// and returns the aggregate of every member's.
func (s *dkgSession) relinRound(rkg multiparty.RelinearizationKeyGenProtocol, round string, typ transport.Type,
	own multiparty.RelinearizationKeyGenShare) (multiparty.RelinearizationKeyGenShare, error) {
	all, err := s.exchangeShare(round, typ, own)
	if err != nil {
		return own, err
	}
	// Round one's shares have degree 1 (two polynomials per gadget entry),
	// round two's degree 0: each round's shares must have its own shape.
	alloc := func() multiparty.RelinearizationKeyGenShare {
		_, r1, r2 := rkg.AllocateShare()
		if typ == transport.TypeRLKShare2 {
			return r2
		}
		return r1
	}
	return aggregateShares("rlk", s.g.Members, all, alloc, nil,
		func(a, b multiparty.RelinearizationKeyGenShare, out *multiparty.RelinearizationKeyGenShare) error {
			rkg.AggregateShares(a, b, out)
			return nil
		})
}

// galoisKeys runs one GaloisKeyGenProtocol round per Galois element the
// plans need, in ascending order without repeats.
func (s *dkgSession) galoisKeys() error {
	els := append([]uint64(nil), s.cfg.GaloisElements...)
	sort.Slice(els, func(i, j int) bool { return els[i] < els[j] })
	els = uniq(els)
	gkg := multiparty.NewGaloisKeyGenProtocol(s.rp)
	s.gks = make([]*rlwe.GaloisKey, 0, len(els))
	for _, el := range els {
		gk, err := s.galoisKey(gkg, el)
		if err != nil {
			return err
		}
		s.gks = append(s.gks, gk)
	}
	s.log.Debug("dkg: galois keys", zap.Int("count", len(s.gks)))
	return nil
}

// galoisKey is the round for one Galois element el; a share for another
// element is refused.
func (s *dkgSession) galoisKey(gkg multiparty.GaloisKeyGenProtocol, el uint64) (*rlwe.GaloisKey, error) {
	crp := gkg.SampleCRP(s.crs)
	own := gkg.AllocateShare()
	if err := gkg.GenShare(s.sk, el, crp, &own); err != nil {
		return nil, err
	}
	if s.cfg.Knobs.CorruptGaloisShare {
		perturb(&own.GadgetCiphertext, s.p.Q()[0])
	}
	all, err := s.exchangeShare(fmt.Sprintf("gal/%d", el), transport.TypeGaloisShare, own)
	if err != nil {
		return nil, err
	}
	check := func(id transport.MemberID, sh multiparty.GaloisKeyGenShare) error {
		if sh.GaloisElement != el {
			return fmt.Errorf("protocol: dkg: member %d sent a share for element %d, want %d", id, sh.GaloisElement, el)
		}
		return nil
	}
	alloc := func() multiparty.GaloisKeyGenShare {
		sh := gkg.AllocateShare()
		sh.GaloisElement = el // what an honest share carries: part of its structure
		return sh
	}
	agg, err := aggregateShares("galois", s.g.Members, all, alloc, check, gkg.AggregateShares)
	if err != nil {
		return nil, err
	}
	gk := rlwe.NewGaloisKey(s.rp)
	if err := gkg.GenGaloisKey(agg, crp, gk); err != nil {
		return nil, err
	}
	// This member derived gk from the shares it checked; an in-process
	// peer's equal key, if any, replaces it (the digest round compares the
	// whole material after).
	return s.cfg.Shared.GaloisKey(gk), nil
}

// thresholdize is the Thresholdizer round: this member draws a degree t−1
// polynomial P_i with P_i(0) = s_i, sends P_i(j) privately to each member j,
// and sums what it receives into tsk_i = Σ_k P_k(i). s_i is zeroed after.
func (s *dkgSession) thresholdize() error {
	thr := multiparty.NewThresholdizer(s.rp)
	poly, err := thr.GenShamirPolynomial(s.t, s.sk)
	if err != nil {
		return err
	}
	dealt, err := s.dealShamir(thr, poly)
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(s.ctx, s.g.timeout())
	defer cancel()
	session := s.session("shamir")
	for _, id := range s.g.Members {
		if id == s.g.Self() {
			continue
		}
		// Retried in the background while the round lasts (a peer that
		// misses its share fails the round as missing this member).
		if err := s.g.Mux.SendRetrying(rctx, id, transport.Message{Type: transport.TypeShamirShare, Session: session, Payload: dealt[id]}); err != nil {
			s.log.Info("dkg: shamir share not yet delivered; retried until the round's deadline", zap.Uint32("to", uint32(id)), zap.Error(err))
		}
	}
	got := s.g.Mux.Collect(rctx, session, transport.TypeShamirShare, s.g.Members)
	if len(got.Missing) > 0 {
		return &ErrMissing{Session: session, Missing: got.Missing}
	}
	own := thr.AllocateThresholdSecretShare()
	if err := safe("own shamir share", func() error { return own.UnmarshalBinary(dealt[s.g.Self()]) }); err != nil {
		return err
	}
	s.tsk = own
	for _, id := range sortedIDs(got.Got) {
		sh := thr.AllocateThresholdSecretShare()
		if err := safe("shamir share", func() error { return sh.UnmarshalBinary(got.Got[id].Payload) }); err != nil {
			return fmt.Errorf("member %d: %w", id, err)
		}
		if err := safe("shamir aggregate", func() error { return thr.AggregateShares(s.tsk, sh, &s.tsk) }); err != nil {
			return fmt.Errorf("member %d: %w", id, err)
		}
	}
	received := make(map[transport.MemberID][]byte, len(got.Got))
	for id, m := range got.Got {
		received[id] = m.Payload
	}
	if err := s.commitDealing(poly, dealt, received); err != nil {
		return err
	}
	// The member's own secret is dropped here; its polynomial stays in the
	// open-on-abort record until the self-test passes.
	zero(s.sk)
	return nil
}

// checkDigest wraps the public material and compares its digest with every
// member's: all must have derived the same keys.
func (s *dkgSession) checkDigest() (*KeyMaterial, error) {
	p := s.p
	km := &KeyMaterial{Params: p, Epoch: s.cfg.Epoch, N: s.n, T: s.t, Public: fhe.WrapPublicKey(p, s.pk), Relin: fhe.WrapRelinKey(p, s.rlk),
		Galois: fhe.WrapGaloisKeys(p, s.gks), CRSSeed: s.crsSeed}
	var err error
	if km.PKDigest, km.Digest, err = MaterialDigest(km.Public, km.Relin, km.Galois); err != nil {
		return nil, err
	}
	digests, err := s.exchange("digest", transport.TypeKeyDigest, km.Digest[:])
	if err != nil {
		return nil, err
	}
	for id, d := range digests {
		if !bytes.Equal(d, km.Digest[:]) {
			return nil, fmt.Errorf("protocol: dkg: member %d derived different public key material", id)
		}
	}
	return km, nil
}

func uniq(v []uint64) []uint64 {
	out := v[:0]
	for i, x := range v {
		if i == 0 || x != v[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func zero(sk *rlwe.SecretKey) {
	for _, row := range sk.Value.Q.Coeffs {
		clear(row)
	}
	for _, row := range sk.Value.P.Coeffs {
		clear(row)
	}
}
