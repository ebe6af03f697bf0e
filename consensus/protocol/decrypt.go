package protocol

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// ShareDigest is what the ledger keys a decryption share on: keccak256 of
// the level and the c1 limbs of the ciphertext at the decryption level. A
// share depends only on c1 (d = c1·tsk + e), so two ciphertexts with the same
// c1 — e.g. one derived from the other by adding a public constant to c0 —
// count as the same ciphertext.
func ShareDigest(ct *fhe.Ciphertext) [32]byte {
	c1 := ct.Lattigo().Value[1]
	h := make([]byte, 0, 1+8*ct.Params().N()*(ct.Level()+1))
	h = append(h, byte(ct.Level()))
	var b [8]byte
	for i := 0; i <= ct.Level(); i++ {
		for _, c := range c1.Coeffs[i] {
			binary.LittleEndian.PutUint64(b[:], c)
			h = append(h, b[:]...)
		}
	}
	return keccak([]byte("fhegate/share/c1"), h)
}

// DecryptRequest is one threshold decryption.
type DecryptRequest struct {
	// Session names the run; every participant must use the same name
	// (e.g. "dec/<request id>").
	Session string
	// Ciphertext is the result to decrypt, at any level ≥ the plan's level.
	Ciphertext *fhe.Ciphertext
	// Participants are the members expected to contribute (live members
	// whose result digest agreed); they receive each other's shares.
	Participants []transport.MemberID
	// Valid, if set, rejects impossible plaintexts (see RobustCombine).
	Valid func([]uint64) bool
	// PublicKey is the collective public key (required): the ciphertext is
	// sanitised with an encryption of zero under it, seeded by a coin toss
	// among the participants, before any share is computed (sanitise.go).
	PublicKey *fhe.PublicKey
}

// DecryptResult is the outcome on one member.
type DecryptResult struct {
	CombineResult
	Digest      [32]byte // handle of the ciphertext as decrypted (sanitised, at the plan level)
	ShareDigest [32]byte
	Missing     []transport.MemberID
	Coin        Coin   // the coin toss that seeded the sanitisation
	Session     string // the share round's session: req.Session/<seed[:6]>
}

