package gpu

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/tuneinsight/lattigo/v6/ring"
)

// SelfTestPrimes are NTT-friendly primes (q ≡ 1 mod 2^18, so valid for every
// N ≤ 2^17) of 61, 60, 50, 40 and 30 bits, generated with Lattigo's
// NTTFriendlyPrimesGenerator.
func SelfTestPrimes() []uint64 { return selfTestPrimes() }

// selfTestPrimes computes the primes once; concurrent callers (tests run in
// parallel) wait for the one computation and each get a copy.
var selfTestPrimes = func() func() []uint64 {
	primes := sync.OnceValue(func() []uint64 {
		var out []uint64
		for _, bits := range []uint64{61, 60, 50, 40, 30} {
			g := ring.NewNTTFriendlyPrimesGenerator(bits, 1<<18)
			q, err := g.NextAlternatingPrime()
			if err != nil {
				panic(fmt.Sprintf("gpu: no %d-bit NTT prime: %v", bits, err)) // static parameters; cannot happen
			}
			out = append(out, q)
		}
		return out
	})
	return func() []uint64 { return append([]uint64(nil), primes()...) }
}()

// NewParams builds the Params of a fresh Lattigo ring of degree n and
// modulus q (the same constants SubRing.NTT uses).
func NewParams(n int, q uint64) (*Params, error) {
	r, err := ring.NewRing(n, []uint64{q})
	if err != nil {
		return nil, fmt.Errorf("gpu: ring N=%d q=%d: %w", n, q, err)
	}
	return ParamsOf(r.SubRings[0])
}

// SelfTest proves b byte-identical to Lattigo's NTT on random vectors: for
// N ∈ {2^10, 2^12, 2^14} × three primes (61, 50, 30 bits), a batch of 3
// polynomials forward and inverse, with fully random 64-bit inputs in one
// polynomial, reduced inputs in the others, and poisoned outputs. It is what
// arming an accelerator requires. seed makes the vectors reproducible.
func SelfTest(b Backend, seed uint64) error {
	rng := rand.New(rand.NewChaCha8(seedBytes(seed)))
	primes := SelfTestPrimes()
	for _, logN := range []int{10, 12, 14} {
		for _, q := range []uint64{primes[0], primes[2], primes[4]} {
			p, err := NewParams(1<<logN, q)
			if err != nil {
				return err
			}
			for _, dir := range []Direction{Forward, Inverse} {
				if err := checkOnce(b, dir, p, 3, rng); err != nil {
					return fmt.Errorf("self-test %s: N=2^%d q=%d %s: %w", b.Name(), logN, q, dir, err)
				}
			}
		}
	}
	return nil
}

func checkOnce(b Backend, dir Direction, p *Params, batch int, rng *rand.Rand) error {
	src := make([][]uint64, batch)
	dst := make([][]uint64, batch)
	want := make([]uint64, p.N)
	for i := range src {
		src[i] = make([]uint64, p.N)
		for j := range src[i] {
			if i == 0 {
				src[i][j] = rng.Uint64() // wide inputs: exercises the exact lazy schedule
			} else {
				src[i][j] = rng.Uint64N(p.Q)
			}
		}
		dst[i] = make([]uint64, p.N)
		for j := range dst[i] {
			dst[i][j] = ^uint64(0)
		}
	}
	if err := b.NTT(dir, p, src, dst); err != nil {
		return err
	}
	for i := range src {
		LatticeNTT(dir, p, src[i], want)
		for j := range want {
			if dst[i][j] != want[j] {
				return fmt.Errorf("poly %d coefficient %d: got %#x want %#x", i, j, dst[i][j], want[j])
			}
		}
	}
	return nil
}

func seedBytes(seed uint64) [32]byte {
	var s [32]byte
	for i := 0; i < 8; i++ {
		s[i] = byte(seed >> (8 * i))
	}
	copy(s[8:], "fhegate/gpu self-test")
	return s
}
