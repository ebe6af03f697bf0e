package fhe

import (
	"encoding/binary"
	"fmt"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/ring/ringqp"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"
)

// Ciphertext is a Lattigo ciphertext bound to its preset. A seeded ciphertext
// also remembers the seed of its uniform component so that it encodes to the
// compact form. Ciphertexts are values: operations return new ones.
type Ciphertext struct {
	params *Params
	ct     *rlwe.Ciphertext
	seed   *[seedSize]byte
}

// WrapCiphertext binds a Lattigo ciphertext to parameters (for consensus/ and
// fhe subpackages that run Lattigo protocols directly).
func WrapCiphertext(params *Params, ct *rlwe.Ciphertext) (*Ciphertext, error) {
	if ct == nil || ct.Value == nil {
		return nil, fmt.Errorf("fhe: nil ciphertext")
	}
	if ct.Level() > params.MaxLevel() || ct.Degree() < 1 || ct.Degree() > 2 {
		return nil, fmt.Errorf("fhe: ciphertext level %d / degree %d invalid for %s", ct.Level(), ct.Degree(), params.Preset.Name)
	}
	if ct.Value[0].N() != params.N() {
		return nil, fmt.Errorf("fhe: ciphertext ring degree %d, preset %s has %d", ct.Value[0].N(), params.Preset.Name, params.N())
	}
	return &Ciphertext{params: params, ct: ct}, nil
}

// Params returns the ciphertext's parameters.
func (c *Ciphertext) Params() *Params { return c.params }

// Level returns the ciphertext's level (number of remaining rescales).
func (c *Ciphertext) Level() int { return c.ct.Level() }

// Degree returns the ciphertext degree (1 normally, 2 before relinearisation).
func (c *Ciphertext) Degree() int { return c.ct.Degree() }

// Seeded reports whether the ciphertext encodes in the seeded compact form.
func (c *Ciphertext) Seeded() bool { return c.seed != nil }

// Lattigo returns the underlying Lattigo ciphertext. Callers must not modify it.
func (c *Ciphertext) Lattigo() *rlwe.Ciphertext { return c.ct }

// Copy returns a deep copy.
func (c *Ciphertext) Copy() *Ciphertext {
	out := &Ciphertext{params: c.params, ct: c.ct.CopyNew()}
	if c.seed != nil {
		s := *c.seed
		out.seed = &s
	}
	return out
}

// EncodedSize returns the size in bytes of the canonical encoding.
func (c *Ciphertext) EncodedSize() int {
	polys := c.ct.Degree() + 1
	extra := 0
	if c.seed != nil {
		polys, extra = 1, seedSize
	}
	return headerSize + 8 + polys*(c.ct.Level()+1)*c.params.N()*8 + extra
}

// MarshalBinary returns the canonical encoding.
func (c *Ciphertext) MarshalBinary() ([]byte, error) {
	p := c.params
	md := c.ct.MetaData
	if md == nil {
		return nil, fmt.Errorf("fhe: ciphertext without metadata")
	}
	if !md.IsBatched || md.IsBitReversed || md.LogDimensions != p.logMaxDimensions() {
		return nil, fmt.Errorf("fhe: only batched ciphertexts with the preset's full slot dimensions are encodable")
	}
	flags := uint8(0)
	if md.IsNTT {
		flags |= FlagNTT
	}
	if md.IsMontgomery {
		flags |= FlagMontgomery
	}
	if c.seed != nil {
		flags |= FlagSeeded
	}
	out := make([]byte, c.EncodedSize())
	header{kind: KindCiphertext, scheme: p.Scheme(), preset: p.Preset.ID, level: uint8(c.ct.Level()), flags: flags, degree: uint8(c.ct.Degree())}.put(out)
	rest := out[headerSize:]
	if p.Scheme() == SchemeBGV {
		s := md.Scale.Uint64()
		if s == 0 || s >= p.PlaintextModulus() {
			return nil, fmt.Errorf("fhe: BGV scale %d not in [1, t)", s)
		}
		putScaleBGV(rest, s)
	} else {
		f, _ := md.Scale.Value.Float64()
		putScaleCKKS(rest, f)
	}
	rest = rest[8:]
	rows, n := c.ct.Level()+1, p.N()
	if c.seed != nil {
		rest = putPoly(rest, c.ct.Value[0], rows, n)
		copy(rest, c.seed[:])
		return out, nil
	}
	for _, poly := range c.ct.Value {
		rest = putPoly(rest, poly, rows, n)
	}
	return out, nil
}

// Handle returns keccak256 of the canonical encoding.
func (c *Ciphertext) Handle() (Handle, error) {
	b, err := c.MarshalBinary()
	if err != nil {
		return Handle{}, err
	}
	return HandleOf(b), nil
}

