package zkpok

// Public-key share proofs: see the package doc, "Public-key shares".

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha3"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/ring/ringqp"

	"github.com/fhegate/fhegate/fhe"
)

// ShareVersion is the key-share proof's encoding version.
const ShareVersion = 1

// ShareDomain separates the key-share proof's Fiat–Shamir hash from the
// input proof's.
const ShareDomain = "fhegate/zkpok/keyshare/v1"

// Key-share witness component indices.
const (
	shareS = iota
	shareE
	nShare
)

var shareNames = [nShare]string{"s", "e"}

// ShareParams are the key-share proof parameters of one preset.
type ShareParams struct {
	FHE           *fhe.Params
	N             int
	Reps          int            // r = ⌈128 / log2(2N)⌉
	Beta          [nShare]uint64 // honest bounds: 1 (ternary s), βe
	LogB          [nShare]int    // B_i = 2^LogB_i − 1
	Z             [nShare]int64  // response bounds B_i − β_i
	Bits          [nShare]int    // encoded bits per coefficient
	SoundnessBits float64        // r·log2(2N)
	_             [0]func()      // not comparable
}

// ShareParamsFor derives the key-share proof parameters of a preset (any
// scheme: the relation is RLWE's).
func ShareParamsFor(p *fhe.Params) (*ShareParams, error) {
	n := p.N()
	if n < 2 || n&(n-1) != 0 {
		return nil, fmt.Errorf("zkpok: ring degree %d is not a power of two", n)
	}
	sp := &ShareParams{FHE: p, N: n}
	logC := math.Log2(2 * float64(n))
	sp.Reps = int(math.Ceil(SoundnessTarget / logC))
	sp.SoundnessBits = float64(sp.Reps) * logC
	sp.Beta = [nShare]uint64{BetaU, BetaE}
	for i := range nShare {
		k := int(math.Ceil(math.Log2(4 * float64(n) * float64(sp.Reps) * float64(sp.Beta[i]))))
		sp.LogB[i] = k
		sp.Z[i] = int64(1)<<k - 1 - int64(sp.Beta[i])
		sp.Bits[i] = k + 1
	}
	return sp, nil
}

// Size is the encoded key-share proof length in bytes.
func (sp *ShareParams) Size() int {
	total := 0
	for i := range nShare {
		total += sp.Reps * sp.Bits[i] * sp.N
	}
	return headerSize + (total+7)/8
}

// KeyShareErrorBits is log2 of the bound an accepted key share's error
// satisfies, N·Z_e (see "Public-key shares" above); an honest share's is
// log2(βe) = 4.2.
func (sp *ShareParams) KeyShareErrorBits() float64 {
	return math.Log2(float64(sp.N) * float64(sp.Z[shareE]))
}

// ShareContext is what a key-share proof binds besides the share: the
// DKG's epoch, the member that sends the share, and the CRS seed a is
// drawn from.
type ShareContext struct {
	Epoch  uint64
	Member uint32
	Seed   [32]byte
}

// shareProof is a decoded key-share proof.
type shareProof struct {
	H [32]byte
	Z [][nShare][]int64
}

// marshal encodes a key-share proof: version, preset id, r, h, then for
// each repetition z_s and z_e, each coefficient as z+Z_i in Bits_i bits,
// little-endian bit order.
func (sp *ShareParams) marshal(pr *shareProof) []byte {
	out := make([]byte, sp.Size())
	out[0], out[1], out[2] = ShareVersion, byte(sp.FHE.Preset.ID), byte(sp.Reps)
	copy(out[3:headerSize], pr.H[:])
	w := bitWriter{buf: out[headerSize:]}
	for _, z := range pr.Z {
		for i := range nShare {
			for _, v := range z[i] {
				w.put(uint64(v+sp.Z[i]), sp.Bits[i])
			}
		}
	}
	return out
}

