package fhe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/tuneinsight/lattigo/v6/ring"

	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
)

// Wire-format constants.
const (
	WireVersion = 1
	headerSize  = 12
	seedSize    = 32
)

var wireMagic = [4]byte{'F', 'H', 'E', 'G'}

// Kind is the object type in a wire header.
type Kind uint8

// Kinds. The numeric values are part of the wire format.
const (
	KindCiphertext Kind = 1
	KindPublicKey  Kind = 2
	KindRelinKey   Kind = 3
	KindGaloisKeys Kind = 4
	KindSecretKey  Kind = 5
)

func (k Kind) String() string {
	switch k {
	case KindCiphertext:
		return "ciphertext"
	case KindPublicKey:
		return "public-key"
	case KindRelinKey:
		return "relinearization-key"
	case KindGaloisKeys:
		return "galois-keys"
	case KindSecretKey:
		return "secret-key"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Header flags.
const (
	FlagSeeded       uint8 = 1 << 0
	FlagNTT          uint8 = 1 << 1
	FlagMontgomery   uint8 = 1 << 2
	knownCipherFlags       = FlagSeeded | FlagNTT | FlagMontgomery
)

// Handle identifies a canonical object: keccak256 of its canonical bytes.
type Handle [32]byte

// String returns the 0x-prefixed hex form.
func (h Handle) String() string { return fmt.Sprintf("0x%x", h[:]) }

// HandleOf returns keccak256(b).
func HandleOf(b []byte) Handle { return Handle(keccakpkg.Sum(b)) }

// DecodeErrorKind classifies why bytes were rejected.
type DecodeErrorKind uint8

// Decode error kinds.
const (
	ErrKindTruncated DecodeErrorKind = iota + 1
	ErrKindMagic
	ErrKindVersion
	ErrKindKind
	ErrKindScheme
	ErrKindPreset
	ErrKindLevel
	ErrKindFlags
	ErrKindDegree
	ErrKindLength
	ErrKindCoefficient
	ErrKindScale
	ErrKindTrailing
	ErrKindNonCanonical
)

var decodeKindNames = map[DecodeErrorKind]string{
	ErrKindTruncated: "truncated", ErrKindMagic: "bad magic", ErrKindVersion: "unsupported version",
	ErrKindKind: "wrong object kind", ErrKindScheme: "scheme mismatch", ErrKindPreset: "unknown preset",
	ErrKindLevel: "level out of range", ErrKindFlags: "bad flags", ErrKindDegree: "bad degree",
	ErrKindLength: "wrong length", ErrKindCoefficient: "coefficient not reduced", ErrKindScale: "bad scale",
	ErrKindTrailing: "trailing bytes", ErrKindNonCanonical: "non-canonical encoding",
}

func (k DecodeErrorKind) String() string {
	if s, ok := decodeKindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("DecodeErrorKind(%d)", uint8(k))
}

// DecodeError is returned for every rejected encoding.
type DecodeError struct {
	Kind   DecodeErrorKind
	Detail string
}

func (e *DecodeError) Error() string { return "fhe: decode: " + e.Kind.String() + ": " + e.Detail }

// Is lets errors.Is match on the kind: errors.Is(err, &DecodeError{Kind: ErrKindLevel}).
func (e *DecodeError) Is(target error) bool {
	var t *DecodeError
	if errors.As(target, &t) {
		return t.Kind == e.Kind && (t.Detail == "" || t.Detail == e.Detail)
	}
	return false
}

func decErr(kind DecodeErrorKind, format string, args ...any) error {
	return &DecodeError{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}

// header is the fixed 12-byte prefix of every encoding.
type header struct {
	kind   Kind
	scheme Scheme
	preset PresetID
	level  uint8
	flags  uint8
	degree uint8
}

func (h header) put(b []byte) {
	copy(b[:4], wireMagic[:])
	b[4] = WireVersion
	b[5] = byte(h.kind)
	b[6] = byte(h.scheme)
	b[7] = byte(h.preset)
	b[8] = h.level
	b[9] = h.flags
	b[10] = h.degree
	b[11] = 0
}

// parseHeader checks the parts of a header that do not depend on the object
// and resolves the preset's parameters.
func parseHeader(b []byte, want Kind) (header, *Params, error) {
	var h header
	if len(b) < headerSize {
		return h, nil, decErr(ErrKindTruncated, "%d bytes, header needs %d", len(b), headerSize)
	}
	if [4]byte(b[:4]) != wireMagic {
		return h, nil, decErr(ErrKindMagic, "% x", b[:4])
	}
	if b[4] != WireVersion {
		return h, nil, decErr(ErrKindVersion, "version %d, want %d", b[4], WireVersion)
	}
	h = header{kind: Kind(b[5]), scheme: Scheme(b[6]), preset: PresetID(b[7]), level: b[8], flags: b[9], degree: b[10]}
	if h.kind != want {
		return h, nil, decErr(ErrKindKind, "%v, want %v", h.kind, want)
	}
	if b[11] != 0 {
		return h, nil, decErr(ErrKindNonCanonical, "reserved header byte %d", b[11])
	}
	params, err := NewParams(h.preset)
	if err != nil {
		return h, nil, decErr(ErrKindPreset, "preset id %d", h.preset)
	}
	if h.scheme != params.Scheme() {
		return h, nil, decErr(ErrKindScheme, "header says %v, preset %s is %v", h.scheme, params.Preset.Name, params.Scheme())
	}
	return h, params, nil
}

// polyWriter/polyReader move RNS polynomials as little-endian uint64
// coefficients, row by row (prime by prime).
func putPoly(dst []byte, p ring.Poly, rows int, n int) []byte {
	for i := 0; i < rows; i++ {
		row := p.Coeffs[i]
		for j := 0; j < n; j++ {
			binary.LittleEndian.PutUint64(dst, row[j])
			dst = dst[8:]
		}
	}
	return dst
}

// readPoly fills p's first len(moduli) rows from src, checking every
// coefficient is reduced modulo its prime. It returns the rest of src.
func readPoly(src []byte, p ring.Poly, moduli []uint64, n int, what string) ([]byte, error) {
	for i, q := range moduli {
		row := p.Coeffs[i]
		for j := 0; j < n; j++ {
			c := binary.LittleEndian.Uint64(src)
			if c >= q {
				return nil, decErr(ErrKindCoefficient, "%s: prime %d, coefficient %d: %d ≥ %d", what, i, j, c, q)
			}
			row[j] = c
			src = src[8:]
		}
	}
	return src, nil
}

func putScaleBGV(dst []byte, v uint64) { binary.LittleEndian.PutUint64(dst, v) }

func putScaleCKKS(dst []byte, v float64) { binary.LittleEndian.PutUint64(dst, math.Float64bits(v)) }

func checkScaleCKKS(bits uint64) (float64, error) {
	v := math.Float64frombits(bits)
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 1 {
		return 0, decErr(ErrKindScale, "CKKS scale %v", v)
	}
	return v, nil
}
