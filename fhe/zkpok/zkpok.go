package zkpok

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha3"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"math"
	"math/big"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"

	"github.com/fhegate/fhegate/fhe"
)

// Version is the first byte of every proof.
const Version = 4

// Domain separates the Fiat–Shamir hash.
const Domain = "fhegate/zkpok/v4"

// shareChallengeDomain is the key-share proofs' challenge domain
// (ShareVersion 1), frozen at the value it had before the input proofs'
// version 4 so that key-share proofs are unchanged.
const shareChallengeDomain = "fhegate/zkpok/v3/challenge"

// SoundnessTarget is the least −log2 of the knowledge error of one proof:
// Params.Reps is ⌈SoundnessTarget / log2(2N)⌉.
const SoundnessTarget = 128

// headerSize is version ‖ preset id ‖ repetitions ‖ h.
const headerSize = 3 + 32

// Witness component indices.
const (
	compU = iota
	compE0
	compE1
	compM
	nComp
)

var compNames = [nComp]string{"u", "e0", "e1", "m"}

// respComps are the components a proof carries responses for: the errors
// e0, e1 sit on identity columns and are absorbed by the rounding of W
// (the package doc, "Protocol").
var respComps = [...]int{compU, compM}

// BetaU bounds the honest u (ternary).
const BetaU = 1

// BetaE bounds the honest encryption errors e0, e1: Lattigo's error
// distribution is the discrete Gaussian of σ = 3.2, and the prover redraws
// any coefficient beyond 19 (≈ 6σ).
const BetaE = 19

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
	FHE *fhe.Params
	N   int
	// Reps is the number of parallel repetitions r, each with its own
	// monomial challenge ±X^i (2N of them): r = ⌈128 / log2(2N)⌉.
	Reps int
	Beta [nComp]uint64 // honest bounds
	LogB [nComp]int    // B_i = 2^LogB_i − 1 (u and m; 0 for e0, e1)
	Z    [nComp]int64  // response bounds B_i − β_i (u and m; 0 for e0, e1)
	Bits [nComp]int    // encoded bits per coefficient (u and m; 0 for e0, e1)
	// D is the rounding modulus: the smallest of q_0 and the P primes. The
	// transcript binds ⌊W/D⌋ of every coefficient of W read in [0, Q·P).
	D uint64
	// PModuli are the auxiliary primes p_j (P = ∏ p_j, empty when the preset
	// has none) and PBits the bits each residue of ρ = ĉ mod P is encoded in.
	PModuli []uint64
	PBits   []int
	// SoundnessBits is r·log2(2N): −log2 of the knowledge error (the
	// package doc, "Soundness").
	SoundnessBits float64
}

// ParamsFor derives the proof parameters of a BGV preset.
func ParamsFor(p *fhe.Params) (*Params, error) {
	if p.Scheme() != fhe.SchemeBGV {
		return nil, fmt.Errorf("zkpok: %s is not BGV", p.Preset.Name)
	}
	n := p.N()
	pp := &Params{FHE: p, N: n}
	logC := math.Log2(2 * float64(n))
	pp.Reps = int(math.Ceil(SoundnessTarget / logC))
	pp.SoundnessBits = float64(pp.Reps) * logC
	pp.Beta = [nComp]uint64{BetaU, BetaE, BetaE, p.PlaintextModulus() - 1}
	for _, i := range respComps {
		// ‖X^i·w‖∞ = ‖w‖∞ ≤ β_i: a response is accepted with probability
		// (1 − β_i/B_i) per coefficient, e^{−1/2} or more over all r·N
		// coefficients of the two components with B_i ≥ 4·r·N·β_i.
		k := int(math.Ceil(math.Log2(4 * float64(n) * float64(pp.Reps) * float64(pp.Beta[i]))))
		pp.LogB[i] = k
		pp.Z[i] = int64(1)<<k - 1 - int64(pp.Beta[i])
		pp.Bits[i] = k + 1 // z + Z ∈ [0, 2Z] < 2^{k+1}
	}
	pp.PModuli = p.RLWE().P()
	for _, q := range pp.PModuli {
		pp.PBits = append(pp.PBits, bits.Len64(q-1))
	}
	pp.D = p.Q()[0]
	for _, q := range pp.PModuli {
		pp.D = min(pp.D, q)
	}
	return pp, nil
}

// Size is the encoded proof length in bytes.
func (pp *Params) Size() int {
	total := 0
	for _, i := range respComps {
		total += pp.Reps * pp.Bits[i] * pp.N
	}
	for _, b := range pp.PBits {
		total += 2 * b * pp.N
	}
	return headerSize + (total+7)/8
}

