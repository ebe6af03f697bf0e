package engine_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/internal/testseed"
)

// TestTensorBGVByteIdentical proves KeySwitcher.TensorBGV byte-identical to
// the tensor of Lattigo's bgv.Evaluator.MulNew on every BGV preset at every
// level, for a product and a square, with a router answering the scalar and
// coefficient products from their definitions; without a key-switch router
// it declines.
func TestTensorBGVByteIdentical(t *testing.T) {
	rng := testseed.Rand(t, 18)
	for _, pr := range fhe.Presets() {
		if pr.Scheme != fhe.SchemeBGV {
			continue
		}
		t.Run(pr.Name, func(t *testing.T) {
			p, err := fhe.NewParams(pr.ID)
			require.NoError(t, err)
			params := p.BGV()
			ref := bgv.NewEvaluator(params, nil)
			ks := engine.NewKeySwitcher(params.Parameters, rlwe.NewEvaluator(params.Parameters, nil))
			for level := 0; level <= params.MaxLevel(); level++ {
				a0 := randomCiphertext(rng, params.Parameters, level)
				b0 := randomCiphertext(rng, params.Parameters, level)
				a := &rlwe.Ciphertext{Element: rlwe.Element[ring.Poly]{MetaData: a0.MetaData, Value: a0.Value[:2]}}
				b := &rlwe.Ciphertext{Element: rlwe.Element[ring.Poly]{MetaData: b0.MetaData, Value: b0.Value[:2]}}
				for _, pair := range [][2]*rlwe.Ciphertext{{a, b}, {a, a}} {
					want, err := ref.MulNew(pair[0], pair[1])
					require.NoError(t, err)

					got := bgv.NewCiphertext(params, 2, level)
					_, lvl, err := ref.InitOutputBinaryOp(pair[0].El(), pair[1].El(), 2, got.El())
					require.NoError(t, err)
					got.Resize(2, lvl)
					got.Scale = pair[0].Scale.Mul(pair[1].Scale)
					require.False(t, ks.TensorBGV(lvl, params.PlaintextModulus(), pair[0].Value, pair[1].Value, got.Value), "no router: declined")
					kr := &keySwitchRouter{}
					engine.SetRouter(kr)
					ok := ks.TensorBGV(lvl, params.PlaintextModulus(), pair[0].Value, pair[1].Value, got.Value)
					engine.SetRouter(nil)
					require.True(t, ok)
					require.True(t, bytes.Equal(marshal(t, want), marshal(t, got)), "level %d square %v: differs from Lattigo's tensor", level, pair[0] == pair[1])
					require.Positive(t, kr.macs.Load())
					require.Positive(t, kr.scaleDiffs.Load())
				}
			}
		})
	}
}
