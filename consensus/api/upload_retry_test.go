package api

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus/api/uploadwire"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// An upload that got no answer (the member closed the connection: its read
// timeout on a starved host, a restart) or a 503/429 is sent again — it is
// idempotent — and a refusal is final. The attestation of the try that
// succeeds is checked as a first try's is.
func TestUploadRetriesWhatGotNoAnswer(t *testing.T) {
	owner := [20]byte{0xaa}
	ups := []InputUpload{{Ciphertext: []byte("canonical ciphertext bytes"), CType: 1, Proof: []byte("proof bytes")}}
	attest := func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, uploadwire.ContentType, r.Header.Get("Content-Type"))
		body, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		u, err := uploadwire.Decode(body, 1<<10, 1<<10)
		require.NoError(t, err)
		require.Len(t, u.Items, 1)
		ct, proof := u.Items[0].Ciphertext, u.Items[0].Proof
		item := bls.InputItem{Handle: fhe.HandleOf(ct), CType: 1, ProofDigest: zkpok.Digest(proof)}
		require.NoError(t, json.NewEncoder(w).Encode(AttestationJSON{Owner: hex0x(owner[:]), Handles: []string{hex0x(item.Handle[:])},
			CTypes: []uint16{1}, ProofDigests: []string{hex0x(item.ProofDigest[:])}, Signature: "0x00", Signers: "0x01"}))
	}
	hangUp := func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		require.NoError(t, err)
		conn.Close()
	}
	busy := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "member busy", code)
		}
	}
	refuse := func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "invalid proof", http.StatusBadRequest) }
	for _, tc := range []struct {
		name    string
		answers []http.HandlerFunc
		tries   int
		err     string
	}{
		{"hang-up, busy, quota, then attested", []http.HandlerFunc{hangUp, busy(http.StatusServiceUnavailable), busy(http.StatusTooManyRequests), attest}, 4, ""},
		{"a refusal is final", []http.HandlerFunc{refuse, attest}, 1, "400 Bad Request"},
		{"busy on every try", []http.HandlerFunc{busy(503), busy(503), busy(503), busy(503), attest}, uploadTries, "member busy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tc.answers[min(int(n.Add(1))-1, len(tc.answers)-1)](w, r)
			}))
			defer srv.Close()
			att, err := UploadInputs(context.Background(), srv.URL, "", owner, ups)
			require.Equal(t, tc.tries, int(n.Load()), "tries")
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, fhe.HandleOf(ups[0].Ciphertext), att.Handle)
		})
	}
}
