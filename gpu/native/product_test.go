//go:build cgo

package native

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/internal/testseed"
)

// productRing returns a SubRing over an odd q of qbits bits (the products
// need no NTT, only Lattigo's reduction constants).
func productRing(t *testing.T, rng *rand.Rand, n int, qbits uint) *ring.SubRing {
	s, err := ring.NewSubRing(n, randOdd(rng, qbits))
	require.NoError(t, err)
	return s
}

// randLimb returns n words < q with the bounds planted; wild plants words
// ≥ q (up to 2^64 − 1) in the last 8-word block, where a kernel hands over
// to Finish.
func randLimb(rng *rand.Rand, n int, q uint64, wild bool) []uint64 {
	l := make([]uint64, n)
	for x := range l {
		l[x] = rng.Uint64N(q)
	}
	l[0], l[1] = q-1, 0
	if wild {
		l[n-3], l[n-1] = q, ^uint64(0)-uint64(rng.IntN(1000))
	}
	return l
}

// tMont is Lattigo's tMontgomery limb for t over q: t·2^128 mod q.
func tMont(t, q uint64) uint64 {
	x := new(big.Int).Lsh(new(big.Int).SetUint64(t), 128)
	return x.Mod(x, new(big.Int).SetUint64(q)).Uint64()
}

// lattigoTensor is tensorStandard's loop on one limb (Lattigo's SubRing
// calls, its order), on copies of the inputs.
func lattigoTensor(j engine.TensorJob) (o0, o1, o2 []uint64) {
	s, n := j.S, j.S.N
	c00, c01 := make([]uint64, n), make([]uint64, n)
	o0, o1, o2 = make([]uint64, n), make([]uint64, n), make([]uint64, n)
	s.MulScalarMontgomery(j.A0, j.TMont, c00)
	s.MulScalarMontgomery(j.A1, j.TMont, c01)
	s.MulCoeffsMontgomery(c00, j.B0, o0)
	s.MulCoeffsMontgomery(c01, j.B1, o2)
	s.MulCoeffsMontgomery(c00, j.B1, o1)
	s.MulCoeffsMontgomeryThenAdd(c01, j.B0, o1)
	return
}

// TestTensorKernel: on fresh random limbs over 20–51-bit odd moduli, the
// tensor kernels (emulated model and, where present, IFMA) write
// Lattigo's bytes into poisoned outputs — canonical big.Int residues
// where every input is < q, Lattigo's own words where a block holds a word
// ≥ q (finished by TensorJob.Finish) — separately and in place (outputs
// over the first operand), for a product and a square.
func TestTensorKernel(t *testing.T) {
	rng := testseed.Rand(t, 2601)
	for _, path := range keySwitchPaths(t) {
		for _, qbits := range []uint{20, 36, 49, 50, 51} {
			for _, wild := range []bool{false, true} {
				for _, mode := range []string{"product", "square", "in-place"} {
					n := 64
					s := productRing(t, rng, n, qbits)
					q := s.Modulus
					j := engine.TensorJob{S: s, TMont: tMont(65537, q),
						A0: randLimb(rng, n, q, wild), A1: randLimb(rng, n, q, false),
						B0: randLimb(rng, n, q, false), B1: randLimb(rng, n, q, wild),
						Out0: poisoned(n), Out1: poisoned(n), Out2: poisoned(n)}
					if mode == "square" {
						j.B0, j.B1 = j.A0, j.A1
					}
					w0, w1, w2 := lattigoTensor(j)
					if !wild {
						T := new(big.Int).SetUint64(65537)
						for x := range n {
							a0, a1 := new(big.Int).SetUint64(j.A0[x]), new(big.Int).SetUint64(j.A1[x])
							b0, b1 := new(big.Int).SetUint64(j.B0[x]), new(big.Int).SetUint64(j.B1[x])
							m := new(big.Int).Add(new(big.Int).Mul(a0, b1), new(big.Int).Mul(a1, b0))
							require.Equal(t, bigMod(m.Mul(m, T), q), w1[x], "Lattigo's cross term is the canonical residue")
						}
					}
					if mode == "in-place" {
						j.A0, j.A1 = slices.Clone(j.A0), slices.Clone(j.A1)
						j.Out0, j.Out1 = j.A0, j.A1
					}
					tail, err := Tensor(path, []engine.TensorJob{j})
					require.NoError(t, err)
					require.Equal(t, wild, tail > 0, "words ≥ q go to Finish")
					require.Equal(t, w0, j.Out0, "%s q=%d bits %s wild=%v: out0", path, qbits, mode, wild)
					require.Equal(t, w1, j.Out1, "%s q=%d bits %s wild=%v: out1", path, qbits, mode, wild)
					require.Equal(t, w2, j.Out2, "%s q=%d bits %s wild=%v: out2", path, qbits, mode, wild)
				}
			}
		}
	}
}

func bigMod(x *big.Int, q uint64) uint64 {
	return new(big.Int).Mod(x, new(big.Int).SetUint64(q)).Uint64()
}

