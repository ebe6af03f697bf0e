package precompiles

import (
	"fmt"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
)

// batchHandles returns n fresh handles tagged tag.
func batchHandles(tag string, n int) []Hash {
	out := make([]Hash, n)
	for i := range out {
		out[i] = handle(fmt.Sprintf("%s/%d", tag, i))
	}
	return out
}

// requireUnregistered checks that none of items is registered.
func (w *world) requireUnregistered(items []bls.InputItem) {
	w.t.Helper()
	for _, it := range items {
		out := w.must(w.s.Input, w.bob, "handleInfo", it.Handle)
		require.False(w.t, out[0].(bool), "handle %x registered", it.Handle)
	}
}

// TestRegisterBatchRegistersAll: one attestation over the set registers
// every handle with its owner, preset, ctype and the committee epoch in one
// packed slot (the owner may use them; nobody else may), for 1, 2, 4, 8 and
// MaxInputBatch handles, and emits one InputRegistered per handle.
func TestRegisterBatchRegistersAll(t *testing.T) {
	for _, n := range []int{1, 2, 4, 8, MaxInputBatch} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			w := newWorld(t)
			items := inputItems(batchHandles("all", n)...)
			sig, bm := w.attestBatch(w.carol, 1, items, w.com, w.epoch, w.quorum()...)
			before := len(w.st.Logs)
			w.must(w.s.Input, w.bob, "registerBatch", inputBatchArgs(w.carol, 1, items, sig, bm)...) // a relayer may submit
			require.Len(t, w.st.Logs[before:], n)
			for _, it := range items {
				out := w.must(w.s.Input, w.bob, "handleInfo", it.Handle)
				require.Equal(t, []any{true, common.Address(w.carol), uint8(1), CTypeCiphertext}, out)
				rec := decodeHandle(w.st.Store(FHEInputAddress).GetState(handleSlot(it.Handle)))
				require.Equal(t, w.epoch, rec.epoch)
				require.True(t, w.must(w.s.Input, w.bob, "isAllowed", it.Handle, common.Address(w.carol))[0].(bool))
				require.False(t, w.must(w.s.Input, w.bob, "isAllowed", it.Handle, common.Address(w.bob))[0].(bool))
			}
		})
	}
}

// TestRegisterBatchOwnerBound. Attack: a copier takes the handle set and
// the attestation the committee gave owner A (from A's transaction or the
// mempool) and registers it for itself, owner B, to use A's encrypted
// attributes in its own requests. The owner is in the signed digest, so the
// aggregate does not verify for B; A can still register.
func TestRegisterBatchOwnerBound(t *testing.T) {
	w := newWorld(t)
	items := inputItems(batchHandles("owner", 4)...)
	sig, bm := w.attestBatch(w.alice, 1, items, w.com, w.epoch, w.quorum()...)
	w.mustFail(w.s.Input, w.bob, "aggregate signature does not verify", "registerBatch", inputBatchArgs(w.bob, 1, items, sig, bm)...)
	w.mustFail(w.s.Input, w.alice, "aggregate signature does not verify", "registerBatch", inputBatchArgs(w.alice, 2, items, sig, bm)...) // preset bound too
	w.requireUnregistered(items)
	w.must(w.s.Input, w.alice, "registerBatch", inputBatchArgs(w.alice, 1, items, sig, bm)...)
}

// TestRegisterBatchProofDigestBound. Attack: the uploader registers a
// handle with a proof digest other than the one the members verified (to
// point auditors at a different proof, or to reuse an attestation for a
// ciphertext whose proof the committee never saw). The proof digests are
// leaves of the signed root: any change is refused, and so is a ctype change.
func TestRegisterBatchProofDigestBound(t *testing.T) {
	w := newWorld(t)
	items := inputItems(batchHandles("proof", 3)...)
	sig, bm := w.attestBatch(w.alice, 1, items, w.com, w.epoch, w.quorum()...)
	for i := range items {
		bad := append([]bls.InputItem(nil), items...)
		bad[i].ProofDigest = Keccak256([]byte("a proof the members never verified"))
		w.mustFail(w.s.Input, w.alice, "aggregate signature does not verify", "registerBatch", inputBatchArgs(w.alice, 1, bad, sig, bm)...)
	}
	w.requireUnregistered(items)
	w.must(w.s.Input, w.alice, "registerBatch", inputBatchArgs(w.alice, 1, items, sig, bm)...)
}

