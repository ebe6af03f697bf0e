package zkpok

import (
	"crypto/rand"
	"crypto/sha3"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"

	"github.com/fhegate/fhegate/fhe"
)

// Version is the first byte of every proof.
const Version = 1

// Domain separates the Fiat–Shamir hash.
const Domain = "fhegate/zkpok/v1"

// Witness component indices.
const (
	compU = iota
	compE0
	compE1
	compM
	nComp
)

var compNames = [nComp]string{"u", "e0", "e1", "m"}

// BetaU bounds the honest u (ternary).
const BetaU = 1

// BetaE is the honest bound on the noise of the rounded relation for ring
// degree n: e′ = (ρ·u + e − [pk·u + e]_P)/P with ρ = [pk]_P uniform in
// [−P/2, P/2], u ternary and e Gaussian (σ = 3.2, |e| ≤ 19 ≪ P), so each e′
// coefficient is a sum of ≤ n independent terms of variance ≤ 1/12 plus ≤ 1:
// standard deviation ≤ √(n/12). BetaE is 12 standard deviations plus 2; the
// prover re-encrypts in the (≈ 2^-100) event it is exceeded.
func BetaE(n int) uint64 { return uint64(math.Ceil(math.Sqrt(12*float64(n)))) + 2 }

// ErrInvalid is wrapped by every verification failure.
var ErrInvalid = errors.New("zkpok: invalid proof")

// Context is what the Fiat–Shamir transcript binds besides the public key and
// the ciphertext: who claims the input, on which chain, under which key epoch.
type Context struct {
	ChainID *big.Int
	Epoch   uint64
	Owner   [20]byte
}

func (c Context) check() error {
	if c.ChainID != nil && c.ChainID.BitLen() > 256 {
		return fmt.Errorf("%w: chain id of %d bits", ErrInvalid, c.ChainID.BitLen())
	}
	return nil
}

// Params are the proof parameters of one preset.
type Params struct {
	FHE   *fhe.Params
	N     int
	Kappa int           // challenge weight
	Beta  [nComp]uint64 // honest bounds
	LogB  [nComp]int    // B_i = 2^LogB_i − 1
	Z     [nComp]int64  // response bounds B_i − κβ_i
	Bits  [nComp]int    // encoded bits per coefficient
	// ChallengeBits is log2(C(N,κ)·2^κ).
	ChallengeBits float64
}

// ParamsFor derives the proof parameters of a BGV preset.
func ParamsFor(p *fhe.Params) (*Params, error) {
	if p.Scheme() != fhe.SchemeBGV {
		return nil, fmt.Errorf("zkpok: %s is not BGV", p.Preset.Name)
	}
	n := p.N()
	pp := &Params{FHE: p, N: n}
	pp.Kappa, pp.ChallengeBits = challengeWeight(n)
	be := BetaE(n)
	pp.Beta = [nComp]uint64{BetaU, be, be, p.PlaintextModulus() - 1}
	for i := range nComp {
		k := int(math.Ceil(math.Log2(4 * float64(n) * float64(pp.Kappa) * float64(pp.Beta[i]))))
		pp.LogB[i] = k
		pp.Z[i] = int64(1)<<k - 1 - int64(pp.Kappa)*int64(pp.Beta[i])
		pp.Bits[i] = k + 1 // z + Z ∈ [0, 2Z] < 2^{k+1}
	}
	return pp, nil
}

// challengeWeight returns the least κ with log2(C(n,κ)·2^κ) ≥ 128, capped at
// n/2 for the tiny insecure test rings (whose challenge space is smaller).
func challengeWeight(n int) (int, float64) {
	bits := func(k int) float64 {
		lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
		return (lg(n)-lg(k)-lg(n-k))/math.Ln2 + float64(k)
	}
	for k := 1; k <= n/2; k++ {
		if b := bits(k); b >= 128 {
			return k, b
		}
	}
	return n / 2, bits(n / 2)
}

// Size is the encoded proof length in bytes.
func (pp *Params) Size() int {
	total := 0
	for i := range nComp {
		total += pp.Bits[i] * pp.N
	}
	return 2 + 32 + (total+7)/8
}

// Proof is a decoded proof: the challenge hash and the responses.
type Proof struct {
	H [32]byte
	Z [nComp][]int64
}

