package protocol

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/ring/ringqp"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
)

// Open on abort: naming the dealer of bad Shamir shares.
//
// A dealing is Shamir-consistent when the n shares a member sends lie on
// one polynomial of degree ≤ t−1. Nothing can check that while the key is
// live without verifiable secret sharing, which lattice secrets (vectors
// mod Q·P) have no cheap homomorphic commitment for. But a key set whose
// self-test fails is discarded before any user data is encrypted under it,
// so its secrets may then be opened (the design of docs/committee.md,
// "Identifiable abort"):
//
//  1. Dealing (dealShamir, commitDealing, in the DKG's thresholdize
//     round): dealer i sends P_i(j) to each j privately, then broadcasts
//     h_i = (h_{i,1}, …, h_{i,n}), h_{i,j} = keccak(domain ‖ epoch ‖ i ‖ j ‖
//     P_i(j)) over the share's canonical bytes. Receiver j checks the share
//     it got against h_{i,j} and keeps the dealers whose share did not match
//     (its complaints). The shares are uniform mod Q·P for t ≥ 2 (and s_i,
//     of N·log2(3) bits of entropy, for t = 1), so in the random-oracle
//     model h_i hides them.
//  2. Self-test (SelfTest): after it, every member sends pass/fail with the
//     digest of every h it holds; if every member passed with the same
//     digests the dealing records are wiped, and the key set is kept.
//  3. Otherwise every member broadcasts its opening: its polynomial P_i (t
//     coefficients) and its complaints. Each member, for each dealer i, with
//     its own copy of h_i: a missing or malformed opening names i; an
//     opening of degree ≥ t (more coefficients) cannot be sent; if
//     keccak(… P_i(j)) ≠ h_{i,j} for some j, the shares i committed to are
//     not the evaluations of the polynomial it opens — no degree-(t−1)
//     polynomial explains them, or i opened another one — and i is named.
//     A complaint by j against a dealer whose opening matches all its
//     commitments is a dispute: either i sent j a share other than the one
//     it committed to, or j lies; the pair is reported, neither named.
//
// No honest member is named: an honest dealer's opening matches the h_i it
// broadcast in every honest member's view, it sends the share it committed
// to, and it opens. A dealer that equivocated on h_i (another vector to
// each member) is caught by the digest comparison of step 2 (every member
// opens) and named by those whose h_i its opening does not match.
// Binding is keccak's collision resistance; a corrupt dealer cannot find a
// polynomial other than the one its shares lie on that matches its
// commitments.

// ErrBadDealing is a failed self-test after which the openings named the
// dealers of Shamir shares inconsistent with their commitments.
type ErrBadDealing struct {
	// Named are the members whose dealing is proved bad (or who did not
	// open), ascending, with the reason for each.
	Named   []transport.MemberID
	Reasons map[transport.MemberID]string
	// Disputes are (dealer, receiver) pairs where the receiver says the
	// share it got does not match the dealer's commitment and the dealer's
	// opening does: one of the two deviated, which one is not provable.
	Disputes [][2]transport.MemberID
	// Cause is the self-test failure that triggered the opening.
	Cause error
}

func (e *ErrBadDealing) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "protocol: dkg self-test failed (%v; members it lists hold bad shares, they need not have dealt them); the Shamir dealings were opened:", e.Cause)
	if len(e.Named) == 0 {
		b.WriteString(" no dealer named")
	}
	for i, id := range e.Named {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " member %d named: %s", id, e.Reasons[id])
	}
	for _, d := range e.Disputes {
		fmt.Fprintf(&b, "; dispute: member %d says member %d's share does not match its commitment (one of the two deviated)", d[1], d[0])
	}
	return b.String()
}

func (e *ErrBadDealing) Unwrap() error { return e.Cause }

// dealingRecord is what a member keeps of the DKG's Shamir round until the
// self-test passes: its own polynomial (P_i(0) = s_i: as secret as its key
// share) and every dealer's commitment vector.
type dealingRecord struct {
	epoch      uint64
	t          int
	members    []transport.MemberID
	poly       multiparty.ShamirPolynomial
	commits    map[transport.MemberID][]byte // dealer → n × 32 bytes, in member order
	complaints []transport.MemberID          // dealers whose share to this member did not match
	// The public-key round: its CRP a and every member's share
	// p_i = −a·s_i + e_i as received, so that an opening's P_i(0) can be
	// checked against the secret behind p_i.
	pkCRP    multiparty.PublicKeyGenCRP
	pkShares map[transport.MemberID][]byte
}

