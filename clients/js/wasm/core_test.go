//go:build !(js && wasm)

package main

import (
	"encoding/hex"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"

	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/api/uploadwire"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/zkpok"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
	"github.com/fhegate/fhegate/policy/policytest"
	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/corebackends"
)

// testKeys returns a key pair of the insecure N=2^10 BGV test preset and
// the public key's canonical bytes.
func testKeys(t *testing.T) (*fhe.SecretKey, *fhe.PublicKey, []byte) {
	t.Helper()
	p, err := fhe.NewParams(fhetest.InsecureBGVN10)
	require.NoError(t, err)
	sk, pk := rlwe.NewKeyGenerator(p.RLWE()).GenKeyPairNew()
	pub := fhe.WrapPublicKey(p, pk)
	b, err := pub.MarshalBinary()
	require.NoError(t, err)
	return fhe.WrapSecretKey(p, sk), pub, b
}

// The constants and layouts the WASM core copies from consensus (which
// does not build for js/wasm) are consensus's.
func TestSharedDefinitionsMatchConsensus(t *testing.T) {
	require.Equal(t, api.MaxUploadItems, MaxUploadItems)
	_, pk, _ := testKeys(t)
	for _, tc := range []struct {
		name   string
		vector bool
		values []int64
	}{
		{"one scalar", false, []int64{7}},
		{"two scalars", false, []int64{5, -1}},
		{"vector of 3", true, []int64{30, 1, 0}},
		{"vector of 8", true, []int64{1, 2, 3, 4, 5, 6, 7, 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := api.InputSlotVectors(pk.Params(), tc.vector, tc.values)
			require.NoError(t, err)
			got, err := SlotVectors(pk.Params(), tc.vector, tc.values)
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}

// An input encrypted by the WASM core verifies with the committee's
// verifier (zkpok.Key.Verify on a key built from the same bytes),
// decrypts to the slot vector, and its upload body is what the member's
// decoder (uploadwire.Decode) reads back.
func TestEncryptVerifyAndUploadBody(t *testing.T) {
	sk, pk, pkb := testKeys(t)
	s, err := NewSession(pkb, "43114", "3")
	require.NoError(t, err)
	require.Equal(t, "43114", s.Info().ChainID)
	owner, err := ParseOwner("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	require.NoError(t, err)
	vecs, err := SlotVectors(pk.Params(), false, []int64{5, 1})
	require.NoError(t, err)
	var ins []*Input
	dec := fhe.NewDecryptor(sk)
	verifier, err := zkpok.NewKey(pk)
	require.NoError(t, err)
	pctx := zkpok.Context{ChainID: big.NewInt(43114), Epoch: 3, Owner: owner}
	for _, v := range vecs {
		in, err := s.Encrypt(owner, v)
		require.NoError(t, err)
		ct, err := fhe.UnmarshalCiphertext(in.Ciphertext)
		require.NoError(t, err)
		ul, err := zkpok.UploadLevel(pk.Params())
		require.NoError(t, err)
		require.Equal(t, ul, ct.Level(), "inputs at the upload level")
		require.Equal(t, ul, s.Info().Level)
		require.NoError(t, verifier.Verify(ct, fhe.HandleOf(in.Ciphertext), pctx, in.Proof))
		require.Equal(t, [32]byte(fhe.HandleOf(in.Ciphertext)), in.Handle)
		require.Equal(t, zkpok.Digest(in.Proof), in.ProofDigest)
		got, err := dec.DecryptInts(ct)
		require.NoError(t, err)
		require.Equal(t, v, got)
		require.NoError(t, s.Verify(owner, in.Ciphertext, in.Proof))
		// Bound to the owner, the chain and the epoch.
		other := owner
		other[0] ^= 1
		require.ErrorIs(t, s.Verify(other, in.Ciphertext, in.Proof), zkpok.ErrInvalid)
		s2, err := NewSession(pkb, "43114", "4")
		require.NoError(t, err)
		require.ErrorIs(t, s2.Verify(owner, in.Ciphertext, in.Proof), zkpok.ErrInvalid)
		ins = append(ins, in)
	}
	for _, rooted := range []bool{false, true} {
		body, err := UploadBody(owner, ins, rooted)
		require.NoError(t, err)
		u, err := uploadwire.Decode(body, 1<<24, 1<<24)
		require.NoError(t, err)
		require.Equal(t, owner, u.Owner)
		require.Equal(t, rooted, u.Rooted)
		require.Len(t, u.Items, len(ins))
		for i, in := range ins {
			require.Equal(t, uploadwire.Item{CType: 1, Ciphertext: in.Ciphertext, Proof: in.Proof}, u.Items[i])
		}
	}
}

func TestBadInputsRefused(t *testing.T) {
	_, _, pkb := testKeys(t)
	for _, tc := range []struct {
		name            string
		pk              []byte
		chainID, epoch  string
		wantErrContains string
	}{
		{"empty key", nil, "1", "0", "public key of 0 bytes"},
		{"garbage key", []byte{1, 2, 3}, "1", "0", "committee public key"},
		{"chain id not decimal", pkb, "0x1", "0", "chain id"},
		{"negative chain id", pkb, "-1", "0", "chain id"},
		{"chain id over 256 bits", pkb, "115792089237316195423570985008687907853269984665640564039457584007913129639936", "0", "chain id"},
		{"epoch not decimal", pkb, "1", "x", "key epoch"},
		{"negative epoch", pkb, "1", "-1", "key epoch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewSession(tc.pk, tc.chainID, tc.epoch)
			require.ErrorContains(t, err, tc.wantErrContains)
		})
	}
	for _, tc := range []struct {
		name   string
		vector bool
		values []int64
	}{
		{"no values", false, nil},
		{"17 scalars", false, make([]int64, MaxUploadItems+1)},
		{"vector of 65", true, make([]int64, fhe.MaxVectorWidth+1)},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Error(t, Values(tc.vector, tc.values)) })
	}
	require.NoError(t, Values(true, make([]int64, fhe.MaxVectorWidth)))
	_, err := UploadBody([20]byte{}, nil, false)
	require.Error(t, err)
	_, err = UploadBody([20]byte{}, make([]*Input, MaxUploadItems+1), false)
	require.Error(t, err)
	for _, s := range []string{"", "0x", "0x1234", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8aa", "zz997970C51812dc3A010C7d01b50e0d17dc79C8"} {
		_, err := ParseOwner(s)
		require.Error(t, err, s)
	}
}

// FuzzNewSession feeds arbitrary key bytes and context strings to the
// announcement decoder: it answers an error or a session, never panics.
func FuzzNewSession(f *testing.F) {
	p, err := fhe.NewParams(fhetest.InsecureBGVN10)
	if err != nil {
		f.Fatal(err)
	}
	_, pk := rlwe.NewKeyGenerator(p.RLWE()).GenKeyPairNew()
	pkb, err := fhe.WrapPublicKey(p, pk).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pkb, "1", "0")
	f.Add(pkb[:len(pkb)/2], "43114", strconv.Itoa(1<<20))
	f.Add([]byte{}, "", "")
	f.Fuzz(func(t *testing.T, pk []byte, chain, epoch string) {
		s, err := NewSession(pk, chain, epoch)
		if err == nil && s.Info().Slots == 0 {
			t.Fatal("session without slots")
		}
	})
}