// Marshal encodes the proof: version, preset id, h, then z_u, z_e0, z_e1,
// z_m, each coefficient as z+Z_i in Bits_i bits, little-endian bit order.
func (pp *Params) Marshal(pr *Proof) []byte {
	out := make([]byte, pp.Size())
	out[0], out[1] = Version, byte(pp.FHE.Preset.ID)
	copy(out[2:34], pr.H[:])
	w := bitWriter{buf: out[34:]}
	for i := range nComp {
		for _, v := range pr.Z[i] {
			w.put(uint64(v+pp.Z[i]), pp.Bits[i])
		}
	}
	return out
}

// Unmarshal decodes a proof for these parameters. It checks the length
// before allocating and rejects any coefficient outside [−Z_i, Z_i].
func (pp *Params) Unmarshal(b []byte) (*Proof, error) {
	if len(b) != pp.Size() {
		return nil, fmt.Errorf("%w: %d bytes, want %d for %s", ErrInvalid, len(b), pp.Size(), pp.FHE.Preset.Name)
	}
	if b[0] != Version {
		return nil, fmt.Errorf("%w: version %d", ErrInvalid, b[0])
	}
	if b[1] != byte(pp.FHE.Preset.ID) {
		return nil, fmt.Errorf("%w: proof for preset %d, ciphertext is %s", ErrInvalid, b[1], pp.FHE.Preset.Name)
	}
	pr := &Proof{}
	copy(pr.H[:], b[2:34])
	r := bitReader{buf: b[34:]}
	for i := range nComp {
		pr.Z[i] = make([]int64, pp.N)
		lim := uint64(2 * pp.Z[i])
		for j := range pr.Z[i] {
			v := r.get(pp.Bits[i])
			if v > lim {
				return nil, fmt.Errorf("%w: z_%s[%d] out of range", ErrInvalid, compNames[i], j)
			}
			pr.Z[i][j] = int64(v) - pp.Z[i]
		}
	}
	if r.rest() != 0 {
		return nil, fmt.Errorf("%w: non-zero padding bits", ErrInvalid)
	}
	return pr, nil
}

// Digest is keccak256 of the proof bytes (what the input attestation binds).
func Digest(proof []byte) [32]byte { return [32]byte(fhe.HandleOf(proof)) }

// Key is the committee public key prepared for proving and verifying.
//
// Lattigo encrypts over QP and divides by P (ModDown), which keeps the fresh
// noise small (the presets' depth is measured with it). The relation is
// therefore stated for the rounded key K_i = ModDown(pk_i) = (pk_i −
// [pk_i]_P)/P mod Q, which anyone computes from pk: ModDown(pk·u + e) =
// K·u + e′ exactly, with e′ small (BetaE).
type Key struct {
	PP     *Params
	PK     *fhe.PublicKey
	Digest [32]byte // keccak256 of the canonical public-key encoding
	k0, k1 ring.Poly
	ringQ  *ring.Ring
	ringP  *ring.Ring // nil without an auxiliary modulus
	t      uint64
}

// NewKey prepares a BGV public key (computes its digest and rounded key once).
func NewKey(pk *fhe.PublicKey) (*Key, error) {
	pp, err := ParamsFor(pk.Params())
	if err != nil {
		return nil, err
	}
	b, err := pk.MarshalBinary()
	if err != nil {
		return nil, err
	}
	p := pk.Params()
	rp := p.RLWE()
	k := &Key{PP: pp, PK: pk, Digest: [32]byte(fhe.HandleOf(b)), ringQ: rp.RingQ().AtLevel(p.MaxLevel()), t: p.PlaintextModulus()}
	if rp.PCount() > 0 {
		k.ringP = rp.RingP().AtLevel(rp.MaxLevelP())
	}
	lpk := pk.Lattigo()
	var be *ring.BasisExtender
	if k.ringP != nil {
		be = ring.NewBasisExtender(rp.RingQ(), rp.RingP())
	}
	for i, out := range []*ring.Poly{&k.k0, &k.k1} {
		q := lpk.Value[i].Q.CopyNew()
		k.ringQ.IMForm(*q, *q)
		k.ringQ.INTT(*q, *q)
		if k.ringP != nil {
			pp := lpk.Value[i].P.CopyNew()
			k.ringP.IMForm(*pp, *pp)
			k.ringP.INTT(*pp, *pp)
			r := k.ringQ.NewPoly()
			be.ModDownQPtoQ(k.ringQ.Level(), k.ringP.Level(), *q, *pp, r)
			q = &r
		}
		k.ringQ.NTT(*q, *q)
		*out = *q
	}
	return k, nil
}

