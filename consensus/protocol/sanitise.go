package protocol

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// Sanitisation (attacks 1 and 4): a coin-tossed encryption of zero is added
// before every decryption and refresh; why, and the coin toss's rules under
// retries, are in docs/derivations.md, "Sanitisation".

// Coin is the outcome of a commit-reveal coin toss.
type Coin struct {
	Seed         [32]byte
	Contributors []transport.MemberID // ascending
	Excluded     []transport.MemberID // revealed a value that did not match the commitment
}

func coinCommitment(session string, id transport.MemberID, r []byte) [32]byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(id))
	return keccak([]byte("fhegate/coin/commit/v1"), []byte(session), b[:], r)
}

// ErrCoinToss is returned when a coin toss did not get every contribution
// it needs (a missing one is also reported as *ErrMissing).
var ErrCoinToss = errors.New("protocol: coin toss: fewer than t valid contributions")

// CoinContributors are the members whose contributions a toss among
// participants uses: the t lowest ids of participants (nil when there are
// fewer than t). Every member that sees the same participants names the
// same contributors, whatever the timing of their messages.
func CoinContributors(participants []transport.MemberID, t int) []transport.MemberID {
	ps := slices.Clone(participants)
	slices.Sort(ps)
	ps = slices.Compact(ps)
	if t < 1 || len(ps) < t {
		return nil
	}
	return ps[:t]
}

// CoinToss runs a commit-reveal coin toss among participants (a member
// outside participants only listens): the contributors are
// CoinContributors(participants, t); each commits, and reveals once it
// holds the commitments of all of them; every contributor's valid reveal is
// needed. The rules under retries are in docs/derivations.md, "Retries".
func CoinToss(ctx context.Context, g Group, t int, session string, participants []transport.MemberID) (Coin, error) {
	return coinToss(ctx, g, t, session, nil, participants)
}

// coinToss is CoinToss with the digest of what the toss is for (bound into
// a deterministic contribution, see CoinState). The toss's own session is
// session with the contributors appended: members whose views of the
// participants differ run different tosses and never mix their messages,
// and a contributor's value for one set is unrelated to its value for
// another (CoinState.contribution), so a reveal to one set tells nothing
// about a toss with another.
func coinToss(ctx context.Context, g Group, t int, session string, subject []byte, participants []transport.MemberID) (Coin, error) {
	contributors := CoinContributors(participants, t)
	if contributors == nil {
		return Coin{}, fmt.Errorf("%w: %d participants, threshold %d (session %s)", ErrCoinToss, len(participants), t, session)
	}
	session = fmt.Sprintf("%s/%v", session, contributors)
	rctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	self := g.Self()
	in := contains(contributors, self)
	var others []transport.MemberID
	for _, id := range contributors {
		if id != self {
			others = append(others, id)
		}
	}
	coins := g.Coins
	if coins == nil {
		var err error
		if coins, err = processCoins(); err != nil {
			return Coin{}, err
		}
	}
	var r [32]byte
	if in {
		r = coins.contribution(session, subject)
		c := coinCommitment(session, self, r[:])
		if err := g.Mux.BroadcastAllowing(rctx, participants, g.Members, transport.Message{Type: transport.TypeCoinCommit, Session: session, Payload: c[:]}); err != nil {
			g.log().Debug("coin commit broadcast incomplete", zap.String("session", session), zap.Error(err))
		}
	}
	commits := g.Mux.Collect(rctx, session, transport.TypeCoinCommit, others)
	for id, m := range commits.Got {
		m.Payload = coins.firstCommit(session, subject, id, m.Payload)
		commits.Got[id] = m
	}
	if missing := commits.Missing; len(missing) > 0 {
		// a contributor has not committed: the toss cannot succeed, and
		// revealing now would show r to a peer that has not committed yet
		// (see "Retries")
		return Coin{}, fmt.Errorf("%w: %d of %d commitments (session %s): %w", ErrCoinToss, len(commits.Got), len(others), session,
			&ErrMissing{Session: session, Missing: missing})
	}
	if in {
		if err := g.Mux.BroadcastAllowing(rctx, participants, g.Members, transport.Message{Type: transport.TypeCoinReveal, Session: session, Payload: r[:]}); err != nil {
			g.log().Debug("coin reveal broadcast incomplete", zap.String("session", session), zap.Error(err))
		}
	}
	reveals := g.Mux.Collect(rctx, session, transport.TypeCoinReveal, others)
	g.Mux.Forget(session)
	vals := map[transport.MemberID][]byte{}
	if in {
		vals[self] = r[:]
	}
	var coin Coin
	for _, id := range others {
		m, ok := reveals.Got[id]
		if !ok {
			continue
		}
		c := coinCommitment(session, id, m.Payload)
		if len(m.Payload) != 32 || !bytes.Equal(c[:], commits.Got[id].Payload) {
			coin.Excluded = append(coin.Excluded, id)
			continue
		}
		vals[id] = m.Payload
	}
	if len(coin.Excluded) > 0 {
		g.log().Warn("coin toss: reveal does not match the commitment, excluded", zap.String("session", session), zap.Any("members", coin.Excluded))
	}
	if missing := reveals.Missing; len(missing) > 0 {
		return Coin{}, fmt.Errorf("%w: %d of %d reveals (session %s): %w", ErrCoinToss, len(vals), t, session,
			&ErrMissing{Session: session, Missing: missing})
	}
	if len(coin.Excluded) > 0 {
		return Coin{}, fmt.Errorf("%w: reveals of %v do not match their commitments (session %s)", ErrCoinToss, coin.Excluded, session)
	}
	coin.Contributors = contributors
	parts := [][]byte{[]byte("fhegate/coin/seed/v1"), []byte(session)}
	for _, id := range contributors {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], uint32(id))
		parts = append(parts, b[:], vals[id])
	}
	coin.Seed = keccak(parts...)
	return coin, nil
}