// ThresholdDecrypt runs a coin toss and one share round: the member drops
// the ciphertext to the plan's level, sanitises it (adds an encryption of
// zero seeded by a commit-reveal coin toss among the participants, see
// Sanitise), asks the ledger for its single share (persisted before it is
// sent), sends it to every other participant, collects theirs until the
// round deadline, and decodes robustly. It returns a value only when the
// shares of CheckedMembers(t) participants agree on it, and an error
// otherwise (ErrUncheckedDecryption, ErrTooFewShares).
func ThresholdDecrypt(ctx context.Context, g Group, key *ThresholdKey, plan NoisePlan, ev *fhe.Evaluator, led Ledger, req DecryptRequest) (*DecryptResult, error) {
	ct, err := PrepareForDecryption(ev, plan, req.Ciphertext)
	if err != nil {
		return nil, err
	}
	ct, session, coin, err := sanitiseFor(ctx, g, key, req.PublicKey, req.Session, req.Participants, ct)
	if err != nil {
		return nil, err
	}
	req.Session = session
	res := &DecryptResult{ShareDigest: ShareDigest(ct), Coin: coin, Session: session}
	if res.Digest, err = CiphertextDigest(ct); err != nil {
		return nil, err
	}
	shares := map[transport.MemberID]DecryptionShare{}
	var ownBytes []byte
	rctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	if contains(req.Participants, g.Self()) {
		b, err := led.Issue(KindDecryption, res.ShareDigest, key.Epoch, req.Session, func() ([]byte, error) {
			s, err := GenDecryptionShare(key, plan, ct)
			if err != nil {
				return nil, err
			}
			return s.MarshalBinary(), nil
		})
		if err != nil {
			return nil, err
		}
		own, err := UnmarshalDecryptionShare(key.Params, plan.Level, b)
		if err != nil {
			return nil, err
		}
		shares[g.Self()] = own
		ownBytes = b
	}
	// Wait for CheckedMembers(t) shares or everyone, then a grace period for
	// the rest: a participant that died since the digest round costs a
	// grace period, not a timeout.
	need := CheckedMembers(key.T)
	if len(req.Participants) < need {
		return nil, &ErrUncheckedDecryption{Session: req.Session, Need: need}
	}
	others := len(req.Participants)
	want := need
	if contains(req.Participants, g.Self()) {
		others--
		want--
	}
	if want > others {
		want = others
	}
	// Commit before reveal: each participant's share is fixed before it
	// sees another's (exchangeCommittedQuorum).
	got := exchangeCommittedQuorum(rctx, g, transport.TypeDecShare, req.Session, req.Participants, ownBytes, want)
	g.Mux.Forget(req.Session)
	res.Missing = got.Missing
	var malformed []transport.MemberID
	for _, id := range sortedIDs(got.Got) {
		if id == g.Self() {
			continue
		}
		s, err := UnmarshalDecryptionShare(key.Params, plan.Level, got.Got[id])
		if err != nil {
			malformed = append(malformed, id)
			continue
		}
		shares[id] = s
	}
	// Malformed shares and reveals off their commitment name their senders
	// outright; a share that decodes but moves the value names its sender
	// only when every explanation with t−1 deviating members includes it.
	named := append(malformed, got.Bad...)
	cr, err := RobustCombine(key.Params, key.N, key.T, ct, shares, req.Valid)
	switch {
	case errors.Is(err, ErrTooFewShares):
		return nil, fmt.Errorf("%w (missing %v, malformed %v)", err, got.Missing, malformed)
	case err != nil && !errors.Is(err, ErrAmbiguous):
		return nil, err
	}
	if err != nil || len(cr.Bad) > 0 {
		moved, terr := deviatorsOf(key.Params, key.N, key.T, ct, shares)
		if terr != nil {
			return nil, terr
		}
		for _, id := range moved {
			_ = g.equivocation(&ErrEquivocation{Session: req.Session, Member: id, Reason: "its decryption share moves the value (every explanation of the disagreement includes it)"})
		}
		named = append(named, moved...)
	}
	if err != nil || len(cr.Good) < need {
		return nil, &ErrUncheckedDecryption{Session: req.Session, Need: need, Good: cr.Good, Named: named, Missing: got.Missing}
	}
	cr.Bad = named
	res.CombineResult = cr
	return res, nil
}

// deviatorsOf decodes every t-subset of the shares and returns the members
// that every explanation with at most t−1 deviating members includes
// (certainDeviators): members whose shares certainly moved the value.
func deviatorsOf(p *fhe.Params, n, t int, ct *fhe.Ciphertext, shares map[transport.MemberID]DecryptionShare) ([]transport.MemberID, error) {
	ids := sortedIDs(shares)
	subsets := subsetsOf(ids, t)
	hashes := make([][32]byte, len(subsets))
	for k, s := range subsets {
		v, err := CombineSubset(p, n, ct, s, shares)
		if err != nil {
			return nil, err
		}
		hashes[k] = hashValues(v)
	}
	return certainDeviators(ids, t, subsets, hashes), nil
}

// ErrUncheckedDecryption is a threshold decryption whose value fewer than
// CheckedMembers(t) members' shares agree on (or no value at all): with t−1
// deviating members among them it could be theirs, so it is not returned
// (and never signed). Named are members that certainly deviated (malformed
// share, reveal off its commitment, or in every explanation of the
// disagreement), Missing those that sent nothing in time. It wraps
// ErrUnchecked.
type ErrUncheckedDecryption struct {
	Session              string
	Need                 int
	Good, Named, Missing []transport.MemberID
}

func (e *ErrUncheckedDecryption) Error() string {
	return fmt.Sprintf("protocol: %s: decryption agreed by members %v, needs %d (t−1 deviating members could set a value fewer agree on); deviated: %v; missing: %v",
		e.Session, e.Good, e.Need, e.Named, e.Missing)
}

func (e *ErrUncheckedDecryption) Unwrap() error { return ErrUnchecked }
