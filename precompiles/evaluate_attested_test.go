package precompiles

import (
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"
)

// TestEvaluateAttested: a request whose inputs are authorised by the
// committee's attestation inline (no FHEInput registration) is recorded
// like evaluate's, for the caller, and costs less than registering the set
// first. Attacks: another account spends the owner's attestation (seen in
// the mempool) — refused, the owner in the signed digest is the caller; the
// owner edits the attested set (a subset, another order) — refused; the
// policy's input count still applies (2 handles or 1 vector input).
func TestEvaluateAttested(t *testing.T) {
	w := newWorld(t)
	hs := batchHandles("attested", 2)
	items := inputItems(hs...)
	sig, bm := w.attestBatch(w.alice, 1, items, w.com, w.epoch, w.quorum()...)
	args := func(set []Hash) []any {
		a := inputBatchArgs(w.alice, 1, inputItems(set...), sig, bm)
		return append([]any{[32]byte(w.policy)}, a[1:]...) // no owner: the caller is the owner
	}

	w.mustFail(w.s.Policy, w.bob, "aggregate signature does not verify", "evaluateAttested", args(hs)...)
	w.mustFail(w.s.Policy, w.alice, "aggregate signature does not verify", "evaluateAttested", args([]Hash{hs[1], hs[0]})...)
	w.mustFail(w.s.Policy, w.alice, "policy takes 2 inputs: pass 2 handles (one ciphertext per input) or 1 (a vector input holding all 2), got 3", "evaluateAttested",
		args(append(append([]Hash(nil), hs...), handle("attested/third")))...)

	before := len(w.st.Logs)
	req := Hash(w.must(w.s.Policy, w.alice, "evaluateAttested", args(hs)...)[0].([32]byte))
	require.Len(t, w.st.Logs[before:], 1, "one EvaluationRequested")
	out := w.must(w.s.Policy, w.bob, "requestOf", [32]byte(req))
	require.Equal(t, true, out[0])
	require.Equal(t, [32]byte(w.policy), out[1])
	require.Equal(t, common.Address(w.alice), out[2])
	require.Len(t, out, 4, "the record is one slot: no stored handles hash")
	w.requireUnregistered(items) // nothing stored for the inputs

	// Against registering the set and evaluating on it (the nonce is warm
	// in both).
	hs2 := batchHandles("attested-set", 2)
	items2 := inputItems(hs2...)
	sig2, bm2 := w.attestBatch(w.alice, 1, items2, w.com, w.epoch, w.quorum()...)
	reg := w.run(w.s.Input, w.alice, false, 50_000_000, w.pack(w.s.Input, "registerSet", inputBatchArgs(w.alice, 1, items2, sig2, bm2)...))
	require.NoError(t, reg.err, reg.reason)
	ev := w.run(w.s.Policy, w.alice, false, 50_000_000, w.pack(w.s.Policy, "evaluate", [32]byte(w.policy), [][32]byte{hs2[0], hs2[1]}))
	require.NoError(t, ev.err, ev.reason)
	hs3 := batchHandles("attested-again", 2)
	sig3, bm3 := w.attestBatch(w.alice, 1, inputItems(hs3...), w.com, w.epoch, w.quorum()...)
	a3 := inputBatchArgs(w.alice, 1, inputItems(hs3...), sig3, bm3)
	one := w.run(w.s.Policy, w.alice, false, 50_000_000, w.pack(w.s.Policy, "evaluateAttested", append([]any{[32]byte(w.policy)}, a3[1:]...)...))
	require.NoError(t, one.err, one.reason)
	require.Less(t, one.used, reg.used+ev.used)
	t.Logf("precompile gas: evaluateAttested %d; registerSet %d + evaluate %d = %d", one.used, reg.used, ev.used, reg.used+ev.used)
}

// TestEvaluateAttestedVectorInput: evaluateAttested of an 8-input policy
// takes 8 handles or 1 (a vector input), each upload attested for the
// caller; 2 or 7 are refused with nothing recorded, and a vector input
// attested for another owner is refused (the signed digest's owner is the
// caller).
func TestEvaluateAttestedVectorInput(t *testing.T) {
	base := newWorld(t)
	pid := base.registerVectorPolicy()
	const m = "evaluateAttested"
	hs := batchHandles("vector/attested", 8)
	args := func(owner Address, set []Hash) []any {
		items := inputItems(set...)
		sig, bm := base.attestBatch(owner, 1, items, base.com, base.epoch, base.quorum()...)
		a := inputBatchArgs(owner, 1, items, sig, bm)
		return append([]any{[32]byte(pid)}, a[1:]...)
	}
	const count = "FHEPolicy.evaluateAttested: policy takes 8 inputs: pass 8 handles (one ciphertext per input) or 1 (a vector input holding all 8), got "

	for _, tc := range []struct {
		name   string
		caller Address
		owner  Address // the attestation's
		hs     []Hash
		fail   string // "" = accepted
	}{
		{"1 handle (vector input)", base.alice, base.alice, hs[:1], ""},
		{"1 handle (vector input), attested for another owner", base.bob, base.alice, hs[:1], "aggregate signature does not verify"},
		{"8 handles (one per input)", base.alice, base.alice, hs, ""},
		{"2 handles", base.alice, base.alice, hs[:2], count + "2"},
		{"7 handles", base.alice, base.alice, hs[:7], count + "7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := base.fork(t)
			a := args(tc.owner, tc.hs)
			if tc.fail != "" {
				w.mustFail(w.s.Policy, tc.caller, tc.fail, m, a...)
				return
			}
			before, nonce := len(w.st.Logs), w.policyNonce()
			r := w.run(w.s.Policy, tc.caller, false, 50_000_000, w.pack(w.s.Policy, m, a...))
			w.requireRequested(r, m, before, nonce, tc.caller, pid, tc.hs)
			w.requireUnregistered(inputItems(tc.hs...))
			t.Logf("precompile gas: %s, %d handle(s): %d", m, len(tc.hs), r.used)
		})
	}
}
