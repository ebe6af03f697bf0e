package consensus

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// TestInputProofs — issue 11 attack (2), "anyone decrypts anyone's data":
// copy (or re-randomise) a victim's ciphertext, upload it with yourself as
// owner and evaluate the identity policy, and the victim's plaintext appears
// in a public verdict. Every member now verifies a proof of plaintext
// knowledge bound to (chain, epoch, owner, public key, ciphertext) before it
// stores or attests an upload, on the client API and on StorePut.
func TestInputProofs(t *testing.T) {
	t.Parallel()
	lc := apiCommittee(t)
	m1, m2 := lc.Member(1), lc.Member(2)
	ctx := context.Background()
	victim, attacker := [20]byte{0xa1}, [20]byte{0xbb}

	// Honest upload: accepted, attested over bls.InputDigest, the verified
	// proof's digest reported.
	vct, vproof, err := m1.EncryptInput([]int64{4242}, victim)
	require.NoError(t, err)
	att, err := m1.Upload(ctx, vct, vproof, victim, 1)
	require.NoError(t, err)
	committee, _, err := lc.Config.BLSCommittee()
	require.NoError(t, err)
	d := bls.InputDigest(lc.Config.ChainIDBig(), att.Epoch, [32]byte(att.Handle), victim, att.Preset, att.CType)
	n, err := committee.VerifyAggregate(att.Signers, d[:], att.Signature)
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, lc.Config.Threshold)
	require.Equal(t, zkpok.Digest(vproof), att.ProofDigest)
	// The same signers bind the verified proof's digest (off chain).
	pd := InputProofDigest(d, att.ProofDigest)
	pn, err := committee.VerifyAggregate(att.Signers, pd[:], att.ProofSignature)
	require.NoError(t, err)
	require.Equal(t, n, pn)

	// Attack: copy the victim's ciphertext bytes and upload them with
	// yourself as owner, replaying the victim's proof: refused.
	_, err = m1.Upload(ctx, vct, vproof, attacker, 1)
	require.ErrorIs(t, err, ErrBadProof)

	// Attack: copy with a proof of the attacker's own (for another
	// ciphertext): refused, the handle is in the transcript.
	act, aproof, err := m1.EncryptInput([]int64{1}, attacker)
	require.NoError(t, err)
	_, err = m1.Upload(ctx, vct, aproof, attacker, 1)
	require.ErrorIs(t, err, ErrBadProof)

	// Attack: replay the victim's proof with another owner on the
	// attacker's own ciphertext: refused.
	_, err = m1.Upload(ctx, act, vproof, attacker, 1)
	require.ErrorIs(t, err, ErrBadProof)

	// Attack: re-randomise — victim ct + a fresh encryption of 0 whose
	// proof the attacker can make. The sum has a new handle and the
	// attacker does not know its full randomness: no proof verifies.
	zct, zproof, err := m1.EncryptInput(nil, attacker)
	require.NoError(t, err)
	ev, err := fhe.NewEvaluator(m1.Params(), fhe.EvaluationKeys{})
	require.NoError(t, err)
	a, err := fhe.UnmarshalCiphertext(vct)
	require.NoError(t, err)
	z, err := fhe.UnmarshalCiphertext(zct)
	require.NoError(t, err)
	sum, err := ev.Add(a, z)
	require.NoError(t, err)
	rr, err := sum.MarshalBinary()
	require.NoError(t, err)
	for _, pr := range [][]byte{zproof, vproof, aproof} {
		_, err = m1.Upload(ctx, rr, pr, attacker, 1)
		require.ErrorIs(t, err, ErrBadProof)
	}
	require.False(t, m1.Store().Has(fhe.HandleOf(rr)), "a refused upload is not stored")

	// Missing proof: refused.
	_, err = m1.Upload(ctx, act, nil, attacker, 1)
	require.ErrorIs(t, err, ErrBadProof)

	// A member that skips the check (or a peer) cannot get others to store
	// and sign: StorePut verifies the proof too.
	fresh, _, err := m1.EncryptInput([]int64{7}, victim) // never uploaded
	require.NoError(t, err)
	for _, payload := range [][]byte{
		storePut(attacker, 1, vproof, fresh),
		storePut(attacker, 1, nil, fresh),
		append(append(attacker[:], 1), fresh...), // the old framing
		storePut(attacker, 1, make([]byte, zkpok.MaxProofSize+1), nil),
	} {
		session := "put/attack/" + hex.EncodeToString(payload[len(payload)-8:])
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		require.NoError(t, m1.mux.Send(rctx, 2, transport.Message{Type: transport.TypeStorePut, Session: session, Payload: payload}))
		got := m1.mux.CollectQuorum(rctx, session, transport.TypeStoreAck, []transport.MemberID{2}, 1, 0)
		cancel()
		m1.mux.Forget(session)
		require.Len(t, got.Got, 1)
		reply := got.Got[2].Payload
		require.Equal(t, byte(0), reply[0], "refused: %s", reply[1:])
	}
	require.False(t, m2.Store().Has(fhe.HandleOf(fresh)))

	// Through the client API: 400 with a clear error for a missing or a
	// bad proof, 200 for an honest upload.
	api := startAPI(t, lc, APIOptions{Tokens: []string{testToken}})
	post := func(ct, proof []byte, owner [20]byte) (int, string) {
		req := UploadRequest{Ciphertext: hex.EncodeToString(ct), Owner: "0x" + hex.EncodeToString(owner[:]), CType: 1}
		if proof != nil {
			req.Proof = "0x" + hex.EncodeToString(proof)
		}
		body, _ := json.Marshal(req)
		resp := api.do(http.MethodPost, "/v1/inputs", testToken, bytes.NewReader(body))
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, msg := post(vct, nil, attacker)
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, msg, "missing proof")
	code, msg = post(vct, vproof, attacker)
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, msg, "proof")
	code, msg = post(act, aproof, attacker)
	require.Equal(t, http.StatusOK, code, msg)
}

// FuzzParseStorePut: the StorePut framing never panics and never slices
// past the payload, whatever a peer sends.
func FuzzParseStorePut(f *testing.F) {
	f.Add(storePut([20]byte{1}, 1, []byte{1, 2, 3}, []byte{4, 5}))
	f.Add([]byte{})
	f.Add(make([]byte, 25))
	f.Fuzz(func(t *testing.T, b []byte) {
		owner, ctype, proof, ct, err := parseStorePut(b)
		if err != nil {
			return
		}
		if got := storePut(owner, ctype, proof, ct); !bytes.Equal(got, b) {
			t.Fatal("re-framing differs")
		}
	})
}
