package consensus

import (
	"encoding/binary"
	"fmt"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/fhe/zkpok"
)

// The StorePut payload: an upload as the member that received it
// replicates it to its peers (uploads.upload, uploads.onStorePut).

// storePut encodes a StorePut payload: owner(20) ‖ count(1) ‖ per
// ciphertext: ctype(1) ‖ len(proof)(4) ‖ proof ‖ len(ct)(4) ‖ ct (lengths
// big-endian).
func storePut(owner [20]byte, ups []api.InputUpload) []byte {
	n := 21
	for _, u := range ups {
		n += 9 + len(u.Proof) + len(u.Ciphertext)
	}
	out := make([]byte, 0, n)
	out = append(append(out, owner[:]...), byte(len(ups)))
	for _, u := range ups {
		out = append(out, u.CType)
		out = binary.BigEndian.AppendUint32(out, uint32(len(u.Proof)))
		out = append(out, u.Proof...)
		out = binary.BigEndian.AppendUint32(out, uint32(len(u.Ciphertext)))
		out = append(out, u.Ciphertext...)
	}
	return out
}

// parseStorePut decodes a StorePut payload, checking the count and every
// length before slicing (the parts alias b: nothing is copied).
func parseStorePut(b []byte) (owner [20]byte, ups []api.InputUpload, err error) {
	if len(b) < 21 {
		return owner, nil, fmt.Errorf("short payload")
	}
	copy(owner[:], b[:20])
	n := int(b[20])
	if n == 0 || n > api.MaxUploadItems {
		return owner, nil, fmt.Errorf("upload of %d ciphertexts outside [1,%d]", n, api.MaxUploadItems)
	}
	rest := b[21:]
	ups = make([]api.InputUpload, n)
	for i := range ups {
		if len(rest) < 5 {
			return owner, nil, fmt.Errorf("ciphertext %d: short payload", i)
		}
		ups[i].CType = rest[0]
		var part []byte
		if part, rest, err = lengthPrefixed(rest[1:], zkpok.MaxProofSize); err != nil {
			return owner, nil, fmt.Errorf("ciphertext %d: proof: %w", i, err)
		}
		ups[i].Proof = part
		if part, rest, err = lengthPrefixed(rest, store.MaxCiphertext); err != nil {
			return owner, nil, fmt.Errorf("ciphertext %d: %w", i, err)
		}
		ups[i].Ciphertext = part
	}
	if len(rest) != 0 {
		return owner, nil, fmt.Errorf("%d trailing bytes", len(rest))
	}
	return owner, ups, nil
}

// lengthPrefixed splits len(4, big-endian) ‖ part ‖ rest, with len ≤ limit.
func lengthPrefixed(b []byte, limit int) (part, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, fmt.Errorf("short payload")
	}
	n := binary.BigEndian.Uint32(b[:4])
	b = b[4:]
	if uint64(n) > uint64(len(b)) || uint64(n) > uint64(limit) {
		return nil, nil, fmt.Errorf("length %d exceeds the payload (%d bytes) or %d", n, len(b), limit)
	}
	return b[:n], b[n:], nil
}
