package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
	"github.com/fhegate/fhegate/policy/policytest"
)

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root, _ := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs(append([]string{"--log-level", "error"}, args...))
	err := root.Execute()
	return out.String(), err
}

func TestPolicyCLI(t *testing.T) {
	want, err := policy.Compile(examples.MustGet("allowlist"))
	require.NoError(t, err)

	out, err := runCLI(t, "policy", "inspect", "example:allowlist", "--json")
	require.NoError(t, err)
	var s planSummary
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	require.Equal(t, want.HashHex(), s.Hash)
	require.Equal(t, 3, s.Depth) // BGVN13's 3 levels above its refresh floor
	require.Equal(t, want.Gas(), s.Gas)

	plan := filepath.Join(t.TempDir(), "plan.bin")
	out, err = runCLI(t, "policy", "compile", "example:allowlist", "-o", plan)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(out, want.HashHex()))
	b, err := os.ReadFile(plan)
	require.NoError(t, err)
	require.Equal(t, want.CanonicalBytes(), b)

	require.True(t, s.EvaluatedAlone, "allowlist has no packed form on BGVN13")
	require.Equal(t, want.AloneGas(), s.RequestBooks)
	require.Equal(t, uint64(118), s.RequestsPerBlock)

	out, err = runCLI(t, "policy", "inspect", "example:kyc_aml", "--ops")
	require.NoError(t, err)
	require.Contains(t, out, "poly   P(r0), degree 127")
	require.Contains(t, out, "evaluated  packed: a block's first request books one packed evaluation, 121434112 gas")

	out, err = runCLI(t, "policy", "inspect", "example:credit_limit")
	require.NoError(t, err)
	require.Contains(t, out, "register   accepted by FHEPolicy.registerPolicy: 10640 gas per request")
	require.Contains(t, out, "evaluated  alone: no packed form, so each request books its whole evaluation, 58165080 gas")
	require.Contains(t, out, "(16 requests a block)")

	out, err = runCLI(t, "policy", "eval", "example:allowlist", "-d", "member=3", "-d", "member=4")
	require.NoError(t, err)
	require.Contains(t, out, "decision 0: [3] → verdict 1")
	require.Contains(t, out, "decision 1: [4] → verdict 0")
	require.Contains(t, out, "all verdicts match")

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("fhegate_policy: 1\nname: b\ninputs: [{name: x, min: 0, max: 3}]\noutput: {expr: \"y > 1\"}\n"), 0o644))
	_, err = runCLI(t, "policy", "inspect", bad)
	require.ErrorIs(t, err, policy.ErrUndeclared)
	_, err = runCLI(t, "policy", "eval", "example:allowlist", "-d", "member=99")
	require.ErrorIs(t, err, policy.ErrInput)
	_, err = runCLI(t, "policy", "eval", "example:allowlist", "-d", "nobody=1")
	require.Error(t, err)
}

// TestPolicyEvalAppliesRegistration: `policy eval` applies
// FHEPolicy.registerPolicy's rule before it evaluates anything: a policy the
// chain refuses (here x >= 77 over [0, 255]: its degree-255 polynomial's
// result noise is beyond what the decryption flooding hides) is not
// evaluated, and eval and inspect name the same refusal; a policy the chain
// accepts is evaluated after a line saying so.
func TestPolicyEvalAppliesRegistration(t *testing.T) {
	refused := filepath.Join(t.TempDir(), "ge77.yaml")
	require.NoError(t, os.WriteFile(refused, []byte("fhegate_policy: 1\nname: ge77\ninputs: [{name: x, min: 0, max: 255}]\noutput: {expr: \"x >= 77\"}\n"), 0o644))
	const why = "result noise exceeds what the decryption flooding hides"

	out, err := runCLI(t, "policy", "eval", refused, "--random", "3")
	require.ErrorIs(t, err, ErrRegisterRefused)
	require.ErrorContains(t, err, why)
	require.ErrorContains(t, err, "not evaluated")
	require.ErrorContains(t, err, "{name: x, type: uint8, max: 255}", "the refusal names the typed form")
	require.NotContains(t, out, "decision", "nothing was evaluated")

	out, err = runCLI(t, "policy", "inspect", refused)
	require.NoError(t, err)
	require.Contains(t, out, "register   refused by FHEPolicy.registerPolicy: compile: policy: "+why)
	out, err = runCLI(t, "policy", "inspect", refused, "--json")
	require.NoError(t, err)
	var s planSummary
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	require.Contains(t, s.RegisterError, why)

	out, err = runCLI(t, "policy", "eval", "example:allowlist", "-d", "member=3")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(out, "register: accepted by FHEPolicy.registerPolicy: "), out)
	require.Contains(t, out, "all verdicts match")
}

// TestPolicyEvalInProcessCommittee: a plan with refresh points (at least two
// per request path on the depth-4 test preset, four in its packed form) is evaluated by `policy eval`'s in-process committee —
// DKG, collective refreshes, threshold decryption — and every packed verdict
// equals the compiler's plaintext evaluation.
func TestPolicyEvalInProcessCommittee(t *testing.T) {
	spec := policytest.RefreshFour
	p, err := policy.CompileWith([]byte(spec), circuit.PolicyOptions(fhetest.InsecureBGVN10))
	require.NoError(t, err)
	require.GreaterOrEqual(t, p.Counts.Refreshes, 2)
	r := rand.New(rand.NewPCG(3, 4))
	rows := make([][]int64, 64)
	for i := range rows {
		rows[i] = []int64{r.Int64N(2), r.Int64N(2), r.Int64N(2), r.Int64N(2)}
	}
	packed, err := p.PackInputs(rows)
	require.NoError(t, err)
	var out bytes.Buffer
	got, _, err := evalInProcessCommittee(context.Background(), zaptest.NewLogger(t), &out, p, packed, len(rows), 1)
	require.NoError(t, err)
	want, err := p.EvalPlain(packed)
	require.NoError(t, err)
	require.Equal(t, want[:len(rows)], got)
	require.Contains(t, out.String(), "collective refreshes")
}
