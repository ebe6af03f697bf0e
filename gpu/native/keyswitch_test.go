//go:build cgo

package native

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe/engine"
)

// keySwitchPaths are the kernel paths runnable here: the emulated model
// everywhere, the real IFMA kernels where the CPU has them.
func keySwitchPaths(t *testing.T) []Path {
	paths := []Path{PathEmulated}
	if MulAddPath() == PathIFMA {
		paths = append(paths, PathIFMA)
	} else {
		t.Logf("no IFMA here (%s): emulated kernels only", DetectFeatures())
	}
	return paths
}

// poisoned returns n words of 0xAB…: an output a kernel fails to write
// shows up.
func poisoned(n int) []uint64 {
	p := make([]uint64, n)
	for i := range p {
		p[i] = 0xABABABABABABABAB
	}
	return p
}

// randOdd returns a random odd q with exactly qbits bits.
func randOdd(rng *rand.Rand, qbits uint) uint64 {
	return (rng.Uint64N(1<<(qbits-1)) + 1<<(qbits-1)) | 1
}

// mulAccCase is a random job over n words, digits digits, q of qbits bits:
// keys < q, digits < 2q, with the extreme words planted.
func mulAccCase(rng *rand.Rand, n, digits int, q uint64) engine.MulAccJob {
	j := engine.MulAccJob{S: &ring.SubRing{N: n, Modulus: q}, Out0: poisoned(n), Out1: poisoned(n)}
	for range digits {
		k0, k1, d := make([]uint64, n), make([]uint64, n), make([]uint64, n)
		for x := range n {
			k0[x], k1[x], d[x] = rng.Uint64N(q), rng.Uint64N(q), rng.Uint64N(2*q)
		}
		k0[0], k1[0], d[0] = q-1, q-1, 2*q-1 // the bounds
		k0[1], k1[1], d[1] = 0, q-1, 0
		j.K0, j.K1, j.D = append(j.K0, k0), append(j.K1, k1), append(j.D, d)
	}
	return j
}

// mulAccWant is Σ_i k[i]·d[i]·2^{-64} mod q, by big.Int.
func mulAccWant(q uint64, k, d [][]uint64, x int) uint64 {
	Q := new(big.Int).SetUint64(q)
	s := new(big.Int)
	for i := range k {
		s.Add(s, new(big.Int).Mul(new(big.Int).SetUint64(k[i][x]), new(big.Int).SetUint64(d[i][x])))
	}
	rInv := new(big.Int).ModInverse(new(big.Int).Lsh(big.NewInt(1), 64), Q)
	return s.Mul(s, rInv).Mod(s, Q).Uint64()
}

