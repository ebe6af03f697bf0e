package consensus

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/fhegate/fhegate/consensus/store"
)

// UploadRequest is the body of POST /v1/inputs.
type UploadRequest struct {
	Ciphertext string `json:"ciphertext"` // hex (0x optional) canonical ciphertext
	Owner      string `json:"owner"`      // 0x-prefixed 20-byte account allowed to use it
	CType      uint8  `json:"ctype"`      // ciphertext type tag recorded by FHEInput
}

// AttestationJSON is an InputAttestation as JSON (hex fields, 0x-prefixed),
// ready for FHEInput.register(handle, owner, preset, ctype, signature, signers).
type AttestationJSON struct {
	Handle    string `json:"handle"`
	Owner     string `json:"owner"`
	Preset    uint8  `json:"preset"`
	CType     uint8  `json:"ctype"`
	Epoch     uint64 `json:"epoch"`
	Signature string `json:"signature"`
	Signers   string `json:"signers"`
}

// JSON converts the attestation.
func (a *InputAttestation) JSON() AttestationJSON {
	return AttestationJSON{Handle: "0x" + hex.EncodeToString(a.Handle[:]), Owner: "0x" + hex.EncodeToString(a.Owner[:]),
		Preset: a.Preset, CType: a.CType, Epoch: a.Epoch,
		Signature: "0x" + hex.EncodeToString(a.Signature), Signers: "0x" + hex.EncodeToString(a.Signers)}
}

// ParseOwner parses a 0x-prefixed 20-byte address.
func ParseOwner(s string) ([20]byte, error) {
	var out [20]byte
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil || len(b) != 20 {
		return out, fmt.Errorf("owner %q is not a 20-byte hex address", s)
	}
	copy(out[:], b)
	return out, nil
}

// maxUploadBody bounds an upload request (hex doubles the ciphertext).
const maxUploadBody = 2*store.MaxCiphertext + 4096

// APIHandler serves a member's client API:
//
//	POST /v1/inputs     UploadRequest → AttestationJSON (store, replicate, attest)
//	GET  /v1/publickey  the collective public key, canonical bytes
//	GET  /v1/status     Status
func APIHandler(m *Member) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/inputs", func(w http.ResponseWriter, r *http.Request) {
		var req UploadRequest
		if err := json.NewDecoder(io.LimitReader(r.Body, maxUploadBody)).Decode(&req); err != nil {
			http.Error(w, "bad request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		ct, err := hex.DecodeString(strings.TrimPrefix(req.Ciphertext, "0x"))
		if err != nil {
			http.Error(w, "ciphertext is not hex", http.StatusBadRequest)
			return
		}
		owner, err := ParseOwner(req.Owner)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		att, err := m.Upload(r.Context(), ct, owner, req.CType)
		if err != nil {
			code := http.StatusBadRequest
			if errors.Is(err, ErrNoQuorum) {
				code = http.StatusServiceUnavailable
			}
			http.Error(w, err.Error(), code)
			return
		}
		writeJSONResp(w, att.JSON())
	})
	mux.HandleFunc("GET /v1/publickey", func(w http.ResponseWriter, r *http.Request) {
		km, err := m.Keys()
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		b, err := km.Public.MarshalBinary()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(b)
	})
	mux.HandleFunc("GET /v1/status", func(w http.ResponseWriter, r *http.Request) { writeJSONResp(w, m.Status()) })
	return mux
}

func writeJSONResp(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