// unmarshal decodes a key-share proof: header and exact length are
// checked before anything is allocated, and every coefficient outside
// [−Z_i, Z_i] is refused.
func (sp *ShareParams) unmarshal(b []byte) (*shareProof, error) {
	if len(b) < headerSize {
		return nil, fmt.Errorf("%w: key-share proof of %d bytes, shorter than the %d-byte header", ErrInvalid, len(b), headerSize)
	}
	if b[0] != ShareVersion {
		return nil, fmt.Errorf("%w: key-share proof version %d, want %d", ErrInvalid, b[0], ShareVersion)
	}
	if b[1] != byte(sp.FHE.Preset.ID) {
		return nil, fmt.Errorf("%w: key-share proof for preset %d, the key is %s", ErrInvalid, b[1], sp.FHE.Preset.Name)
	}
	if int(b[2]) != sp.Reps {
		return nil, fmt.Errorf("%w: %d repetitions, %s needs %d", ErrInvalid, b[2], sp.FHE.Preset.Name, sp.Reps)
	}
	if len(b) != sp.Size() {
		return nil, fmt.Errorf("%w: key-share proof of %d bytes, want %d for %s", ErrInvalid, len(b), sp.Size(), sp.FHE.Preset.Name)
	}
	pr := &shareProof{Z: make([][nShare][]int64, sp.Reps)}
	copy(pr.H[:], b[3:headerSize])
	r := bitReader{buf: b[headerSize:]}
	for k := range pr.Z {
		for i := range nShare {
			z := make([]int64, sp.N)
			lim := uint64(2 * sp.Z[i])
			for j := range z {
				v := r.get(sp.Bits[i])
				if v > lim {
					return nil, fmt.Errorf("%w: repetition %d: z_%s[%d] out of range", ErrInvalid, k, shareNames[i], j)
				}
				z[j] = int64(v) - sp.Z[i]
			}
			pr.Z[k][i] = z
		}
	}
	if r.rest() != 0 {
		return nil, fmt.Errorf("%w: non-zero padding bits", ErrInvalid)
	}
	return pr, nil
}

// ShareKey is the common reference polynomial a of a DKG's public-key
// round prepared for proving and verifying key shares.
type ShareKey struct {
	SP    *ShareParams
	rqp   *ring.Ring // Q's moduli (top level), then P's
	ringQ *ring.Ring
	ringP *ring.Ring // nil without an auxiliary modulus
	nQ    int
	a     ring.Poly // a over QP, NTT domain, standard form

	monoOnce sync.Once
	mono     monoTable
}

// NewShareKey prepares the CRP of a public-key round (Lattigo's
// multiparty.PublicKeyGenCRP value: NTT domain, read in Montgomery form
// like the key it becomes).
func NewShareKey(p *fhe.Params, crp ringqp.Poly) (*ShareKey, error) {
	sp, err := ShareParamsFor(p)
	if err != nil {
		return nil, err
	}
	rp := p.RLWE()
	k := &ShareKey{SP: sp, ringQ: rp.RingQ().AtLevel(rp.MaxLevelQ())}
	qs := k.ringQ.ModuliChain()[:k.ringQ.Level()+1]
	k.nQ = len(qs)
	moduli := slices.Clone(qs)
	if rp.RingP() != nil && rp.MaxLevelP() >= 0 {
		k.ringP = rp.RingP().AtLevel(rp.MaxLevelP())
		moduli = append(moduli, k.ringP.ModuliChain()[:k.ringP.Level()+1]...)
	}
	if k.rqp, err = ring.NewRing(p.N(), moduli); err != nil {
		return nil, fmt.Errorf("zkpok: ring over QP: %w", err)
	}
	if k.a, err = k.toQP(crp); err != nil {
		return nil, fmt.Errorf("zkpok: common reference polynomial: %w", err)
	}
	return k, nil
}

