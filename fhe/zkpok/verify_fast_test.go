package zkpok

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// applyByDefinition is W = A′·(u, m) = (pk0·u + γ·m, pk1·u) computed as
// the definition reads, in the NTT domain (one transform per component,
// γ = P·[t^{-1}]_Q) and transformed back: what apply must equal.
func (k *Key) applyByDefinition(w [nComp][]int64, out0, out1 ring.Poly) {
	rqp := k.rqp
	u, m := rqp.NewPoly(), rqp.NewPoly()
	setSigned(rqp, u, w[compU])
	setSigned(rqp, m, w[compM])
	rqp.NTT(u, u)
	rqp.NTT(m, m)
	rqp.MulCoeffsBarrett(u, k.pk[0], out0)
	rqp.MulScalarBigintThenAdd(m, k.ptInv, out0)
	rqp.MulCoeffsBarrett(u, k.pk[1], out1)
	rqp.INTT(out0, out0)
	rqp.INTT(out1, out1)
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

// TestVerifierShortcutsExact: the verifier's shortcuts compute exactly the
// values of the definitions: apply's γ·m added in the coefficient domain
// (three transforms instead of four), the challenge X^e's NTT form by table
// lookup instead of a transform, and residual's V = A′·z − X^e·ĉ — for
// responses at their largest widths (both signs) and exponents on both
// sides of N, on a test preset and both public BGV presets.
func TestVerifierShortcutsExact(t *testing.T) {
	for _, id := range []fhe.PresetID{fhetest.InsecureBGVN10, fhe.BGVN13, fhe.BGVN14} {
		p := fhe.MustParams(id)
		k, err := NewKey(fhe.GenKeys(p, nil).Public)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(uint64(id), 7))
		var w [nComp][]int64
		for _, i := range respComps {
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
		n, rqp := k.PP.N, k.rqp
		var hat [2]ring.Poly
		for i := range hat {
			hat[i] = rqp.NewPoly()
			for row, sr := range rqp.SubRings {
				for l := range hat[i].Coeffs[row] {
					hat[i].Coeffs[row][l] = r.Uint64N(sr.Modulus)
				}
			}
		}
		for _, e := range []int{0, 1, 2, n - 1, n, n + 1, 2*n - 1, r.IntN(2 * n), r.IntN(2 * n)} {
			got, want := k.monomialNTT(e), k.monomialByNTT(e)
			require.True(t, got.Equal(&want), "%s: X^%d", p.Preset.Name, e)
			v0, v1 := k.residual(w, e, hat)
			d0, d1, tmp := rqp.NewPoly(), rqp.NewPoly(), rqp.NewPoly()
			k.applyByDefinition(w, d0, d1)
			for i, d := range []ring.Poly{d0, d1} {
				rqp.MulCoeffsBarrett(want, hat[i], tmp)
				rqp.INTT(tmp, tmp)
				rqp.Sub(d, tmp, d)
			}
			require.True(t, v0.Equal(&d0), "%s: V0, X^%d", p.Preset.Name, e)
			require.True(t, v1.Equal(&d1), "%s: V1, X^%d", p.Preset.Name, e)
		}
	}
}

// BenchmarkRepetitionW: one repetition's V = A′·z − c·ĉ and its high parts
// as the verifier computes them (three transforms, the challenge by table):
// go test ./fhe/zkpok -run '^$' -bench RepetitionW -count 3
func BenchmarkRepetitionW(b *testing.B) {
	for _, id := range []fhe.PresetID{fhe.BGVN13, fhe.BGVN14} {
		p := fhe.MustParams(id)
		k, err := NewKey(fhe.GenKeys(p, nil).Public)
		require.NoError(b, err)
		r := rand.New(rand.NewPCG(uint64(id), 9))
		var z [nComp][]int64
		for _, i := range respComps {
			z[i] = make([]int64, k.PP.N)
			for j := range z[i] {
				z[i][j] = r.Int64N(2*k.PP.Z[i]+1) - k.PP.Z[i]
			}
		}
		hat := [2]ring.Poly{k.rqp.NewPoly(), k.rqp.NewPoly()}
		k.monomialNTT(0) // the table, once per key
		b.Run(p.Preset.Name, func(b *testing.B) {
			for b.Loop() {
				v0, v1 := k.residual(z, r.IntN(2*k.PP.N), hat)
				k.highParts(v0)
				k.highParts(v1)
			}
		})
	}
}
