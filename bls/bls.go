package bls

import (
	"bytes"
	"errors"
	"fmt"

	blst "github.com/supranational/blst/bindings/go"
)

// Sizes of the encodings used on chain and on the wire.
const (
	PublicKeyLen    = 48 // compressed G1 point
	PublicKeyRawLen = 96 // uncompressed (serialized) G1 point, used in precompile storage
	SignatureLen    = 96 // compressed G2 point
	SecretKeyLen    = 32
	MinSeedLen      = 32
)

// Ciphersuite domain-separation tags (IETF BLS draft, proof-of-possession scheme).
var (
	dstSign = []byte("BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_")
	dstPoP  = []byte("BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_")
)

// Errors returned by this package.
var (
	ErrSeedTooShort     = errors.New("bls: seed shorter than 32 bytes")
	ErrBadPublicKey     = errors.New("bls: invalid public key encoding or not in G1")
	ErrBadSignature     = errors.New("bls: invalid signature encoding or not in G2")
	ErrBadPoP           = errors.New("bls: proof of possession does not verify")
	ErrBadBitmap        = errors.New("bls: signer bitmap has wrong length or bits beyond the committee")
	ErrNoSigners        = errors.New("bls: no signers")
	ErrVerify           = errors.New("bls: aggregate signature does not verify")
	ErrNothingToCombine = errors.New("bls: nothing to aggregate")
)

// SecretKey is a BLS12-381 secret scalar.
type SecretKey struct {
	sk *blst.SecretKey
}

// Keygen derives a secret key deterministically from seed (IETF KeyGen,
// HKDF-SHA256). seed must hold at least 32 bytes of secret entropy.
func Keygen(seed []byte) (*SecretKey, error) {
	if len(seed) < MinSeedLen {
		return nil, ErrSeedTooShort
	}
	sk := blst.KeyGen(seed)
	if sk == nil {
		return nil, errors.New("bls: key generation failed")
	}
	return &SecretKey{sk: sk}, nil
}

// SecretKeyFromBytes parses a 32-byte big-endian scalar.
func SecretKeyFromBytes(b []byte) (*SecretKey, error) {
	if len(b) != SecretKeyLen {
		return nil, fmt.Errorf("bls: secret key must be %d bytes", SecretKeyLen)
	}
	sk := new(blst.SecretKey).Deserialize(b)
	if sk == nil {
		return nil, errors.New("bls: invalid secret key")
	}
	return &SecretKey{sk: sk}, nil
}

// Bytes returns the 32-byte big-endian scalar.
func (k *SecretKey) Bytes() []byte { return k.sk.Serialize() }

// PublicKey returns the 48-byte compressed public key.
func (k *SecretKey) PublicKey() []byte {
	return new(blst.P1Affine).From(k.sk).Compress()
}

// Sign signs msg (typically a 32-byte digest from VerdictDigest or InputDigest).
func (k *SecretKey) Sign(msg []byte) []byte {
	return new(blst.P2Affine).Sign(k.sk, msg, dstSign).Compress()
}

// ProvePossession returns the proof of possession for k's public key: a
// signature, under the PoP domain, over the compressed public key.
func (k *SecretKey) ProvePossession() []byte {
	return new(blst.P2Affine).Sign(k.sk, k.PublicKey(), dstPoP).Compress()
}

// Sign is a function form of SecretKey.Sign.
func Sign(sk *SecretKey, msg []byte) []byte { return sk.Sign(msg) }

// PublicKey is a validated public key (on the curve, in G1, not infinity).
type PublicKey struct {
	p *blst.P1Affine
}

// ParsePublicKey accepts a 48-byte compressed or 96-byte uncompressed public key
// and runs the full KeyValidate check (curve, subgroup, not infinity).
func ParsePublicKey(b []byte) (*PublicKey, error) {
	var p *blst.P1Affine
	switch len(b) {
	case PublicKeyLen:
		p = new(blst.P1Affine).Uncompress(b)
	case PublicKeyRawLen:
		p = deserializeRaw(b)
	}
	if p == nil || !p.KeyValidate() {
		return nil, ErrBadPublicKey
	}
	return &PublicKey{p: p}, nil
}

// PublicKeyFromTrustedRaw decodes a 96-byte uncompressed key that was validated
// (ParsePublicKey + PopVerify) before it was stored, e.g. a key read back from
// precompile storage. It checks the encoding and the curve equation only, which
// avoids the subgroup check and the square root of decompression on the hot path.
func PublicKeyFromTrustedRaw(b []byte) (*PublicKey, error) {
	if len(b) != PublicKeyRawLen {
		return nil, ErrBadPublicKey
	}
	p := deserializeRaw(b)
	if p == nil {
		return nil, ErrBadPublicKey
	}
	return &PublicKey{p: p}, nil
}

// deserializeRaw decodes a 96-byte uncompressed G1 point, accepting only the
// canonical encoding. blst's Deserialize alone is not enough: a 96-byte input
// with the compression flag (0x80) set is decoded as a compressed point from
// its first 48 bytes, whatever the other 48 hold, so many byte strings would
// name the same key. Re-encoding and comparing rejects them (and any other
// non-canonical form).
func deserializeRaw(b []byte) *blst.P1Affine {
	p := new(blst.P1Affine).Deserialize(b)
	if p == nil || !bytes.Equal(p.Serialize(), b) {
		return nil
	}
	return p
}