// toQP converts a Lattigo QP polynomial in the NTT domain and Montgomery
// form (a key, a key share, the CRP read as the key's second component)
// into the QP ring of the proof, NTT domain, standard form, after checking
// its shape (every row there, N coefficients each, every residue reduced).
func (k *ShareKey) toQP(x ringqp.Poly) (ring.Poly, error) {
	n := k.SP.N
	check := func(rows [][]uint64, want int, moduli []uint64, what string) error {
		if len(rows) != want {
			return fmt.Errorf("%w: %s has %d rows, want %d", ErrInvalid, what, len(rows), want)
		}
		for i, row := range rows {
			if len(row) != n {
				return fmt.Errorf("%w: %s row %d has %d coefficients, want %d", ErrInvalid, what, i, len(row), n)
			}
			for _, v := range row {
				if v >= moduli[i] {
					return fmt.Errorf("%w: %s row %d not reduced", ErrInvalid, what, i)
				}
			}
		}
		return nil
	}
	moduli := k.rqp.ModuliChain()
	if err := check(x.Q.Coeffs, k.nQ, moduli[:k.nQ], "Q part"); err != nil {
		return ring.Poly{}, err
	}
	nP := len(moduli) - k.nQ
	if nP > 0 {
		if err := check(x.P.Coeffs, nP, moduli[k.nQ:], "P part"); err != nil {
			return ring.Poly{}, err
		}
	} else if len(x.P.Coeffs) != 0 {
		return ring.Poly{}, fmt.Errorf("%w: a P part without an auxiliary modulus", ErrInvalid)
	}
	out := k.rqp.NewPoly()
	q := x.Q.CopyNew()
	k.ringQ.IMForm(*q, *q)
	k.ringQ.INTT(*q, *q)
	for r := range k.nQ {
		copy(out.Coeffs[r], q.Coeffs[r])
	}
	if nP > 0 {
		pq := x.P.CopyNew()
		k.ringP.IMForm(*pq, *pq)
		k.ringP.INTT(*pq, *pq)
		for r := range nP {
			copy(out.Coeffs[k.nQ+r], pq.Coeffs[r])
		}
	}
	k.rqp.NTT(out, out)
	return out, nil
}

// apply computes A·w = w_e − a·w_s over QP in the NTT domain.
func (k *ShareKey) apply(w [nShare][]int64, out ring.Poly) {
	rqp := k.rqp
	s, e := rqp.NewPoly(), rqp.NewPoly()
	setSigned(rqp, s, w[shareS])
	setSigned(rqp, e, w[shareE])
	rqp.NTT(s, s)
	rqp.NTT(e, e)
	rqp.MulCoeffsBarrett(s, k.a, out)
	rqp.Sub(e, out, out)
}

// Witness returns the witness (s, e) of a key share b = −a·s + e made
// with sk (centred coefficients; e = b + a·s).
func (k *ShareKey) witness(sk *rlwe.SecretKey, share ringqp.Poly) ([nShare][]int64, ring.Poly, error) {
	var w [nShare][]int64
	sN, err := k.toQP(sk.Value)
	if err != nil {
		return w, ring.Poly{}, fmt.Errorf("zkpok: secret key: %w", err)
	}
	bN, err := k.toQP(share)
	if err != nil {
		return w, ring.Poly{}, fmt.Errorf("zkpok: key share: %w", err)
	}
	rqp := k.rqp
	eN := rqp.NewPoly()
	rqp.MulCoeffsBarrett(sN, k.a, eN)
	rqp.Add(eN, bN, eN)
	rqp.INTT(eN, eN)
	rqp.INTT(sN, sN)
	w[shareS] = centred(sN.Coeffs[0], rqp.SubRings[0].Modulus)
	w[shareE] = centred(eN.Coeffs[0], rqp.SubRings[0].Modulus)
	clear(sN.Coeffs[0])
	return w, bN, nil
}

// Prove proves that share = −a·s + e with sk's s ternary and e short
// (what multiparty.PublicKeyGenProtocol.GenShare makes), bound to ctx. It
// fails when the witness is out of the honest bounds (rejection sampling
// does not terminate).
func (k *ShareKey) Prove(sk *rlwe.SecretKey, share ringqp.Poly, ctx ShareContext) ([]byte, error) {
	w, bN, err := k.witness(sk, share)
	if err != nil {
		return nil, err
	}
	defer clear(w[shareS])
	return k.prove(w, bN, ctx, 1000)
}