// FuzzParseOwner: a parsed owner re-encodes to the input's hex digits.
func FuzzParseOwner(f *testing.F) {
	f.Add("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	f.Add("0x")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseOwner(s)
		if err == nil {
			b, err2 := ParseOwner(hex0x(a[:]))
			if err2 != nil || a != b {
				t.Fatalf("%q: round trip %x / %v", s, b, err2)
			}
		}
	})
}

// TestDecisionRow: the wasm core's row of a decision is the Go client's
// (policy.Plan.DecisionRow of the same document), and bad documents and
// values are refused with clear errors.
func TestDecisionRow(t *testing.T) {
	t.Parallel()
	spec := examples.MustGet("amounts/sanctions_screen")
	plan, err := policy.Compile(spec)
	require.NoError(t, err)
	for _, vals := range [][]string{{"0", "0", "0"}, {"65535", "63", "1000000"}, {"4660", "9", "10001"}} {
		want, err := plan.DecisionRow(vals)
		require.NoError(t, err)
		got, err := DecisionRow(spec, vals)
		require.NoError(t, err)
		require.Equal(t, want, got, vals)
	}
	got, err := DecisionRow(examples.MustGet("amounts/token_balance"), []string{"18446744073709551615"})
	require.NoError(t, err)
	require.Equal(t, []int64{15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15}, got)
	for _, tc := range []struct {
		name string
		spec []byte
		vals []string
		want string
	}{
		{"empty document", nil, []string{"1"}, "policy document of 0 bytes"},
		{"document too large", make([]byte, policy.MaxSpecBytes+1), []string{"1"}, "policy document of"},
		{"no values", spec, nil, "0 values"},
		{"too many values", spec, make([]string, fhe.MaxVectorWidth+1), "values, want 1"},
		{"not a policy", []byte("fhegate_policy: 1\nname: x\n"), []string{"1"}, "policy"},
		{"above the max", spec, []string{"1", "2", "1000001"}, "above its max 1000000"},
		{"above uint16", spec, []string{"65536", "2", "3"}, "above its max 65535"},
		{"negative", spec, []string{"-1", "2", "3"}, "sender"},
		{"count", spec, []string{"1", "2"}, "declares 3 inputs"},
	} {
		_, err := DecisionRow(tc.spec, tc.vals)
		require.ErrorContains(t, err, tc.want, tc.name)
	}
}

