// Package uploadwire is the binary body of POST /v1/inputs: one owner's
// upload of ciphertexts with their input proofs, as raw bytes instead of
// hex in JSON — half the bytes on the wire, and nothing to parse but
// lengths.
//
// A body (ContentType) is, with integers big-endian:
//
//	magic  "FGU1" (4 bytes)
//	owner  20 bytes (the account allowed to use the handles)
//	flags  1 byte: bit 0 rooted (ask for an input root); the others 0
//	count  1 byte: 1 … MaxItems ciphertexts
//	count × { ctype 1 byte | ctLen 4 | ciphertext ctLen bytes | proofLen 4 | proof proofLen bytes }
//
// and nothing after the last item. Decode checks every length against the
// bytes left and against the caller's bounds before it takes a slice, and
// allocates nothing but the item list (at most MaxItems entries), so its
// memory is constant beyond its input. The ciphertext bytes are the
// canonical ones the handle hashes (fhe.HandleOf), exactly as in the JSON
// form; the two forms carry the same upload.
//
// The package imports nothing of the project, so the WASM client encodes
// with the same code the member decodes with.
package uploadwire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ContentType is the media type of a binary upload body; a POST /v1/inputs
// with any other type is read as JSON.
const ContentType = "application/vnd.fhegate.upload"

// MaxItems bounds the ciphertexts of one upload (api.MaxUploadItems).
const MaxItems = 16

const (
	magic      = "FGU1"
	headerSize = len(magic) + 20 + 1 + 1
	itemFixed  = 1 + 4 + 4 // ctype, two lengths
	flagRooted = 1
)

// Item is one ciphertext of an upload with its input proof and ctype tag.
type Item struct {
	CType      uint8
	Ciphertext []byte
	Proof      []byte
}

// Upload is a decoded body.
type Upload struct {
	Owner  [20]byte
	Rooted bool
	Items  []Item
}

// Size is the encoded size of an upload of items.
func Size(items []Item) int {
	n := headerSize
	for _, it := range items {
		n += itemFixed + len(it.Ciphertext) + len(it.Proof)
	}
	return n
}

// Encode returns the body of u: 1 … MaxItems items, each with a non-empty
// ciphertext and proof.
func Encode(u Upload) ([]byte, error) {
	if len(u.Items) == 0 || len(u.Items) > MaxItems {
		return nil, fmt.Errorf("upload of %d ciphertexts outside [1,%d]", len(u.Items), MaxItems)
	}
	out := make([]byte, 0, Size(u.Items))
	out = append(out, magic...)
	out = append(out, u.Owner[:]...)
	var flags byte
	if u.Rooted {
		flags |= flagRooted
	}
	out = append(out, flags, byte(len(u.Items)))
	for i, it := range u.Items {
		if len(it.Ciphertext) == 0 || len(it.Proof) == 0 {
			return nil, fmt.Errorf("input %d: empty ciphertext or proof", i)
		}
		if uint64(len(it.Ciphertext)) > 1<<32-1 || uint64(len(it.Proof)) > 1<<32-1 {
			return nil, fmt.Errorf("input %d: over 4 GiB", i)
		}
		out = append(out, it.CType)
		out = binary.BigEndian.AppendUint32(out, uint32(len(it.Ciphertext)))
		out = append(out, it.Ciphertext...)
		out = binary.BigEndian.AppendUint32(out, uint32(len(it.Proof)))
		out = append(out, it.Proof...)
	}
	return out, nil
}

// ErrNotUpload is a body that does not start with the magic.
var ErrNotUpload = errors.New("not a binary upload body (want magic \"FGU1\")")

// Decode reads a body. Each ciphertext must be 1 … maxCiphertext bytes and
// each proof 1 … maxProof bytes; the items alias b.
func Decode(b []byte, maxCiphertext, maxProof int) (Upload, error) {
	var u Upload
	if len(b) < headerSize {
		if len(b) >= len(magic) && string(b[:len(magic)]) != magic {
			return u, ErrNotUpload
		}
		return u, fmt.Errorf("binary upload of %d bytes, shorter than its %d-byte header", len(b), headerSize)
	}
	if string(b[:len(magic)]) != magic {
		return u, ErrNotUpload
	}
	copy(u.Owner[:], b[len(magic):])
	flags, n := b[len(magic)+20], int(b[len(magic)+21])
	if flags&^flagRooted != 0 {
		return u, fmt.Errorf("binary upload: unknown flags %#x", flags)
	}
	u.Rooted = flags&flagRooted != 0
	if n == 0 || n > MaxItems {
		return u, fmt.Errorf("upload of %d ciphertexts outside [1,%d]", n, MaxItems)
	}
	rest := b[headerSize:]
	// each item takes at least itemFixed+2 bytes: refuse a count the body
	// cannot hold before the list is allocated
	if len(rest) < n*(itemFixed+2) {
		return u, fmt.Errorf("binary upload of %d ciphertexts in %d bytes", n, len(rest))
	}
	u.Items = make([]Item, n)
	for i := range u.Items {
		var err error
		if len(rest) < 1 {
			return Upload{}, fmt.Errorf("input %d: body ends", i)
		}
		u.Items[i].CType = rest[0]
		rest = rest[1:]
		if u.Items[i].Ciphertext, rest, err = field(rest, maxCiphertext); err != nil {
			return Upload{}, fmt.Errorf("input %d: ciphertext: %w", i, err)
		}
		if u.Items[i].Proof, rest, err = field(rest, maxProof); err != nil {
			return Upload{}, fmt.Errorf("input %d: proof: %w", i, err)
		}
	}
	if len(rest) != 0 {
		return Upload{}, fmt.Errorf("binary upload: %d bytes after the last input", len(rest))
	}
	return u, nil
}

// field reads a 4-byte length and that many bytes (1 … max).
func field(b []byte, max int) (v, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, errors.New("body ends before its length")
	}
	n := binary.BigEndian.Uint32(b)
	switch {
	case n == 0:
		return nil, nil, errors.New("empty")
	case uint64(n) > uint64(max):
		return nil, nil, fmt.Errorf("%d bytes, at most %d", n, max)
	case uint64(n) > uint64(len(b)-4):
		return nil, nil, fmt.Errorf("%d bytes declared, %d left", n, len(b)-4)
	}
	return b[4 : 4+n], b[4+n:], nil
}