// EncryptInts encrypts integers (reduced mod t) at the top level under the
// key and proves plaintext knowledge bound to ctx. It returns the ciphertext
// and the encoded proof.
func (k *Key) EncryptInts(values []int64, ctx Context) (*fhe.Ciphertext, []byte, error) {
	if err := ctx.check(); err != nil {
		return nil, nil, err
	}
	pt, err := k.encodeInts(values)
	if err != nil {
		return nil, nil, err
	}
	e := &encryption{k: k, rq: k.ringQ, pt: pt}
	// m = t·pt mod Q, an integer polynomial with |m_i| < t (read centred
	// from the first modulus).
	if e.w[compM], err = k.liftPlaintext(pt); err != nil {
		return nil, nil, err
	}
	if err := e.newSamplers(); err != nil {
		return nil, nil, err
	}
	if err := e.encryptBounded(); err != nil {
		return nil, nil, err
	}
	e.addPlaintext()
	out, err := fhe.WrapCiphertext(k.PK.Params(), e.ct)
	if err != nil {
		return nil, nil, err
	}
	h, err := out.Handle()
	if err != nil {
		return nil, nil, err
	}
	proof, err := k.prove(e.w, h, ctx)
	if err != nil {
		return nil, nil, err
	}
	return out, proof, nil
}

// encodeInts reduces values mod t into the slots and encodes them in a
// top-level plaintext.
func (k *Key) encodeInts(values []int64) (*rlwe.Plaintext, error) {
	p := k.PK.Params()
	if len(values) > p.Slots() {
		return nil, fmt.Errorf("zkpok: %d values exceed the %d slots of %s", len(values), p.Slots(), p.Preset.Name)
	}
	t := int64(k.t)
	v := make([]uint64, p.Slots())
	for i, x := range values {
		x %= t
		if x < 0 {
			x += t
		}
		v[i] = uint64(x)
	}
	pt := bgv.NewPlaintext(p.BGV(), p.MaxLevel())
	if err := bgv.NewEncoder(p.BGV()).Encode(v, pt); err != nil {
		return nil, fmt.Errorf("zkpok: encode: %w", err)
	}
	return pt, nil
}

// liftPlaintext is m = t·pt mod Q read centred from the first modulus,
// checked to have |m_i| < t.
func (k *Key) liftPlaintext(pt *rlwe.Plaintext) ([]int64, error) {
	rq, t := k.ringQ, int64(k.t)
	mp := rq.NewPoly()
	if pt.IsNTT {
		rq.INTT(pt.Value, mp)
	} else {
		mp.Copy(pt.Value)
	}
	rq.MulScalar(mp, k.t, mp)
	m := centred(mp.Coeffs[0], rq.SubRings[0].Modulus)
	for _, x := range m {
		if x >= t || x <= -t {
			return nil, fmt.Errorf("zkpok: lifted plaintext out of range (internal)")
		}
	}
	return m, nil
}

// encryption is EncryptInts's prover state: the witness w (u, e′0, e′1,
// m), the plaintext and the ciphertext being built, the secret and error
// samplers and a scratch polynomial.
type encryption struct {
	k      *Key
	rq     *ring.Ring
	w      [nComp][]int64
	pt     *rlwe.Plaintext
	ct     *rlwe.Ciphertext
	xs, xe ring.Sampler
	tmp    ring.Poly
}

// newSamplers draws a fresh PRNG and builds the secret (Xs) and error (Xe)
// samplers on it.
func (e *encryption) newSamplers() error {
	p := e.k.PK.Params()
	prng, err := sampling.NewPRNG()
	if err != nil {
		return err
	}
	if e.xs, err = ring.NewSampler(prng, e.rq, p.RLWE().Xs(), false); err != nil {
		return err
	}
	if e.xe, err = ring.NewSampler(prng, e.rq, p.RLWE().Xe(), false); err != nil {
		return err
	}
	e.tmp = e.rq.NewPoly()
	return nil
}

// sample reads from s until the centred first row has ‖·‖∞ ≤ bound.
func (e *encryption) sample(s ring.Sampler, bound int64) []int64 {
	for {
		s.Read(e.tmp)
		if v := centred(e.tmp.Coeffs[0], e.rq.SubRings[0].Modulus); infNorm(v) <= bound {
			return v
		}
	}
}

