//go:build cgo

package native

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/internal/testseed"
)

// keySwitchPaths are the kernel paths runnable here: the emulated model
// everywhere, the real IFMA kernels where the CPU has them.
func keySwitchPaths(t *testing.T) []Path {
	paths := []Path{PathEmulated}
	if DetectFeatures().IFMA() {
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
	rng := testseed.Rand(t, 260+1)
	for _, tc := range []struct {
		qbits  uint
		n      int
		digits int
	}{{20, 64, 1}, {30, 64, 3}, {36, 256, 5}, {44, 64, 13}, {49, 128, 4}, {50, 64, 2}, {51, 1024, 5}, {51, 64, 13}, {50, 1 << 14, 5}} {
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
	rng := testseed.Rand(t, 260+2)
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

// modUpCase is a random extension from ns sources of qbits to nt targets
// (distinct NTT-friendly primes), N words, sources < 2q with the bounds
// planted, targets poisoned.
func modUpCase(t *testing.T, rng *rand.Rand, n, ns, nt int, qbits int) engine.ModUpJob {
	gen := ring.NewNTTFriendlyPrimesGenerator(uint64(qbits), 1<<4)
	ps, err := gen.NextDownstreamPrimes(ns + nt)
	require.NoError(t, err)
	rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	j := engine.ModUpJob{N: n, C: engine.NewModUpConstants(ps[:ns], ps[ns:])}
	for _, q := range ps[:ns] {
		s := make([]uint64, n)
		for x := range s {
			s[x] = rng.Uint64N(2 * q)
		}
		s[0], s[1], s[2], s[3] = 0, q-1, q, 2*q-1
		j.Src = append(j.Src, s)
	}
	// words whose centred lift x + ⌊Q/2⌋ is within 2 of a multiple of Q:
	// Σ y_i/q_i is then within 2/Q of an integer, where the float64
	// estimate of v is decided by rounding — the kernel must round as
	// Lattigo does
	Q := big.NewInt(1)
	for _, q := range ps[:ns] {
		Q.Mul(Q, new(big.Int).SetUint64(q))
	}
	H := new(big.Int).Rsh(Q, 1)
	for w, eps := range []int64{0, 1, 2, -1, -2} {
		x := new(big.Int).Sub(Q, H)
		x.Add(x, big.NewInt(eps)).Mod(x, Q)
		for i, q := range ps[:ns] {
			j.Src[i][4+w] = new(big.Int).Mod(x, new(big.Int).SetUint64(q)).Uint64()
		}
	}
	for range nt {
		j.Dst = append(j.Dst, poisoned(n))
	}
	return j
}

// TestModUp: the vector basis extension equals the engine's Go model
// (engine.ModUpJob.Reference, itself proved byte-identical to Lattigo's
// ModUpExact in fhe/engine) word for word, on the emulated model and the
// real IFMA kernels, for 2–15 sources and 1–12 targets of 30–51-bit primes;
// poisoned outputs are overwritten; a source word ≥ 2q is reported.
func TestModUp(t *testing.T) {
	rng := testseed.Rand(t, 260+3)
	for _, tc := range []struct{ n, ns, nt, qbits int }{
		{64, 2, 1, 30}, {256, 2, 10, 34}, {1 << 14, 2, 10, 51}, {128, 3, 4, 40}, {64, 4, 12, 50}, {512, 2, 9, 51}, {64, 15, 3, 45},
	} {
		job := modUpCase(t, rng, tc.n, tc.ns, tc.nt, tc.qbits)
		want := make([][]uint64, tc.nt)
		for k := range want {
			want[k] = make([]uint64, tc.n)
		}
		job.Reference(want, tc.n)
		for _, p := range keySwitchPaths(t) {
			for k := range job.Dst {
				job.Dst[k] = poisoned(tc.n)
			}
			ok, err := ModUp(p, []engine.ModUpJob{job})
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, want, job.Dst, "%s %+v", p, tc)
		}
		for _, p := range keySwitchPaths(t) {
			bad := job
			bad.Src = append([][]uint64(nil), job.Src...)
			bad.Src[tc.ns-1] = append([]uint64(nil), job.Src[tc.ns-1]...)
			bad.Src[tc.ns-1][5] = 2 * job.C.SrcQ[tc.ns-1]
			ok, err := ModUp(p, []engine.ModUpJob{bad})
			require.NoError(t, err)
			require.False(t, ok, "%s: source word 2q not reported", p)
		}
	}

	// misuse is an error, not a crash
	good := modUpCase(t, rng, 64, 2, 3, 40)
	for _, bad := range []engine.ModUpJob{
		{N: 64, Src: good.Src, Dst: good.Dst},
		{N: 60, C: good.C, Src: good.Src, Dst: good.Dst},
		{N: 64, C: good.C, Src: good.Src[:1], Dst: good.Dst},
		{N: 64, C: good.C, Src: good.Src, Dst: [][]uint64{good.Dst[0], good.Dst[1], good.Dst[2][:8]}},
		{N: 64, C: engine.NewModUpConstants([]uint64{1<<61 - 1, 97}, []uint64{101}), Src: good.Src, Dst: good.Dst[:1]},
	} {
		_, err := ModUp(PathEmulated, []engine.ModUpJob{bad})
		require.Error(t, err)
	}
	_, err := ModUp(PathScalar, []engine.ModUpJob{good})
	require.Error(t, err)
}

// TestScaleDiff: ModDown's and the rescale's last step equals (x − y)·w mod q
// (big.Int) for x, y < 2q with the bounds planted, on 20–51-bit odd moduli,
// out of place over poisoned outputs and in place over y, on the emulated
// model and the real IFMA kernels; a word ≥ 2q in any job leaves every job
// unwritten; misuse is an error.
func TestScaleDiff(t *testing.T) {
	rng := testseed.Rand(t, 260+4)
	for _, qbits := range []uint{20, 34, 45, 50, 51} {
		q := randOdd(rng, qbits)
		n := 256
		x, y := make([]uint64, n), make([]uint64, n)
		for i := range x {
			x[i], y[i] = rng.Uint64N(2*q), rng.Uint64N(2*q)
		}
		x[0], y[0], x[1], y[1], x[2], y[2] = 2*q-1, 0, 0, 2*q-1, q, q-1
		w := rng.Uint64N(q)
		Q := new(big.Int).SetUint64(q)
		want := make([]uint64, n)
		for i := range want {
			d := new(big.Int).Sub(new(big.Int).SetUint64(x[i]), new(big.Int).SetUint64(y[i]))
			want[i] = d.Mul(d, new(big.Int).SetUint64(w)).Mod(d, Q).Uint64()
		}
		s := &ring.SubRing{N: n, Modulus: q}
		for _, p := range keySwitchPaths(t) {
			out := poisoned(n)
			ok, err := ScaleDiff(p, []engine.ScaleDiffJob{{S: s, X: x, Y: y, Out: out, W: w}})
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, want, out, "%s q %d bits", p, qbits)
			inPlace := append([]uint64(nil), y...)
			ok, err = ScaleDiff(p, []engine.ScaleDiffJob{{S: s, X: x, Y: inPlace, Out: inPlace, W: w}})
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, want, inPlace, "%s q %d bits in place", p, qbits)

			// a bad word in the second job: the first is not written either
			y2 := append([]uint64(nil), y...)
			bad := append([]uint64(nil), x...)
			bad[200] = 2 * q
			ok, err = ScaleDiff(p, []engine.ScaleDiffJob{{S: s, X: x, Y: y2, Out: y2, W: w}, {S: s, X: bad, Y: y, Out: poisoned(n), W: w}})
			require.NoError(t, err)
			require.False(t, ok)
			require.Equal(t, y, y2, "%s: a job was written before every input was checked", p)
		}
	}
	s := &ring.SubRing{N: 64, Modulus: 97}
	for _, bad := range []engine.ScaleDiffJob{
		{X: make([]uint64, 64), Y: make([]uint64, 64), Out: make([]uint64, 64)},
		{S: s, X: make([]uint64, 63), Y: make([]uint64, 64), Out: make([]uint64, 64)},
		{S: s, X: make([]uint64, 64), Y: make([]uint64, 64), Out: make([]uint64, 64), W: 97},
		{S: &ring.SubRing{N: 64, Modulus: 1 << 51}, X: make([]uint64, 64), Y: make([]uint64, 64), Out: make([]uint64, 64)},
	} {
		_, err := ScaleDiff(PathEmulated, []engine.ScaleDiffJob{bad})
		require.Error(t, err)
	}
}

