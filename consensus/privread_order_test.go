package consensus_test

import (
	"context"
	"crypto/ecdsa"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ava-labs/libevm/crypto"
	"github.com/stretchr/testify/require"

	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/apiserver"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/fhe"
)

// countingACL is FHEInput's ACL as a fake chain that counts its calls.
type countingACL struct {
	*local.MemACL
	calls atomic.Int64
}

func (a *countingACL) IsAllowed(ctx context.Context, h [32]byte, account [20]byte) (bool, error) {
	a.calls.Add(1)
	return a.MemACL.IsAllowed(ctx, h, account)
}

// TestPrivateReadRefusedCheaply — attacks on the order of a private read's
// checks. "Quota drain": a token holder sends requests that name a victim
// as signer under junk signatures; metered before the signature was
// checked, each took one of the victim's (upload and read) quota tokens.
// "Replay for work": a replayed request was refused only after an
// ecrecover, an isAllowed call on chain, a store read, a modulus switch
// and an encryption. Now the signature is checked before metering and the
// nonce and key cap before any chain call.
func TestPrivateReadRefusedCheaply(t *testing.T) {
	t.Parallel()
	lc := apiCommittee(t)
	acl := &countingACL{MemACL: local.NewMemACL()}
	now := time.Unix(1_700_000_000, 0)
	// Two tokens per account, never refilled (the API's clock stands still).
	urls, stop, err := lc.ServeMemberAPIs(apiserver.APIOptions{NoAuth: true, OwnerRate: 0.001, OwnerBurst: 2, Clock: func() time.Time { return now }}, acl)
	require.NoError(t, err)
	t.Cleanup(stop)
	r := &privRig{lc: lc, apis: urls, acl: acl.MemACL}
	ctx := context.Background()
	p := lc.Member(1).Params()
	mine := fhe.GenKeys(p, nil)
	later := uint64(time.Now().Add(time.Hour).Unix())

	newAccount := func(t *testing.T) (*ecdsa.PrivateKey, [20]byte, func(nonce uint64, h [32]byte) *api.PrivateRead) {
		key, err := crypto.GenerateKey()
		require.NoError(t, err)
		return key, crypto.PubkeyToAddress(key.PublicKey), func(nonce uint64, h [32]byte) *api.PrivateRead {
			return r.sign(t, key, h, mine.Public, nonce, later)
		}
	}

	t.Run("junk signatures naming the victim cost it no quota and no chain call", func(t *testing.T) {
		_, victim, victimSigns := newAccount(t)
		_, _, attackerSigns := newAccount(t)
		h := r.upload(t, victim, []int64{5})
		acl.Allow(h, victim)
		calls := acl.calls.Load()
		for i := range 10 {
			junk := attackerSigns(uint64(100+i), h)
			junk.Signer = victim // claims the victim; the signature recovers the attacker
			_, err := api.RequestPrivateRead(ctx, urls[0], "", junk)
			wantStatus(t, err, http.StatusForbidden)
		}
		require.Equal(t, calls, acl.calls.Load(), "a junk signature reached the chain")
		// The victim's two tokens are intact.
		for nonce := uint64(1); nonce <= 2; nonce++ {
			_, err := api.RequestPrivateRead(ctx, urls[0], "", victimSigns(nonce, h))
			require.NoError(t, err)
		}
		_, err := api.RequestPrivateRead(ctx, urls[0], "", victimSigns(3, h))
		wantStatus(t, err, http.StatusTooManyRequests)
	})

	t.Run("a replay is refused before any chain call", func(t *testing.T) {
		_, owner, signs := newAccount(t)
		h := r.upload(t, owner, []int64{6})
		acl.Allow(h, owner)
		m := lc.Member(2)
		req := signs(1, h)
		v, err := m.VerifyPrivateRead(req)
		require.NoError(t, err)
		require.Equal(t, owner, v.Signer())
		calls := acl.calls.Load()
		_, err = m.PrivateRead(ctx, v, mine.Public)
		require.NoError(t, err)
		require.Equal(t, calls+1, acl.calls.Load(), "a fresh read asks the chain once")
		for range 3 {
			_, err = m.PrivateRead(ctx, v, mine.Public)
			require.ErrorIs(t, err, ErrPrivateReadReplay)
		}
		require.Equal(t, calls+1, acl.calls.Load(), "a replay reached the chain")
		// Through the API too (member 2 has seen the nonce): 409, no call.
		_, err = api.RequestPrivateRead(ctx, urls[1], "", req)
		wantStatus(t, err, http.StatusConflict)
		require.Equal(t, calls+1, acl.calls.Load())
	})

	t.Run("a full key cap is refused before any chain call", func(t *testing.T) {
		ownerKey, owner, _ := newAccount(t)
		h := r.upload(t, owner, []int64{7})
		acl.Allow(h, owner)
		m := lc.Member(3)
		read := func(nonce uint64, pk *fhe.PublicKey) error {
			v, err := m.VerifyPrivateRead(r.sign(t, ownerKey, h, pk, nonce, later))
			require.NoError(t, err)
			_, err = m.PrivateRead(ctx, v, pk)
			return err
		}
		for i := range MaxPrivateReadKeys {
			require.NoError(t, read(uint64(i+1), fhe.GenKeys(p, nil).Public))
		}
		calls := acl.calls.Load()
		require.ErrorIs(t, read(100, fhe.GenKeys(p, nil).Public), ErrPrivateReadKeyCap)
		require.Equal(t, calls, acl.calls.Load(), "a capped read reached the chain")
	})

	t.Run("an expired request is refused before metering", func(t *testing.T) {
		key, owner, _ := newAccount(t)
		var h [32]byte
		for range 3 {
			_, err := api.RequestPrivateRead(ctx, urls[0], "", r.sign(t, key, h, mine.Public, 1, 1))
			wantStatus(t, err, http.StatusForbidden)
		}
		_, err := lc.Member(1).VerifyPrivateRead(r.sign(t, key, h, mine.Public, 1, 1))
		require.ErrorIs(t, err, ErrPrivateReadExpired)
		// Its two tokens are intact: two reads of an unknown handle are
		// metered (404), the third is over quota.
		acl.Allow(h, owner)
		for nonce := uint64(1); nonce <= 2; nonce++ {
			_, err := api.RequestPrivateRead(ctx, urls[0], "", r.sign(t, key, h, mine.Public, nonce, later))
			wantStatus(t, err, http.StatusNotFound)
		}
		_, err = api.RequestPrivateRead(ctx, urls[0], "", r.sign(t, key, h, mine.Public, 3, later))
		wantStatus(t, err, http.StatusTooManyRequests)
	})
}