// encryptBounded sets (c0, c1) = ModDown(pk·u + (e0, e1)), exactly as
// Lattigo's public-key encryption (the plaintext is added by
// addPlaintext); then e′_i = c_i − K_i·u, redrawing u, e0, e1 until every
// e′_i is within the proof's bound.
func (e *encryption) encryptBounded() error {
	k, rq, p := e.k, e.rq, e.k.PK.Params()
	var be *ring.BasisExtender
	if k.ringP != nil {
		be = ring.NewBasisExtender(p.RLWE().RingQ(), p.RLWE().RingP())
	}
	e.ct = rlwe.NewCiphertext(p.RLWE(), 1, p.MaxLevel())
	*e.ct.MetaData = *e.pt.MetaData
	e.ct.IsNTT, e.ct.IsMontgomery = true, false
	uN := rq.NewPoly()
	for attempt := 0; ; attempt++ {
		if attempt == 100 {
			return fmt.Errorf("zkpok: encryption noise above the proof bound 100 times (internal)")
		}
		e.w[compU] = e.sample(e.xs, BetaU)
		e0, e1 := e.sample(e.xe, 19), e.sample(e.xe, 19)
		k.encryptZero(be, e.w[compU], [2][]int64{e0, e1}, e.ct.Value[0], e.ct.Value[1])
		setSigned(rq, uN, e.w[compU])
		rq.NTT(uN, uN)
		if e.noiseWithinBound(uN) {
			return nil
		}
	}
}

// noiseWithinBound computes e′_i = c_i − K_i·u into w (uN is u in the NTT
// domain) and reports whether each is within its proof bound, stopping at
// the first that is not.
func (e *encryption) noiseWithinBound(uN ring.Poly) bool {
	rq, tmp := e.rq, e.tmp
	for i, kk := range []ring.Poly{e.k.k0, e.k.k1} {
		rq.MulCoeffsBarrett(uN, kk, tmp)
		rq.Sub(e.ct.Value[i], tmp, tmp)
		rq.INTT(tmp, tmp)
		ep := centred(tmp.Coeffs[0], rq.SubRings[0].Modulus)
		if infNorm(ep) > int64(e.k.PP.Beta[compE0+i]) {
			return false
		}
		e.w[compE0+i] = ep
	}
	return true
}

// addPlaintext adds t^{-1}·m (the plaintext, NTT domain) to c0.
func (e *encryption) addPlaintext() {
	rq, ct, pt := e.rq, e.ct, e.pt
	if pt.IsNTT {
		rq.Add(ct.Value[0], pt.Value, ct.Value[0])
	} else {
		rq.NTT(pt.Value, e.tmp)
		rq.Add(ct.Value[0], e.tmp, ct.Value[0])
	}
}

// encryptZero writes ModDown(pk·u + e) (NTT domain) to c0, c1: Lattigo's
// public-key encryption of zero with the given randomness (over Q alone
// when the preset has no auxiliary modulus P).
func (k *Key) encryptZero(be *ring.BasisExtender, u []int64, e [2][]int64, c0, c1 ring.Poly) {
	rq, rp := k.ringQ, k.ringP
	lpk := k.PK.Lattigo()
	uQ := rq.NewPoly()
	setSigned(rq, uQ, u)
	rq.NTT(uQ, uQ)
	var uP, bufP, eP ring.Poly
	if rp != nil {
		uP, bufP, eP = rp.NewPoly(), rp.NewPoly(), rp.NewPoly()
		setSigned(rp, uP, u)
		rp.NTT(uP, uP)
	}
	eQ := rq.NewPoly()
	for i, out := range []ring.Poly{c0, c1} {
		setSigned(rq, eQ, e[i])
		if rp == nil {
			rq.MulCoeffsMontgomery(uQ, lpk.Value[i].Q, out)
			rq.NTT(eQ, eQ)
			rq.Add(out, eQ, out)
			continue
		}
		bufQ := rq.NewPoly()
		rq.MulCoeffsMontgomery(uQ, lpk.Value[i].Q, bufQ)
		rp.MulCoeffsMontgomery(uP, lpk.Value[i].P, bufP)
		rq.INTT(bufQ, bufQ)
		rp.INTT(bufP, bufP)
		setSigned(rp, eP, e[i])
		rq.Add(bufQ, eQ, bufQ)
		rp.Add(bufP, eP, bufP)
		be.ModDownQPtoQ(rq.Level(), rp.Level(), bufQ, bufP, out)
		rq.NTT(out, out)
	}
}

