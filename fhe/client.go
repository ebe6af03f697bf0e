package fhe

import (
	"crypto/rand"
	"fmt"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/schemes/ckks"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"
)

// encoder encodes slot vectors into plaintexts for either scheme. It is not
// safe for concurrent use.
type encoder struct {
	p    *Params
	bgv  *bgv.Encoder
	ckks *ckks.Encoder
}

func newEncoder(p *Params) *encoder {
	e := &encoder{p: p}
	if p.Scheme() == SchemeBGV {
		e.bgv = bgv.NewEncoder(p.bgv)
	} else {
		e.ckks = ckks.NewEncoder(p.ckks)
	}
	return e
}

// encodeInts encodes integers (reduced mod t, negative values allowed) into a
// BGV plaintext at the given level and scale (nil: the default scale).
func (e *encoder) encodeInts(values []int64, level int, scale *rlwe.Scale) (*rlwe.Plaintext, error) {
	p := e.p
	if p.Scheme() != SchemeBGV {
		return nil, fmt.Errorf("fhe: integer encoding needs a BGV preset, %s is %v", p.Preset.Name, p.Scheme())
	}
	if len(values) > p.Slots() {
		return nil, fmt.Errorf("fhe: %d values exceed the %d slots of %s", len(values), p.Slots(), p.Preset.Name)
	}
	t := int64(p.PlaintextModulus())
	v := make([]uint64, p.Slots())
	for i, x := range values {
		x %= t
		if x < 0 {
			x += t
		}
		v[i] = uint64(x)
	}
	pt := bgv.NewPlaintext(p.bgv, level)
	if scale != nil {
		pt.Scale = *scale
	}
	if err := e.bgv.Encode(v, pt); err != nil {
		return nil, fmt.Errorf("fhe: encode: %w", err)
	}
	return pt, nil
}

// encodeFloats encodes reals into a CKKS plaintext at the given level and scale
// (nil: the default scale).
func (e *encoder) encodeFloats(values []float64, level int, scale *rlwe.Scale) (*rlwe.Plaintext, error) {
	p := e.p
	if p.Scheme() != SchemeCKKS {
		return nil, fmt.Errorf("fhe: real encoding needs a CKKS preset, %s is %v", p.Preset.Name, p.Scheme())
	}
	if len(values) > p.Slots() {
		return nil, fmt.Errorf("fhe: %d values exceed the %d slots of %s", len(values), p.Slots(), p.Preset.Name)
	}
	v := make([]float64, p.Slots())
	copy(v, values)
	pt := ckks.NewPlaintext(p.ckks, level)
	if scale != nil {
		pt.Scale = *scale
	}
	if err := e.ckks.Encode(v, pt); err != nil {
		return nil, fmt.Errorf("fhe: encode: %w", err)
	}
	return pt, nil
}

// Encryptor encrypts slot vectors. One per goroutine: it carries PRNG state.
// Under a public key it produces full ciphertexts; under a secret key
// (NewSymmetricEncryptor) it produces seeded ciphertexts of half the size.
type Encryptor struct {
	p   *Params
	ecd *encoder
	enc *rlwe.Encryptor
	sk  *rlwe.SecretKey
	xe  ring.Sampler
}

// NewEncryptor returns an encryptor under a public key (reads crypto/rand).
func NewEncryptor(pk *PublicKey) *Encryptor {
	return &Encryptor{p: pk.params, ecd: newEncoder(pk.params), enc: rlwe.NewEncryptor(pk.params.rlwe, pk.pk)}
}

// NewSymmetricEncryptor returns an encryptor under a secret key whose
// ciphertexts are seeded (reads crypto/rand).
func NewSymmetricEncryptor(sk *SecretKey) (*Encryptor, error) {
	prng, err := sampling.NewPRNG()
	if err != nil {
		return nil, fmt.Errorf("fhe: prng: %w", err)
	}
	xe, err := ring.NewSampler(prng, sk.params.rlwe.RingQ(), sk.params.rlwe.Xe(), false)
	if err != nil {
		return nil, fmt.Errorf("fhe: error sampler: %w", err)
	}
	return &Encryptor{p: sk.params, ecd: newEncoder(sk.params), sk: sk.sk, xe: xe}, nil
}

// EncryptInts encrypts integers (BGV; reduced mod t) at the top level.
func (e *Encryptor) EncryptInts(values []int64) (*Ciphertext, error) {
	pt, err := e.ecd.encodeInts(values, e.p.MaxLevel(), nil)
	if err != nil {
		return nil, err
	}
	return e.encrypt(pt)
}

// EncryptFloats encrypts reals (CKKS) at the top level.
func (e *Encryptor) EncryptFloats(values []float64) (*Ciphertext, error) {
	pt, err := e.ecd.encodeFloats(values, e.p.MaxLevel(), nil)
	if err != nil {
		return nil, err
	}
	return e.encrypt(pt)
}

func (e *Encryptor) encrypt(pt *rlwe.Plaintext) (*Ciphertext, error) {
	if e.sk == nil {
		ct, err := e.enc.EncryptNew(pt)
		if err != nil {
			return nil, fmt.Errorf("fhe: encrypt: %w", err)
		}
		return &Ciphertext{params: e.p, ct: ct}, nil
	}
	return e.encryptSeeded(pt)
}

