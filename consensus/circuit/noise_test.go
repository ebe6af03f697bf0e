package circuit

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
	"github.com/fhegate/fhegate/fhe/zkpok"
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

// linearSpec is an identity-like policy: the verdict is a small weighted sum
// of two inputs, so an input's noise reaches the decryption unchanged.
const linearSpec = `fhegate_policy: 1
name: linear
inputs:
  - {name: a, min: 0, max: 100}
  - {name: b, min: 0, max: 100}
output:
  type: score
  min: 0
  max: 300
  expr: "2*a + b"
`

// TestAcceptedInputNoise: the model records the accepted bound
// (zkpok.AcceptedNoiseBits for 16 members) but starts every plan input at
// the entry refresh's output (RefreshBits: no plan ever consumes an upload
// directly, see PackLevel for the refresh that takes the accepted bound),
// for a 3-of-5 committee (decryption level from protocol.PlanNoise).
// Attack: "noisy-input key probe" through the model — an identity-like
// (linear) policy over refreshed inputs is hidden by the flooding on both
// presets, because the committee modulus-switches the masked result down to
// its decryption level (protocol.PrepareForDecryption; measured in
// protocol.TestAttackNoisyInputIdentity). For every shipped example, whose
// comparison polynomials multiply the inputs, it reports how far above the
// flooding bound the worst case lands: the noisy-input key probe stays open
// there (see docs/committee.md, "Threat model"), so registration still gates
// on the honest estimate.
func TestAcceptedInputNoise(t *testing.T) {
	for _, id := range []fhe.PresetID{fhe.BGVN13, fhe.BGVN14} {
		p := fhe.MustParams(id)
		np, err := protocol.PlanNoise(p, 5, 3, 0)
		require.NoError(t, err)
		m := PolicyNoiseModel(p)
		require.Equal(t, -1, m.DecryptLevel)
		m.DecryptLevel = np.Level
		want, err := zkpok.AcceptedNoiseBits(p, noise.MaxMembers)
		require.NoError(t, err)
		require.Equal(t, want, m.AcceptedBits)
		require.Equal(t, m.RefreshBits, m.InputBits)                                                     // one by one: the entry refresh's output
		require.Less(t, eval.CommitteePackedNoiseModel(p, noise.MaxMembers).InputBits, m.FloorBits+1.01) // packed: rescaled once
		require.Greater(t, m.AcceptedBits, m.InputBits+5)

		plan, err := policy.CompileWith([]byte(linearSpec), PolicyOptions(id))
		require.NoError(t, err)
		est, err := plan.CheckNoise(m, noise.CiphertextBits)
		require.NoError(t, err)
		t.Logf("%s linear: inputs 2^%.1f, at decryption 2^%.1f (level %d), refresh exposure 2^%.1f", p.Preset.Name, m.InputBits, est.InputDecryptBits, np.Level, est.InputRefreshBits)
		require.LessOrEqual(t, est.InputDecryptBits, float64(noise.CiphertextBits))
		require.True(t, math.IsInf(est.InputRefreshBits, -1))

		for _, name := range append(examples.Names(), examples.DeepNames()...) {
			spec, err := examples.Get(name)
			require.NoError(t, err)
			plan, err := policy.CompileWith(spec, PolicyOptions(id))
			if err != nil {
				continue
			}
			est := plan.EstimateNoise(m)
			t.Logf("%s %s: honest at decryption 2^%.1f; accepted inputs: at decryption 2^%.1f, refresh exposure 2^%.1f",
				p.Preset.Name, name, est.DecryptBits, est.InputDecryptBits, est.InputRefreshBits)
		}
	}
}

// TestNoiseModelSwitchRescales: the admission rule's noise model credits
// the decryption's modulus switch with at most the rescales
// PrepareForDecryption takes.
func TestNoiseModelSwitchRescales(t *testing.T) {
	t.Parallel()
	require.Equal(t, protocol.MaxSwitchRescales, eval.CommitteeNoiseModel(fhe.MustParams(fhe.BGVN14), noise.MaxMembers).SwitchRescales)
}