// Proof is a decoded proof: the challenge hash, the responses and the
// P-residues ρ_i = ĉ_i mod P of the uploaded QP ciphertext (Rho[i][j] is
// the row of p_j, coefficient domain), from which the verifier rebuilds ĉ
// around the canonical ciphertext (see Key).
type Proof struct {
	H   [32]byte
	Z   [][nComp][]int64 // Z[k]: the responses of repetition k (u and m; e0, e1 nil)
	Rho [2][][]uint64
}

// Marshal encodes the proof: version, preset id, the number of repetitions
// r, h, then for each repetition z_u, z_m, each coefficient as
// z+Z_i in Bits_i bits, then ρ0 and ρ1, row by row, each residue in PBits_j
// bits; little-endian bit order.
func (pp *Params) Marshal(pr *Proof) []byte {
	out := make([]byte, pp.Size())
	out[0], out[1], out[2] = Version, byte(pp.FHE.Preset.ID), byte(pp.Reps)
	copy(out[3:headerSize], pr.H[:])
	w := bitWriter{buf: out[headerSize:]}
	for _, z := range pr.Z {
		for _, i := range respComps {
			for _, v := range z[i] {
				w.put(uint64(v+pp.Z[i]), pp.Bits[i])
			}
		}
	}
	for i := range pr.Rho {
		for j, row := range pr.Rho[i] {
			for _, v := range row {
				w.put(v, pp.PBits[j])
			}
		}
	}
	return out
}