// Sanitise returns ct + Enc_pk(0) at ct's level, the encryption's
// randomness (u, e0, e1) drawn from a PRNG keyed by seed: every member with
// the same seed computes the same bytes. ct is not modified.
func Sanitise(p *fhe.Params, pk *fhe.PublicKey, ct *fhe.Ciphertext, seed [32]byte) (*fhe.Ciphertext, error) {
	if pk == nil {
		return nil, errors.New("protocol: sanitisation needs the collective public key")
	}
	if ct.Degree() != 1 {
		return nil, fmt.Errorf("protocol: sanitisation needs a degree-1 ciphertext, got %d", ct.Degree())
	}
	k := keccak([]byte("fhegate/sanitise/prng/v1"), seed[:])
	prng, err := sampling.NewKeyedPRNG(k[:])
	if err != nil {
		return nil, err
	}
	in := ct.Lattigo()
	var z *rlwe.Ciphertext
	if err := safe("sanitisation", func() error {
		var e error
		// An encryption of zero at the top level (encryptFromPRNG is the
		// public-key encryption step for step), its moduli above the
		// ciphertext's level dropped: an RNS truncation, same noise.
		if z, e = encryptFromPRNG(p.RLWE(), pk.Lattigo(), rlwe.NewPlaintext(p.RLWE(), p.MaxLevel()), prng); e != nil {
			return e
		}
		z.Resize(1, ct.Level())
		return nil
	}); err != nil {
		return nil, err
	}
	if z.IsNTT != in.IsNTT {
		return nil, errors.New("protocol: sanitisation: NTT domain mismatch")
	}
	out := in.CopyNew()
	ringQ := p.RLWE().RingQ().AtLevel(ct.Level())
	ringQ.Add(out.Value[0], z.Value[0], out.Value[0])
	ringQ.Add(out.Value[1], z.Value[1], out.Value[1])
	return fhe.WrapCiphertext(p, out)
}

// sanitiseFor runs the coin toss of session among participants and returns
// the sanitised ciphertext and the session name its shares use (session
// plus the seed's first 6 bytes).
func sanitiseFor(ctx context.Context, g Group, key *ThresholdKey, pk *fhe.PublicKey, session string, participants []transport.MemberID, ct *fhe.Ciphertext) (*fhe.Ciphertext, string, Coin, error) {
	if pk == nil {
		return nil, "", Coin{}, errors.New("protocol: sanitisation needs the collective public key")
	}
	// The coin's session names what it is for: a session name reused for
	// another ciphertext (a self-test run twice) is another toss, and a
	// late reply (transport.Mux, "Late replies") of the old one cannot mix
	// into it.
	d := ShareDigest(ct)
	coin, err := coinToss(ctx, g, key.T, fmt.Sprintf("%s/coin/%x", session, d[:6]), d[:], participants)
	if err != nil {
		return nil, "", Coin{}, err
	}
	out, err := Sanitise(key.Params, pk, ct, coin.Seed)
	if err != nil {
		return nil, "", Coin{}, err
	}
	return out, fmt.Sprintf("%s/%x", session, coin.Seed[:6]), coin, nil
}

// processCoins is the CoinState of Groups that have none (tests, tools):
// one per process.
var processCoins = sync.OnceValues(NewCoinState)

// CoinState is one member's coin-toss memory (see "Retries" in
// docs/derivations.md): the secret its contributions are derived from and
// the first commitment seen from each peer per session, at most
// maxCoinMemory of them (oldest forgotten first). Safe for concurrent use.
type CoinState struct {
	key   [32]byte
	mu    sync.Mutex
	first map[string][]byte
	order []string
}

// maxCoinMemory bounds CoinState's remembered commitments (each ≈ 100 B):
// far more than the sessions in flight within one request's retries.
const maxCoinMemory = 1 << 16

// NewCoinState draws a fresh contribution secret from crypto/rand.
func NewCoinState() (*CoinState, error) {
	c := &CoinState{first: map[string][]byte{}}
	if _, err := crand.Read(c.key[:]); err != nil {
		return nil, fmt.Errorf("protocol: coin state: %w", err)
	}
	return c, nil
}

// contribution is this member's value for the toss of session (which names
// the contributors) about subject: the same in every attempt, unknown to
// anyone else until revealed.
func (c *CoinState) contribution(session string, subject []byte) [32]byte {
	return keccak([]byte("fhegate/coin/r/v1"), c.key[:], []byte(session), subject)
}

// firstCommit returns the first commitment seen from id for the toss of
// session about subject, remembering commit if it is the first.
func (c *CoinState) firstCommit(session string, subject []byte, id transport.MemberID, commit []byte) []byte {
	k := fmt.Sprintf("%s\x00%x\x00%d", session, subject, id)
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.first[k]; ok {
		return f
	}
	c.first[k] = append([]byte(nil), commit...)
	c.order = append(c.order, k)
	if len(c.order) > maxCoinMemory {
		delete(c.first, c.order[0])
		c.order = c.order[1:]
	}
	return commit
}
