package consensus_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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
	"github.com/fhegate/fhegate/fhe/pkswitch"
)

// privRig is a 2-of-3 committee with every member's API on loopback and
// one in-memory ACL standing in for FHEInput's.
type privRig struct {
	lc   *local.Committee
	apis []string
	acl  *local.MemACL
}

func newPrivRig(t *testing.T) *privRig {
	lc := apiCommittee(t)
	r := &privRig{lc: lc, acl: local.NewMemACL()}
	urls, stop, err := lc.ServeMemberAPIs(apiserver.APIOptions{NoAuth: true, OwnerRate: -1}, r.acl)
	require.NoError(t, err)
	t.Cleanup(stop)
	r.apis = urls
	return r
}

// upload stores vals as an input of owner on every member and returns
// its handle.
func (r *privRig) upload(t *testing.T, owner [20]byte, vals []int64) [32]byte {
	m := r.lc.Member(1)
	ct, proof, err := m.EncryptInput(vals, owner)
	require.NoError(t, err)
	att, err := m.UploadBatch(context.Background(), owner, []api.InputUpload{{Ciphertext: ct, Proof: proof, CType: 1}})
	require.NoError(t, err)
	h := [32]byte(att.Handle)
	require.Eventually(t, func() bool {
		for id := uint32(1); id <= 3; id++ {
			if !r.lc.Member(id).Store().Has(att.Handle) {
				return false
			}
		}
		return true
	}, 10*time.Second, 10*time.Millisecond)
	return h
}

// sign builds a request of key's holder for handle towards pk.
func (r *privRig) sign(t *testing.T, key *ecdsa.PrivateKey, handle [32]byte, pk *fhe.PublicKey, nonce, deadline uint64) *api.PrivateRead {
	pkb, err := pk.MarshalBinary()
	require.NoError(t, err)
	req, err := api.SignPrivateRead(key, r.lc.Member(1).ChainID(), handle, pkb, nonce, deadline)
	require.NoError(t, err)
	return req
}

func wantStatus(t *testing.T, err error, code int) {
	t.Helper()
	var he *api.PrivateReadHTTPError
	require.True(t, errors.As(err, &he), "want HTTP %d, got %v", code, err)
	require.Equal(t, code, he.Status, he.Msg)
}