// TestRegisterBatchSetIsExact. Attack: the uploader (or a front-runner)
// edits the attested set — swaps two handles (so a handle gets another's
// ctype or proof digest), drops some, adds one, or registers a subset alone
// — to register handles the committee did not attest together. The root
// commits to the count and the order: every edit is refused.
func TestRegisterBatchSetIsExact(t *testing.T) {
	w := newWorld(t)
	items := inputItems(batchHandles("exact", 4)...)
	sig, bm := w.attestBatch(w.alice, 1, items, w.com, w.epoch, w.quorum()...)
	extra := inputItems(handle("exact/extra"))
	for name, set := range map[string][]bls.InputItem{
		"swapped":   {items[1], items[0], items[2], items[3]},
		"reversed":  {items[3], items[2], items[1], items[0]},
		"truncated": items[:3],
		"single":    items[2:3],
		"extended":  append(append([]bls.InputItem(nil), items...), extra...),
	} {
		t.Run(name, func(t *testing.T) {
			w.mustFail(w.s.Input, w.alice, "aggregate signature does not verify", "registerBatch", inputBatchArgs(w.alice, 1, set, sig, bm)...)
		})
	}
	w.requireUnregistered(append(items, extra...))
	w.must(w.s.Input, w.alice, "registerBatch", inputBatchArgs(w.alice, 1, items, sig, bm)...)
}

// TestRegisterBatchEpochReplay. Attack: an attestation collected under
// committee epoch 1 is replayed after the committee moved to epoch 2 (the
// same members' keys, so the signatures themselves are still valid): the
// epoch is in the digest and the chain verifies against the current epoch
// only, so the old attestation is refused; a fresh epoch-2 attestation of
// the same set registers it, recording epoch 2.
func TestRegisterBatchEpochReplay(t *testing.T) {
	w := newWorld(t)
	items := inputItems(batchHandles("epoch", 2)...)
	sig1, bm1 := w.attestBatch(w.alice, 1, items, w.com, 1, w.quorum()...)
	cc := committeeConfig(w.com, 2, w.thr)
	w.must(w.s.Verdict, w.gov, "setCommittee", uint64(2), w.thr, cc.PubKeys, cc.PoPs)
	w.mustFail(w.s.Input, w.alice, "aggregate signature does not verify for committee epoch 2", "registerBatch", inputBatchArgs(w.alice, 1, items, sig1, bm1)...)
	w.requireUnregistered(items)
	sig2, bm2 := w.attestBatch(w.alice, 1, items, w.com, 2, w.quorum()...)
	w.must(w.s.Input, w.alice, "registerBatch", inputBatchArgs(w.alice, 1, items, sig2, bm2)...)
	require.Equal(t, uint64(2), decodeHandle(w.st.Store(FHEInputAddress).GetState(handleSlot(items[0].Handle))).epoch)
}

// TestRegisterBatchRefusesOldAttestation. Attack: a member set (or an old
// client) offers the pre-batch attestation, a quorum signature over
// bls.InputDigest, which does not bind the proof of plaintext knowledge.
// No registration path verifies InputDigest any more: refused.
func TestRegisterBatchRefusesOldAttestation(t *testing.T) {
	w := newWorld(t)
	h := handle("old-style")
	d := bls.InputDigest(w.chainID, w.epoch, h, w.alice, 1, CTypeCiphertext)
	sig, bm := aggSign(t, w.com, d, w.quorum()...)
	w.mustFail(w.s.Input, w.alice, "aggregate signature does not verify", "registerBatch", registerArgs(h, w.alice, 1, CTypeCiphertext, sig, bm)...)
	_, hasRegister := w.s.Input.ABI().Methods["register"]
	require.False(t, hasRegister, "FHEInput.register (no proof digest) must not exist")
}

