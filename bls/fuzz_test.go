package bls

import (
	"bytes"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to every decoder in the package (public
// keys, signatures, PoPs, bitmaps, aggregate verification): no panic, inputs
// never mutated, and anything accepted as a public key or signature
// re-encodes to itself.
func FuzzDecode(f *testing.F) {
	k, _ := Keygen(make([]byte, 32))
	pk := k.PublicKey()
	sig := k.Sign([]byte("m"))
	f.Add(pk, sig, []byte{1}, []byte("m"))
	f.Add(k.ProvePossession(), pk, []byte{0xff}, []byte{})
	f.Add(make([]byte, 96), make([]byte, 48), []byte{}, []byte("x"))
	f.Fuzz(func(t *testing.T, a, b, bitmap, msg []byte) {
		ca, cb, cbm, cm := bytes.Clone(a), bytes.Clone(b), bytes.Clone(bitmap), bytes.Clone(msg)
		if p, err := ParsePublicKey(a); err == nil {
			if len(a) == PublicKeyLen && !bytes.Equal(p.Compressed(), a) {
				t.Fatal("compressed key does not round-trip")
			}
			if len(a) == PublicKeyRawLen && !bytes.Equal(p.Raw(), a) {
				t.Fatal("raw key does not round-trip")
			}
		}
		if s, err := parseSig(b); err == nil && !bytes.Equal(s.Compress(), b) {
			t.Fatal("signature does not round-trip")
		}
		if p, err := PublicKeyFromTrustedRaw(a); err == nil && !bytes.Equal(p.Raw(), a) {
			t.Fatal("trusted raw key does not round-trip")
		}
		_ = PopVerify(a, b)
		_ = Verify(a, msg, b)
		_, _ = Aggregate([][]byte{a, b})
		_, _ = Signers(len(a)%300, bitmap)
		_ = VerifyAggregate([][]byte{pk, a}, bitmap, msg, b)
		if !bytes.Equal(a, ca) || !bytes.Equal(b, cb) || !bytes.Equal(bitmap, cbm) || !bytes.Equal(msg, cm) {
			t.Fatal("input mutated")
		}
	})
}
