package fhe_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/schemes/ckks"

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
		t.Run(pr.Name, func(t *testing.T) {
			p, err := fhe.NewParams(pr.ID)
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

				// Lattigo: MulRelinNew, Rescale.
				var prod *rlwe.Ciphertext
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

				// Rotate by one: Lattigo's RotateColumnsNew / RotateNew.
				var rot *rlwe.Ciphertext
				if p.Scheme() == fhe.SchemeBGV {
					rot, err = bgv.NewEvaluator(p.BGV(), evk).RotateColumnsNew(al.Lattigo(), 1)
				} else {
					rot, err = ckks.NewEvaluator(p.CKKS(), evk).RotateNew(al.Lattigo(), 1)
				}
				require.NoError(t, err)
				ref, err = fhe.WrapCiphertext(p, rot)
				require.NoError(t, err)
				want, err = ref.MarshalBinary()
				require.NoError(t, err)
				for _, router := range []engine.Router{nil, &reducedRouter{}} {
					engine.SetRouter(router)
					got, err = ev.Rotate(al, 1)
					engine.SetRouter(nil)
					require.NoError(t, err)
					gotB, err = got.MarshalBinary()
					require.NoError(t, err)
					require.True(t, bytes.Equal(want, gotB), "level %d: engine Rotate differs from Lattigo (router %v)", level, router != nil)
				}
			}
		})
	}
}
