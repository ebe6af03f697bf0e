package fhe_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	bgvpoly "github.com/tuneinsight/lattigo/v6/circuits/bgv/polynomial"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/internal/testseed"
)

// TestEvalPolyGatheredByteIdentical: EvalPolyInts on an evaluator routed
// to an engine.Gather (power-basis rounds and giant steps forked as
// participants) gives the bytes of Lattigo's own polynomial evaluator, for
// degrees that exercise every shape of the power basis and of the
// Paterson–Stockmeyer recombination (a trailing sub-polynomial, odd and
// even splits, the policies' degrees 124/127/153), with two polynomials
// evaluated side by side in one Gather (width 1 and 2), the rounds
// answered by a reduced router.
func TestEvalPolyGatheredByteIdentical(t *testing.T) {
	rng := testseed.Rand(t, 41)
	kit, err := fhetest.NewKit(fhetest.InsecureBGVN10Deep)
	require.NoError(t, err)
	p := kit.Params
	lattigo := bgvpoly.NewEvaluator(p.BGV(), bgv.NewEvaluator(p.BGV(), rlwe.NewMemEvaluationKeySet(kit.Keys.Relin.Lattigo())))
	a, err := kit.Enc.EncryptInts(fhetest.RandInts(rng, p.Slots(), 100))
	require.NoError(t, err)
	b, err := kit.Enc.EncryptInts(fhetest.RandInts(rng, p.Slots(), 100))
	require.NoError(t, err)
	want := func(ct *fhe.Ciphertext, coeffs []int64) []byte {
		c := make([]uint64, len(coeffs))
		for i, x := range coeffs {
			c[i] = uint64((x%65537 + 65537) % 65537)
		}
		out, err := lattigo.Evaluate(ct.Lattigo(), bgvpoly.NewPolynomial(c), ct.Lattigo().Scale)
		require.NoError(t, err)
		w, err := fhe.WrapCiphertext(p, out)
		require.NoError(t, err)
		enc, err := w.MarshalBinary()
		require.NoError(t, err)
		return enc
	}
	for _, deg := range []int{1, 2, 3, 5, 7, 8, 16, 31, 33, 100, 124, 127, 153} {
		for _, width := range []int{1, 2} {
			t.Run(fmt.Sprintf("deg%d/width%d", deg, width), func(t *testing.T) {
				ca, cb := make([]int64, deg+1), make([]int64, deg+1)
				for i := range ca {
					ca[i], cb[i] = rng.Int64N(65537)-32768, rng.Int64N(65537)-32768
				}
				router := &reducedRouter{}
				g := engine.NewGather(router, width)
				ev := kit.Eval.WithRouter(g)
				var ga, gb *fhe.Ciphertext
				var ea, eb error
				g.Run(func() { ga, ea = ev.EvalPolyInts(a, ca) }, func() { gb, eb = ev.EvalPolyInts(b, cb) })
				require.NoError(t, ea)
				require.NoError(t, eb)
				for _, c := range []struct {
					got    *fhe.Ciphertext
					in     *fhe.Ciphertext
					coeffs []int64
				}{{ga, a, ca}, {gb, b, cb}} {
					enc, err := c.got.MarshalBinary()
					require.NoError(t, err)
					require.True(t, bytes.Equal(want(c.in, c.coeffs), enc), "gathered polynomial differs from Lattigo's")
				}
				require.Positive(t, router.jobs)
				st := g.Stats()
				require.Less(t, st.Calls, uint64(router.jobs))
			})
		}
	}
}

// linCombRouter is productRouter that also runs whole linear combinations
// (Lattigo's arithmetic on a copy, written over a poisoned output).
type linCombRouter struct {
	productRouter
	lincombs int
}

func (r *linCombRouter) LinComb(jobs []engine.LinCombJob) bool {
	for _, j := range jobs {
		c := j
		c.Out = slices.Clone(j.Out)
		c.Finish(0)
		poisonWords(j.Out)
		copy(j.Out, c.Out)
	}
	r.lincombs += len(jobs)
	return true
}

// TestEvalPolyGatheredBabyStepsByteIdentical: with product kernels
// installed, the gathered evaluation's baby steps are built as one linear
// combination per output limb (the power basis holds degree-2 powers and
// powers of lower levels, so the steps resize and mix levels) and the
// result is still Lattigo's byte for byte, both where the router runs the
// combinations and where it only has multiply-adds (the terms then go one
// by one).
func TestEvalPolyGatheredBabyStepsByteIdentical(t *testing.T) {
	rng := testseed.Rand(t, 42)
	kit, err := fhetest.NewKit(fhetest.InsecureBGVN10Deep)
	require.NoError(t, err)
	p := kit.Params
	lattigo := bgvpoly.NewEvaluator(p.BGV(), bgv.NewEvaluator(p.BGV(), rlwe.NewMemEvaluationKeySet(kit.Keys.Relin.Lattigo())))
	a, err := kit.Enc.EncryptInts(fhetest.RandInts(rng, p.Slots(), 100))
	require.NoError(t, err)
	for _, deg := range []int{2, 7, 16, 31, 100, 153} {
		coeffs := make([]int64, deg+1)
		c := make([]uint64, deg+1)
		for i := range coeffs {
			coeffs[i] = rng.Int64N(65537) - 32768
			c[i] = uint64((coeffs[i]%65537 + 65537) % 65537)
		}
		out, err := lattigo.Evaluate(a.Lattigo(), bgvpoly.NewPolynomial(c), a.Lattigo().Scale)
		require.NoError(t, err)
		ref, err := fhe.WrapCiphertext(p, out)
		require.NoError(t, err)
		want, err := ref.MarshalBinary()
		require.NoError(t, err)
		for _, lc := range []bool{false, true} {
			t.Run(fmt.Sprintf("deg%d/lincomb=%v", deg, lc), func(t *testing.T) {
				var router engine.Router
				pr := &productRouter{}
				lr := &linCombRouter{}
				if lc {
					router = lr
				} else {
					router = pr
				}
				engine.SetRouter(router)
				defer engine.SetRouter(nil)
				g := engine.NewGather(nil, 2)
				var got *fhe.Ciphertext
				var gerr error
				g.Run(func() { got, gerr = kit.Eval.WithRouter(g).EvalPolyInts(a, coeffs) })
				require.NoError(t, gerr)
				enc, err := got.MarshalBinary()
				require.NoError(t, err)
				require.True(t, bytes.Equal(want, enc), "gathered polynomial differs from Lattigo's")
				if lc {
					require.Positive(t, lr.lincombs, "the baby steps went through LinComb")
					require.Zero(t, lr.muladds, "no term went alone")
				} else {
					require.Positive(t, pr.muladds, "the terms went to MulAdd")
				}
			})
		}
	}
}