// recordPublicKeyShares keeps the public-key round's CRP and shares for
// the open-on-abort.
func (s *dkgSession) recordPublicKeyShares(crp multiparty.PublicKeyGenCRP, shares map[transport.MemberID][]byte) {
	if s.dealing == nil {
		s.dealing = &dealingRecord{}
	}
	s.dealing.pkCRP, s.dealing.pkShares = crp, shares
}

// wipe zeroes the polynomial.
func (d *dealingRecord) wipe() {
	if d == nil {
		return
	}
	for _, p := range d.poly.Value {
		for _, row := range p.Q.Coeffs {
			clear(row)
		}
		for _, row := range p.P.Coeffs {
			clear(row)
		}
	}
	d.poly = multiparty.ShamirPolynomial{}
}

// shamirCommitment is h_{dealer,receiver} over the share's canonical bytes.
func shamirCommitment(epoch uint64, dealer, receiver transport.MemberID, share []byte) [32]byte {
	var hdr [16]byte
	binary.BigEndian.PutUint64(hdr[:8], epoch)
	binary.BigEndian.PutUint32(hdr[8:12], uint32(dealer))
	binary.BigEndian.PutUint32(hdr[12:], uint32(receiver))
	return keccak([]byte("fhegate/dkg/shamir-commit/v1"), hdr[:], share)
}

// dealShamir evaluates poly at every member's point and returns the
// encoded shares (knobs: InconsistentShamirShare moves the share of the
// member after this one off the polynomial, DealOtherSecret changes the
// polynomial's constant).
func (s *dkgSession) dealShamir(thr multiparty.Thresholdizer, poly multiparty.ShamirPolynomial) (map[transport.MemberID][]byte, error) {
	if s.cfg.Knobs.DealOtherSecret {
		c := &poly.Value[0].Q.Coeffs[0][0]
		*c = (*c + 1) % s.p.Q()[0]
	}
	out := make(map[transport.MemberID][]byte, len(s.g.Members))
	self := s.g.Self()
	victim := transport.MemberID(0)
	if s.cfg.Knobs.InconsistentShamirShare {
		for _, id := range s.g.Members {
			if id > self {
				victim = id
				break
			}
		}
		if victim == 0 {
			victim = s.g.Members[0]
		}
	}
	for _, id := range s.g.Members {
		share := thr.AllocateThresholdSecretShare()
		thr.GenShamirSecretShare(multiparty.ShamirPublicPoint(id), poly, &share)
		if id == victim {
			c := &share.Q.Coeffs[0][0]
			*c = (*c + 1) % s.p.Q()[0]
		}
		b, err := share.MarshalBinary()
		if err != nil {
			return nil, err
		}
		out[id] = b
	}
	return out, nil
}

// commitDealing broadcasts this dealer's commitment vector over dealt (its
// encoded shares, by receiver), collects every dealer's, checks the shares
// this member received (got, by dealer; its own in dealt) against them and
// keeps the record for SelfTest.
func (s *dkgSession) commitDealing(poly multiparty.ShamirPolynomial, dealt, got map[transport.MemberID][]byte) error {
	self := s.g.Self()
	own := make([]byte, 0, 32*len(s.g.Members))
	for _, id := range s.g.Members {
		h := shamirCommitment(s.cfg.Epoch, self, id, dealt[id])
		own = append(own, h[:]...)
	}
	all, err := s.exchange("shamir-commit", transport.TypeKeyDigest, own)
	if err != nil {
		return err
	}
	rec := s.dealing
	if rec == nil {
		rec = &dealingRecord{}
	}
	rec.epoch, rec.t, rec.members, rec.commits = s.cfg.Epoch, s.t, slices.Clone(s.g.Members), map[transport.MemberID][]byte{}
	idx := slices.Index(s.g.Members, self)
	for _, dealer := range s.g.Members {
		v := all[dealer]
		if len(v) != 32*len(s.g.Members) {
			return fmt.Errorf("protocol: dkg: member %d sent a Shamir commitment of %d bytes, want %d", dealer, len(v), 32*len(s.g.Members))
		}
		rec.commits[dealer] = v
		share := got[dealer]
		if dealer == self {
			share = dealt[self]
		}
		if h := shamirCommitment(s.cfg.Epoch, dealer, self, share); string(h[:]) != string(v[32*idx:32*idx+32]) {
			rec.complaints = append(rec.complaints, dealer)
			s.log.Warn("dkg: a Shamir share does not match its dealer's commitment", zap.Uint32("dealer", uint32(dealer)))
		}
	}
	rec.poly = poly
	s.dealing = rec
	return nil
}

