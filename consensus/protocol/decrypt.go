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
// round deadline, and decodes robustly. It returns an error if fewer than t
// valid shares arrive or no consistent majority exists.
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
	// Wait for t+1 shares (one cross-check) or everyone, then a grace period
	// for the rest: a participant that died since the digest round costs a
	// grace period, not a timeout.
	others := len(req.Participants)
	if contains(req.Participants, g.Self()) {
		others--
	}
	want := key.T // with our own share: t+1 in total
	if !contains(req.Participants, g.Self()) {
		want = key.T + 1
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
	cr, err := RobustCombine(key.Params, key.N, key.T, ct, shares, req.Valid)
	if err != nil {
		if errors.Is(err, ErrTooFewShares) {
			return nil, fmt.Errorf("%w (missing %v, malformed %v)", err, got.Missing, malformed)
		}
		return nil, err
	}
	cr.Bad = append(append(cr.Bad, malformed...), got.Bad...)
	res.CombineResult = cr
	return res, nil
}