// prove runs the Σ-protocol on witness w for the statement bN (NTT) with
// at most attempts tries of rejection sampling.
func (k *ShareKey) prove(w [nShare][]int64, bN ring.Poly, ctx ShareContext, attempts int) ([]byte, error) {
	sp := k.SP
	var seed [32]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, err
	}
	xof := sha3.NewSHAKE256()
	_, _ = xof.Write(seed[:])
	r := sp.Reps
	ys := make([][nShare][]int64, r)
	ws := make([]ring.Poly, r)
	for j := range r {
		for i := range nShare {
			ys[j][i] = make([]int64, sp.N)
		}
		ws[j] = k.rqp.NewPoly()
	}
	for range attempts {
		for j := range r {
			for i := range nShare {
				sampleUniform(xof, ys[j][i], sp.LogB[i])
			}
		}
		forEach(r, func(j int) { k.apply(ys[j], ws[j]) })
		hh := k.transcript(ctx, bN, ws)
		es := challenges(shareChallengeDomain, hh, sp.N, r)
		pr := &shareProof{H: hh, Z: make([][nShare][]int64, r)}
		ok := true
		for j := 0; j < r && ok; j++ {
			for i := 0; i < nShare && ok; i++ {
				z := mulMonomial(es[j], w[i])
				for l := range z {
					z[l] += ys[j][i][l]
					if z[l] > sp.Z[i] || z[l] < -sp.Z[i] {
						ok = false
						break
					}
				}
				pr.Z[j][i] = z
			}
		}
		if ok {
			return sp.marshal(pr), nil
		}
	}
	return nil, fmt.Errorf("zkpok: key-share proof: rejection sampling did not terminate (witness out of bounds)")
}

// Verify checks a key-share proof for share (a Lattigo public-key share:
// NTT domain, Montgomery form) under ctx. It checks the share's shape and
// the proof's length before any arithmetic.
func (k *ShareKey) Verify(share ringqp.Poly, ctx ShareContext, proof []byte) error {
	sp := k.SP
	pr, err := sp.unmarshal(proof)
	if err != nil {
		return err
	}
	bN, err := k.toQP(share)
	if err != nil {
		return err
	}
	rqp := k.rqp
	es := challenges(shareChallengeDomain, pr.H, sp.N, sp.Reps)
	ws := make([]ring.Poly, sp.Reps)
	k.monoOnce.Do(func() { k.mono = newMonoTable(rqp) })
	forEach(sp.Reps, func(j int) {
		w, tmp := rqp.NewPoly(), rqp.NewPoly()
		k.apply(pr.Z[j], w)
		rqp.MulCoeffsBarrett(k.monomial(es[j]), bN, tmp)
		rqp.Sub(w, tmp, w)
		ws[j] = w
	})
	if k.transcript(ctx, bN, ws) != pr.H {
		return fmt.Errorf("%w: key-share transcript mismatch (the proof is not for this share, member, epoch and reference polynomial, or its error is not short)", ErrInvalid)
	}
	return nil
}

// monomial is X^e over QP in the NTT domain (Key.monomialNTT's table).
func (k *ShareKey) monomial(e int) ring.Poly {
	c := k.rqp.NewPoly()
	mask := 2*k.SP.N - 1
	for i := range k.rqp.SubRings {
		pow, log, row := k.mono.pow[i], k.mono.log[i], c.Coeffs[i]
		for j, kj := range log {
			row[j] = pow[(int(kj)*e)&mask]
		}
	}
	return c
}

// transcript is the key-share proof's Fiat–Shamir hash.
func (k *ShareKey) transcript(ctx ShareContext, bN ring.Poly, ws []ring.Poly) [32]byte {
	x := sha256.New()
	_, _ = x.Write([]byte(ShareDomain))
	_, _ = x.Write([]byte{byte(k.SP.FHE.Preset.ID), byte(k.SP.Reps)})
	var hdr [12]byte
	binary.BigEndian.PutUint64(hdr[:8], ctx.Epoch)
	binary.BigEndian.PutUint32(hdr[8:], ctx.Member)
	_, _ = x.Write(hdr[:])
	_, _ = x.Write(ctx.Seed[:])
	buf := make([]byte, 8*k.SP.N)
	writeRows(x, buf, bN.Coeffs)
	for _, w := range ws {
		writeRows(x, buf, w.Coeffs)
	}
	return [32]byte(x.Sum(nil))
}
