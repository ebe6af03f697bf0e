package fhe

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
)

// Galois keys one key at a time. A committee's rotation keys are the
// bulk of its public material (on BGVN14, 15 keys of ≈ 16 MB each):
// hashing, storing and loading them through one contiguous encoding
// holds that much again, once more per copy. The functions below produce
// and read exactly MarshalBinary's bytes, header ‖ count ‖ entry_0 ‖ … ‖
// entry_{count−1}, a key at a time.

// Len returns the number of keys.
func (k *GaloisKeys) Len() int { return len(k.keys) }

// MarshalHeader returns the first bytes of MarshalBinary's encoding: the
// key header and the uint16 count of keys.
func (k *GaloisKeys) MarshalHeader() []byte {
	out := append(keyHeader(k.params, KindGaloisKeys), 0, 0)
	binary.LittleEndian.PutUint16(out[headerSize:], uint16(len(k.keys)))
	return out
}

// galoisEntrySize is the length of one key's entry: the element, then the
// coefficients of its gadget ciphertext.
func galoisEntrySize(p *Params, g *rlwe.GaloisKey) int {
	return 8 + partsSize(gadgetParts(p, &g.GadgetCiphertext, nil), p.N())
}

// AppendEntry appends key i's entry of MarshalBinary's encoding (its Galois
// element as uint64, then its coefficients) to dst.
func (k *GaloisKeys) AppendEntry(dst []byte, i int) []byte {
	g := k.keys[i]
	n := k.params.N()
	parts := gadgetParts(k.params, &g.GadgetCiphertext, nil)
	off := len(dst)
	dst = append(dst, make([]byte, 8+partsSize(parts, n))...)
	binary.LittleEndian.PutUint64(dst[off:], g.GaloisElement)
	putParts(dst[off+8:], parts, n)
	return dst
}

// WriteTo writes MarshalBinary's encoding to w one key at a time (one
// key's entry in memory at once, not the whole set).
func (k *GaloisKeys) WriteTo(w io.Writer) (int64, error) {
	var total int64
	nb, err := w.Write(k.MarshalHeader())
	total += int64(nb)
	if err != nil {
		return total, err
	}
	var buf []byte
	for i := range k.keys {
		buf = k.AppendEntry(buf[:0], i)
		nb, err := w.Write(buf)
		total += int64(nb)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// UnmarshalGaloisKeysEntries decodes Galois keys from MarshalHeader's
// bytes and each key's entry (AppendEntry), asked for in order: the same
// checks as UnmarshalGaloisKeys on the same bytes, one entry in memory at
// once. intern, if not nil, is given each decoded key and returns the key
// to keep (the same key, or one byte-identical to it).
func UnmarshalGaloisKeysEntries(header []byte, entry func(i int) ([]byte, error), intern func(*rlwe.GaloisKey) *rlwe.GaloisKey) (*GaloisKeys, error) {
	p, rest, err := parseKeyHeader(header, KindGaloisKeys)
	if err != nil {
		return nil, err
	}
	if err := exact(rest, 2); err != nil {
		return nil, err
	}
	count := int(binary.LittleEndian.Uint16(rest))
	keys := make([]*rlwe.GaloisKey, 0, count)
	var prev uint64
	for i := 0; i < count; i++ {
		b, err := entry(i)
		if err != nil {
			return nil, err
		}
		g, err := decodeGaloisEntry(p, b, i, prev)
		if err != nil {
			return nil, err
		}
		prev = g.GaloisElement
		if intern != nil {
			g = intern(g)
		}
		keys = append(keys, g)
	}
	return &GaloisKeys{params: p, keys: keys}, nil
}

// decodeGaloisEntry decodes b, exactly entry i (element, coefficients) of
// a Galois key set whose previous element is prev.
func decodeGaloisEntry(p *Params, b []byte, i int, prev uint64) (*rlwe.GaloisKey, error) {
	n := p.N()
	g := rlwe.NewGaloisKey(p.rlwe)
	per := galoisEntrySize(p, g)
	if err := exact(b, per); err != nil {
		return nil, err
	}
	el := binary.LittleEndian.Uint64(b)
	if el&1 == 0 || el >= uint64(2*n) || el <= prev {
		return nil, decErr(ErrKindNonCanonical, "galois element %d at index %d (must be odd, < 2N, ascending)", el, i)
	}
	g.GaloisElement, g.NthRoot = el, uint64(2*n)
	if _, err := readParts(b[8:per], gadgetParts(p, &g.GadgetCiphertext, nil), n, fmt.Sprintf("galois key %d", el)); err != nil {
		return nil, err
	}
	return g, nil
}

// WriteTo writes MarshalBinary's encoding of the relinearisation key to w.
func (k *RelinKey) WriteTo(w io.Writer) (int64, error) {
	b, err := k.MarshalBinary()
	if err != nil {
		return 0, err
	}
	nb, err := w.Write(b)
	return int64(nb), err
}

// SameGaloisKey reports whether a and b are the same Galois key: one
// object, or the same element and the same coefficients (what their
// canonical encodings would compare).
func SameGaloisKey(a, b *rlwe.GaloisKey) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.GaloisElement != b.GaloisElement || a.NthRoot != b.NthRoot {
		return false
	}
	return a.GadgetCiphertext.Equal(&b.GadgetCiphertext)
}

// SamePublicKey reports whether a and b are the same public key for the
// same parameters (one object, or equal coefficients).
func SamePublicKey(a, b *PublicKey) bool {
	if a == b {
		return true
	}
	return a != nil && b != nil && a.params == b.params && a.pk.Equal(b.pk)
}

// SameRelinKey reports whether a and b are the same relinearisation key
// for the same parameters.
func SameRelinKey(a, b *RelinKey) bool {
	if a == b {
		return true
	}
	return a != nil && b != nil && a.params == b.params && a.rlk.GadgetCiphertext.Equal(&b.rlk.GadgetCiphertext)
}

// SameGaloisKeys reports whether a and b are the same Galois key set for
// the same parameters: the same elements, each key the same.
func SameGaloisKeys(a, b *GaloisKeys) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || a.params != b.params || len(a.keys) != len(b.keys) {
		return false
	}
	for i := range a.keys {
		if !SameGaloisKey(a.keys[i], b.keys[i]) {
			return false
		}
	}
	return true
}
