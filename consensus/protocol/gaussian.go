package protocol

import (
	crand "crypto/rand"
	"fmt"
	"math"
	"math/bits"
	mrand "math/rand/v2"

	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe/noise"
)

// GaussianSampler is the flooding sampler (one for every flooded share:
// threshold decryption, re-encryption and the refresh's masked decryption):
// D_{Z,σ} cut at 8σ for 2^2 ≤ σ ≤ 2^99, from a ChaCha8 stream keyed with
// crypto/rand, within max-log distance 2^−37.2 of the ideal, with no branch
// or memory index depending on a sample. Construction, bound and side
// channels: docs/derivations.md, "The flooding sampler".
type GaussianSampler struct {
	r      *mrand.Rand
	sigma  float64
	tail   float64 // |x| ≤ tail
	conv   bool
	s1, s2 float64 // base σ of z1 and z2 (conv); s2 = σ when !conv
	spare  float64
	have   bool
	// wide (σ > 2^60): x = lo + 2^40·hi, lo from a narrow sampler at
	// σ1 = 2^50, hi from one at √(σ² − σ1²)/2^40 whose cut is widened to
	// tail/2^40 + 2^16; tailHi:tailLo is ⌊tail⌋ as a 128-bit integer.
	wide           bool
	lo, hi         *GaussianSampler
	tailHi, tailLo uint64
}

const (
	// maxSamplerSigmaBits is the largest σ the sampler is exact for (the
	// wide convolution's σ2 = √(σ² − 2^100)/2^40 stays ≤ 2^59, so its
	// widened cut, ≈ 8σ2 + 2^16, fits an int64).
	maxSamplerSigmaBits = 99
	// narrowSigmaBits is the largest σ whose samples are int64s (Int64).
	narrowSigmaBits   = 60
	baseSigmaMaxBits  = 40
	convShiftBits     = 20 // k = 2^20
	convFineSigmaBits = 28 // σ1 = 2^28
	wideShiftBits     = 40 // K = 2^40
	wideFineSigmaBits = 50 // σ1 = 2^50
	// wideSlackBits widens the cut of the wide sampler's hi part beyond
	// tail/K: given x, hi is Gaussian with σ ≈ σ1/K = 2^10 around a centre
	// ≤ tail/K, so 2^16 is 64 of its standard deviations.
	wideSlackBits = 16
)

// NewGaussianSampler returns a sampler of D_{Z,σ}, σ = 2^sigmaBits, keyed from
// crypto/rand.
func NewGaussianSampler(sigmaBits float64) (*GaussianSampler, error) {
	var seed [32]byte
	if _, err := crand.Read(seed[:]); err != nil {
		return nil, fmt.Errorf("protocol: flooding seed: %w", err)
	}
	return newGaussianSamplerFromSeed(sigmaBits, seed)
}

func newGaussianSamplerFromSeed(sigmaBits float64, seed [32]byte) (*GaussianSampler, error) {
	if !(sigmaBits >= 2 && sigmaBits <= maxSamplerSigmaBits) {
		return nil, fmt.Errorf("protocol: flooding σ = 2^%v outside 2^2 … 2^%d", sigmaBits, maxSamplerSigmaBits)
	}
	r := mrand.New(mrand.NewChaCha8(seed))
	s := math.Exp2(sigmaBits)
	if sigmaBits <= narrowSigmaBits {
		return newNarrowSampler(r, s, math.Min(noise.FloodTailSigmas*s, 0x1p62*1.99)), nil
	}
	g := &GaussianSampler{r: r, sigma: s, tail: noise.FloodTailSigmas * s, wide: true}
	s1 := math.Exp2(wideFineSigmaBits)
	s2 := math.Sqrt(s*s-s1*s1) / math.Exp2(wideShiftBits)
	g.lo = newNarrowSampler(r, s1, noise.FloodTailSigmas*s1)
	g.hi = newNarrowSampler(r, s2, g.tail*math.Exp2(-wideShiftBits)+math.Exp2(wideSlackBits))
	// tail ∈ (2^63, 2^102]: its integer part, split exactly (a float64 this
	// large is an integer; the subtraction only removes high mantissa bits)
	t := math.Floor(g.tail)
	hi := math.Floor(t * 0x1p-64)
	g.tailHi, g.tailLo = uint64(hi), uint64(t-hi*0x1p64)
	return g, nil
}

// newNarrowSampler is the sampler for σ ≤ 2^60 with the given cut (< 2^63).
func newNarrowSampler(r *mrand.Rand, s, tail float64) *GaussianSampler {
	g := &GaussianSampler{r: r, sigma: s, tail: tail}
	if s > math.Exp2(baseSigmaMaxBits) {
		g.conv = true
		g.s1 = math.Exp2(convFineSigmaBits)
		g.s2 = math.Sqrt(s*s-g.s1*g.s1) / math.Exp2(convShiftBits)
	} else {
		g.s2 = s
	}
	return g
}

// Sigma is σ.
func (g *GaussianSampler) Sigma() float64 { return g.sigma }

// Tail is the cut: every sample has |x| ≤ Tail.
func (g *GaussianSampler) Tail() float64 { return g.tail }

// Wide reports whether samples exceed an int64 (σ > 2^60): use Sample.
func (g *GaussianSampler) Wide() bool { return g.wide }