// Compressed returns the 48-byte encoding.
func (pk *PublicKey) Compressed() []byte { return pk.p.Compress() }

// Raw returns the 96-byte uncompressed encoding.
func (pk *PublicKey) Raw() []byte { return pk.p.Serialize() }

func parseSig(b []byte) (*blst.P2Affine, error) {
	if len(b) != SignatureLen {
		return nil, ErrBadSignature
	}
	s := new(blst.P2Affine).Uncompress(b)
	if s == nil || !s.SigValidate(true) {
		return nil, ErrBadSignature
	}
	return s, nil
}

// PopVerify checks a proof of possession for a public key (48 or 96 bytes).
func PopVerify(pubkey, pop []byte) error {
	pk, err := ParsePublicKey(pubkey)
	if err != nil {
		return err
	}
	s, err := parseSig(pop)
	if err != nil {
		return err
	}
	if !s.Verify(false, pk.p, false, pk.p.Compress(), dstPoP) {
		return ErrBadPoP
	}
	return nil
}

// Verify checks a single signature.
func Verify(pubkey, msg, sig []byte) error {
	pk, err := ParsePublicKey(pubkey)
	if err != nil {
		return err
	}
	s, err := parseSig(sig)
	if err != nil {
		return err
	}
	if !s.Verify(false, pk.p, false, msg, dstSign) {
		return ErrVerify
	}
	return nil
}

// Aggregate combines signatures (each 96 bytes compressed) into one; every
// input is group-checked.
func Aggregate(sigs [][]byte) ([]byte, error) {
	if len(sigs) == 0 {
		return nil, ErrNothingToCombine
	}
	var agg blst.P2Aggregate
	for _, b := range sigs {
		s, err := parseSig(b)
		if err != nil {
			return nil, err
		}
		if !agg.Add(s, false) {
			return nil, ErrBadSignature
		}
	}
	return agg.ToAffine().Compress(), nil
}

// BitmapLen is the exact signer-bitmap length for a committee of n members.
func BitmapLen(n int) int { return (n + 7) / 8 }

// NewBitmap returns the bitmap of length BitmapLen(n) with the given member
// indices set. Indices out of range are an error.
func NewBitmap(n int, signers []int) ([]byte, error) {
	bm := make([]byte, BitmapLen(n))
	for _, i := range signers {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("bls: signer index %d out of range [0,%d)", i, n)
		}
		bm[i/8] |= 1 << (uint(i) % 8)
	}
	return bm, nil
}

// Signers returns the member indices set in bitmap, in increasing order, after
// checking the bitmap length and that no bit beyond n is set.
func Signers(n int, bitmap []byte) ([]int, error) {
	if n < 0 || len(bitmap) != BitmapLen(n) {
		return nil, ErrBadBitmap
	}
	var out []int
	for i := 0; i < len(bitmap)*8; i++ {
		if bitmap[i/8]&(1<<(uint(i)%8)) == 0 {
			continue
		}
		if i >= n {
			return nil, ErrBadBitmap
		}
		out = append(out, i)
	}
	return out, nil
}

// VerifyAggregate checks that sig is an aggregate signature on msg by exactly
// the members of pubkeys selected by bitmap. Keys are parsed and fully
// validated; for keys already validated at registration use
// Committee.VerifyAggregate. It does not check a quorum.
func VerifyAggregate(pubkeys [][]byte, bitmap, msg, sig []byte) error {
	keys := make([]*PublicKey, len(pubkeys))
	for i, b := range pubkeys {
		pk, err := ParsePublicKey(b)
		if err != nil {
			return fmt.Errorf("member %d: %w", i, err)
		}
		keys[i] = pk
	}
	_, err := verifyAggregate(keys, bitmap, msg, sig)
	return err
}

// Committee is a set of validated member keys, in member-index order.
type Committee struct {
	Keys []*PublicKey
}

// VerifyAggregate checks sig against the members selected by bitmap and
// returns the number of signers. It does not check a quorum.
func (c *Committee) VerifyAggregate(bitmap, msg, sig []byte) (int, error) {
	return verifyAggregate(c.Keys, bitmap, msg, sig)
}

func verifyAggregate(keys []*PublicKey, bitmap, msg, sig []byte) (int, error) {
	idx, err := Signers(len(keys), bitmap)
	if err != nil {
		return 0, err
	}
	if len(idx) == 0 {
		return 0, ErrNoSigners
	}
	s, err := parseSig(sig)
	if err != nil {
		return 0, err
	}
	var agg blst.P1Aggregate
	for _, i := range idx {
		if keys[i] == nil || keys[i].p == nil {
			return 0, ErrBadPublicKey
		}
		agg.Add(keys[i].p, false)
	}
	if !s.Verify(false, agg.ToAffine(), false, msg, dstSign) {
		return 0, ErrVerify
	}
	return len(idx), nil
}
