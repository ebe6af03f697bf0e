package protocol

import (
	"testing"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"

	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// FuzzUnmarshalDecryptionShare: the share decoder rejects anything that is
// not a reduced share at the expected level, without panicking.
func FuzzUnmarshalDecryptionShare(f *testing.F) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	good := make([]byte, 1+3*p.N()*8)
	good[0] = 2
	f.Add(good)
	f.Add([]byte{2})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := UnmarshalDecryptionShare(p, 2, b)
		if err != nil {
			return
		}
		if s.Level != 2 {
			t.Fatalf("level %d", s.Level)
		}
		for i, q := range p.Q()[:3] {
			for _, c := range s.Value.Coeffs[i] {
				if c >= q {
					t.Fatal("unreduced coefficient accepted")
				}
			}
		}
	})
}

// FuzzUnmarshalThresholdKey: stored threshold keys decode or fail cleanly.
func FuzzUnmarshalThresholdKey(f *testing.F) {
	f.Add([]byte("FHEGTSK1"))
	f.Add(append([]byte("FHEGTSK1"), make([]byte, 60)...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic: %v", r)
			}
		}()
		_, _ = UnmarshalThresholdKey(b)
	})
}

// FuzzRefreshShareBundle: a contributor's refresh share bundle decodes to
// exactly one reduced share per subset that holds it, or is refused — any
// payload, without panicking or allocating beyond its length.
func FuzzRefreshShareBundle(f *testing.F) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	active := []transport.MemberID{1, 2, 3}
	subsets := subsetsOf(active, 2)
	size := 1 + 2*p.N()*8
	good := make([]byte, 2*size)
	good[0], good[size] = 1, 1
	f.Add(good)
	f.Add(good[:size])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		sh, err := splitSubsetShares(p, 1, 2, subsets, b)
		if err != nil {
			return
		}
		if len(sh) != 2 {
			t.Fatalf("%d shares for a member in 2 subsets", len(sh))
		}
	})
}

// FuzzOpenMask: a refresh mask message is decoded and its proof verified,
// or it is refused with an error — never a panic.
func FuzzOpenMask(f *testing.F) {
	p := fhe.MustParams(fhetest.InsecureBGVN10)
	sk := rlwe.NewKeyGenerator(p.RLWE()).GenSecretKeyNew()
	pk := fhe.WrapPublicKey(p, rlwe.NewKeyGenerator(p.RLWE()).GenPublicKeyNew(sk))
	zk, err := proofKey(pk, nil)
	if err != nil {
		f.Fatal(err)
	}
	good, err := newMask(zk, 1, 2)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := openMask(zk, 1, 2, good); err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte{0, 0, 0, 9, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = openMask(zk, 1, 2, b)
	})
}

// FuzzDecodeKeyShare: the public-key round's payload decoder never panics,
// accepts only payloads of exactly 4 + share + proof bytes whose share
// length is the preset's, and returns slices of the payload that
// re-encode to it.
func FuzzDecodeKeyShare(f *testing.F) {
	const shareLen, proofLen = 8, 5
	f.Add(encodeKeyShare(make([]byte, shareLen), make([]byte, proofLen)))
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, shareLen})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	f.Fuzz(func(t *testing.T, b []byte) {
		share, proof, err := decodeKeyShare(b, shareLen, proofLen)
		if err != nil {
			return
		}
		if len(share) != shareLen || len(proof) != proofLen {
			t.Fatalf("share %d and proof %d bytes accepted", len(share), len(proof))
		}
		if string(encodeKeyShare(share, proof)) != string(b) {
			t.Fatal("re-encoding differs")
		}
	})
}