// TestPrivateRead: the owner of a handle reads its plaintext through t
// members' shares under its own key; everything that is not the owner's
// fresh, signed, in-time, ACL-backed request is refused, and a member
// never issues two different shares for one (handle, key).
func TestPrivateRead(t *testing.T) {
	t.Parallel()
	r := newPrivRig(t)
	ctx := context.Background()
	p := r.lc.Member(1).Params()
	ownerKey, err := crypto.GenerateKey()
	require.NoError(t, err)
	owner := crypto.PubkeyToAddress(ownerKey.PublicKey)
	vals := []int64{42, 7, 1000, 3}
	h := r.upload(t, owner, vals)
	r.acl.Allow(h, owner)
	mine := fhe.GenKeys(p, nil)
	later := uint64(time.Now().Add(time.Hour).Unix())
	nonce := uint64(0)
	next := func() uint64 { nonce++; return nonce }

	check := func(t *testing.T, got []uint64) {
		for i, v := range vals {
			require.Equal(t, uint64(v), got[i], "slot %d", i)
		}
	}

	t.Run("owner reads the plaintext from any t members", func(t *testing.T) {
		for _, apis := range [][]string{r.apis[:2], r.apis[1:], {r.apis[0], r.apis[2]}} {
			got, err := api.ReadPrivate(ctx, apis, "", r.sign(t, ownerKey, h, mine.Public, next(), later), mine.Secret)
			require.NoError(t, err)
			check(t, got)
		}
	})
	t.Run("a grantee reads, a stranger is refused", func(t *testing.T) {
		grantee, err := crypto.GenerateKey()
		require.NoError(t, err)
		_, err = api.ReadPrivate(ctx, r.apis, "", r.sign(t, grantee, h, mine.Public, next(), later), mine.Secret)
		require.ErrorIs(t, err, pkswitch.ErrTooFewShares)
		_, err = api.RequestPrivateRead(ctx, r.apis[0], "", r.sign(t, grantee, h, mine.Public, next(), later))
		wantStatus(t, err, http.StatusForbidden)
		r.acl.Allow(h, crypto.PubkeyToAddress(grantee.PublicKey))
		got, err := api.ReadPrivate(ctx, r.apis, "", r.sign(t, grantee, h, mine.Public, next(), later), mine.Secret)
		require.NoError(t, err)
		check(t, got)
	})
	t.Run("a replayed signature is refused", func(t *testing.T) {
		req := r.sign(t, ownerKey, h, mine.Public, next(), later)
		_, err := api.RequestPrivateRead(ctx, r.apis[0], "", req)
		require.NoError(t, err)
		_, err = api.RequestPrivateRead(ctx, r.apis[0], "", req)
		wantStatus(t, err, http.StatusConflict)
	})
	t.Run("an expired or far-future deadline is refused", func(t *testing.T) {
		_, err := api.RequestPrivateRead(ctx, r.apis[0], "", r.sign(t, ownerKey, h, mine.Public, next(), 1))
		wantStatus(t, err, http.StatusForbidden)
		far := uint64(time.Now().Add(MaxPrivateReadValidity + time.Hour).Unix())
		_, err = api.RequestPrivateRead(ctx, r.apis[0], "", r.sign(t, ownerKey, h, mine.Public, next(), far))
		wantStatus(t, err, http.StatusBadRequest)
	})
	t.Run("a signature over other fields is refused", func(t *testing.T) {
		req := r.sign(t, ownerKey, h, mine.Public, next(), later)
		req.Deadline++ // the signed digest no longer matches: recovers another address
		_, err := api.RequestPrivateRead(ctx, r.apis[0], "", req)
		wantStatus(t, err, http.StatusForbidden)
		other := fhe.GenKeys(p, nil)
		req = r.sign(t, ownerKey, h, mine.Public, next(), later)
		req.PublicKey, _ = other.Public.MarshalBinary() // a relay swapping in its own key
		_, err = api.RequestPrivateRead(ctx, r.apis[0], "", req)
		wantStatus(t, err, http.StatusForbidden)
	})
	t.Run("one share per handle and key; a cap on keys", func(t *testing.T) {
		a, err := api.RequestPrivateRead(ctx, r.apis[0], "", r.sign(t, ownerKey, h, mine.Public, next(), later))
		require.NoError(t, err)
		b, err := api.RequestPrivateRead(ctx, r.apis[0], "", r.sign(t, ownerKey, h, mine.Public, next(), later))
		require.NoError(t, err)
		require.Equal(t, a.Share, b.Share, "a repeated (handle, key) must get the stored share")
		require.Equal(t, a.Ciphertext, b.Ciphertext)
		stored, err := r.lc.Member(1).Store().GetCiphertext(h)
		require.NoError(t, err)
		prepared, err := protocol.PrepareForDecryption(mustEvaluator(t, r.lc.Member(1)), r.lc.Member(1).NoisePlan(), stored)
		require.NoError(t, err)
		pb, err := prepared.MarshalBinary()
		require.NoError(t, err)
		require.NotEqual(t, Hex0x(pb), a.Ciphertext, "the shared ciphertext must be sanitised (c1 nobody chose)")
		// mine is one key; MaxPrivateReadKeys−1 more are accepted, then refused.
		for i := 1; i < MaxPrivateReadKeys; i++ {
			k := fhe.GenKeys(p, nil)
			c, err := api.RequestPrivateRead(ctx, r.apis[0], "", r.sign(t, ownerKey, h, k.Public, next(), later))
			require.NoError(t, err)
			require.NotEqual(t, a.Share, c.Share)
			require.NotEqual(t, a.Ciphertext, c.Ciphertext, "each key gets its own sanitisation")
		}
		k := fhe.GenKeys(p, nil)
		_, err = api.RequestPrivateRead(ctx, r.apis[0], "", r.sign(t, ownerKey, h, k.Public, next(), later))
		wantStatus(t, err, http.StatusForbidden)
	})
	t.Run("fewer than t members do not decrypt", func(t *testing.T) {
		_, err := api.ReadPrivate(ctx, r.apis[:1], "", r.sign(t, ownerKey, h, mine.Public, next(), later), mine.Secret)
		require.ErrorIs(t, err, pkswitch.ErrTooFewShares)
	})
	t.Run("a corrupt share is caught with t+1 members", func(t *testing.T) {
		// A proxy in front of member 3 flips one bit of its share.
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			body, _ := io.ReadAll(req.Body)
			resp, err := http.Post(r.apis[2]+req.URL.Path, "application/json", bytes.NewReader(body))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			var a api.PrivateReadResponse
			if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			b, _ := hex.DecodeString(strings.TrimPrefix(a.Share, "0x"))
			b[len(b)-8] ^= 1
			a.Share = Hex0x(b)
			_ = json.NewEncoder(w).Encode(a)
		}))
		t.Cleanup(proxy.Close)
		_, err := api.ReadPrivate(ctx, []string{r.apis[0], r.apis[1], proxy.URL}, "", r.sign(t, ownerKey, h, mine.Public, next(), later), mine.Secret)
		require.ErrorContains(t, err, "corrupt share")
		// Honest t+1 agree.
		got, err := api.ReadPrivate(ctx, r.apis, "", r.sign(t, ownerKey, h, mine.Public, next(), later), mine.Secret)
		require.NoError(t, err)
		check(t, got)
	})
	t.Run("a revoked grant is refused", func(t *testing.T) {
		r.acl.Revoke(h, owner)
		_, err := api.RequestPrivateRead(ctx, r.apis[0], "", r.sign(t, ownerKey, h, mine.Public, next(), later))
		wantStatus(t, err, http.StatusForbidden)
		r.acl.Allow(h, owner)
	})
	t.Run("unknown handle", func(t *testing.T) {
		var unknown [32]byte
		unknown[0] = 1
		r.acl.Allow(unknown, owner)
		_, err := api.RequestPrivateRead(ctx, r.apis[0], "", r.sign(t, ownerKey, unknown, mine.Public, next(), later))
		wantStatus(t, err, http.StatusNotFound)
	})
}

func mustEvaluator(t *testing.T, m *Member) *fhe.Evaluator {
	t.Helper()
	ev, err := m.Evaluator()
	require.NoError(t, err)
	return ev
}