// commitsDigest is keccak of every dealer's commitment vector in member
// order: equal on every member unless a dealer equivocated.
func (d *dealingRecord) commitsDigest() [32]byte {
	parts := [][]byte{[]byte("fhegate/dkg/shamir-commits/v1")}
	for _, id := range d.members {
		parts = append(parts, d.commits[id])
	}
	return keccak(parts...)
}

// maxOpeningComplaints bounds a decoded complaint list (one per dealer).
const maxOpeningComplaints = 1 << 8

// encodeOpening is count of complaints (2, BE) ‖ complaints (4, BE each)
// ‖ the t coefficient polynomials, canonical ringqp encoding each.
func (d *dealingRecord) encodeOpening() ([]byte, error) {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(d.complaints)))
	for _, id := range d.complaints {
		b = binary.BigEndian.AppendUint32(b, uint32(id))
	}
	for _, p := range d.poly.Value {
		pb, err := p.MarshalBinary()
		if err != nil {
			return nil, err
		}
		b = append(b, pb...)
	}
	return b, nil
}

// decodeOpening decodes an opening of a t-of-n dealing: the complaint
// count is bounded and every polynomial's exact encoded size is checked
// before it is decoded.
func decodeOpening(tmpl ringqp.Poly, t int, members []transport.MemberID, b []byte) ([]transport.MemberID, multiparty.ShamirPolynomial, error) {
	var poly multiparty.ShamirPolynomial
	if len(b) < 2 {
		return nil, poly, errors.New("opening too short")
	}
	nc := int(binary.BigEndian.Uint16(b))
	if nc > len(members) || nc > maxOpeningComplaints {
		return nil, poly, fmt.Errorf("opening with %d complaints, %d members", nc, len(members))
	}
	size := tmpl.BinarySize()
	if want := 2 + 4*nc + t*size; len(b) != want {
		return nil, poly, fmt.Errorf("opening of %d bytes, want %d", len(b), want)
	}
	var complaints []transport.MemberID
	for i := range nc {
		id := transport.MemberID(binary.BigEndian.Uint32(b[2+4*i:]))
		if !slices.Contains(members, id) {
			return nil, poly, fmt.Errorf("complaint against %d, not a member", id)
		}
		complaints = append(complaints, id)
	}
	rest := b[2+4*nc:]
	poly.Value = make([]ringqp.Poly, t)
	for i := range t {
		x := tmpl.CopyNew()
		if err := safe("shamir opening", func() error { return x.UnmarshalBinary(rest[i*size : (i+1)*size]) }); err != nil {
			return nil, poly, err
		}
		if !sameShapeQP(*x, tmpl) {
			return nil, poly, errors.New("opening polynomial of another shape")
		}
		poly.Value[i] = *x
	}
	return complaints, poly, nil
}

// sameShapeQP is whether x has tmpl's levels and ring degree.
func sameShapeQP(x, tmpl ringqp.Poly) bool {
	if x.Q.Level() != tmpl.Q.Level() || x.Q.N() != tmpl.Q.N() {
		return false
	}
	if (x.P.Coeffs == nil) != (tmpl.P.Coeffs == nil) {
		return false
	}
	return tmpl.P.Coeffs == nil || x.P.Level() == tmpl.P.Level() && x.P.N() == tmpl.P.N()
}

// openOnAbort runs the opening round after a failed self-test (cause) and
// judges every dealer with this member's record.
func openOnAbort(ctx context.Context, g Group, km *KeyMaterial, rec *dealingRecord, cause error) error {
	session := fmt.Sprintf("dkg/%d/selftest/open", rec.epoch)
	rctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	defer g.Mux.Forget(session)
	own, err := rec.encodeOpening()
	if err != nil {
		return err
	}
	if err := g.Mux.Broadcast(rctx, rec.members, transport.Message{Type: transport.TypeShamirShare, Session: session, Payload: own}); err != nil {
		g.log().Info("dkg: opening not yet delivered to every member; retried until the round's deadline", zap.Error(err))
	}
	got := g.Mux.Collect(rctx, session, transport.TypeShamirShare, others(rec.members, g.Self()))
	openings := map[transport.MemberID][]byte{g.Self(): own}
	for id, m := range got.Got {
		openings[id] = m.Payload
	}
	rp := km.Params.RLWE()
	thr := multiparty.NewThresholdizer(rp)
	tmpl := rp.RingQP().NewPoly()
	bad := &ErrBadDealing{Reasons: map[transport.MemberID]string{}, Cause: cause}
	name := func(id transport.MemberID, why string) {
		bad.Named = append(bad.Named, id)
		bad.Reasons[id] = why
	}
	complaints := map[transport.MemberID][]transport.MemberID{} // dealer → receivers
	for _, dealer := range rec.members {
		b, ok := openings[dealer]
		if !ok {
			name(dealer, "did not open its dealing")
			continue
		}
		cs, poly, err := decodeOpening(tmpl, rec.t, rec.members, b)
		if err != nil {
			name(dealer, "malformed opening: "+err.Error())
			continue
		}
		for _, c := range cs {
			complaints[c] = append(complaints[c], dealer)
		}
		if why := checkOpening(thr, rec, dealer, poly); why != "" {
			name(dealer, why)
		} else if why := checkPublicKeyShare(rp, rec, dealer, poly); why != "" {
			name(dealer, why)
		}
	}
	for _, dealer := range rec.members {
		if _, named := bad.Reasons[dealer]; named {
			continue
		}
		for _, rcv := range complaints[dealer] {
			bad.Disputes = append(bad.Disputes, [2]transport.MemberID{dealer, rcv})
		}
	}
	slices.Sort(bad.Named)
	g.log().Error("dkg: self-test failed; dealings opened", zap.Any("named", bad.Named), zap.Any("disputes", bad.Disputes), zap.Error(cause))
	return bad
}

