package zkpok

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// applyByDefinition is W = (t·(pk0·u + e0) + P·m, pk1·u + e1) computed as
// the definition reads, one NTT per component: what apply must equal.
func (k *Key) applyByDefinition(w [nComp][]int64, out0, out1 ring.Poly) {
	rqp := k.rqp
	var polys [nComp]ring.Poly
	for i := range nComp {
		polys[i] = rqp.NewPoly()
		setSigned(rqp, polys[i], w[i])
		rqp.NTT(polys[i], polys[i])
	}
	rqp.MulCoeffsBarrett(polys[compU], k.pk[0], out0)
	rqp.Add(out0, polys[compE0], out0)
	rqp.MulScalar(out0, k.t, out0)
	rqp.MulScalarBigintThenAdd(polys[compM], k.lift.bigP, out0)
	rqp.MulCoeffsBarrett(polys[compU], k.pk[1], out1)
	rqp.Add(out1, polys[compE1], out1)
}

// monomialByNTT is the NTT of X^e over QP, transformed.
func (k *Key) monomialByNTT(e int) ring.Poly {
	rqp, n := k.rqp, k.PP.N
	c := rqp.NewPoly()
	for i, s := range rqp.SubRings {
		if e < n {
			c.Coeffs[i][e] = 1
		} else {
			c.Coeffs[i][e-n] = s.Modulus - 1
		}
	}
	rqp.NTT(c, c)
	return c
}

// TestVerifierShortcutsExact: the verifier's two shortcuts compute exactly
// the values of the definitions, so W, the transcript and the proof format
// are unchanged (a proof made before them verifies after, and the other
// way round): apply's one transform of t·e0 + P·m instead of two, and the
// challenge X^e's NTT form by table lookup instead of a transform — for
// responses at their largest widths (both signs) and exponents on both
// sides of N, on a test preset and both public BGV presets.
func TestVerifierShortcutsExact(t *testing.T) {
	for _, id := range []fhe.PresetID{fhetest.InsecureBGVN10, fhe.BGVN13, fhe.BGVN14} {
		p := fhe.MustParams(id)
		k, err := NewKey(fhe.GenKeys(p, nil).Public)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(uint64(id), 7))
		var w [nComp][]int64
		for i := range nComp {
			w[i] = make([]int64, k.PP.N)
			for j := range w[i] {
				w[i][j] = r.Int64N(2*k.PP.Z[i]+1) - k.PP.Z[i]
			}
		}
		a0, a1, b0, b1 := k.rqp.NewPoly(), k.rqp.NewPoly(), k.rqp.NewPoly(), k.rqp.NewPoly()
		k.apply(w, a0, a1)
		k.applyByDefinition(w, b0, b1)
		require.True(t, a0.Equal(&b0), "%s: W0", p.Preset.Name)
		require.True(t, a1.Equal(&b1), "%s: W1", p.Preset.Name)
		n := k.PP.N
		for _, e := range []int{0, 1, 2, n - 1, n, n + 1, 2*n - 1, r.IntN(2 * n), r.IntN(2 * n)} {
			got, want := k.monomialNTT(e), k.monomialByNTT(e)
			require.True(t, got.Equal(&want), "%s: X^%d", p.Preset.Name, e)
		}
	}
}

// BenchmarkRepetitionW: one repetition's W_k = A·z_k − c_k·(t·ĉ0, ĉ1) as
// the verifier computes it (three transforms, the challenge by table) and
// by the definition (five transforms), in one process so that the two
// alternate under the same load:
// go test ./fhe/zkpok -run '^$' -bench RepetitionW -count 3
func BenchmarkRepetitionW(b *testing.B) {
	for _, id := range []fhe.PresetID{fhe.BGVN13, fhe.BGVN14} {
		p := fhe.MustParams(id)
		k, err := NewKey(fhe.GenKeys(p, nil).Public)
		require.NoError(b, err)
		r := rand.New(rand.NewPCG(uint64(id), 9))
		var z [nComp][]int64
		for i := range nComp {
			z[i] = make([]int64, k.PP.N)
			for j := range z[i] {
				z[i][j] = r.Int64N(2*k.PP.Z[i]+1) - k.PP.Z[i]
			}
		}
		hat := [2]ring.Poly{k.rqp.NewPoly(), k.rqp.NewPoly()}
		k.monomialNTT(0) // the table, once per key
		for _, v := range []struct {
			name  string
			apply func([nComp][]int64, ring.Poly, ring.Poly)
			mono  func(int) ring.Poly
		}{{"definition", k.applyByDefinition, k.monomialByNTT}, {"shortcuts", k.apply, k.monomialNTT}} {
			b.Run(p.Preset.Name+"/"+v.name, func(b *testing.B) {
				rqp := k.rqp
				for b.Loop() {
					w0, w1 := rqp.NewPoly(), rqp.NewPoly()
					v.apply(z, w0, w1)
					c, tmp := v.mono(r.IntN(2*k.PP.N)), rqp.NewPoly()
					rqp.MulCoeffsBarrett(c, hat[0], tmp)
					rqp.Sub(w0, tmp, w0)
					rqp.MulCoeffsBarrett(c, hat[1], tmp)
					rqp.Sub(w1, tmp, w1)
				}
			})
		}
	}
}
