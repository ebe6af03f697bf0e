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
	"github.com/fhegate/fhegate/policy/policytest"
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
	err := pc.Register(id, []byte(policytest.TooNoisy))
	require.ErrorIs(t, err, policy.ErrTooNoisy)
	_, err = pc.Lookup(id)
	require.True(t, errors.Is(err, ErrUnevaluable), fmt.Sprint(err))
	t.Log(err)
}

// TestChainAndCommitteeNoiseModelsAgree: FHEPolicy.registerPolicy's
// compiler (precompiles/corebackends) refuses noisy plans with policy/eval's
// constants; they must be the committee's, or the chain would accept plans
// the committee answers with the unevaluable sentinel.
func TestChainAndCommitteeNoiseModelsAgree(t *testing.T) {
	t.Parallel()
	require.Equal(t, protocol.MaxMembers, eval.MaxCommitteeMembers)
	require.Equal(t, float64(protocol.CiphertextNoiseBits), float64(eval.NoiseLimitBits))
}