// apply computes A·w = (t·K0·w_u + t·w_e0 + w_m, K1·w_u + w_e1) in the NTT
// domain.
func (k *Key) apply(w [nComp][]int64, out0, out1 ring.Poly) {
	rq := k.ringQ
	var polys [nComp]ring.Poly
	for i := range nComp {
		polys[i] = rq.NewPoly()
		setSigned(rq, polys[i], w[i])
		rq.NTT(polys[i], polys[i])
	}
	rq.MulCoeffsBarrett(polys[compU], k.k0, out0)
	rq.Add(out0, polys[compE0], out0)
	rq.MulScalar(out0, k.t, out0)
	rq.Add(out0, polys[compM], out0)
	rq.MulCoeffsBarrett(polys[compU], k.k1, out1)
	rq.Add(out1, polys[compE1], out1)
}

func (k *Key) prove(w [nComp][]int64, h fhe.Handle, ctx Context) ([]byte, error) {
	pp := k.PP
	var seed [32]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, err
	}
	xof := sha3.NewSHAKE256()
	_, _ = xof.Write(seed[:])
	rq := k.ringQ
	w0, w1 := rq.NewPoly(), rq.NewPoly()
	var y [nComp][]int64
	for i := range nComp {
		y[i] = make([]int64, pp.N)
	}
	for attempt := 0; attempt < 1000; attempt++ {
		for i := range nComp {
			sampleUniform(xof, y[i], pp.LogB[i])
		}
		k.apply(y, w0, w1)
		hh := k.transcript(ctx, h, w0, w1)
		c := Challenge(hh, pp.N, pp.Kappa)
		pr := &Proof{H: hh}
		ok := true
		for i := range nComp {
			z := sparseMul(c, w[i], pp.N)
			for j := range z {
				z[j] += y[i][j]
				if z[j] > pp.Z[i] || z[j] < -pp.Z[i] {
					ok = false
					break
				}
			}
			if !ok {
				break
			}
			pr.Z[i] = z
		}
		if ok {
			return pp.Marshal(pr), nil
		}
	}
	return nil, fmt.Errorf("zkpok: rejection sampling did not terminate (witness out of bounds?)")
}

// Verify checks a proof for a ciphertext with the given canonical handle
// under ctx. The ciphertext must be a fresh top-level degree-1 encryption.
func (k *Key) Verify(ct *fhe.Ciphertext, h fhe.Handle, ctx Context, proof []byte) error {
	p := k.PK.Params()
	if ct.Params() != p {
		return fmt.Errorf("%w: ciphertext is %s, key is %s", ErrInvalid, ct.Params().Preset.Name, p.Preset.Name)
	}
	if ct.Level() != p.MaxLevel() || ct.Degree() != 1 {
		return fmt.Errorf("%w: ciphertext level %d degree %d, want a fresh encryption (level %d, degree 1)", ErrInvalid, ct.Level(), ct.Degree(), p.MaxLevel())
	}
	if err := ctx.check(); err != nil {
		return err
	}
	pp := k.PP
	pr, err := pp.Unmarshal(proof)
	if err != nil {
		return err
	}
	rq := k.ringQ
	w0, w1 := rq.NewPoly(), rq.NewPoly()
	k.apply(pr.Z, w0, w1)
	c := Challenge(pr.H, pp.N, pp.Kappa)
	cp := rq.NewPoly()
	setSigned(rq, cp, c)
	rq.NTT(cp, cp)
	lct := ct.Lattigo()
	tmp := rq.NewPoly()
	rq.MulCoeffsBarrett(cp, lct.Value[0], tmp)
	rq.MulScalar(tmp, k.t, tmp)
	rq.Sub(w0, tmp, w0)
	rq.MulCoeffsBarrett(cp, lct.Value[1], tmp)
	rq.Sub(w1, tmp, w1)
	if k.transcript(ctx, h, w0, w1) != pr.H {
		return fmt.Errorf("%w: transcript mismatch (the proof is not for this ciphertext, owner, chain, epoch and key)", ErrInvalid)
	}
	return nil
}

// transcript is the Fiat–Shamir hash.
func (k *Key) transcript(ctx Context, h fhe.Handle, w0, w1 ring.Poly) [32]byte {
	x := sha3.NewSHAKE256()
	_, _ = x.Write([]byte(Domain))
	_, _ = x.Write([]byte{byte(k.PK.Params().Preset.ID)})
	var word [32]byte
	if ctx.ChainID != nil && ctx.ChainID.Sign() > 0 {
		ctx.ChainID.FillBytes(word[:])
	}
	_, _ = x.Write(word[:])
	var e [8]byte
	binary.BigEndian.PutUint64(e[:], ctx.Epoch)
	_, _ = x.Write(e[:])
	_, _ = x.Write(ctx.Owner[:])
	_, _ = x.Write(k.Digest[:])
	_, _ = x.Write(h[:])
	buf := make([]byte, 8*k.PP.N)
	for _, poly := range []ring.Poly{w0, w1} {
		for _, row := range poly.Coeffs {
			for j, v := range row {
				binary.LittleEndian.PutUint64(buf[8*j:], v)
			}
			_, _ = x.Write(buf)
		}
	}
	var out [32]byte
	_, _ = x.Read(out[:])
	return out
}