// encryptSeeded computes (c0, c1) = (-a·s + e + m, a) with a expanded from a
// fresh 32-byte seed, exactly as Lattigo's secret-key encryption does with its
// own uniform sampler, so that the encoding can carry the seed instead of a.
func (e *Encryptor) encryptSeeded(pt *rlwe.Plaintext) (*Ciphertext, error) {
	var seed [seedSize]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, fmt.Errorf("fhe: seed: %w", err)
	}
	level := pt.Level()
	ct := rlwe.NewCiphertext(e.p.rlwe, 1, level)
	*ct.MetaData = *pt.MetaData
	ct.IsNTT, ct.IsMontgomery = true, false
	c0, c1 := ct.Value[0], ct.Value[1]
	regenerateUniform(e.p, level, seed, c1)
	ringQ := e.p.rlwe.RingQ().AtLevel(level)
	e.xe.AtLevel(level).Read(c0)
	ringQ.NTT(c0, c0)
	ringQ.MulCoeffsMontgomeryThenSub(c1, e.sk.Value.Q, c0)
	if pt.IsNTT {
		ringQ.Add(c0, pt.Value, c0)
	} else {
		buf := ringQ.NewPoly()
		ringQ.NTT(pt.Value, buf)
		ringQ.Add(c0, buf, c0)
	}
	return &Ciphertext{params: e.p, ct: ct, seed: &seed}, nil
}

// Decryptor decrypts with a secret key (the user's own, or in tests). Not safe
// for concurrent use.
type Decryptor struct {
	p   *Params
	ecd *encoder
	dec *rlwe.Decryptor
}

// NewDecryptor returns a decryptor.
func NewDecryptor(sk *SecretKey) *Decryptor {
	return &Decryptor{p: sk.params, ecd: newEncoder(sk.params), dec: rlwe.NewDecryptor(sk.params.rlwe, sk.sk)}
}

func (d *Decryptor) check(ct *Ciphertext) error {
	if ct == nil {
		return fmt.Errorf("fhe: nil ciphertext")
	}
	if ct.params != d.p {
		return fmt.Errorf("fhe: ciphertext preset %s, key preset %s", ct.params.Preset.Name, d.p.Preset.Name)
	}
	return nil
}

// DecryptUints decrypts a BGV ciphertext to slot values in [0, t).
func (d *Decryptor) DecryptUints(ct *Ciphertext) ([]uint64, error) {
	if err := d.check(ct); err != nil {
		return nil, err
	}
	if d.p.Scheme() != SchemeBGV {
		return nil, fmt.Errorf("fhe: DecryptUints needs BGV")
	}
	pt := d.dec.DecryptNew(ct.ct)
	out := make([]uint64, d.p.Slots())
	if err := d.ecd.bgv.Decode(pt, out); err != nil {
		return nil, fmt.Errorf("fhe: decode: %w", err)
	}
	return out, nil
}

// DecryptInts decrypts a BGV ciphertext to centred slot values in (-t/2, t/2].
func (d *Decryptor) DecryptInts(ct *Ciphertext) ([]int64, error) {
	u, err := d.DecryptUints(ct)
	if err != nil {
		return nil, err
	}
	return Centre(u, d.p.PlaintextModulus()), nil
}

// DecryptFloats decrypts a CKKS ciphertext to the real parts of its slots.
// For values that leave the system use DecryptFloatsPublic.
func (d *Decryptor) DecryptFloats(ct *Ciphertext) ([]float64, error) {
	return d.decryptFloats(ct, 0)
}

// DecryptFloatsPublic decodes with Lattigo's DecodePublic, adding noise of
// about 2^-logPrec to blunt IND-CPA-D key-recovery (Li–Micciancio,
// ePrint 2020/1533) when the plaintext is revealed.
func (d *Decryptor) DecryptFloatsPublic(ct *Ciphertext, logPrec float64) ([]float64, error) {
	if logPrec <= 0 {
		return nil, fmt.Errorf("fhe: logPrec must be > 0")
	}
	return d.decryptFloats(ct, logPrec)
}

func (d *Decryptor) decryptFloats(ct *Ciphertext, logPrec float64) ([]float64, error) {
	if err := d.check(ct); err != nil {
		return nil, err
	}
	if d.p.Scheme() != SchemeCKKS {
		return nil, fmt.Errorf("fhe: DecryptFloats needs CKKS")
	}
	pt := d.dec.DecryptNew(ct.ct)
	out := make([]float64, d.p.Slots())
	var err error
	if logPrec > 0 {
		err = d.ecd.ckks.DecodePublic(pt, out, logPrec)
	} else {
		err = d.ecd.ckks.Decode(pt, out)
	}
	if err != nil {
		return nil, fmt.Errorf("fhe: decode: %w", err)
	}
	return out, nil
}

// Centre maps values mod t to (-t/2, t/2].
func Centre(u []uint64, t uint64) []int64 {
	out := make([]int64, len(u))
	for i, x := range u {
		if x > t/2 {
			out[i] = int64(x) - int64(t)
		} else {
			out[i] = int64(x)
		}
	}
	return out
}
