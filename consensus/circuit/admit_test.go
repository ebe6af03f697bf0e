package circuit

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/internal/keccak"
	"github.com/fhegate/fhegate/policy/examples"
	"github.com/fhegate/fhegate/policy/policytest"
	"github.com/fhegate/fhegate/precompiles/corebackends"
)

// TestChainAndCommitteeAdmitTheSameSpecs: FHEPolicy.registerPolicy's
// compiler (corebackends.Policy, eval.Chain) and the committee's registry on
// its default preset (PolicyCircuits.Register, eval.Committee) accept
// exactly the same specs — every shipped example, and refuse alike specs
// too noisy for the flooding, whose values overflow the plaintext modulus,
// or malformed — because both apply eval.Admit.
func TestChainAndCommitteeAdmitTheSameSpecs(t *testing.T) {
	t.Parallel()
	doc := func(inputs, expr string) string {
		return "fhegate_policy: 1\nname: w\ninputs:\n" + inputs + "output: {expr: \"" + expr + "\"}\n"
	}
	var chain []string
	for i := range 24 {
		chain = append(chain, fmt.Sprintf("  - {name: x%d, min: 0, max: 3}\n", i))
	}
	deepExpr := "x0 * x1 * x2 * x3 * x4 * x5 * x6 * x7 * x8 * x9 * x10 * x11 * x12 * x13 * x14 * x15 * x16 * x17 * x18 * x19 * x20 * x21 * x22 * x23 >= 1"
	specs := map[string]struct {
		spec   string
		admits bool
	}{
		"too noisy":      {policytest.TooNoisy, false},
		"refresh two":    {policytest.RefreshTwo, true},
		"refresh four":   {policytest.RefreshFour, true},
		"u16 compare":    {doc("  - {name: x, type: uint16}\n", "x < 40000"), true},
		"u32 pair":       {doc("  - {name: x, type: uint32}\n  - {name: y, type: uint32}\n", "x <= y"), true},
		"range too wide": {doc(string(joinLines(chain)), deepExpr), false},
		"no output":      {"fhegate_policy: 1\nname: x\ninputs:\n  - {name: a, min: 0, max: 1}\n", false},
		"not a document": {"{", false},
		"unknown input":  {doc("  - {name: x, min: 0, max: 9}\n", "y > 3"), false},
	}
	for _, name := range examples.AllNames() {
		specs["example "+name] = struct {
			spec   string
			admits bool
		}{string(examples.MustGet(name)), true}
	}
	for name, tc := range specs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec := []byte(tc.spec)
			_, chainErr := corebackends.Policy{}.Compile(spec)
			pc := NewPolicyCircuits(fhe.PresetID(fhe.BGVN14))
			id := keccak.Sum(spec)
			committeeErr := pc.Register(id, spec)
			require.Equal(t, chainErr == nil, committeeErr == nil, "chain: %v\ncommittee: %v", chainErr, committeeErr)
			require.Equal(t, tc.admits, chainErr == nil, "chain: %v", chainErr)
			if chainErr != nil {
				_, err := pc.Lookup(id)
				require.ErrorIs(t, err, ErrUnevaluable)
				return
			}
			c, err := pc.Lookup(id)
			require.NoError(t, err)
			_, err = pc.LookupPacked(id)
			if err != nil {
				// evaluated one by one: the unpacked form must pass
				require.NoError(t, pc.CompileError(id))
				require.NotNil(t, c)
			}
		})
	}
}

func joinLines(ls []string) []byte {
	var b []byte
	for _, l := range ls {
		b = append(b, l...)
	}
	return b
}
