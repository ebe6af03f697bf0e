package precompiles

import (
	"math/big"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"
)

func TestWorldFixture(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	out := w.must(w.s.Verdict, w.bob, "verdictOf", [32]byte(w.req3))
	require.Equal(t, true, out[0])
	require.Equal(t, big.NewInt(1), out[1])
	out = w.must(w.s.CRDT, w.bob, "stateOf", [32]byte(w.merged))
	require.Equal(t, true, out[0])
	require.Equal(t, EncodeVersionVector([2]uint64{1, 1}, [2]uint64{2, 3}), out[6])
	out = w.must(w.s.Input, w.bob, "isAllowed", [32]byte(w.hA), common.Address(w.gate))
	require.Equal(t, true, out[0])
}

// registerVectorPolicy registers an 8-input policy (the stand-in compiler
// reads "inputs=8"), the shape of the shipped kyc_aml policy.
func (w *world) registerVectorPolicy() Hash {
	id := Hash(w.must(w.s.Policy, w.alice, "registerPolicy", []byte("kyc: a+b+c+d+e+f+g+h > 0; inputs=8"))[0].([32]byte))
	out := w.must(w.s.Policy, w.bob, "policyOf", [32]byte(id))
	require.Equal(w.t, uint32(8), out[4], "an 8-input policy")
	w.st.EndTransaction()
	return id
}

// policyNonce is FHEPolicy's request nonce: the next request's.
func (w *world) policyNonce() uint64 {
	return u64FromWord(get(w.st.Persistent, FHEPolicyAddress, policyNonceSlot))
}

// requireRequested checks a request by caller of policy over hs that ran
// after the log index before with nonce nonce: it returned its id, which
// binds HandlesHash(hs); it logged exactly one EvaluationRequested naming
// those handles, in order; and requestOf records it.
func (w *world) requireRequested(r result, method string, before int, nonce uint64, caller Address, policy Hash, hs []Hash) {
	t := w.t
	require.NoError(t, r.err, r.reason)
	ret, err := w.s.Policy.ABI().Unpack(method, r.ret)
	require.NoError(t, err)
	req := Hash(ret[0].([32]byte))
	require.Equal(t, RequestID(w.chainID, FHEPolicyAddress, nonce, caller, policy, HandlesHash(hs)), req, "the id binds the handles hash of exactly these handles")
	logs := w.st.Logs[before:]
	require.Len(t, logs, 1, "one EvaluationRequested")
	ev := w.s.Policy.ABI().Events["EvaluationRequested"]
	require.Equal(t, []Hash{Hash(ev.ID), req, policy, Hash(common.BytesToHash(caller[:]))}, logs[0].Topics)
	vals, err := ev.Inputs.NonIndexed().Unpack(logs[0].Data)
	require.NoError(t, err)
	want := make([][32]byte, len(hs))
	for i, h := range hs {
		want[i] = h
	}
	require.Equal(t, want, vals[0], "the event logs the request's handles")
	out := w.must(w.s.Policy, w.carol, "requestOf", [32]byte(req))
	require.Equal(t, true, out[0])
	require.Equal(t, [32]byte(policy), out[1])
	require.Equal(t, common.Address(caller), out[2])
}

// TestEvaluateVectorInput: a request of a K-input policy (K = 8) names
// either K handles, one ciphertext per input, or exactly one, a vector
// input holding all K attributes (fhe.VectorInts). Other counts are
// refused, naming both, with nothing recorded; a vector input is one handle
// for authorisation too: the caller must own it or be allowed on it.
func TestEvaluateVectorInput(t *testing.T) {
	base := newWorld(t)
	pid := base.registerVectorPolicy()
	hs := batchHandles("vector/evaluate", 8)
	for _, h := range hs {
		base.registerHandle(h, base.alice)
	}
	vec := handle("vector/evaluate/bob")
	base.registerHandle(vec, base.bob)
	base.must(base.s.Input, base.alice, "allow", [32]byte(hs[0]), common.Address(base.gate))
	base.st.EndTransaction()

	for _, tc := range []struct {
		name   string
		caller Address
		hs     []Hash
		fail   string // "" = accepted
	}{
		{"1 handle (vector input), owner", base.alice, hs[:1], ""},
		{"1 handle (vector input), allowed", base.gate, hs[:1], ""},
		{"1 handle (vector input), another owner's", base.carol, hs[:1], "caller " + base.carol.String() + " is not allowed on handle 0"},
		{"1 handle (vector input), of bob, by alice", base.alice, []Hash{vec}, "is not allowed on handle 0"},
		{"8 handles (one per input)", base.alice, hs, ""},
		{"2 handles", base.alice, hs[:2], "FHEPolicy.evaluate: policy takes 8 inputs: pass 8 handles (one ciphertext per input) or 1 (a vector input holding all 8), got 2"},
		{"7 handles", base.alice, hs[:7], "policy takes 8 inputs: pass 8 handles (one ciphertext per input) or 1 (a vector input holding all 8), got 7"},
		{"9 handles", base.alice, append(append([]Hash(nil), hs...), vec), "got 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := base.fork(t)
			in := make([][32]byte, len(tc.hs))
			for i, h := range tc.hs {
				in[i] = h
			}
			if tc.fail != "" {
				w.mustFail(w.s.Policy, tc.caller, tc.fail, "evaluate", [32]byte(pid), in)
				return
			}
			before, nonce := len(w.st.Logs), w.policyNonce()
			r := w.run(w.s.Policy, tc.caller, false, 50_000_000, w.pack(w.s.Policy, "evaluate", [32]byte(pid), in))
			w.requireRequested(r, "evaluate", before, nonce, tc.caller, pid, tc.hs)
		})
	}

	// the 2-input fixture policy: 1 handle is a vector input, 3 are refused
	w := base.fork(t)
	w.mustFail(w.s.Policy, w.gate, "policy takes 2 inputs: pass 2 handles (one ciphertext per input) or 1 (a vector input holding all 2), got 3", "evaluate",
		[32]byte(w.policy), [][32]byte{w.hA, w.hB, w.hA})
	before, nonce := len(w.st.Logs), w.policyNonce()
	r := w.run(w.s.Policy, w.gate, false, 50_000_000, w.pack(w.s.Policy, "evaluate", [32]byte(w.policy), [][32]byte{w.hA}))
	w.requireRequested(r, "evaluate", before, nonce, w.gate, w.policy, []Hash{w.hA})
}
