package fhe_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	bgvpoly "github.com/tuneinsight/lattigo/v6/circuits/bgv/polynomial"
	ckkspoly "github.com/tuneinsight/lattigo/v6/circuits/ckks/polynomial"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/schemes/ckks"
	"github.com/tuneinsight/lattigo/v6/utils/bignum"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/internal/testseed"
)

// reducedRouter answers every batch, lazy or not, with Lattigo's reduced
// transform, as an accelerator proved byte-identical to SubRing.NTT does.
type reducedRouter struct{ jobs int }

func (r *reducedRouter) Transform(inverse, _ bool, jobs []engine.Job) {
	r.jobs += len(jobs)
	engine.RunLattigo(inverse, false, jobs)
}

// productRouter is reducedRouter with BGV's products answered by Lattigo's
// per-word arithmetic (engine's Finish) into outputs poisoned first, as
// an accelerator with product kernels does; it counts the limbs.
type productRouter struct {
	reducedRouter
	tensors, muladds int
}

func poisonWords(s []uint64) {
	for i := range s {
		s[i] = 0xABABABABABABABAB
	}
}

func (r *productRouter) Tensor(jobs []engine.TensorJob) bool {
	for _, j := range jobs {
		n := j.S.N
		c := j
		c.A0, c.A1, c.B0, c.B1 = slices.Clone(j.A0[:n]), slices.Clone(j.A1[:n]), slices.Clone(j.B0[:n]), slices.Clone(j.B1[:n])
		poisonWords(j.Out0[:n])
		poisonWords(j.Out1[:n])
		poisonWords(j.Out2[:n])
		c.Out0, c.Out1, c.Out2 = j.Out0, j.Out1, j.Out2
		c.Finish(0)
	}
	r.tensors += len(jobs)
	return true
}

func (r *productRouter) MulAdd(jobs []engine.MulAddJob) bool {
	for _, j := range jobs {
		j.Finish(0)
	}
	r.muladds += len(jobs)
	return true
}

// TestMulEngineMatchesLattigo: Evaluator.Mul and Evaluator.Rotate, whose key
// switches are the engine's, give the canonical bytes of Lattigo's
// MulRelinNew + Rescale and RotateColumnsNew / RotateNew on every public
// preset at every level ≥ 1, with Lattigo's own transforms and with a router
// standing in for an accelerator.
func TestMulEngineMatchesLattigo(t *testing.T) {
	rng := testseed.Rand(t, 14)
	for _, pr := range fhe.Presets() {
		if pr.Insecure() {
			continue
		}
		t.Run(pr.Name, func(t *testing.T) { mulEngineMatchesLattigo(t, rng, pr.ID) })
	}
}

// mulEngineMatchesLattigo is TestMulEngineMatchesLattigo on one preset:
// two random ciphertexts, compared at every level ≥ 1.
func mulEngineMatchesLattigo(t *testing.T, rng *rand.Rand, id fhe.PresetID) {
	p, err := fhe.NewParams(id)
	require.NoError(t, err)
	keys := fhe.GenKeys(p, []int{1})
	enc := fhe.NewEncryptor(keys.Public)
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: keys.Relin, Galois: keys.Galois})
	require.NoError(t, err)
	evk := rlwe.NewMemEvaluationKeySet(keys.Relin.Lattigo(), keys.Galois.Lattigo()...)
	var a, b *fhe.Ciphertext
	if p.Scheme() == fhe.SchemeBGV {
		a, err = enc.EncryptInts(fhetest.RandInts(rng, p.Slots(), 100))
		require.NoError(t, err)
		b, err = enc.EncryptInts(fhetest.RandInts(rng, p.Slots(), 100))
	} else {
		a, err = enc.EncryptFloats(fhetest.RandFloats(rng, p.Slots()))
		require.NoError(t, err)
		b, err = enc.EncryptFloats(fhetest.RandFloats(rng, p.Slots()))
	}
	require.NoError(t, err)
	for level := p.MaxLevel(); level >= 1; level-- {
		al, err := ev.DropLevels(a, p.MaxLevel()-level)
		require.NoError(t, err)
		bl, err := ev.DropLevels(b, p.MaxLevel()-level)
		require.NoError(t, err)
		mulMatchesLattigo(t, p, ev, evk, al, bl, level)
		rotateMatchesLattigo(t, p, ev, evk, al, level)
	}
}

// mulMatchesLattigo: ev.Mul(al, bl), without and with a reduced router,
// gives the bytes of Lattigo's MulRelinNew + Rescale.
func mulMatchesLattigo(t *testing.T, p *fhe.Params, ev *fhe.Evaluator, evk *rlwe.MemEvaluationKeySet, al, bl *fhe.Ciphertext, level int) {
	// Lattigo: MulRelinNew, Rescale.
	var prod *rlwe.Ciphertext
	var err error
	out := rlwe.NewCiphertext(p.RLWE(), 1, level-1)
	if p.Scheme() == fhe.SchemeBGV {
		lev := bgv.NewEvaluator(p.BGV(), evk)
		prod, err = lev.MulRelinNew(al.Lattigo(), bl.Lattigo())
		require.NoError(t, err)
		require.NoError(t, lev.Rescale(prod, out))
	} else {
		lev := ckks.NewEvaluator(p.CKKS(), evk)
		prod, err = lev.MulRelinNew(al.Lattigo(), bl.Lattigo())
		require.NoError(t, err)
		require.NoError(t, lev.Rescale(prod, out))
	}
	ref, err := fhe.WrapCiphertext(p, out)
	require.NoError(t, err)
	want, err := ref.MarshalBinary()
	require.NoError(t, err)

	got, err := ev.Mul(al, bl)
	require.NoError(t, err)
	gotB, err := got.MarshalBinary()
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, gotB), "level %d: engine Mul differs from Lattigo", level)

	r := &reducedRouter{}
	engine.SetRouter(r)
	got, err = ev.Mul(al, bl)
	engine.SetRouter(nil)
	require.NoError(t, err)
	gotB, err = got.MarshalBinary()
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, gotB), "level %d: engine Mul with a reduced router differs from Lattigo", level)
	require.Positive(t, r.jobs)

	pr := &productRouter{}
	engine.SetRouter(pr)
	got, err = ev.Mul(al, bl)
	engine.SetRouter(nil)
	require.NoError(t, err)
	gotB, err = got.MarshalBinary()
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, gotB), "level %d: engine Mul with a product router differs from Lattigo", level)
	if p.Scheme() == fhe.SchemeBGV {
		require.Positive(t, pr.tensors)
	}
}