// TestMulAddKernel: the multiply-add kernels write Lattigo's
// MulScalarMontgomeryThenAdd bytes (the canonical residue out + w·a mod q
// for inputs < q, checked by big.Int; Lattigo's own words, via Finish,
// where a block holds a word ≥ q) over 20–51-bit odd moduli, separately
// and in place.
func TestMulAddKernel(t *testing.T) {
	rng := testseed.Rand(t, 2602)
	for _, path := range keySwitchPaths(t) {
		for _, qbits := range []uint{20, 36, 50, 51} {
			for _, wild := range []bool{false, true} {
				for _, inPlace := range []bool{false, true} {
					n := 64
					s := productRing(t, rng, n, qbits)
					q := s.Modulus
					j := engine.MulAddJob{S: s, A: randLimb(rng, n, q, wild), Out: randLimb(rng, n, q, false), W: rng.Uint64N(q)}
					if inPlace {
						j.Out = j.A
					}
					want := slices.Clone(j.Out)
					s.MulScalarMontgomeryThenAdd(slices.Clone(j.A), ring.MForm(j.W, q, s.BRedConstant), want)
					if !wild {
						for x := range n {
							v := new(big.Int).Mul(new(big.Int).SetUint64(j.A[x]), new(big.Int).SetUint64(j.W))
							require.Equal(t, bigMod(v.Add(v, new(big.Int).SetUint64(j.Out[x])), q), want[x])
						}
					}
					tail, err := MulAdd(path, []engine.MulAddJob{j})
					require.NoError(t, err)
					require.Equal(t, wild, tail > 0)
					require.Equal(t, want, j.Out, "%s q=%d bits wild=%v in place=%v", path, qbits, wild, inPlace)
				}
			}
		}
	}
}

// TestProductErrors: bad shapes are errors with nothing written.
func TestProductErrors(t *testing.T) {
	rng := testseed.Rand(t, 2603)
	s := productRing(t, rng, 64, 40)
	short := make([]uint64, 8)
	_, err := Tensor(PathEmulated, []engine.TensorJob{{S: s, A0: short, A1: short, B0: short, B1: short, Out0: short, Out1: short, Out2: short}})
	require.ErrorContains(t, err, "limb of 8 words")
	_, err = Tensor(PathScalar, nil)
	require.ErrorContains(t, err, "no kernel")
	_, err = MulAdd(PathEmulated, []engine.MulAddJob{{S: nil}})
	require.ErrorContains(t, err, "nil SubRing")
	l := make([]uint64, 64)
	_, err = MulAdd(PathEmulated, []engine.MulAddJob{{S: s, A: l, Out: l, W: s.Modulus}})
	require.ErrorContains(t, err, "w =")
}

// TestLinCombKernel: the linear-combination kernels write the bytes of
// Lattigo's term-by-term MulScalarMontgomeryThenAdd (the canonical residue
// of out + Σ w_k·a_k, checked by big.Int where every word is < q;
// Lattigo's own words, via Finish, from a block holding a word ≥ q in a
// term or in out) for 0–9 terms over 20–51-bit odd moduli; a malformed
// job is an error with nothing written.
func TestLinCombKernel(t *testing.T) {
	rng := testseed.Rand(t, 2604)
	for _, path := range keySwitchPaths(t) {
		for _, qbits := range []uint{20, 36, 50, 51} {
			for _, terms := range []int{0, 1, 2, 9} {
				for _, wild := range []string{"", "term", "out"} {
					n := 64
					s := productRing(t, rng, n, qbits)
					q := s.Modulus
					j := engine.LinCombJob{S: s, Out: randLimb(rng, n, q, wild == "out")}
					for k := range terms {
						j.A = append(j.A, randLimb(rng, n, q, wild == "term" && k == terms-1))
						j.W = append(j.W, rng.Uint64N(q))
					}
					if terms > 0 {
						j.W[0] = q - 1
					}
					want := slices.Clone(j.Out)
					for k := range terms {
						s.MulScalarMontgomeryThenAdd(j.A[k], ring.MForm(j.W[k], q, s.BRedConstant), want)
					}
					if wild == "" {
						for x := range n {
							v := new(big.Int).SetUint64(j.Out[x])
							for k := range terms {
								v.Add(v, new(big.Int).Mul(new(big.Int).SetUint64(j.A[k][x]), new(big.Int).SetUint64(j.W[k])))
							}
							require.Equal(t, bigMod(v, q), want[x])
						}
					}
					tail, err := LinComb(path, []engine.LinCombJob{j})
					require.NoError(t, err)
					require.Equal(t, wild != "" && terms > 0, tail > 0, "words ≥ q go to Finish")
					require.Equal(t, want, j.Out, "%s q=%d bits, %d terms, wild %q", path, qbits, terms, wild)
				}
			}
		}
	}
	s := productRing(t, rng, 64, 40)
	l, o := make([]uint64, 64), make([]uint64, 64)
	o[5] = 7
	for _, bad := range []struct {
		j    engine.LinCombJob
		want string
	}{
		{engine.LinCombJob{S: nil}, "nil SubRing"},
		{engine.LinCombJob{S: s, A: [][]uint64{l}, W: nil, Out: o}, "1 terms, 0 scalars"},
		{engine.LinCombJob{S: s, A: [][]uint64{l}, W: []uint64{s.Modulus}, Out: o}, "w ="},
		{engine.LinCombJob{S: s, A: [][]uint64{l[:8]}, W: []uint64{1}, Out: o}, "8 words"},
		{engine.LinCombJob{S: s, A: [][]uint64{o}, W: []uint64{1}, Out: o}, "aliases the output"},
	} {
		_, err := LinComb(PathEmulated, []engine.LinCombJob{{S: s, A: [][]uint64{l}, W: []uint64{3}, Out: o}, bad.j})
		require.ErrorContains(t, err, bad.want)
		require.EqualValues(t, 7, o[5], "nothing written")
	}
	_, err := LinComb(PathScalar, nil)
	require.ErrorContains(t, err, "no kernel")
}