// FuzzDecisionRow: any values for a shipped wide policy give a row whose
// digits recombine to them, or an error; never a panic.
func FuzzDecisionRow(f *testing.F) {
	spec := examples.MustGet("amounts/credit_dollars")
	plan, err := policy.Compile(spec)
	require.NoError(f, err)
	f.Add("1000000", "100000", "0")
	f.Add("-1", "18446744073709551616", " 7")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		row, err := DecisionRow(spec, []string{a, b, c})
		if err != nil {
			return
		}
		back, err := plan.DeclaredValues(row)
		require.NoError(t, err)
		for i, s := range []string{a, b, c} {
			v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
			require.NoError(t, err)
			require.Equal(t, strconv.FormatUint(v, 10), back[i])
		}
	})
}

// TestCompileAndEvalPlan: the wasm core's plan of every shipped policy has
// the hash FHEPolicy.registerPolicy registers (corebackends.Policy, the
// chain's compiler) and its input slots, and its verdict on a row is the
// plan's plaintext evaluation (policy.Plan.EvalPlain) — for the credit
// policy of the examples, income > 3·debt on every row; bad rows and
// documents are clear errors.
func TestCompileAndEvalPlan(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, name := range examples.AllNames() {
		spec := examples.MustGet(name)
		info, err := CompilePlan(spec)
		require.NoError(t, err, name)
		chain, err := corebackends.Policy{}.Compile(spec)
		require.NoError(t, err, name)
		require.Equal(t, "0x"+hex.EncodeToString(chain.PlanHash[:]), info.PlanHash, name)
		require.Equal(t, int(chain.Inputs), info.Inputs, name)
		plan, err := policy.Compile(spec)
		require.NoError(t, err)
		require.Len(t, info.Declared, len(plan.Declared()), name)
		row := make([]int64, info.Inputs)
		for j, in := range plan.Inputs {
			row[j] = in.Min + r.Int64N(in.Max-in.Min+1)
		}
		cols := make([][]int64, len(row))
		for j, x := range row {
			cols[j] = []int64{x}
		}
		want, err := plan.EvalPlain(cols)
		require.NoError(t, err)
		got, err := EvalPlan(spec, row)
		require.NoError(t, err, name)
		require.Equal(t, want[0], got, name)
	}

	credit, err := os.ReadFile("../../../examples/creditgate/credit_policy.yaml")
	require.NoError(t, err)
	for income := int64(0); income <= 7; income++ {
		for debt := int64(0); debt <= 2; debt++ {
			v, err := EvalPlan(credit, []int64{income, debt})
			require.NoError(t, err)
			require.Equal(t, map[bool]int64{true: 1, false: 0}[income > 3*debt], v, "income %d, debt %d", income, debt)
		}
	}
	_, err = EvalPlan(credit, []int64{1})
	require.ErrorContains(t, err, "1 values, the plan of \"credit-gate-example\" takes 2 input slots")
	_, err = CompilePlan(nil)
	require.ErrorContains(t, err, "policy document of 0 bytes")
	_, err = CompilePlan([]byte("fhegate_policy: 1\nname: x\ninputs: [{name: x, min: 0, max: 1000}]\noutput: {expr: \"x >= 77\"}\n"))
	require.ErrorContains(t, err, "{name: x, type: uint16, max: 1000}")
}