// TestRegisterBatchAllOrNothing. Attack: a set that contains a handle
// already registered (by its owner or by another set), or the same handle
// twice, would register the rest while the duplicate is silently skipped or
// overwritten (changing a registered handle's owner). The whole call
// reverts, before the signature is verified, and state is untouched.
func TestRegisterBatchAllOrNothing(t *testing.T) {
	w := newWorld(t)
	items := inputItems(append(batchHandles("atomic", 3), w.hC)...) // hC: registered for bob
	sig, bm := w.attestBatch(w.alice, 1, items, w.com, w.epoch, w.quorum()...)
	w.mustFail(w.s.Input, w.alice, "already registered", "registerBatch", inputBatchArgs(w.alice, 1, items, sig, bm)...)
	w.requireUnregistered(items[:3])
	require.Equal(t, common.Address(w.bob), w.must(w.s.Input, w.bob, "handleInfo", w.hC)[1])

	dup := inputItems(handle("dup"), handle("dup2"), handle("dup"))
	sig, bm = w.attestBatch(w.alice, 1, dup, w.com, w.epoch, w.quorum()...)
	w.mustFail(w.s.Input, w.alice, "at 0 and 2", "registerBatch", inputBatchArgs(w.alice, 1, dup, sig, bm)...)
	w.requireUnregistered(dup)
}

// TestRegisterBatchBounds. Attack: a caller makes the precompile allocate
// or hash without bound (a huge handle array, arrays of different lengths
// so the loop reads past one of them, an empty set that costs nothing) or
// register under a zero owner. Counts outside [1, MaxInputBatch],
// disagreeing lengths and oversized calldata revert before any state read or
// signature check, charging only the static and calldata gas.
func TestRegisterBatchBounds(t *testing.T) {
	w := newWorld(t)
	over := inputItems(batchHandles("over", MaxInputBatch+1)...)
	sig, bm := w.attestBatch(w.alice, 1, over, w.com, w.epoch, w.quorum()...)
	// 65 handles no longer fit the calldata cap (the count check behind it
	// is the second line of defence)
	w.mustFail(w.s.Input, w.alice, "exceeds the method's", "registerBatch", inputBatchArgs(w.alice, 1, over, sig, bm)...)
	w.mustFail(w.s.Input, w.alice, "0 handles outside [1,64]", "registerBatch", inputBatchArgs(w.alice, 1, nil, sig, bm)...)
	args := inputBatchArgs(w.alice, 1, over[:4], sig, bm)
	args[4] = args[4].([][32]byte)[:3]
	w.mustFail(w.s.Input, w.alice, "lengths must agree", "registerBatch", args...)
	w.mustFail(w.s.Input, w.alice, "zero owner", "registerBatch", inputBatchArgs(Address{}, 1, over[:1], sig, bm)...)

	huge := w.pack(w.s.Input, "registerBatch", inputBatchArgs(w.alice, 1, inputItems(batchHandles("huge", 2*MaxInputBatch)...), sig, bm)...)
	r := w.run(w.s.Input, w.alice, false, 50_000_000, huge)
	require.Contains(t, r.reason, "exceeds the method's")
	require.Equal(t, GasMinimum+gasInputRegisterBatch+GasInputWord*words(len(huge)-4), r.used)
}

// TestRegisterBatchGas: gas grows by gasInputPerHandle (+ calldata words)
// per handle over one BLS verification, and is charged before the work: a
// call with gas for the handles but not for the pairing runs out of gas
// with state untouched.
func TestRegisterBatchGas(t *testing.T) {
	used := map[int]uint64{}
	for _, n := range []int{1, 2, 4, 8} {
		w := newWorld(t)
		items := inputItems(batchHandles("gas", n)...)
		sig, bm := w.attestBatch(w.alice, 1, items, w.com, w.epoch, w.quorum()...)
		in := w.pack(w.s.Input, "registerBatch", inputBatchArgs(w.alice, 1, items, sig, bm)...)
		r := w.run(w.s.Input, w.alice, false, 10_000_000, in)
		require.NoError(t, r.err, r.reason)
		want := GasMinimum + gasInputRegisterBatch + GasInputWord*words(len(in)-4) + gasInputPerHandle*uint64(n) +
			GasBLSVerify + GasBLSPerMember*uint64(len(w.com))
		require.Equal(t, want, r.used, "n=%d", n)
		used[n] = r.used
		t.Logf("registerBatch n=%d: %d gas (%d per handle)", n, r.used, r.used/uint64(n))

		w2 := newWorld(t)
		before := w2.st.Fingerprint()
		r = w2.run(w2.s.Input, w2.alice, false, want-GasBLSVerify, in)
		require.ErrorIs(t, r.err, ErrOutOfGas)
		require.Equal(t, before, w2.st.Fingerprint())
	}
	require.Less(t, used[8], 3*used[1], "8 handles cost less than 3 single registrations")
}