// ciphertextLayout is a canonical ciphertext's checked header: everything
// but the polynomials' coefficients.
type ciphertextLayout struct {
	p             *Params
	level, degree int
	seeded        bool
	meta          *rlwe.MetaData // NTT, batched, the scale
	body          []byte         // the polynomials (c0 only, then the seed, when seeded)
}

// parseCiphertextLayout checks a canonical ciphertext's header, flags,
// degree and exact length and decodes its scale — all UnmarshalCiphertext
// checks before it reads the coefficients, and what SlotPacker.AddEncoded
// checks before it reads rows in place. Errors are *DecodeError.
func parseCiphertextLayout(b []byte) (ciphertextLayout, error) {
	h, p, err := parseHeader(b, KindCiphertext)
	if err != nil {
		return ciphertextLayout{}, err
	}
	if int(h.level) > p.MaxLevel() {
		return ciphertextLayout{}, decErr(ErrKindLevel, "level %d > max level %d of %s", h.level, p.MaxLevel(), p.Preset.Name)
	}
	if h.flags&^knownCipherFlags != 0 {
		return ciphertextLayout{}, decErr(ErrKindFlags, "unknown flags %#x", h.flags)
	}
	seeded := h.flags&FlagSeeded != 0
	if h.degree < 1 || h.degree > 2 || (seeded && h.degree != 1) {
		return ciphertextLayout{}, decErr(ErrKindDegree, "degree %d (seeded=%v)", h.degree, seeded)
	}
	// The domain flags are fixed by the scheme: Lattigo keeps BGV and CKKS
	// ciphertexts in the NTT domain, never in Montgomery form.
	if h.flags&FlagNTT == 0 || h.flags&FlagMontgomery != 0 {
		return ciphertextLayout{}, decErr(ErrKindFlags, "domain flags %#x: want NTT, not Montgomery", h.flags)
	}
	level, n := int(h.level), p.N()
	polys := int(h.degree) + 1
	extra := 0
	if seeded {
		polys, extra = 1, seedSize
	}
	want := headerSize + 8 + polys*(level+1)*n*8 + extra
	if len(b) < want {
		return ciphertextLayout{}, decErr(ErrKindLength, "%d bytes, want %d", len(b), want)
	}
	if len(b) > want {
		return ciphertextLayout{}, decErr(ErrKindTrailing, "%d bytes after the ciphertext", len(b)-want)
	}
	sbits := binary.LittleEndian.Uint64(b[headerSize:])
	md := &rlwe.MetaData{}
	md.IsNTT = true
	md.IsBatched = true
	md.LogDimensions = p.logMaxDimensions()
	if p.Scheme() == SchemeBGV {
		if sbits == 0 || sbits >= p.PlaintextModulus() {
			return ciphertextLayout{}, decErr(ErrKindScale, "BGV scale %d not in [1, t)", sbits)
		}
		md.Scale = rlwe.NewScaleModT(sbits, p.PlaintextModulus())
	} else {
		f, err := checkScaleCKKS(sbits)
		if err != nil {
			return ciphertextLayout{}, err
		}
		md.Scale = rlwe.NewScale(f)
	}
	return ciphertextLayout{p: p, level: level, degree: int(h.degree), seeded: seeded, meta: md, body: b[headerSize+8:]}, nil
}

// UnmarshalCiphertext decodes a canonical ciphertext. Every non-canonical
// input is rejected with a *DecodeError; it never panics.
func UnmarshalCiphertext(b []byte) (*Ciphertext, error) {
	l, err := parseCiphertextLayout(b)
	if err != nil {
		return nil, err
	}
	p, level, n := l.p, l.level, l.p.N()
	ct := rlwe.NewCiphertext(p.rlwe, l.degree, level)
	ct.MetaData = l.meta
	moduli := p.Q()[:level+1]
	rest := l.body
	if rest, err = readPoly(rest, ct.Value[0], moduli, n, "c0"); err != nil {
		return nil, err
	}
	out := &Ciphertext{params: p, ct: ct}
	if l.seeded {
		var seed [seedSize]byte
		copy(seed[:], rest)
		regenerateUniform(p, level, seed, ct.Value[1])
		out.seed = &seed
		return out, nil
	}
	for i := 1; i <= l.degree; i++ {
		if rest, err = readPoly(rest, ct.Value[i], moduli, n, fmt.Sprintf("c%d", i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// regenerateUniform writes into c1 the uniform polynomial of level `level`
// that Lattigo's keyed PRNG produces from seed (interpreted in the NTT domain,
// as Lattigo's secret-key encryption does).
func regenerateUniform(p *Params, level int, seed [seedSize]byte, c1 ring.Poly) {
	prng, err := sampling.NewKeyedPRNG(seed[:])
	if err != nil {
		panic(fmt.Errorf("fhe: keyed PRNG: %w", err)) // cannot happen: blake2b accepts a 32-byte key
	}
	ringqp.NewUniformSampler(prng, *p.rlwe.RingQP()).AtLevel(level, -1).Read(ringqp.Poly{Q: c1})
}
