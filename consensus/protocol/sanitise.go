package protocol

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
)

// Sanitisation (attacks 1 and 4).
//
// A threshold decryption share is d_j = c1·tsk_j + e_j and a refresh share
// exposes c1·s_j under a uniform mask; both are safe only if nobody chose
// c1. Uploads are arbitrary canonical ciphertexts and evaluation is
// deterministic, so a member (or a user) could pick the c1 that reaches the
// decryption — e.g. a constant c, making d_j = c·tsk_j + e_j a
// one-dimensional LWE sample per coefficient that two or three queries
// solve. Before every decryption and every refresh the participants
// therefore add an encryption of zero under the collective public key,
// (u·pk0 + e0, u·pk1 + e1), whose randomness (u ternary, e0, e1 Gaussian,
// Lattigo's standard distributions) comes from a PRNG keyed by a coin toss
// that starts only once the ciphertext is fixed (after the result-digest
// agreement): each participant commits to keccak(session ‖ id ‖ r_i), then
// reveals r_i; the seed is keccak(session ‖ (id ‖ r_id) for every
// contributor in member order). A contributor whose reveal does not match
// its commitment is excluded; at least t contributors are required, so one
// of them is honest when fewer than t members are corrupt, and the seed is
// uniform to everyone else until the reveals. The decrypted c1 becomes
// c1 + u·a (a = pk1, the CRS): an RLWE-pseudorandom element nobody chose.
//
// The share ledger keys on the sanitised ciphertext (its c1), and the
// decryption/refresh session carries the seed, so two identical requests —
// the same policy on the same handles, hence the same evaluated c1 — are
// two different, answerable decryptions (attack 4), and participants that
// ended up with different seeds (a member revealing to some and not to
// others) never mix their shares: only the group of ≥ t members that agree
// on the seed completes.
//
// Known limit: the last member to reveal sees the others' reveals and can
// withhold its own, choosing between two seeds (1 bit of bias per corrupt
// member); it cannot choose c1.
//
// Retries. Rounds are asynchronous: a member that was slow (restarted,
// fetching inputs, on a loaded machine) reaches a coin toss after others
// gave up on it, and a request is retried under the same session names.
// With a fresh r_i per attempt, messages of one attempt that arrive after a
// peer's round ended (buffered by its mux) were read in the next attempt
// against new commitments, and the members' seeds diverged attempt after
// attempt. Two rules make the toss converge instead:
//
//   - r_i = keccak(k_i ‖ session ‖ digest(ct)) with k_i a 32-byte secret
//     drawn from crypto/rand when the member starts (CoinState, never
//     stored or sent): a member commits to and reveals the same value in
//     every attempt of a session, so a late message of an earlier attempt
//     is as good as the current one. r_i is still unknown to everyone else
//     until i reveals it, after the ciphertext is fixed.
//   - The first commitment seen from each peer for a session (and subject)
//     is remembered (bounded, CoinState) and a later different one is
//     ignored: a member that saw the honest reveals of a failed attempt
//     cannot commit to a new value in the next one. It can only reveal its
//     first value or withhold it, the same one bit per corrupt member as in
//     a single attempt.
//   - The contributors are pinned at a member's first reveal: a member
//     reveals only once it holds commitments from enough peers for t
//     contributions, and remembers which peers those were (CoinState); in
//     every later attempt of the session it refuses a commitment from any
//     other peer. Without this, a corrupt member that stays silent in
//     attempt 1 sees the honest reveals (the same values in every attempt)
//     and commits in attempt 2 to a value of its choice — with the lowest
//     id it would choose the whole seed. Now its commitment arrives after
//     every honest member that revealed pinned its contributors, and is
//     refused (TestCoinTossWithholderCannotChoose). The price is agreement
//     under jitter: two honest members that revealed with different
//     committer sets keep their sets in every retry instead of converging
//     on the union; the ≥ t members that agree finish the round, and a
//     late member's own commitment counts only for the members that had
//     not revealed yet.
//
// The seed is computed from the t lowest-numbered valid contributors (any t
// include an honest one), so members that also heard a slower contributor
// still agree on it.

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

// ErrCoinToss is returned when fewer than t participants contributed to a
// coin toss.
var ErrCoinToss = errors.New("protocol: coin toss: fewer than t valid contributions")

// CoinToss runs a commit-reveal coin toss among participants (a member
// outside participants only listens): commit round, then reveal round, each
// waiting for t answers plus the group's grace period. It needs t valid
// contributions (own included).
func CoinToss(ctx context.Context, g Group, t int, session string, participants []transport.MemberID) (Coin, error) {
	return coinToss(ctx, g, t, session, nil, participants)
}