// checkOpening is why dealer's opened polynomial does not match the
// commitments this member holds ("" if it does).
func checkOpening(thr multiparty.Thresholdizer, rec *dealingRecord, dealer transport.MemberID, poly multiparty.ShamirPolynomial) string {
	v := rec.commits[dealer]
	for x, rcv := range rec.members {
		share := thr.AllocateThresholdSecretShare()
		if err := safe("shamir evaluation", func() error {
			thr.GenShamirSecretShare(multiparty.ShamirPublicPoint(rcv), poly, &share)
			return nil
		}); err != nil {
			return "opening cannot be evaluated: " + err.Error()
		}
		b, err := share.MarshalBinary()
		if err != nil {
			return "opening cannot be encoded: " + err.Error()
		}
		if h := shamirCommitment(rec.epoch, dealer, rcv, b); string(h[:]) != string(v[32*x:32*x+32]) {
			return fmt.Sprintf("its share to member %d is not its opened polynomial's value there: the shares it dealt lie on no polynomial of degree < t", rcv)
		}
	}
	return ""
}

// checkPublicKeyShare is why dealer's opened secret s_i = P_i(0) is not
// the one behind its public-key share ("" if it is): the residual
// e_i = p_i + a·s_i must be the short error of the key distribution
// (‖e_i‖∞ ≤ the sampler's bound, 6σ) and s_i ternary. A dealing of a
// consistent polynomial whose constant is not s_i, and a public-key share
// with an oversized error or secret, are named here.
func checkPublicKeyShare(rp rlwe.Parameters, rec *dealingRecord, dealer transport.MemberID, poly multiparty.ShamirPolynomial) string {
	if rec.pkShares == nil {
		return ""
	}
	ckg := multiparty.NewPublicKeyGenProtocol(rp)
	sh := ckg.AllocateShare()
	if err := safe("public-key share", func() error { return sh.UnmarshalBinary(rec.pkShares[dealer]) }); err != nil {
		return "its public-key share does not decode: " + err.Error()
	}
	rq := rp.RingQ()
	secret := poly.Value[0].Q
	e := rq.NewPoly()
	rq.MulCoeffsMontgomery(secret, rec.pkCRP.Value.Q, e)
	rq.Add(e, sh.Value.Q, e)
	rq.IMForm(e, e)
	rq.INTT(e, e)
	if m, bound := infNormFirst(rq, e), rp.NoiseBound(); float64(m) > bound {
		return fmt.Sprintf("its public-key share is not −a·P(0) + e with a short e (‖e‖∞ = %d > %.0f): its dealing is not of the secret behind its key share, or the share's error is oversized", m, bound)
	}
	sv := rq.NewPoly()
	rq.IMForm(secret, sv)
	rq.INTT(sv, sv)
	if m := infNormFirst(rq, sv); m > 1 {
		return fmt.Sprintf("its secret P(0) is not ternary (‖s‖∞ = %d)", m)
	}
	return ""
}

// infNormFirst is the largest |coefficient| of x (coefficient domain),
// centred, over the first modulus.
func infNormFirst(rq *ring.Ring, x ring.Poly) uint64 {
	q := rq.SubRings[0].Modulus
	m := uint64(0)
	for _, c := range x.Coeffs[0] {
		if c > q/2 {
			c = q - c
		}
		m = max(m, c)
	}
	return m
}
