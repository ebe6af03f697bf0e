package fhe

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/ring/ringqp"
)

// SecretKey is a party's RLWE secret. It never leaves its owner's machine
// except as an explicit, local key file.
type SecretKey struct {
	params *Params
	sk     *rlwe.SecretKey
}

// PublicKey is an RLWE public key (collective or single-party).
type PublicKey struct {
	params *Params
	pk     *rlwe.PublicKey
}

// RelinKey is a relinearisation key.
type RelinKey struct {
	params *Params
	rlk    *rlwe.RelinearizationKey
}

// GaloisKeys is a set of rotation keys, kept sorted by Galois element.
type GaloisKeys struct {
	params *Params
	keys   []*rlwe.GaloisKey
}

// KeySet is the output of single-party key generation.
type KeySet struct {
	Secret *SecretKey
	Public *PublicKey
	Relin  *RelinKey
	Galois *GaloisKeys
}

// WrapSecretKey, WrapPublicKey, WrapRelinKey and WrapGaloisKeys bind Lattigo
// keys (e.g. from the committee's multiparty protocols) to parameters.
func WrapSecretKey(p *Params, sk *rlwe.SecretKey) *SecretKey { return &SecretKey{params: p, sk: sk} }

// WrapPublicKey binds a Lattigo public key to parameters.
func WrapPublicKey(p *Params, pk *rlwe.PublicKey) *PublicKey { return &PublicKey{params: p, pk: pk} }

// WrapRelinKey binds a Lattigo relinearisation key to parameters.
func WrapRelinKey(p *Params, rlk *rlwe.RelinearizationKey) *RelinKey {
	return &RelinKey{params: p, rlk: rlk}
}

// WrapGaloisKeys binds Lattigo Galois keys to parameters (sorted, deduplicated).
func WrapGaloisKeys(p *Params, gks []*rlwe.GaloisKey) *GaloisKeys {
	byEl := map[uint64]*rlwe.GaloisKey{}
	for _, g := range gks {
		byEl[g.GaloisElement] = g
	}
	out := make([]*rlwe.GaloisKey, 0, len(byEl))
	for _, g := range byEl {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GaloisElement < out[j].GaloisElement })
	return &GaloisKeys{params: p, keys: out}
}

// Lattigo accessors (for consensus/ and fhe subpackages).
func (k *SecretKey) Lattigo() *rlwe.SecretKey { return k.sk }

// Lattigo returns the underlying key.
func (k *PublicKey) Lattigo() *rlwe.PublicKey { return k.pk }

// Lattigo returns the underlying key.
func (k *RelinKey) Lattigo() *rlwe.RelinearizationKey { return k.rlk }

// Lattigo returns the underlying keys, sorted by Galois element.
func (k *GaloisKeys) Lattigo() []*rlwe.GaloisKey { return k.keys }

// Params accessors.
func (k *SecretKey) Params() *Params { return k.params }

// Params returns the key's parameters.
func (k *PublicKey) Params() *Params { return k.params }

// Params returns the key's parameters.
func (k *RelinKey) Params() *Params { return k.params }

// Params returns the keys' parameters.
func (k *GaloisKeys) Params() *Params { return k.params }

// Elements returns the Galois elements present, ascending.
func (k *GaloisKeys) Elements() []uint64 {
	out := make([]uint64, len(k.keys))
	for i, g := range k.keys {
		out[i] = g.GaloisElement
	}
	return out
}

// GenKeys runs single-party key generation: secret, public, relinearisation
// and the Galois keys for the given rotation steps plus those InnerSum needs
// over the full slot row (reads crypto/rand).
func GenKeys(p *Params, rotations []int) *KeySet {
	kgen := rlwe.NewKeyGenerator(p.rlwe)
	sk, pk := kgen.GenKeyPairNew()
	galEls := p.GaloisElementsForRotations(rotations)
	gks := kgen.GenGaloisKeysNew(dedupe(galEls), sk)
	return &KeySet{
		Secret: &SecretKey{params: p, sk: sk},
		Public: &PublicKey{params: p, pk: pk},
		Relin:  &RelinKey{params: p, rlk: kgen.GenRelinearizationKeyNew(sk)},
		Galois: WrapGaloisKeys(p, gks),
	}
}