// normal returns a standard normal float64 (Marsaglia polar method).
func (g *GaussianSampler) normal() float64 {
	if g.have {
		g.have = false
		return g.spare
	}
	for {
		u := float64(int64(g.r.Uint64())|1) * 0x1p-63
		v := float64(int64(g.r.Uint64())|1) * 0x1p-63
		s := u*u + v*v
		if s >= 1 {
			continue
		}
		f := math.Sqrt(-2 * math.Log(s) / s)
		g.spare, g.have = v*f, true
		return u * f
	}
}

// roundInt rounds x (|x| < 2^51) to the nearest integer without branches.
func roundInt(x float64) int64 {
	const magic = 0x1.8p52
	return int64((x + magic) - magic)
}

// narrow returns one sample of a narrow sampler (σ ≤ 2^60, |x| < 2^63).
func (g *GaussianSampler) narrow() int64 {
	for {
		var x int64
		if g.conv {
			z1 := roundInt(g.s1 * g.normal())
			z2 := roundInt(g.s2 * g.normal())
			// |z2|·k beyond the cut would overflow the shift: reject
			// (|z1| < 2^32, so the exact cut below decides the rest).
			m2 := z2 >> 63
			if float64((z2^m2)-m2) > g.tail*0x1p-20+0x1p13 {
				continue
			}
			x = z1 + z2<<convShiftBits
		} else {
			x = roundInt(g.s2 * g.normal())
		}
		// |x| ≤ tail, branch-free magnitude; the loop repeats only on a
		// rejected (discarded) sample.
		m := x >> 63
		if float64((x^m)-m) <= g.tail {
			return x
		}
	}
}

// Sample returns one sample x = lo + 2^40·hi (hi = 0 unless Wide).
func (g *GaussianSampler) Sample() (lo, hi int64) {
	if !g.wide {
		return g.narrow(), 0
	}
	for {
		lo, hi = g.lo.narrow(), g.hi.narrow()
		// the loop repeats only on a rejected (discarded) sample
		if wideWithin(lo, hi, g.tailHi, g.tailLo) {
			return lo, hi
		}
	}
}

// wideWithin reports |lo + 2^40·hi| ≤ tailHi·2^64 + tailLo, computed in
// 128-bit two's complement with carry chains (no branch on the value).
func wideWithin(lo, hi int64, tailHi, tailLo uint64) bool {
	xl, c := bits.Add64(uint64(hi)<<wideShiftBits, uint64(lo), 0)
	xh := uint64(hi>>(64-wideShiftBits)) + uint64(lo>>63) + c
	m := uint64(int64(xh) >> 63) // all ones if x < 0
	al, c := bits.Add64(xl^m, m&1, 0)
	ah := (xh ^ m) + c
	_, b := bits.Sub64(tailLo, al, 0)
	_, b = bits.Sub64(tailHi, ah, b)
	return b == 0
}

// barrett is x mod q for one prime q < 2^62, constant time.
type barrett struct{ q, mu uint64 }

func newBarrett(q uint64) barrett {
	mu, _ := bits.Div64(1, 0, q) // ⌊2^64/q⌋ (q > 1)
	return barrett{q: q, mu: mu}
}

// reduce returns x mod q for a signed x with |x| < 2^63.
func (b barrett) reduce(x int64) uint64 {
	neg := uint64(x >> 63) // all ones if x < 0
	a := (uint64(x) ^ neg) - neg
	hi, _ := bits.Mul64(a, b.mu)
	r := a - hi*b.q // in [0, 2q)
	r -= b.q &^ uint64(int64(r-b.q)>>63)
	// x < 0: q − r, then 0 if that is q.
	nr := b.q - r
	nr -= b.q &^ uint64(int64(nr-b.q)>>63)
	return r ^ ((r ^ nr) & neg)
}

// shoup multiplies by a constant w < q modulo q < 2^62 in constant time
// (Shoup's precomputed ⌊w·2^64/q⌋).
type shoup struct{ w, wp, q uint64 }

func newShoup(w, q uint64) shoup {
	wp, _ := bits.Div64(w, 0, q) // w < q
	return shoup{w: w, wp: wp, q: q}
}

// mul returns a·w mod q for any a < 2^64.
func (s shoup) mul(a uint64) uint64 {
	h, _ := bits.Mul64(a, s.wp)
	r := a*s.w - h*s.q // in [0, 2q)
	return r - s.q&^uint64(int64(r-s.q)>>63)
}

// wideReducer reduces a sample lo + 2^40·hi modulo one prime q < 2^62:
// (lo mod q) + (2^40 mod q)·(hi mod q) mod q, in constant time.
type wideReducer struct {
	b barrett
	k shoup
}

func newWideReducer(q uint64) wideReducer {
	b := newBarrett(q)
	return wideReducer{b: b, k: newShoup(b.reduce(1<<wideShiftBits), q)}
}

func (w wideReducer) reduce(lo, hi int64) uint64 {
	r := w.b.reduce(lo) + w.k.mul(w.b.reduce(hi)) // < 2q
	return r - w.b.q&^uint64(int64(r-w.b.q)>>63)
}

// ReadNTT writes a fresh flooding polynomial, in the NTT domain, into p at
// ringQ's level.
func (g *GaussianSampler) ReadNTT(ringQ *ring.Ring, p ring.Poly) {
	moduli := ringQ.ModuliChain()[:ringQ.Level()+1]
	red := make([]wideReducer, len(moduli))
	for j, q := range moduli {
		red[j] = newWideReducer(q)
	}
	n := ringQ.N()
	for i := 0; i < n; i++ {
		lo, hi := g.Sample()
		for j := range red {
			p.Coeffs[j][i] = red[j].reduce(lo, hi)
		}
	}
	ringQ.NTT(p, p)
}