// TestKeySwitchDeclines: the backend declines (false, no error) jobs over a
// modulus ≥ 2^51 or with more sources than the kernel takes, so the engine
// runs Lattigo's loop without a logged failure; the scalar path declines
// everything.
func TestKeySwitchDeclines(t *testing.T) {
	rng := testseed.Rand(t, 260+5)
	big61 := uint64(1<<61 - 1)
	for _, p := range []Path{PathEmulated, PathScalar} {
		b, err := NewPath(p)
		require.NoError(t, err)
		mac := mulAccCase(rng, 64, 2, randOdd(rng, 40))
		if p == PathEmulated {
			mac.S = &ring.SubRing{N: 64, Modulus: big61}
		}
		ok, err := b.GadgetMulAcc([]engine.MulAccJob{mac})
		require.NoError(t, err)
		require.False(t, ok, p)

		ext := modUpCase(t, rng, 64, 2, 2, 40)
		if p == PathEmulated {
			ext.C = engine.NewModUpConstants(ext.C.SrcQ, []uint64{ext.C.DstQ[0], big61})
		}
		ok, err = b.ModUp([]engine.ModUpJob{ext})
		require.NoError(t, err)
		require.False(t, ok, p)
		many := modUpCase(t, rng, 64, MaxModUpSources+1, 1, 40)
		ok, err = b.ModUp([]engine.ModUpJob{many})
		require.NoError(t, err)
		require.False(t, ok, p)

		sd := engine.ScaleDiffJob{S: &ring.SubRing{N: 64, Modulus: big61}, X: make([]uint64, 64), Y: make([]uint64, 64), Out: make([]uint64, 64)}
		ok, err = b.ScaleDiff([]engine.ScaleDiffJob{sd})
		require.NoError(t, err)
		require.False(t, ok, p)
		require.Zero(t, b.MulAccCount()+b.ModUpCount()+b.ScaleDiffCount())
		require.NoError(t, b.Close())
	}
}