func dedupe(v []uint64) []uint64 {
	seen := map[uint64]bool{}
	out := v[:0:0]
	for _, x := range v {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// qpPolys lists, in encoding order, every (poly, moduli) pair of a VectorQP.
type qpPart struct {
	poly   ring.Poly
	moduli []uint64
}

func vectorParts(p *Params, v []ringqp.Poly, dst []qpPart) []qpPart {
	for _, x := range v {
		dst = append(dst, qpPart{x.Q, p.Q()[:x.Q.Level()+1]})
		if x.P.Level() >= 0 && len(x.P.Coeffs) > 0 {
			dst = append(dst, qpPart{x.P, p.P()[:x.P.Level()+1]})
		}
	}
	return dst
}

func gadgetParts(p *Params, g *rlwe.GadgetCiphertext, dst []qpPart) []qpPart {
	for _, row := range g.Value {
		for _, vec := range row {
			dst = vectorParts(p, vec, dst)
		}
	}
	return dst
}

func partsSize(parts []qpPart, n int) int {
	s := 0
	for _, x := range parts {
		s += len(x.moduli) * n * 8
	}
	return s
}

func putParts(dst []byte, parts []qpPart, n int) []byte {
	for _, x := range parts {
		dst = putPoly(dst, x.poly, len(x.moduli), n)
	}
	return dst
}

func readParts(src []byte, parts []qpPart, n int, what string) ([]byte, error) {
	var err error
	for i, x := range parts {
		if src, err = readPoly(src, x.poly, x.moduli, n, fmt.Sprintf("%s part %d", what, i)); err != nil {
			return nil, err
		}
	}
	return src, nil
}

func keyHeader(p *Params, kind Kind) []byte {
	b := make([]byte, headerSize)
	header{kind: kind, scheme: p.Scheme(), preset: p.Preset.ID, level: uint8(p.MaxLevel())}.put(b)
	return b
}

func parseKeyHeader(b []byte, kind Kind) (*Params, []byte, error) {
	h, p, err := parseHeader(b, kind)
	if err != nil {
		return nil, nil, err
	}
	if int(h.level) != p.MaxLevel() || h.flags != 0 || h.degree != 0 {
		return nil, nil, decErr(ErrKindNonCanonical, "key header level %d flags %#x degree %d", h.level, h.flags, h.degree)
	}
	return p, b[headerSize:], nil
}

func exact(rest []byte, want int) error {
	if len(rest) < want {
		return decErr(ErrKindLength, "payload %d bytes, want %d", len(rest), want)
	}
	if len(rest) > want {
		return decErr(ErrKindTrailing, "%d bytes after the payload", len(rest)-want)
	}
	return nil
}

// MarshalBinary encodes the public key canonically.
func (k *PublicKey) MarshalBinary() ([]byte, error) {
	parts := vectorParts(k.params, k.pk.Value, nil)
	out := append(keyHeader(k.params, KindPublicKey), make([]byte, partsSize(parts, k.params.N()))...)
	putParts(out[headerSize:], parts, k.params.N())
	return out, nil
}

// UnmarshalPublicKey decodes a canonical public key.
func UnmarshalPublicKey(b []byte) (*PublicKey, error) {
	p, rest, err := parseKeyHeader(b, KindPublicKey)
	if err != nil {
		return nil, err
	}
	pk := rlwe.NewPublicKey(p.rlwe)
	parts := vectorParts(p, pk.Value, nil)
	if err := exact(rest, partsSize(parts, p.N())); err != nil {
		return nil, err
	}
	if _, err := readParts(rest, parts, p.N(), "public key"); err != nil {
		return nil, err
	}
	return &PublicKey{params: p, pk: pk}, nil
}

// MarshalBinary encodes the relinearisation key canonically.
func (k *RelinKey) MarshalBinary() ([]byte, error) {
	parts := gadgetParts(k.params, &k.rlk.GadgetCiphertext, nil)
	out := append(keyHeader(k.params, KindRelinKey), make([]byte, partsSize(parts, k.params.N()))...)
	putParts(out[headerSize:], parts, k.params.N())
	return out, nil
}

// UnmarshalRelinKey decodes a canonical relinearisation key.
func UnmarshalRelinKey(b []byte) (*RelinKey, error) {
	p, rest, err := parseKeyHeader(b, KindRelinKey)
	if err != nil {
		return nil, err
	}
	rlk := rlwe.NewRelinearizationKey(p.rlwe)
	parts := gadgetParts(p, &rlk.GadgetCiphertext, nil)
	if err := exact(rest, partsSize(parts, p.N())); err != nil {
		return nil, err
	}
	if _, err := readParts(rest, parts, p.N(), "relinearization key"); err != nil {
		return nil, err
	}
	return &RelinKey{params: p, rlk: rlk}, nil
}

// MarshalBinary encodes the Galois keys canonically: a uint16 count, then per
// key (ascending Galois element) the element as uint64 and its coefficients.
func (k *GaloisKeys) MarshalBinary() ([]byte, error) {
	size := headerSize + 2
	for _, g := range k.keys {
		size += galoisEntrySize(k.params, g)
	}
	out := make([]byte, 0, size)
	out = append(out, k.MarshalHeader()...)
	for i := range k.keys {
		out = k.AppendEntry(out, i)
	}
	return out, nil
}

// UnmarshalGaloisKeys decodes canonical Galois keys.
func UnmarshalGaloisKeys(b []byte) (*GaloisKeys, error) {
	p, rest, err := parseKeyHeader(b, KindGaloisKeys)
	if err != nil {
		return nil, err
	}
	if len(rest) < 2 {
		return nil, decErr(ErrKindTruncated, "galois key count")
	}
	count := int(binary.LittleEndian.Uint16(rest))
	rest = rest[2:]
	template := rlwe.NewGaloisKey(p.rlwe)
	per := galoisEntrySize(p, template)
	if err := exact(rest, count*per); err != nil {
		return nil, err
	}
	keys := make([]*rlwe.GaloisKey, 0, count)
	var prev uint64
	for i := 0; i < count; i++ {
		g, err := decodeGaloisEntry(p, rest[:per], i, prev)
		if err != nil {
			return nil, err
		}
		prev = g.GaloisElement
		rest = rest[per:]
		keys = append(keys, g)
	}
	return &GaloisKeys{params: p, keys: keys}, nil
}

// MarshalBinary encodes the secret key (local key files only).
func (k *SecretKey) MarshalBinary() ([]byte, error) {
	parts := vectorParts(k.params, []ringqp.Poly{k.sk.Value}, nil)
	out := append(keyHeader(k.params, KindSecretKey), make([]byte, partsSize(parts, k.params.N()))...)
	putParts(out[headerSize:], parts, k.params.N())
	return out, nil
}

// UnmarshalSecretKey decodes a secret key file.
func UnmarshalSecretKey(b []byte) (*SecretKey, error) {
	p, rest, err := parseKeyHeader(b, KindSecretKey)
	if err != nil {
		return nil, err
	}
	sk := rlwe.NewSecretKey(p.rlwe)
	parts := vectorParts(p, []ringqp.Poly{sk.Value}, nil)
	if err := exact(rest, partsSize(parts, p.N())); err != nil {
		return nil, err
	}
	if _, err := readParts(rest, parts, p.N(), "secret key"); err != nil {
		return nil, err
	}
	return &SecretKey{params: p, sk: sk}, nil
}