// CompilePlan decides what FHEPolicy.registerPolicy decides
// (precompiles.AdmitPolicy with corebackends.Policy): the same policy id,
// depth, cost and input count for every shipped policy, and the same
// refusal, word for word, for specs the chain refuses — so contract mocks
// register and refuse as the chain does.
func TestCompilePlanIsRegistration(t *testing.T) {
	t.Parallel()
	require.EqualValues(t, precompiles.MaxPlanCost, maxPlanCost)
	require.EqualValues(t, precompiles.CommitteeGasPerBlock, committeeGasPerBlock)
	require.EqualValues(t, precompiles.MaxHandles, maxHandles)
	specs := map[string][]byte{}
	for _, name := range examples.AllNames() {
		specs[name] = examples.MustGet(name)
	}
	credit, err := os.ReadFile("../../../examples/creditgate/credit_policy.yaml")
	require.NoError(t, err)
	specs["creditgate"] = credit
	refused := map[string][]byte{
		"degree 255 over a byte": []byte("fhegate_policy: 1\nname: wide\ninputs: [{name: x, min: 0, max: 255}]\noutput: {expr: \"x >= 77\"}\n"),
		"too wide for one slot":  []byte("fhegate_policy: 1\nname: x\ninputs: [{name: x, min: 0, max: 1000}]\noutput: {expr: \"x >= 77\"}\n"),
		"not a policy":           []byte("hello"),
		"too noisy (policytest)": []byte(policytest.TooNoisy),
	}
	for name, spec := range refused {
		specs[name] = spec
	}
	for name, spec := range specs {
		chain, chainErr := precompiles.AdmitPolicy(corebackends.Policy{}, spec)
		info, err := CompilePlan(spec)
		if _, ok := refused[name]; ok {
			require.Error(t, chainErr, name)
			require.EqualError(t, err, chainErr.Error(), name)
			continue
		}
		require.NoError(t, chainErr, name)
		require.NoError(t, err, name)
		require.Equal(t, "0x"+hex.EncodeToString(chain.PlanHash[:]), info.PlanHash, name)
		require.EqualValues(t, chain.Depth, info.Depth, name)
		require.Equal(t, chain.Cost, info.Cost, name)
		require.EqualValues(t, chain.Inputs, info.Inputs, name)
		require.Equal(t, chain.Alone, info.Alone, name)
		require.Equal(t, chain.AloneGas, info.AloneGas, name)
	}
	_, err = CompilePlan(refused["degree 255 over a byte"])
	require.ErrorContains(t, err, "result noise exceeds what the decryption flooding hides")
}
