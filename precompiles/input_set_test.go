package precompiles

import (
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"
)

// TestRegisterSet: one attestation registers an upload as one input set —
// one slot (setInfo: owner, preset, epoch, count), one InputSetRegistered
// event, id = HandlesHash of the handles — and the handles stay unknown to
// the per-handle registry (handleInfo). A second registration of the set
// is refused.
func TestRegisterSet(t *testing.T) {
	w := newWorld(t)
	hs := batchHandles("set", 8)
	items := inputItems(hs...)
	sig, bm := w.attestBatch(w.alice, 1, items, w.com, w.epoch, w.quorum()...)
	before := len(w.st.Logs)
	out := w.must(w.s.Input, w.bob, "registerSet", inputBatchArgs(w.alice, 1, items, sig, bm)...) // a relayer may submit
	id := Hash(out[0].([32]byte))
	require.Equal(t, HandlesHash(hs), id)
	require.Len(t, w.st.Logs[before:], 1)
	require.Equal(t, []any{true, common.Address(w.alice), uint8(1), w.epoch, uint16(8)}, w.must(w.s.Input, w.bob, "setInfo", [32]byte(id)))
	w.requireUnregistered(items)
	w.mustFail(w.s.Input, w.alice, "already registered", "registerSet", inputBatchArgs(w.alice, 1, items, sig, bm)...)
}

// TestRegisterSetOwnerBound. Attack: a copier registers the set the
// committee attested for A as its own (owner B): the owner is in the signed
// digest, exactly as for registerBatch, so it is refused.
func TestRegisterSetOwnerBound(t *testing.T) {
	w := newWorld(t)
	items := inputItems(batchHandles("set-owner", 2)...)
	sig, bm := w.attestBatch(w.alice, 1, items, w.com, w.epoch, w.quorum()...)
	w.mustFail(w.s.Input, w.bob, "aggregate signature does not verify", "registerSet", inputBatchArgs(w.bob, 1, items, sig, bm)...)
	w.mustFail(w.s.Input, w.alice, "aggregate signature does not verify", "registerSet", inputBatchArgs(w.alice, 1, items[:1], sig, bm)...)
	require.False(t, w.must(w.s.Input, w.bob, "setInfo", [32]byte(HandlesHash([]Hash{items[0].Handle, items[1].Handle})))[0].(bool))
}

// TestEvaluateOnInputSet: FHEPolicy.evaluate with exactly a registered
// set's handles, by its owner, checks the set once and costs
// len(handles)·(2 reads + 1 transient read) less than the same request on
// per-handle registrations. Attacks: another account (not allowed), and the
// owner with the set's handles in another order or a subset (not the
// attested set, and unknown one by one) are refused; allowSet is the
// owner's (or an allowed account's) to give, and lets a gate contract
// evaluate.
func TestEvaluateOnInputSet(t *testing.T) {
	w := newWorld(t)
	hs := batchHandles("eval-set", 2)
	items := inputItems(hs...)
	sig, bm := w.attestBatch(w.alice, 1, items, w.com, w.epoch, w.quorum()...)
	id := Hash(w.must(w.s.Input, w.alice, "registerSet", inputBatchArgs(w.alice, 1, items, sig, bm)...)[0].([32]byte))
	args := [][32]byte{hs[0], hs[1]}

	w.mustFail(w.s.Policy, w.carol, "not allowed on handle 0", "evaluate", [32]byte(w.policy), args)
	w.mustFail(w.s.Policy, w.alice, "not allowed on handle 0", "evaluate", [32]byte(w.policy), [][32]byte{hs[1], hs[0]})
	w.mustFail(w.s.Policy, w.gate, "not allowed on handle 0", "evaluate", [32]byte(w.policy), args)
	w.mustFail(w.s.Input, w.bob, "not allowed to grant set", "allowSet", [32]byte(id), common.Address(w.bob))

	// The same request on per-handle registrations, for the gas comparison
	// (both after a first request, so the nonce and counters are warm alike).
	w.must(w.s.Policy, w.alice, "evaluate", [32]byte(w.policy), [][32]byte{w.hA, w.hB})
	perHandle := w.run(w.s.Policy, w.alice, false, 50_000_000, w.pack(w.s.Policy, "evaluate", [32]byte(w.policy), [][32]byte{w.hA, w.hB}))
	require.NoError(t, perHandle.err, perHandle.reason)
	onSet := w.run(w.s.Policy, w.alice, false, 50_000_000, w.pack(w.s.Policy, "evaluate", [32]byte(w.policy), args))
	require.NoError(t, onSet.err, onSet.reason)
	require.Equal(t, perHandle.used-2*gasPolicyHandleACL, onSet.used)

	w.must(w.s.Input, w.alice, "allowSet", [32]byte(id), common.Address(w.gate))
	w.must(w.s.Policy, w.gate, "evaluate", [32]byte(w.policy), args)
	w.must(w.s.Input, w.gate, "allowSet", [32]byte(id), common.Address(w.bob)) // an allowed account may grant
	w.must(w.s.Policy, w.bob, "evaluate", [32]byte(w.policy), args)
	w.mustFail(w.s.Input, w.alice, "unknown set", "allowSet", [32]byte(Keccak256([]byte("no set"))), common.Address(w.bob))
}