// TestGadgetMulAcc: on fresh random inputs (keys < q, digits < 2q, the
// bounds planted) over 20–51-bit odd moduli and 1–13 digits, every output
// word is Σ k·d·2^{-64} mod q in [0, q) (big.Int), the emulated and IFMA
// kernels agree, poisoned outputs are overwritten; the same holds against
// Lattigo's own MulCoeffsMontgomery(ThenAdd) on NTT-friendly primes.
func TestGadgetMulAcc(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	for _, tc := range []struct {
		qbits  uint
		n      int
		digits int
	}{{20, 64, 1}, {30, 64, 3}, {36, 256, 5}, {44, 64, 13}, {49, 128, 4}, {50, 64, 2}, {51, 1024, 5}, {51, 64, 13}} {
		q := randOdd(rng, tc.qbits)
		job := mulAccCase(rng, tc.n, tc.digits, q)
		var outs [][]uint64
		for _, p := range keySwitchPaths(t) {
			j := job
			j.Out0, j.Out1 = poisoned(tc.n), poisoned(tc.n)
			ok, err := GadgetMulAcc(p, 1, []engine.MulAccJob{j})
			require.NoError(t, err)
			require.True(t, ok)
			for x := range tc.n {
				require.Equal(t, mulAccWant(q, j.K0, j.D, x), j.Out0[x], "%s q %d bits, %d digits, word %d", p, tc.qbits, tc.digits, x)
				require.Equal(t, mulAccWant(q, j.K1, j.D, x), j.Out1[x], "%s q %d bits, %d digits, word %d", p, tc.qbits, tc.digits, x)
			}
			outs = append(outs, j.Out0, j.Out1)
		}
		for i := 2; i < len(outs); i++ {
			require.Equal(t, outs[i%2], outs[i], "IFMA and emulated kernels differ")
		}
	}

	// against Lattigo's reduced Montgomery products, several moduli in one
	// call on two workers
	primes := ring.NewNTTFriendlyPrimesGenerator(51, 1<<12)
	qs, err := primes.NextDownstreamPrimes(2)
	require.NoError(t, err)
	primes = ring.NewNTTFriendlyPrimesGenerator(34, 1<<12)
	qs34, err := primes.NextDownstreamPrimes(2)
	require.NoError(t, err)
	r, err := ring.NewRing(1<<11, append(qs, qs34...))
	require.NoError(t, err)
	for _, p := range keySwitchPaths(t) {
		var jobs []engine.MulAccJob
		for _, s := range r.SubRings {
			j := mulAccCase(rng, s.N, 5, s.Modulus)
			j.S = s
			jobs = append(jobs, j)
		}
		ok, err := GadgetMulAcc(p, 2, jobs)
		require.NoError(t, err)
		require.True(t, ok)
		for _, j := range jobs {
			for k, key := range [][][]uint64{j.K0, j.K1} {
				want := make([]uint64, j.S.N)
				for i := range j.D {
					d := append([]uint64(nil), j.D[i]...)
					j.S.Reduce(d, d) // Lattigo's reduced products take words < q
					if i == 0 {
						j.S.MulCoeffsMontgomery(key[i], d, want)
					} else {
						j.S.MulCoeffsMontgomeryThenAdd(key[i], d, want)
					}
				}
				require.Equal(t, want, [][]uint64{j.Out0, j.Out1}[k], "%s q = %d", p, j.S.Modulus)
			}
		}
	}
}

// TestGadgetMulAccRefusals: an input word out of bounds is reported (the
// caller recomputes), misuse is an error, not a crash.
func TestGadgetMulAccRefusals(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 2))
	q := randOdd(rng, 40)
	for _, p := range keySwitchPaths(t) {
		for _, plant := range []func(j engine.MulAccJob){
			func(j engine.MulAccJob) { j.D[1][17] = 2 * q },
			func(j engine.MulAccJob) { j.K0[0][9] = q },
			func(j engine.MulAccJob) { j.K1[2][63] = 1<<64 - 1 },
		} {
			j := mulAccCase(rng, 64, 3, q)
			plant(j)
			ok, err := GadgetMulAcc(p, 1, []engine.MulAccJob{j})
			require.NoError(t, err)
			require.False(t, ok, "%s: out-of-bound word not reported", p)
		}
	}
	good := mulAccCase(rng, 64, 3, q)
	for _, bad := range []engine.MulAccJob{
		{},
		{S: &ring.SubRing{N: 64, Modulus: 1 << 51}, K0: good.K0, K1: good.K1, D: good.D, Out0: good.Out0, Out1: good.Out1},
		{S: &ring.SubRing{N: 64, Modulus: q + 1}, K0: good.K0, K1: good.K1, D: good.D, Out0: good.Out0, Out1: good.Out1},
		{S: good.S, K0: good.K0[:2], K1: good.K1, D: good.D, Out0: good.Out0, Out1: good.Out1},
		{S: good.S, K0: good.K0, K1: good.K1, D: good.D, Out0: good.Out0[:8], Out1: good.Out1},
		{S: &ring.SubRing{N: 12, Modulus: q}, K0: good.K0, K1: good.K1, D: good.D, Out0: good.Out0, Out1: good.Out1},
		{S: good.S, K0: good.K0, K1: good.K1, D: [][]uint64{good.D[0], good.D[1], good.D[2][:32]}, Out0: good.Out0, Out1: good.Out1},
	} {
		_, err := GadgetMulAcc(PathEmulated, 1, []engine.MulAccJob{bad})
		require.Error(t, err)
	}
	_, err := GadgetMulAcc(PathScalar, 1, []engine.MulAccJob{good})
	require.Error(t, err)
}
