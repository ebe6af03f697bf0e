package protocol

import (
	crand "crypto/rand"
	"fmt"
	"math"
	"math/bits"
	mrand "math/rand/v2"

	"github.com/tuneinsight/lattigo/v6/ring"
)

// The flooding sampler (one for every flooded share: threshold decryption
// and re-encryption).
//
// # Construction
//
// GaussianSampler draws integers from D_{Z,σ} (density ∝ exp(−x²/2σ²)),
// cut at τσ (τ = tailSigmas = 8, or less where 8σ would not fit an int64),
// for 2^2 ≤ σ ≤ 2^60, from a ChaCha8 stream keyed with 32 bytes of
// crypto/rand (a CSPRNG).
//
//   - Base sampler, σ_b ≤ 2^40: a continuous normal from Marsaglia's polar
//     method on two 64-bit uniforms (each uniform in (−1, 1) on a 2^−63
//     grid, so s = u²+v² ≥ 2^−126 and every quantity is a normal float64;
//     the output is a function of 126+ random bits, never a table or a
//     ziggurat layer: no lattice gaps), multiplied by σ_b and rounded to
//     the nearest integer (round-half-even through the 1.5·2^52 trick).
//     The rounded continuous Gaussian's probability mass at k is
//     φ_σ(k)·(1 + (k²/σ² − 1)/(24σ²) + O(σ^−4)) and D_{Z,σ}'s is
//     φ_σ(k)·(1 + O(e^{−2π²σ²})), so on |k| ≤ 8σ their ratio is within
//     1 ± 3/σ² (max-log distance δ ≤ 3σ^−2). float64 arithmetic adds a
//     relative error ≤ 2^−50 to σ_b·X, i.e. ≤ 8σ_b·2^−50 absolute: it moves
//     only the boundaries of the integer cells, changing a cell's mass by a
//     relative ≤ 8σ_b·2^−50 · 8/σ_b = 2^−44 (the density's log-slope is
//     ≤ 8/σ_b on the support).
//   - σ > 2^40: the convolution z = z1 + k·z2, k = 2^20, z1 from the base
//     sampler at σ1 = 2^28, z2 at σ2 = √(σ² − σ1²)/k ∈ (2^20, 2^40]. For
//     exact discrete Gaussians, P[z] ∝ ρ_σ(z)·ρ_{σ3}(kZ − c(z)) with
//     σ3 = σ1·kσ2/σ ≈ σ1, and ρ_{σ3}(kZ − c) is constant up to a factor
//     1 ± 2·exp(−2π²σ3²/k²) = 1 ± 2·exp(−2π²·2^16) when σ3 ≥ k·2^8: the
//     convolution is exact up to far below 2^−1000 (Peikert, CRYPTO 2010,
//     Thm 3.1; Micciancio–Walter, CRYPTO 2017). Its own δ is the sum of
//     the two base samplers' (≤ 3·2^−56 + 3·2^−40).
//
// Stated bound: every sample is within max-log distance
// δ(σ) ≤ 3σ^−2 + 2^−44 of D_{Z,σ} cut at τσ for σ ≤ 2^40 (δ ≤ 2^−38.3 at
// σ = 2^20), and δ ≤ 2·(3·2^−40 + 2^−44) < 2^−37.3 for σ > 2^40 (the two
// base samples, σ1 = 2^28 and σ2 ∈ (2^20, 2^40], dominate; the convolution
// itself is exact to 2^−1000). The cut removes mass
// P[|x| > 8σ] < 2^−48. A max-log distance δ gives, per sample, statistical
// distance ≤ δ/2 and Rényi divergence R_2 ≤ 1 + δ² (R_2 − 1 = E_Q[(P/Q − 1)²]),
// so over m samples log R_2 ≤ m·δ²: for the N = 2^14 coefficients of 2^50
// shares, m·δ² < 2^−10 — the sampler costs nothing against a search
// adversary (key recovery: ε_real ≤ √(ε_ideal·R_2)). See docs/committee.md
// for the σ per preset and the flooding's own Rényi bound per query.
//
// # Side channels
//
// No branch or memory index depends on a sample: the polar method's
// rejection (s ≥ 1 or s = 0) and the tail cut depend only on draws that are
// discarded, so the number of iterations leaks nothing about an output;
// log and sqrt run on normal floats (math.Log is a fixed polynomial after
// Frexp, math.Sqrt is the SQRTSD instruction); rounding is a float add;
// the sign and the reduction modulo each prime (Barrett with a precomputed
// ⌊2^64/q⌋ and a masked final subtraction) are branch-free.
type GaussianSampler struct {
	r      *mrand.Rand
	sigma  float64
	tail   float64 // |x| ≤ tail
	conv   bool
	s1, s2 float64 // base σ of z1 and z2 (conv); s2 = σ when !conv
	spare  float64
	have   bool
}

const (
	// maxSamplerSigmaBits is the largest σ the sampler is exact for.
	maxSamplerSigmaBits = 60
	baseSigmaMaxBits    = 40
	convShiftBits       = 20 // k = 2^20
	convFineSigmaBits   = 28 // σ1 = 2^28
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
	s := math.Exp2(sigmaBits)
	g := &GaussianSampler{r: mrand.New(mrand.NewChaCha8(seed)), sigma: s, tail: math.Min(tailSigmas*s, 0x1p62*1.99)}
	if sigmaBits > baseSigmaMaxBits {
		g.conv = true
		g.s1 = math.Exp2(convFineSigmaBits)
		g.s2 = math.Sqrt(s*s-g.s1*g.s1) / math.Exp2(convShiftBits)
	} else {
		g.s2 = s
	}
	return g, nil
}

// Sigma is σ.
func (g *GaussianSampler) Sigma() float64 { return g.sigma }

// Tail is the cut: every sample has |x| ≤ Tail.
func (g *GaussianSampler) Tail() float64 { return g.tail }

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

// Int64 returns one sample.
func (g *GaussianSampler) Int64() int64 {
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

// ReadNTT writes a fresh flooding polynomial, in the NTT domain, into p at
// ringQ's level.
func (g *GaussianSampler) ReadNTT(ringQ *ring.Ring, p ring.Poly) {
	moduli := ringQ.ModuliChain()[:ringQ.Level()+1]
	br := make([]barrett, len(moduli))
	for j, q := range moduli {
		br[j] = newBarrett(q)
	}
	n := ringQ.N()
	for i := 0; i < n; i++ {
		x := g.Int64()
		for j := range br {
			p.Coeffs[j][i] = br[j].reduce(x)
		}
	}
	ringQ.NTT(p, p)
}
