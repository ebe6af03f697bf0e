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
// policy's input count still applies.
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
	w.mustFail(w.s.Policy, w.alice, "policy takes 2 handles, got 1", "evaluateAttested", args(hs[:1])...)

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
