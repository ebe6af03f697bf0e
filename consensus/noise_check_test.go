package consensus

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/policy/examples"
)

// TestPolicyNoiseBound: every shipped example is within the noise the
// flooding hides on both presets it compiles for, and a plan whose result
// is a heavily weighted sum of fresh inputs is refused at registration
// (unevaluable, with the estimate in the error).
func TestPolicyNoiseBound(t *testing.T) {
	for _, id := range []fhe.PresetID{fhe.BGVN14, fhe.BGVN13} {
		p := fhe.MustParams(id)
		m := PolicyNoiseModel(p)
		t.Logf("%s model: %+v", p.Preset.Name, m)
		for _, name := range append(examples.Names(), examples.DeepNames()...) {
			spec, err := examples.Get(name)
			require.NoError(t, err)
			plan, err := policy.CompileWith(spec, PolicyOptions(id))
			if err != nil {
				continue // unevaluable for this preset for another reason
			}
			est, err := plan.CheckNoise(m, 16)
			t.Logf("%s %s: result 2^%.1f, at decryption 2^%.1f, worst register 2^%.1f", p.Preset.Name, name, est.ResultBits, est.DecryptBits, est.WorstBits)
			require.NoError(t, err, name)
		}
	}
	pc := NewPolicyCircuits(fhe.BGVN14)
	var id [32]byte
	id[0] = 7
	err := pc.Register(id, []byte(noisySpec))
	require.ErrorIs(t, err, policy.ErrTooNoisy)
	_, err = pc.Lookup(id)
	require.True(t, errors.Is(err, ErrUnevaluable), fmt.Sprint(err))
	t.Log(err)
}

// noisySpec's verdict is Σ 4000·x_i over eight fresh inputs: its noise is
// 2^15 times a fresh encryption's (2^28.5), 2^16.5 after the mask: past B_ct.
const noisySpec = `fhegate_policy: 1
name: noisy
description: a heavily weighted sum of fresh inputs
inputs:
  - {name: a, min: 0, max: 1}
  - {name: b, min: 0, max: 1}
  - {name: c, min: 0, max: 1}
  - {name: d, min: 0, max: 1}
  - {name: e, min: 0, max: 1}
  - {name: f, min: 0, max: 1}
  - {name: g, min: 0, max: 1}
  - {name: h, min: 0, max: 1}
output:
  type: score
  min: 0
  max: 32000
  expr: "4000*a + 4000*b + 4000*c + 4000*d + 4000*e + 4000*f + 4000*g + 4000*h"
`

// TestChainAndCommitteeNoiseModelsAgree: FHEPolicy.registerPolicy's
// compiler (precompiles/corebackends) refuses noisy plans with policy/eval's
// constants; they must be the committee's, or the chain would accept plans
// the committee answers with the unevaluable sentinel.
func TestChainAndCommitteeNoiseModelsAgree(t *testing.T) {
	t.Parallel()
	require.Equal(t, protocol.MaxMembers, eval.MaxCommitteeMembers)
	require.Equal(t, float64(protocol.CiphertextNoiseBits), float64(eval.NoiseLimitBits))
}
