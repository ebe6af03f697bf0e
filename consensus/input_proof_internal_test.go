package consensus

import (
	"bytes"
	"testing"

	"github.com/fhegate/fhegate/consensus/api"
)

// FuzzParseStorePut: the StorePut framing never panics and never slices
// past the payload, whatever a peer sends.
func FuzzParseStorePut(f *testing.F) {
	f.Add(storePut([20]byte{1}, []api.InputUpload{{Ciphertext: []byte{4, 5}, Proof: []byte{1, 2, 3}, CType: 1}}))
	f.Add(storePut([20]byte{1}, []api.InputUpload{{Ciphertext: []byte{4}, Proof: []byte{1}, CType: 1}, {Ciphertext: []byte{6}, CType: 1}}))
	f.Add([]byte{})
	f.Add(make([]byte, 25))
	f.Fuzz(func(t *testing.T, b []byte) {
		owner, ups, err := parseStorePut(b)
		if err != nil {
			return
		}
		if len(ups) == 0 || len(ups) > api.MaxUploadItems {
			t.Fatalf("%d ciphertexts accepted", len(ups))
		}
		if got := storePut(owner, ups); !bytes.Equal(got, b) {
			t.Fatal("re-framing differs")
		}
	})
}