// Unmarshal decodes a proof for these parameters. It checks the header
// (version, preset, number of repetitions) and the exact length before
// allocating, and rejects any coefficient outside [−Z_i, Z_i].
func (pp *Params) Unmarshal(b []byte) (*Proof, error) {
	if len(b) < headerSize {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrInvalid, len(b), headerSize)
	}
	if b[0] == 3 {
		return nil, fmt.Errorf("%w: proof version 3 (responses for e0, e1) is no longer accepted: re-encrypt and prove with version %d", ErrInvalid, Version)
	}
	if b[0] != Version {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrInvalid, b[0], Version)
	}
	if b[1] != byte(pp.FHE.Preset.ID) {
		return nil, fmt.Errorf("%w: proof for preset %d, ciphertext is %s", ErrInvalid, b[1], pp.FHE.Preset.Name)
	}
	if int(b[2]) != pp.Reps {
		return nil, fmt.Errorf("%w: %d repetitions, %s needs %d", ErrInvalid, b[2], pp.FHE.Preset.Name, pp.Reps)
	}
	if len(b) != pp.Size() {
		return nil, fmt.Errorf("%w: %d bytes, want %d for %s", ErrInvalid, len(b), pp.Size(), pp.FHE.Preset.Name)
	}
	pr := &Proof{Z: make([][nComp][]int64, pp.Reps)}
	copy(pr.H[:], b[3:headerSize])
	r := bitReader{buf: b[headerSize:]}
	for k := range pr.Z {
		for _, i := range respComps {
			z := make([]int64, pp.N)
			lim := uint64(2 * pp.Z[i])
			for j := range z {
				v := r.get(pp.Bits[i])
				if v > lim {
					return nil, fmt.Errorf("%w: repetition %d: z_%s[%d] out of range", ErrInvalid, k, compNames[i], j)
				}
				z[j] = int64(v) - pp.Z[i]
			}
			pr.Z[k][i] = z
		}
	}
	for i := range pr.Rho {
		pr.Rho[i] = make([][]uint64, len(pp.PModuli))
		for j, q := range pp.PModuli {
			row := make([]uint64, pp.N)
			for l := range row {
				if row[l] = r.get(pp.PBits[j]); row[l] >= q {
					return nil, fmt.Errorf("%w: ρ%d[%d][%d] not reduced mod p_%d", ErrInvalid, i, j, l, j)
				}
			}
			pr.Rho[i][j] = row
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
// Lattigo encrypts over QP and divides by P (ModDown), which keeps the
// fresh noise small. The relation is stated over R_QP, before that
// division: the prover keeps ĉ = pk·u + (e0, e1) + (P·[t^{-1}m]_Q, 0) over
// QP, publishes the canonical ciphertext ct = ModDown_P(ĉ) and, inside the
// proof, ĉ's residues ρ = ĉ mod P. ModDown_P here is exact and integer-only
// (centred lift of ρ by mixed-radix conversion; no floating point, so every
// platform computes the same ct): ct = (ĉ − [ρ]_P)·P^{-1} mod Q. The
// verifier rebuilds ĉ = P·ct + [ρ]_P (mod Q), ρ (mod P), which is the
// prover's ĉ exactly, and checks the proof over R_QP. Whatever slack the
// proof leaves on ĉ is divided by P in ct (see the package doc, "Soundness
// slack").
type Key struct {
	PP     *Params
	PK     *fhe.PublicKey
	Digest [32]byte // keccak256 of the canonical public-key encoding
	level  int      // the level of Q this key proves and verifies at
	rq     *ring.Ring
	rqp    *ring.Ring // the moduli of Q up to level, then those of P
	nQ     int
	pk     [2]ring.Poly // pk over Q_level·P, NTT domain, standard form
	ptInv  *big.Int     // P·[t^{-1}]_{Q_level}
	lift   *lifter
	t      uint64
	dRow   int      // the row of rqp whose prime is D
	dInv   []uint64 // D^{-1} mod each prime of rqp (0 at dRow)
	// mono is the verifier's table for the challenges' NTT form
	// (monomialNTT), built on the first verification.
	monoOnce sync.Once
	mono     monoTable
	// levels holds the keys of every level built from this public key
	// (AtLevel), shared by all of them.
	levels *keyLevels
}

// keyLevels caches the keys of one public key per level.
type keyLevels struct {
	minLevel int // the lowest level Verify accepts (minVerifyLevel)
	mu       sync.Mutex
	byLevel  map[int]*Key
}

// NewKey prepares a BGV public key at the top level (computes its digest
// and its QP form once). Its EncryptInts encrypts at the top level; Verify
// accepts every level from UploadLevel to the top. Clients upload with
// NewUploadKey.
func NewKey(pk *fhe.PublicKey) (*Key, error) {
	return NewKeyAt(pk, pk.Params().MaxLevel())
}

// NewUploadKey is NewKeyAt the upload level (UploadLevel): the key a
// client encrypts and proves its inputs with.
func NewUploadKey(pk *fhe.PublicKey) (*Key, error) {
	l, err := UploadLevel(pk.Params())
	if err != nil {
		return nil, err
	}
	return NewKeyAt(pk, l)
}

// NewKeyAt prepares a BGV public key for proofs at level: its Q ring is
// Q_0 … Q_level, followed by the P primes. The level must lie between
// UploadLevel and the top level (the top level only, for a preset that
// cannot pack).
func NewKeyAt(pk *fhe.PublicKey, level int) (*Key, error) {
	pp, err := ParamsFor(pk.Params())
	if err != nil {
		return nil, err
	}
	b, err := pk.MarshalBinary()
	if err != nil {
		return nil, err
	}
	lv := &keyLevels{minLevel: minVerifyLevel(pk.Params()), byLevel: map[int]*Key{}}
	if err := lv.check(pk.Params(), level); err != nil {
		return nil, err
	}
	k, err := newKeyAt(pk, pp, [32]byte(fhe.HandleOf(b)), level)
	if err != nil {
		return nil, err
	}
	k.levels = lv
	lv.byLevel[level] = k
	return k, nil
}

// check refuses a level outside [minLevel, MaxLevel].
func (lv *keyLevels) check(p *fhe.Params, level int) error {
	if level < lv.minLevel || level > p.MaxLevel() {
		if lv.minLevel == p.MaxLevel() {
			return fmt.Errorf("%w: level %d: %s takes inputs at the top level %d only (it has no upload level)", ErrInvalid, level, p.Preset.Name, p.MaxLevel())
		}
		return fmt.Errorf("%w: level %d outside [%d, %d]: %s takes inputs from the upload level %d to the top level %d", ErrInvalid, level, lv.minLevel, p.MaxLevel(), p.Preset.Name, lv.minLevel, p.MaxLevel())
	}
	return nil
}

// Level returns the level of Q the key encrypts, proves and verifies at.
func (k *Key) Level() int { return k.level }

// AtLevel returns the key of the same public key at level (k itself at
// k.Level()): built once per level and cached, shared by every key of
// the public key. Safe for concurrent use.
func (k *Key) AtLevel(level int) (*Key, error) {
	if level == k.level {
		return k, nil
	}
	lv := k.levels
	if err := lv.check(k.PK.Params(), level); err != nil {
		return nil, err
	}
	lv.mu.Lock()
	defer lv.mu.Unlock()
	if out, ok := lv.byLevel[level]; ok {
		return out, nil
	}
	out, err := newKeyAt(k.PK, k.PP, k.Digest, level)
	if err != nil {
		return nil, err
	}
	out.levels = lv
	lv.byLevel[level] = out
	return out, nil
}

// newKeyAt lifts pk to R_{Q_level·P}.
func newKeyAt(pk *fhe.PublicKey, pp *Params, digest [32]byte, level int) (*Key, error) {
	p := pk.Params()
	rp := p.RLWE()
	rq := rp.RingQ().AtLevel(level)
	qs := rq.ModuliChain()[:rq.Level()+1]
	rqp, err := ring.NewRing(p.N(), append(slices.Clone(qs), pp.PModuli...))
	if err != nil {
		return nil, fmt.Errorf("zkpok: ring over QP: %w", err)
	}
	k := &Key{PP: pp, PK: pk, Digest: digest, level: level, rq: rq, rqp: rqp, nQ: len(qs), t: p.PlaintextModulus()}
	if k.lift, err = newLifter(qs, pp.PModuli); err != nil {
		return nil, err
	}
	bigQ := big.NewInt(1)
	for _, q := range qs {
		bigQ.Mul(bigQ, new(big.Int).SetUint64(q))
	}
	tInv := new(big.Int).ModInverse(new(big.Int).SetUint64(k.t), bigQ)
	if tInv == nil {
		return nil, fmt.Errorf("zkpok: t is not invertible mod Q")
	}
	k.ptInv = tInv.Mul(tInv, k.lift.bigP)
	k.dRow = -1
	k.dInv = make([]uint64, len(rqp.SubRings))
	for i, s := range rqp.SubRings {
		if s.Modulus == pp.D && k.dRow < 0 {
			k.dRow = i
			continue
		}
		k.dInv[i] = new(big.Int).ModInverse(new(big.Int).SetUint64(pp.D), new(big.Int).SetUint64(s.Modulus)).Uint64()
	}
	if k.dRow < 0 {
		return nil, fmt.Errorf("zkpok: the rounding modulus %d is not a prime of Q_%d·P (internal)", pp.D, level)
	}
	lpk := pk.Lattigo()
	rqTop := rp.RingQ().AtLevel(lpk.Value[0].Q.Level())
	for i := range k.pk {
		poly := rqp.NewPoly()
		q := lpk.Value[i].Q.CopyNew()
		rqTop.IMForm(*q, *q)
		rqTop.INTT(*q, *q)
		for r := range k.nQ {
			copy(poly.Coeffs[r], q.Coeffs[r])
		}
		if len(pp.PModuli) > 0 {
			ringP := rp.RingP().AtLevel(rp.MaxLevelP())
			pq := lpk.Value[i].P.CopyNew()
			ringP.IMForm(*pq, *pq)
			ringP.INTT(*pq, *pq)
			for r := range pp.PModuli {
				copy(poly.Coeffs[k.nQ+r], pq.Coeffs[r])
			}
		}
		rqp.NTT(poly, poly)
		k.pk[i] = poly
	}
	return k, nil
}

// EncryptInts encrypts integers (reduced mod t) at the key's level under
// the key and proves plaintext knowledge bound to ctx. It returns the canonical
// ciphertext and the encoded proof (which carries ρ = ĉ mod P).
func (k *Key) EncryptInts(values []int64, ctx Context) (*fhe.Ciphertext, []byte, error) {
	if err := ctx.check(); err != nil {
		return nil, nil, err
	}
	pt, err := k.encodeInts(values)
	if err != nil {
		return nil, nil, err
	}
	var w [nComp][]int64
	// m = t·pt mod Q, an integer polynomial with |m_i| < t (read centred
	// from the first modulus).
	if w[compM], err = k.liftPlaintext(pt); err != nil {
		return nil, nil, err
	}
	p := k.PK.Params()
	prng, err := sampling.NewPRNG()
	if err != nil {
		return nil, nil, err
	}
	xs, err := ring.NewSampler(prng, k.rq, p.RLWE().Xs(), false)
	if err != nil {
		return nil, nil, err
	}
	xe, err := ring.NewSampler(prng, k.rq, p.RLWE().Xe(), false)
	if err != nil {
		return nil, nil, err
	}
	tmp := k.rq.NewPoly()
	w[compU] = sampleBounded(xs, tmp, k.rq, BetaU)
	w[compE0] = sampleBounded(xe, tmp, k.rq, BetaE)
	w[compE1] = sampleBounded(xe, tmp, k.rq, BetaE)
	ct, rho := k.encryptQP(w, pt.MetaData)
	out, err := fhe.WrapCiphertext(p, ct)
	if err != nil {
		return nil, nil, err
	}
	h, err := out.Handle()
	if err != nil {
		return nil, nil, err
	}
	proof, err := k.prove(w, rho, h, ctx)
	if err != nil {
		return nil, nil, err
	}
	return out, proof, nil
}

// encodeInts reduces values mod t into the slots and encodes them in a
// plaintext at the key's level.
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
	pt := bgv.NewPlaintext(p.BGV(), k.level)
	pt.Scale = p.UploadScale() // the committee evaluates 2·ct (fhe.Ciphertext.Evaluable)
	if err := bgv.NewEncoder(p.BGV()).Encode(v, pt); err != nil {
		return nil, fmt.Errorf("zkpok: encode: %w", err)
	}
	return pt, nil
}

// liftPlaintext is m = t·pt mod Q read centred from the first modulus,
// checked to have |m_i| < t.
func (k *Key) liftPlaintext(pt *rlwe.Plaintext) ([]int64, error) {
	rq, t := k.rq, int64(k.t)
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

// sampleBounded reads from s until the centred first row has
// ‖·‖∞ ≤ bound.
func sampleBounded(s ring.Sampler, tmp ring.Poly, rq *ring.Ring, bound int64) []int64 {
	for {
		s.Read(tmp)
		if v := centred(tmp.Coeffs[0], rq.SubRings[0].Modulus); infNorm(v) <= bound {
			return v
		}
	}
}

// encryptQP computes ĉ = pk·u + (e0, e1) + (P·[t^{-1}m]_Q, 0) over QP from
// the witness and returns
// ct = ModDown_P(ĉ) (NTT domain, Lattigo's layout, with meta) and
// ρ = ĉ mod P.
func (k *Key) encryptQP(w [nComp][]int64, meta *rlwe.MetaData) (*rlwe.Ciphertext, [2][][]uint64) {
	return k.finish(k.hatQP(w), meta)
}

// hatQP computes ĉ = pk·u + (e0, e1) + (P·[t^{-1}m]_Q, 0) over QP
// (coefficient domain).
func (k *Key) hatQP(w [nComp][]int64) [2]ring.Poly {
	rqp, rq := k.rqp, k.rq
	uN, tmp := rqp.NewPoly(), rqp.NewPoly()
	setSigned(rqp, uN, w[compU])
	rqp.NTT(uN, uN)
	m := rq.NewPoly()
	setSigned(rq, m, w[compM])
	var hat [2]ring.Poly
	for i := range hat {
		c := rqp.NewPoly()
		rqp.MulCoeffsBarrett(uN, k.pk[i], c)
		rqp.INTT(c, c)
		setSigned(rqp, tmp, w[compE0+i])
		rqp.Add(c, tmp, c)
		if i == 0 { // + P·[t^{-1}m]_Q: R_Q's operations act on Q's rows of c
			rq.MulScalarBigintThenAdd(m, k.ptInv, c)
		}
		hat[i] = c
	}
	return hat
}

// finish returns ct = ModDown_P(ĉ) (NTT domain, with meta) and ρ = ĉ mod P
// for ĉ over QP in the coefficient domain.
func (k *Key) finish(hat [2]ring.Poly, meta *rlwe.MetaData) (*rlwe.Ciphertext, [2][][]uint64) {
	p := k.PK.Params()
	ct := rlwe.NewCiphertext(p.RLWE(), 1, k.level)
	*ct.MetaData = *meta
	ct.IsNTT, ct.IsMontgomery = true, false
	var rho [2][][]uint64
	for i, c := range hat {
		rho[i] = make([][]uint64, len(k.PP.PModuli))
		for j := range rho[i] {
			rho[i][j] = slices.Clone(c.Coeffs[k.nQ+j])
		}
		k.lift.modDown(c.Coeffs[:k.nQ], rho[i], ct.Value[i].Coeffs)
		k.rq.NTT(ct.Value[i], ct.Value[i])
	}
	return ct, rho
}

// rebuild returns ĉ = P·ct + [ρ]_P (mod Q), ρ (mod P) over QP, NTT domain:
// [ρ]_P and ρ are transformed, and P·ct is added in the NTT domain by R_Q's
// operations, which act on Q's rows of a QP polynomial (R_QP's first rows
// are R_Q's moduli, with the same transforms: ring.NewRing derives each
// row's tables from its modulus alone).
func (k *Key) rebuild(ct *rlwe.Ciphertext, rho [2][][]uint64) [2]ring.Poly {
	rqp, rq := k.rqp, k.rq
	var out [2]ring.Poly
	for i := range out {
		c := rqp.NewPoly()
		k.lift.lift(rho[i], rqp.N(), c.Coeffs[:k.nQ])
		for j := range rho[i] {
			copy(c.Coeffs[k.nQ+j], rho[i][j])
		}
		rqp.NTT(c, c)
		ctN := ct.Value[i]
		if !ct.IsNTT {
			ctN = rq.NewPoly()
			rq.NTT(ct.Value[i], ctN)
		}
		rq.MulScalarBigintThenAdd(ctN, k.lift.bigP, c)
		out[i] = c
	}
	return out
}

// apply computes W = A′·(w_u, w_m) = (pk0·w_u + γ·w_m, pk1·w_u) over QP in
// the coefficient domain, γ = P·[t^{-1}]_Q (the e components of w are
// ignored: they sit on identity columns and are absorbed by the rounding).
// Three transforms: w_u forward, the two products back; γ·w_m is added in
// the coefficient domain on Q's rows (γ ≡ 0 mod P).
func (k *Key) apply(w [nComp][]int64, out0, out1 ring.Poly) {
	rqp := k.rqp
	u := rqp.NewPoly()
	setSigned(rqp, u, w[compU])
	rqp.NTT(u, u)
	rqp.MulCoeffsBarrett(u, k.pk[0], out0)
	rqp.MulCoeffsBarrett(u, k.pk[1], out1)
	rqp.INTT(out0, out0)
	rqp.INTT(out1, out1)
	k.addGammaM(w[compM], out0)
}

// addGammaM adds γ·m = P·[t^{-1}]_Q·m to a QP polynomial in the coefficient
// domain (R_Q's operations act on Q's rows; γ vanishes mod P).
func (k *Key) addGammaM(m []int64, out ring.Poly) {
	mp := k.rq.NewPoly()
	setSigned(k.rq, mp, m)
	k.rq.MulScalarBigintThenAdd(mp, k.ptInv, out)
}

// highParts replaces, in a QP polynomial in the coefficient domain, every
// row but D's by the residues of ⌊V/D⌋ = (V − (V mod D))/D, V each
// coefficient's integer representative in [0, Q·P): V mod D is the residue
// at D's row (D is one of the primes), so ⌊V/D⌋ ≡ (v_i − v_D)·D^{-1}
// (mod q_i) exactly, and since D divides Q·P, ⌊V/D⌋ ∈ [0, Q·P/D) is
// determined by its residues modulo the other primes (CRT). Integer
// arithmetic only: every machine gets the same bytes. D's row keeps the
// low parts V mod D.
func (k *Key) highParts(v ring.Poly) {
	low := v.Coeffs[k.dRow]
	for i, s := range k.rqp.SubRings {
		if i == k.dRow {
			continue
		}
		q, bred, dInv, row := s.Modulus, s.BRedConstant, k.dInv[i], v.Coeffs[i]
		for l, x := range row {
			d := low[l]
			if d >= q {
				d = ring.BRedAdd(d, q, bred)
			}
			if x < d {
				x += q
			}
			row[l] = ring.BRed(x-d, dInv, q, bred)
		}
	}
}

func (k *Key) prove(w [nComp][]int64, rho [2][][]uint64, h fhe.Handle, ctx Context) ([]byte, error) {
	b, _, err := k.proveStats(w, rho, h, ctx)
	return b, err
}

// proveStats counts the prover's restarts: for a response outside its box
// (rejection sampling) and for a low part too close to the edge of its
// D-interval (rounding).
type proveStats struct {
	Attempts, Box, Rounding int
}

// proveStats is prove, also returning its restart counts.
func (k *Key) proveStats(w [nComp][]int64, rho [2][][]uint64, h fhe.Handle, ctx Context) ([]byte, proveStats, error) {
	pp := k.PP
	var st proveStats
	var seed [32]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, st, err
	}
	xof := sha3.NewSHAKE256()
	_, _ = xof.Write(seed[:])
	r := pp.Reps
	ys := make([][nComp][]int64, r)
	ws := make([][2]ring.Poly, r)
	for j := range r {
		for _, i := range respComps {
			ys[j][i] = make([]int64, pp.N)
		}
		ws[j] = [2]ring.Poly{k.rqp.NewPoly(), k.rqp.NewPoly()}
	}
	beta, dMax := int64(BetaE), int64(pp.D)-1-int64(BetaE)
	for attempt := 0; attempt < 1000; attempt++ {
		st.Attempts++
		for j := range r {
			for _, i := range respComps {
				sampleUniform(xof, ys[j][i], pp.LogB[i])
			}
		}
		forEach(r, func(j int) {
			k.apply(ys[j], ws[j][0], ws[j][1])
			k.highParts(ws[j][0])
			k.highParts(ws[j][1])
		})
		hh := k.transcript(ctx, h, rho, ws)
		es := Challenges(hh, pp.N, r)
		pr := &Proof{H: hh, Rho: rho, Z: make([][nComp][]int64, r)}
		ok := true
		for j := 0; j < r && ok; j++ {
			for _, i := range respComps {
				z := mulMonomial(es[j], w[i])
				for l := range z {
					z[l] += ys[j][i][l]
					if z[l] > pp.Z[i] || z[l] < -pp.Z[i] {
						ok = false
						break
					}
				}
				if !ok {
					st.Box++
					break
				}
				pr.Z[j][i] = z
			}
		}
		// V = W − c·e, whose high parts the verifier recomputes, has those
		// of W when its low part V mod D lies in [βe, D − 1 − βe]
		// (‖c·e‖∞ ≤ βe). The condition is on V, which the verifier (and a
		// simulator) computes from public data, not on W: the restart
		// reveals nothing about e (Dilithium's check on LowBits(w − c·s2)).
		for j := 0; j < r && ok; j++ {
			for i := range 2 {
				ce := mulMonomial(es[j], w[compE0+i])
				low := ws[j][i].Coeffs[k.dRow]
				for l, x := range low {
					if v := int64(x) - ce[l]; v < beta || v > dMax {
						ok = false
						break
					}
				}
				if !ok {
					st.Rounding++
					break
				}
			}
		}
		if ok {
			return pp.Marshal(pr), st, nil
		}
	}
	return nil, st, fmt.Errorf("zkpok: rejection sampling did not terminate (witness out of bounds?)")
}

// forEach runs f(0) … f(n−1) on up to GOMAXPROCS goroutines (the
// repetitions are independent; Lattigo's ring operations keep no state).
func forEach(n int, f func(j int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for j := range n {
			f(j)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := int(next.Add(1) - 1); j < n; j = int(next.Add(1) - 1) {
				f(j)
			}
		}()
	}
	wg.Wait()
}

// Verify checks a proof for a ciphertext with the given canonical handle
// under ctx. The ciphertext must be a fresh degree-1 encryption at the
// upload scale (fhe.Params.UploadScale: the committee evaluates 2·ct, see
// the package doc) at any level from UploadLevel to the top: the proof is
// checked with the key of ct's level (AtLevel), whatever k's level. A
// ciphertext below UploadLevel (or above the top) is refused. The
// transcript binds the level through the handle (the canonical encoding's
// header carries it, and its body has level+1 rows).
func (k *Key) Verify(ct *fhe.Ciphertext, h fhe.Handle, ctx Context, proof []byte) error {
	p := k.PK.Params()
	if ct.Params() != p {
		return fmt.Errorf("%w: ciphertext is %s, key is %s", ErrInvalid, ct.Params().Preset.Name, p.Preset.Name)
	}
	if ct.Degree() != 1 {
		return fmt.Errorf("%w: ciphertext of degree %d, want a fresh encryption (degree 1)", ErrInvalid, ct.Degree())
	}
	k, err := k.AtLevel(ct.Level())
	if err != nil {
		return fmt.Errorf("ciphertext: %w", err)
	}
	if !ct.IsUpload() {
		return fmt.Errorf("%w: ciphertext scale is not the upload scale 2^-1 mod t (encrypt with zkpok.Key.EncryptInts)", ErrInvalid)
	}
	if err := ctx.check(); err != nil {
		return err
	}
	pp := k.PP
	pr, err := pp.Unmarshal(proof)
	if err != nil {
		return err
	}
	hat := k.rebuild(ct.Lattigo(), pr.Rho)
	es := Challenges(pr.H, pp.N, pp.Reps)
	ws := make([][2]ring.Poly, pp.Reps)
	forEach(pp.Reps, func(j int) {
		w0, w1 := k.residual(pr.Z[j], es[j], hat)
		k.highParts(w0)
		k.highParts(w1)
		ws[j] = [2]ring.Poly{w0, w1}
	})
	if k.transcript(ctx, h, pr.Rho, ws) != pr.H {
		return fmt.Errorf("%w: transcript mismatch (the proof is not for this ciphertext, owner, chain, epoch and key)", ErrInvalid)
	}
	return nil
}

// residual is V = A′·(z_u, z_m) − X^e·ĉ over QP in the coefficient domain,
// ĉ in the NTT domain: z_u is transformed once, X^e·ĉ_i is subtracted in
// the NTT domain (the challenge by table, monomialNTT), the two rows are
// transformed back and γ·z_m is added. Three transforms.
func (k *Key) residual(z [nComp][]int64, e int, hat [2]ring.Poly) (ring.Poly, ring.Poly) {
	rqp := k.rqp
	u, w0, w1, tmp := rqp.NewPoly(), rqp.NewPoly(), rqp.NewPoly(), rqp.NewPoly()
	setSigned(rqp, u, z[compU])
	rqp.NTT(u, u)
	c := k.monomialNTT(e)
	rqp.MulCoeffsBarrett(u, k.pk[0], w0)
	rqp.MulCoeffsBarrett(c, hat[0], tmp)
	rqp.Sub(w0, tmp, w0)
	rqp.MulCoeffsBarrett(u, k.pk[1], w1)
	rqp.MulCoeffsBarrett(c, hat[1], tmp)
	rqp.Sub(w1, tmp, w1)
	rqp.INTT(w0, w0)
	rqp.INTT(w1, w1)
	k.addGammaM(z[compM], w0)
	return w0, w1
}

// monomialNTT is X^e (e < 2N; X^N = −1) over QP in the NTT domain: in NTT
// slot j of prime q, X evaluates to a primitive 2N-th root of unity
// x_j = ψ^{k_j}, so X^e evaluates to ψ^{k_j·e mod 2N} — a table lookup per
// slot (monoTable) instead of a transform, the same values as the NTT of
// the monomial.
func (k *Key) monomialNTT(e int) ring.Poly {
	k.monoOnce.Do(func() { k.mono = newMonoTable(k.rqp) })
	c := k.rqp.NewPoly()
	mask := 2*k.PP.N - 1 // N is a power of two
	for i := range k.rqp.SubRings {
		pow, log, row := k.mono.pow[i], k.mono.log[i], c.Coeffs[i]
		for j, kj := range log {
			row[j] = pow[(int(kj)*e)&mask]
		}
	}
	return c
}

// monoTable holds, per prime q of QP, the powers ψ^0 … ψ^{2N−1} of ψ = the
// NTT slot 0 of X (a primitive 2N-th root of unity mod q: X^N+1 splits into
// X − ψ^{odd}), and for each NTT slot j the exponent k_j of X's value there.
type monoTable struct {
	pow [][]uint64
	log [][]uint32
}

func newMonoTable(rqp *ring.Ring) monoTable {
	x := rqp.NewPoly()
	n := rqp.N()
	for i := range rqp.SubRings {
		x.Coeffs[i][1] = 1
	}
	rqp.NTT(x, x)
	t := monoTable{pow: make([][]uint64, len(rqp.SubRings)), log: make([][]uint32, len(rqp.SubRings))}
	for i, s := range rqp.SubRings {
		q, psi := s.Modulus, x.Coeffs[i][0]
		pow := make([]uint64, 2*n)
		at := make(map[uint64]uint32, 2*n)
		v := uint64(1)
		for e := range pow {
			pow[e], at[v] = v, uint32(e)
			hi, lo := bits.Mul64(v, psi)
			_, v = bits.Div64(hi, lo, q)
		}
		log := make([]uint32, n)
		for j, xj := range x.Coeffs[i] {
			log[j] = at[xj] // every x_j is an odd power of ψ
		}
		t.pow[i], t.log[i] = pow, log
	}
	return t
}

// transcript is the Fiat–Shamir hash, SHA-256 (hardware-accelerated where
// the CPU has it: W is 3 MB a repetition on BGVN14, and SHAKE256 over it
// was a fifth of a verification) of the context, the key digest, the
// canonical ciphertext's handle, ρ (the rest of the statement ĉ) and every
// repetition's W.
func (k *Key) transcript(ctx Context, h fhe.Handle, rho [2][][]uint64, ws [][2]ring.Poly) [32]byte {
	x := k.transcriptPrefix(ctx, h, rho)
	buf := make([]byte, 8*k.PP.N)
	for _, w := range ws {
		for i := range w {
			writeRows(x, buf, w[i].Coeffs[:k.dRow])
			writeRows(x, buf, w[i].Coeffs[k.dRow+1:])
		}
	}
	return [32]byte(x.Sum(nil))
}

// transcriptPrefix is the transcript's hash state after everything but W.
func (k *Key) transcriptPrefix(ctx Context, h fhe.Handle, rho [2][][]uint64) hash.Hash {
	x := sha256.New()
	_, _ = x.Write([]byte(Domain))
	_, _ = x.Write([]byte{byte(k.PK.Params().Preset.ID), byte(k.PP.Reps)})
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
	writeRows(x, buf, rho[0])
	writeRows(x, buf, rho[1])
	return x
}

// writeRows writes rows of residues, each as N little-endian 64-bit words.
func writeRows(x hash.Hash, buf []byte, rows [][]uint64) {
	for _, row := range rows {
		for j, v := range row {
			binary.LittleEndian.PutUint64(buf[8*j:], v)
		}
		_, _ = x.Write(buf)
	}
}

// Challenges expands h into r monomial challenges: exponents e_j uniform in
// [0, 2n) (n a power of two), the challenge of repetition j being
// X^{e_j} ∈ {±X^i : 0 ≤ i < n} in Z[X]/(X^n+1).
func Challenges(h [32]byte, n, r int) []int {
	return challenges(Domain+"/challenge", h, n, r)
}

// challenges is Challenges under a given domain string.
func challenges(domain string, h [32]byte, n, r int) []int {
	x := sha3.NewSHAKE256()
	_, _ = x.Write([]byte(domain))
	_, _ = x.Write(h[:])
	es := make([]int, r)
	var b [4]byte
	for j := range es {
		_, _ = x.Read(b[:])
		es[j] = int(binary.LittleEndian.Uint32(b[:]) & uint32(2*n-1))
	}
	return es
}

// mulMonomial returns X^e·w in Z[X]/(X^n+1), n = len(w), 0 ≤ e < 2n: a
// negacyclic rotation.
func mulMonomial(e int, w []int64) []int64 {
	n := len(w)
	out := make([]int64, n)
	sign := int64(1)
	if e >= n {
		e, sign = e-n, -1
	}
	for i, v := range w {
		if j := i + e; j >= n {
			out[j-n] = -sign * v
		} else {
			out[j] = sign * v
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
	for i, s := range rq.SubRings[:rq.Level()+1] { // a ring at a level keeps every subring
		q := int64(s.Modulus)
		row := p.Coeffs[i]
		for j, x := range v {
			switch {
			case x >= 0 && x < q: // responses are far below every prime: no division
				row[j] = uint64(x)
			case x < 0 && x > -q:
				row[j] = uint64(x + q)
			default:
				r := x % q
				if r < 0 {
					r += q
				}
				row[j] = uint64(r)
			}
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
// before slicing): the N=2^14 proof is 1,404,963 B (9 repetitions of
// z_u and z_m, 119 KB each, and ĉ mod P, 80 bits a coefficient, 328 KB;
// version 3's was 2,326,563 B).
const MaxProofSize = 4 << 20