// rotateMatchesLattigo: ev.Rotate(al, 1), without and with a reduced
// router, gives the bytes of Lattigo's RotateColumnsNew / RotateNew.
func rotateMatchesLattigo(t *testing.T, p *fhe.Params, ev *fhe.Evaluator, evk *rlwe.MemEvaluationKeySet, al *fhe.Ciphertext, level int) {
	var rot *rlwe.Ciphertext
	var err error
	if p.Scheme() == fhe.SchemeBGV {
		rot, err = bgv.NewEvaluator(p.BGV(), evk).RotateColumnsNew(al.Lattigo(), 1)
	} else {
		rot, err = ckks.NewEvaluator(p.CKKS(), evk).RotateNew(al.Lattigo(), 1)
	}
	require.NoError(t, err)
	ref, err := fhe.WrapCiphertext(p, rot)
	require.NoError(t, err)
	want, err := ref.MarshalBinary()
	require.NoError(t, err)
	for _, router := range []engine.Router{nil, &reducedRouter{}} {
		engine.SetRouter(router)
		got, err := ev.Rotate(al, 1)
		engine.SetRouter(nil)
		require.NoError(t, err)
		gotB, err := got.MarshalBinary()
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, gotB), "level %d: engine Rotate differs from Lattigo (router %v)", level, router != nil)
	}
}

// TestEvalPolyEngineMatchesLattigo: EvalPolyInts / EvalPolyFloats, whose
// polynomial evaluators relinearise and rescale through the engine, give
// the canonical bytes of Lattigo's own polynomial evaluator on every public
// preset, from the top level, with Lattigo's transforms, with a reduced
// router, and with a router that also takes BGV's tensor and multiply-adds
// (degree 7: three levels, lazy relinearisations in the power basis).
func TestEvalPolyEngineMatchesLattigo(t *testing.T) {
	rng := testseed.Rand(t, 19)
	for _, pr := range fhe.Presets() {
		if pr.Insecure() {
			continue
		}
		t.Run(pr.Name, func(t *testing.T) {
			p, err := fhe.NewParams(pr.ID)
			require.NoError(t, err)
			keys := fhe.GenKeys(p, nil)
			ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: keys.Relin})
			require.NoError(t, err)
			enc := fhe.NewEncryptor(keys.Public)
			evk := rlwe.NewMemEvaluationKeySet(keys.Relin.Lattigo())
			var a *fhe.Ciphertext
			var want *rlwe.Ciphertext
			ints := []int64{3, -1, 4, 1, -5, 9, 2, -6}
			floats := []float64{0.5, -0.25, 0.125, 0.75, -0.5, 0.25, 0.1, -0.3}
			if p.Scheme() == fhe.SchemeBGV {
				a, err = enc.EncryptInts(fhetest.RandInts(rng, p.Slots(), 50))
				require.NoError(t, err)
				c := make([]uint64, len(ints))
				for i, x := range ints {
					c[i] = uint64((x%65537 + 65537) % 65537)
				}
				want, err = bgvpoly.NewEvaluator(p.BGV(), bgv.NewEvaluator(p.BGV(), evk)).Evaluate(a.Lattigo(), bgvpoly.NewPolynomial(c), a.Lattigo().Scale)
			} else {
				a, err = enc.EncryptFloats(fhetest.RandFloats(rng, p.Slots()))
				require.NoError(t, err)
				poly := bignum.NewPolynomial(bignum.Monomial, floats, nil)
				want, err = ckkspoly.NewEvaluator(p.CKKS(), ckks.NewEvaluator(p.CKKS(), evk)).Evaluate(a.Lattigo(), ckkspoly.NewPolynomial(poly), a.Lattigo().Scale)
			}
			require.NoError(t, err)
			ref, err := fhe.WrapCiphertext(p, want)
			require.NoError(t, err)
			wantB, err := ref.MarshalBinary()
			require.NoError(t, err)
			for _, router := range []engine.Router{nil, &reducedRouter{}, &productRouter{}} {
				engine.SetRouter(router)
				var got *fhe.Ciphertext
				if p.Scheme() == fhe.SchemeBGV {
					got, err = ev.EvalPolyInts(a, ints)
				} else {
					got, err = ev.EvalPolyFloats(a, floats)
				}
				engine.SetRouter(nil)
				require.NoError(t, err)
				gotB, err := got.MarshalBinary()
				require.NoError(t, err)
				require.True(t, bytes.Equal(wantB, gotB), "engine polynomial evaluation differs from Lattigo (router %T)", router)
				if pr, ok := router.(*productRouter); ok && p.Scheme() == fhe.SchemeBGV {
					require.Positive(t, pr.tensors, "the power basis's products went through the engine")
					require.Positive(t, pr.muladds, "the baby steps' multiply-adds went through the engine")
				}
			}
		})
	}
}