// TestPrivateReadReadsWhatEvaluationSees — attack: "one handle, two
// values". An upload's proof bounds only 2·ct (fhe/zkpok, "Soundness"), and
// the committee evaluates 2·ct (fhe.Ciphertext.Evaluable); a private read
// that key-switched the stored ct itself let an upload accepted under the
// relaxed proof read back as one value and evaluate as another. Two
// uploads: an honest one, and one of the ring-inverse forgery's shape
// (fhe/zkpok TestAttackRingInverse: accepted by the proof, its 2·ct within
// the accepted noise bound; ct = honest + ((Q+1)/2, 0), whose ct alone
// decrypts to garbage under the secret key, while 2·ct = 2·honest + (1, 0)
// decrypts to the values), stored on every member directly (the proof is
// zkpok's test). For each, every member's response is a share of exactly
// the ciphertext evaluation uses — Sanitise(PrepareForDecryption(2·ct)) —
// and the value read back is the committee's threshold decryption of 2·ct,
// which is the uploaded values.
func TestPrivateReadReadsWhatEvaluationSees(t *testing.T) {
	t.Parallel()
	r := newPrivRig(t)
	ctx := context.Background()
	m := r.lc.Member(1)
	p := m.Params()
	km, err := m.Keys()
	require.NoError(t, err)
	ownerKey, err := crypto.GenerateKey()
	require.NoError(t, err)
	owner := crypto.PubkeyToAddress(ownerKey.PublicKey)
	vals := []int64{42, 7, 1000, 3}
	mine := fhe.GenKeys(p, nil)
	pkb, err := mine.Public.MarshalBinary()
	require.NoError(t, err)
	later := uint64(time.Now().Add(time.Hour).Unix())

	honest := r.upload(t, owner, vals)
	b, err := m.Store().Get(honest)
	require.NoError(t, err)
	forged, err := fhe.UnmarshalCiphertext(b)
	require.NoError(t, err)
	require.True(t, forged.IsUpload())
	c := forged.Lattigo()
	ringQ := p.RLWE().RingQ().AtLevel(c.Level())
	g := ringQ.NewPoly()
	for i, s := range ringQ.SubRings[:c.Level()+1] {
		for j := range g.Coeffs[i] {
			g.Coeffs[i][j] = (s.Modulus + 1) / 2
		}
	}
	ringQ.NTT(g, g)
	ringQ.Add(c.Value[0], g, c.Value[0])
	var fh fhe.Handle
	for id := uint32(1); id <= 3; id++ {
		fh, err = r.lc.Member(id).Store().PutCiphertext(forged)
		require.NoError(t, err)
	}

	nonce := uint64(0)
	for _, tc := range []struct {
		name   string
		handle [32]byte
	}{
		{"honest upload", honest},
		{"forged upload accepted under the relaxed proof", [32]byte(fh)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.acl.Allow(tc.handle, owner)
			stored, err := m.Store().GetCiphertext(fhe.Handle(tc.handle))
			require.NoError(t, err)
			ev, err := stored.Evaluable()
			require.NoError(t, err)
			prepared, err := protocol.PrepareForDecryption(mustEvaluator(t, m), m.NoisePlan(), ev)
			require.NoError(t, err)
			want, err := protocol.Sanitise(p, km.Public, prepared, PrivateReadSeed(tc.handle, keccak256(pkb), km.Epoch))
			require.NoError(t, err)
			wb, err := want.MarshalBinary()
			require.NoError(t, err)
			for i, u := range r.apis {
				nonce++
				resp, err := api.RequestPrivateRead(ctx, u, "", r.sign(t, ownerKey, tc.handle, mine.Public, nonce, later))
				require.NoError(t, err)
				require.Equal(t, Hex0x(wb), resp.Ciphertext, "member %d shares another ciphertext than evaluation uses", i+1)
			}

			seen, err := r.lc.DecryptSlots(ctx, ev)
			require.NoError(t, err)
			nonce++
			got, err := api.ReadPrivate(ctx, r.apis[:2], "", r.sign(t, ownerKey, tc.handle, mine.Public, nonce, later), mine.Secret)
			require.NoError(t, err)
			require.Equal(t, seen, got, "a private read must return what evaluation sees")
			for i, v := range vals {
				require.Equal(t, uint64(v), got[i], "slot %d", i)
			}
		})
	}
}

func keccak256(b []byte) [32]byte { return [32]byte(crypto.Keccak256(b)) }