// coinToss is CoinToss with the digest of what the toss is for (bound into
// a deterministic contribution, see CoinState).
func coinToss(ctx context.Context, g Group, t int, session string, subject []byte, participants []transport.MemberID) (Coin, error) {
	rctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	self := g.Self()
	in := contains(participants, self)
	var r [32]byte
	others := 0
	for _, id := range participants {
		if id != self {
			others++
		}
	}
	want := t
	if in {
		want = t - 1
	}
	if want > others {
		want = others
	}
	coins := g.Coins
	if coins == nil {
		var err error
		if coins, err = processCoins(); err != nil {
			return Coin{}, err
		}
	}
	if in {
		r = coins.contribution(session, subject)
		c := coinCommitment(session, self, r[:])
		if err := g.Mux.BroadcastAllowing(rctx, participants, g.Members, transport.Message{Type: transport.TypeCoinCommit, Session: session, Payload: c[:]}); err != nil {
			g.log().Debug("coin commit broadcast incomplete", zap.String("session", session), zap.Error(err))
		}
	}
	commits := g.Mux.CollectQuorum(rctx, session, transport.TypeCoinCommit, participants, want, g.grace())
	for id, m := range commits.Got {
		m.Payload = coins.firstCommit(session, subject, id, m.Payload)
		commits.Got[id] = m
	}
	committed := sortedIDs(commits.Got)
	if len(committed) < want {
		// too few commitments for t contributions: the toss cannot succeed,
		// and revealing now would show r to a peer that has not committed
		// yet (see "Retries")
		return Coin{}, fmt.Errorf("%w: %d of %d commitments (session %s)", ErrCoinToss, len(committed), want, session)
	}
	// the committers of this member's first reveal are pinned: a peer whose
	// first commitment arrives after it is refused in every later attempt
	committed = coins.pin(session, subject, self, committed)
	if in {
		if err := g.Mux.BroadcastAllowing(rctx, participants, g.Members, transport.Message{Type: transport.TypeCoinReveal, Session: session, Payload: r[:]}); err != nil {
			g.log().Debug("coin reveal broadcast incomplete", zap.String("session", session), zap.Error(err))
		}
	}
	wantR := want
	if wantR > len(committed) {
		wantR = len(committed)
	}
	reveals := g.Mux.CollectQuorum(rctx, session, transport.TypeCoinReveal, committed, wantR, g.grace())
	g.Mux.Forget(session)
	vals := map[transport.MemberID][]byte{}
	if in {
		vals[self] = r[:]
	}
	var coin Coin
	for _, id := range committed {
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
	coin.Contributors = sortedIDs(vals)
	if len(coin.Contributors) < t {
		return Coin{}, fmt.Errorf("%w: %d of %d (session %s)", ErrCoinToss, len(coin.Contributors), t, session)
	}
	coin.Contributors = coin.Contributors[:t] // the t lowest: see "Retries"
	parts := [][]byte{[]byte("fhegate/coin/seed/v1"), []byte(session)}
	for _, id := range coin.Contributors {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], uint32(id))
		parts = append(parts, b[:], vals[id])
	}
	coin.Seed = keccak(parts...)
	if len(coin.Excluded) > 0 {
		g.log().Warn("coin toss: reveal does not match the commitment, excluded", zap.String("session", session), zap.Any("members", coin.Excluded))
	}
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

// CoinState is one member's coin-toss memory (see "Retries" above): the
// secret its contributions are derived from and the first commitment seen
// from each peer per session, at most maxCoinMemory of them (oldest
// forgotten first). Safe for concurrent use.
type CoinState struct {
	key   [32]byte
	mu    sync.Mutex
	first map[string][]byte
	order []string
	// pins are the peers whose commitments this member held at its first
	// reveal of a session (and subject), at most maxCoinMemory of them
	pins     map[string][]transport.MemberID
	pinOrder []string
}

// maxCoinMemory bounds CoinState's remembered commitments (each ≈ 100 B):
// far more than the sessions in flight within one request's retries.
const maxCoinMemory = 1 << 16

// NewCoinState draws a fresh contribution secret from crypto/rand.
func NewCoinState() (*CoinState, error) {
	c := &CoinState{first: map[string][]byte{}, pins: map[string][]transport.MemberID{}}
	if _, err := crand.Read(c.key[:]); err != nil {
		return nil, fmt.Errorf("protocol: coin state: %w", err)
	}
	return c, nil
}

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

// pin returns the committers of the toss of session about subject that may
// contribute: at the first call, committed itself, remembered; later, those
// of committed that were pinned then.
//
// self is part of the key: tools and tests share one CoinState among the
// members of a process (processCoins), and each member pins its own peers.
func (c *CoinState) pin(session string, subject []byte, self transport.MemberID, committed []transport.MemberID) []transport.MemberID {
	k := fmt.Sprintf("%s\x00%x\x00%d", session, subject, self)
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.pins[k]; ok {
		var out []transport.MemberID
		for _, id := range committed {
			if contains(p, id) {
				out = append(out, id)
			}
		}
		return out
	}
	c.pins[k] = append([]transport.MemberID(nil), committed...)
	c.pinOrder = append(c.pinOrder, k)
	if len(c.pinOrder) > maxCoinMemory {
		delete(c.pins, c.pinOrder[0])
		c.pinOrder = c.pinOrder[1:]
	}
	return committed
}