// Challenge expands h into a ternary polynomial with exactly kappa non-zero
// coefficients (±1) in Z[X]/(X^n+1), n a power of two.
func Challenge(h [32]byte, n, kappa int) []int64 {
	x := sha3.NewSHAKE256()
	_, _ = x.Write([]byte(Domain + "/challenge"))
	_, _ = x.Write(h[:])
	c := make([]int64, n)
	var b [4]byte
	for placed := 0; placed < kappa; {
		_, _ = x.Read(b[:])
		r := binary.LittleEndian.Uint32(b[:])
		pos := int(r>>1) & (n - 1)
		if c[pos] != 0 {
			continue
		}
		if r&1 == 0 {
			c[pos] = 1
		} else {
			c[pos] = -1
		}
		placed++
	}
	return c
}

// sparseMul returns c·w in Z[X]/(X^n+1) for a sparse c.
func sparseMul(c, w []int64, n int) []int64 {
	out := make([]int64, n)
	for p, s := range c {
		if s == 0 {
			continue
		}
		for i, v := range w {
			if v == 0 {
				continue
			}
			j := i + p
			if j >= n {
				out[j-n] -= s * v
			} else {
				out[j] += s * v
			}
		}
	}
	return out
}

// sampleUniform fills y with uniform values in [−(2^logB−1), 2^logB−1].
func sampleUniform(xof *sha3.SHAKE, y []int64, logB int) {
	mask := uint64(1)<<(logB+1) - 1
	top := uint64(1)<<(logB+1) - 2 // values 0..top, i.e. 2B+1 of them
	off := int64(1)<<logB - 1
	buf := make([]byte, 8*256)
	var pos = len(buf)
	for i := range y {
		for {
			if pos == len(buf) {
				_, _ = xof.Read(buf)
				pos = 0
			}
			v := binary.LittleEndian.Uint64(buf[pos:]) & mask
			pos += 8
			if v <= top {
				y[i] = int64(v) - off
				break
			}
		}
	}
}

func setSigned(rq *ring.Ring, p ring.Poly, v []int64) {
	for i, s := range rq.SubRings {
		q := int64(s.Modulus)
		row := p.Coeffs[i]
		for j, x := range v {
			r := x % q
			if r < 0 {
				r += q
			}
			row[j] = uint64(r)
		}
	}
}

func centred(row []uint64, q uint64) []int64 {
	out := make([]int64, len(row))
	for i, x := range row {
		if x > q/2 {
			out[i] = -int64(q - x)
		} else {
			out[i] = int64(x)
		}
	}
	return out
}

func infNorm(v []int64) int64 {
	var m int64
	for _, x := range v {
		if x < 0 {
			x = -x
		}
		m = max(m, x)
	}
	return m
}

type bitWriter struct {
	buf []byte
	bit int
}

func (w *bitWriter) put(v uint64, bits int) {
	for bits > 0 {
		byteIdx, off := w.bit>>3, w.bit&7
		n := min(8-off, bits)
		w.buf[byteIdx] |= byte(v&(1<<n-1)) << off
		v >>= n
		bits -= n
		w.bit += n
	}
}

type bitReader struct {
	buf []byte
	bit int
}

func (r *bitReader) get(bits int) uint64 {
	var v uint64
	shift := 0
	for bits > 0 {
		byteIdx, off := r.bit>>3, r.bit&7
		n := min(8-off, bits)
		v |= uint64(r.buf[byteIdx]>>off&(1<<n-1)) << shift
		shift += n
		bits -= n
		r.bit += n
	}
	return v
}

// rest returns the padding bits after the last coefficient.
func (r *bitReader) rest() byte {
	if r.bit&7 == 0 {
		return 0
	}
	return r.buf[r.bit>>3] >> (r.bit & 7)
}

// MaxProofSize bounds a proof of any preset (transport framing checks it
// before slicing): the N=2^14 proof is ≈ 221 KB; 2^16-coefficient rings
// would need ≈ 1 MB.
const MaxProofSize = 1 << 20
