package precompiles

import (
	"math/big"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"
)

// depositFixture is a world with two pending requests of its packed policy
// made by the gate, each holding the policy's deposit, and the gate's
// balance after paying them.
func depositFixture(t *testing.T) (w *world, d *big.Int, ids []Hash, gateAfter *big.Int) {
	w = newWorld(t)
	d = w.must(w.s.Policy, w.bob, "depositOf", [32]byte(w.policy))[0].(*big.Int)
	p := loadPolicyCost(w.st.Store(FHEPolicyAddress).GetState, w.policy)
	require.Equal(t, 0, d.Cmp(new(big.Int).Mul(new(big.Int).SetUint64(p.cost*BatchOccupancy), big.NewInt(DepositWeiPerGas))))
	require.Positive(t, d.Sign())
	ids = w.evaluateN(3)
	return w, d, ids, w.st.Balance(w.gate)
}

// TestDepositRequired: a request of a packed policy carries exactly its
// policy's deposit — none, less, more, or a deposit on a policy evaluated
// alone revert with ErrDeposit and change nothing (the value goes back to
// the caller) — and FHEPolicy holds what the accepted requests paid.
func TestDepositRequired(t *testing.T) {
	t.Parallel()
	w, d, ids, _ := depositFixture(t)
	// the fixture's req1 and the three above hold one deposit each (its
	// req3 is decided: refunded)
	held := new(big.Int).Mul(d, big.NewInt(int64(1+len(ids))))
	require.Equal(t, 0, w.st.Balance(FHEPolicyAddress).Cmp(held))
	for _, r := range []struct {
		name  string
		value *big.Int
	}{
		{"none", new(big.Int)},
		{"one wei short", new(big.Int).Sub(d, big.NewInt(1))},
		{"one wei over", new(big.Int).Add(d, big.NewInt(1))},
		{"double", new(big.Int).Lsh(d, 1)},
	} {
		t.Run(r.name, func(t *testing.T) {
			w := w.fork(t)
			before := w.st.Fingerprint()
			w.value = r.value
			res := w.run(w.s.Policy, w.gate, false, 10_000_000, w.pack(w.s.Policy, "evaluate", [32]byte(w.policy), [][32]byte{w.hA, w.hB}))
			require.ErrorIs(t, res.err, ErrDeposit)
			require.Contains(t, res.reason, "takes a deposit of exactly "+d.String()+" wei")
			require.Equal(t, before, w.st.Fingerprint(), "a refused request changes nothing")
		})
	}

	t.Run("alone policy takes none", func(t *testing.T) {
		w := w.fork(t)
		w.s.compiler = aloneCompiler{}
		alone := Hash(w.must(w.s.Policy, w.alice, "registerPolicy", []byte("alone: income*1 > 0; inputs=2"))[0].([32]byte))
		require.Zero(t, w.must(w.s.Policy, w.bob, "depositOf", [32]byte(alone))[0].(*big.Int).Sign())
		w.value = big.NewInt(1)
		res := w.run(w.s.Policy, w.gate, false, 10_000_000, w.pack(w.s.Policy, "evaluate", [32]byte(alone), [][32]byte{w.hA, w.hB}))
		require.ErrorIs(t, res.err, ErrDeposit)
		req := Hash(w.must(w.s.Policy, w.gate, "evaluate", [32]byte(alone), [][32]byte{w.hA, w.hB})[0].([32]byte))
		r, _ := loadPolicyRequest(w.st.Store(FHEPolicyAddress).GetState, req)
		require.True(t, r.exists)
		require.False(t, r.deposit)
	})

	t.Run("unknown policy", func(t *testing.T) {
		res := w.fork(t).run(w.s.Policy, w.bob, true, 1_000_000, w.pack(w.s.Policy, "depositOf", [32]byte(handle("nope"))))
		require.Contains(t, res.reason, "FHEPolicy.depositOf: unknown policy")
	})
}

// TestValueRefusedByOtherMethods: value sent to any method but FHEPolicy's
// evaluations is refused before anything runs (it would be stuck at the
// precompile's address), and goes back to the caller.
func TestValueRefusedByOtherMethods(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, c := range []struct {
		c      *Contract
		method string
		args   []any
	}{
		{w.s.Input, "allow", []any{[32]byte(w.hA), common.Address(w.bob)}},
		{w.s.Policy, "registerPolicy", []any{[]byte("x")}},
		{w.s.Policy, "depositOf", []any{[32]byte(w.policy)}},
		{w.s.Verdict, "expire", []any{[32]byte(w.req1)}},
		{w.s.CRDT, "value", []any{[32]byte(w.s1)}},
	} {
		t.Run(c.c.Name()+"."+c.method, func(t *testing.T) {
			w := w.fork(t)
			before := w.st.Fingerprint()
			w.value = big.NewInt(1)
			res := w.run(c.c, w.alice, false, 10_000_000, w.pack(c.c, c.method, c.args...))
			require.Contains(t, res.reason, "not payable: the call carries 1 wei")
			require.Equal(t, before, w.st.Fingerprint())
		})
	}
}

// TestDepositSettled: the transaction that decides a request settles its
// deposit — paid back to the requester for a verdict (a batch's, a single
// submit's, an unevaluable one) or an expiry, burnt for
// ResultRejectedInput — exactly once: a later batch that skips the decided
// request pays nothing, and FHEPolicy ends holding nothing. DepositsSettled
// reports the counts and amounts.
func TestDepositSettled(t *testing.T) {
	t.Parallel()
	w, d, ids, gate := depositFixture(t)
	w.number++
	// the fixture's req3 is already decided by submit (refunded then)
	ready, _, _, _ := w.verdict(w.req3)
	require.True(t, ready)

	// expire req1: refunded (the committee's failure, not the requester's)
	w.number += ExpiryBlocks
	w.st.EndTransaction()
	w.must(w.s.Verdict, w.bob, "expire", [32]byte(w.req1))
	gate.Add(gate, d)
	require.Equal(t, 0, w.st.Balance(w.gate).Cmp(gate))
	settled := w.s.Verdict.ABI().Events["DepositsSettled"]
	require.Equal(t, Hash(settled.ID), w.st.Logs[0].Topics[0])

	// a batch: an approval, a rejected input and an unevaluable verdict
	items := batchItems(ids, func(i int) *big.Int {
		return []*big.Int{big.NewInt(1), ResultRejectedInput, ResultUnevaluable}[i]
	})
	dg := handle("deposit-batch")
	sig, bm := w.batchSig(w.policy, dg, items, w.com, w.epoch, w.quorum()...)
	w.st.EndTransaction()
	burnt := new(big.Int).Set(w.st.Burnt)
	w.must(w.s.Verdict, w.carol, "submitBatch", [32]byte(w.policy), [32]byte(dg), [][32]byte{ids[0], ids[1], ids[2]},
		[]*big.Int{items[0].Result, items[1].Result, items[2].Result}, sig, bm)
	gate.Add(gate, new(big.Int).Lsh(d, 1))
	require.Equal(t, 0, w.st.Balance(w.gate).Cmp(gate), "two refunds")
	require.Equal(t, 0, new(big.Int).Sub(w.st.Burnt, burnt).Cmp(d), "one deposit burnt")
	require.Zero(t, w.st.Balance(FHEPolicyAddress).Sign(), "FHEPolicy holds nothing once every request is decided")
	require.Equal(t, Hash(settled.ID), w.st.Logs[0].Topics[0])
	require.Equal(t, w.policy, w.st.Logs[0].Topics[1])
	vals, err := settled.Inputs.NonIndexed().Unpack(w.st.Logs[0].Data)
	require.NoError(t, err)
	require.Equal(t, []any{uint32(2), uint32(1), new(big.Int).Lsh(d, 1), d}, vals)

	// a replayed batch is refused; one naming a decided request and a new
	// one pays only the new one
	r := w.run(w.s.Verdict, w.carol, false, 100_000_000, w.packBatch(w.policy, dg, items, sig, bm))
	require.Contains(t, r.reason, "replay")
	more := w.evaluateN(1)
	gate = w.st.Balance(w.gate)
	items = batchItems([]Hash{ids[0], more[0]}, func(int) *big.Int { return big.NewInt(0) })
	sig, bm = w.batchSig(w.policy, dg, items, w.com, w.epoch, w.quorum()...)
	w.must(w.s.Verdict, w.carol, "submitBatch", [32]byte(w.policy), [32]byte(dg), [][32]byte{ids[0], more[0]},
		[]*big.Int{big.NewInt(0), big.NewInt(0)}, sig, bm)
	require.Equal(t, 0, w.st.Balance(w.gate).Cmp(new(big.Int).Add(gate, d)))
	require.Zero(t, w.st.Balance(FHEPolicyAddress).Sign())
}

// TestDepositSubmitForfeit: a single submit of ResultRejectedInput burns the
// deposit; the requester gets nothing back.
func TestDepositSubmitForfeit(t *testing.T) {
	t.Parallel()
	w, d, ids, gate := depositFixture(t)
	sig, bm := w.verdictSig(ids[0], w.policy, handle("dg"), ResultRejectedInput, w.com, w.epoch, w.quorum()...)
	w.must(w.s.Verdict, w.carol, "submit", [32]byte(ids[0]), ResultRejectedInput, [32]byte(handle("dg")), sig, bm)
	require.Equal(t, 0, w.st.Balance(w.gate).Cmp(gate))
	require.Equal(t, 0, w.st.Burnt.Cmp(d))
}

// TestDepositNeverPaidWithoutRecord: a request record without the deposit
// bit (written before deposits, or of a policy evaluated alone) is decided
// without any payment, so FHEPolicy never pays out more than it was paid.
func TestDepositNeverPaidWithoutRecord(t *testing.T) {
	t.Parallel()
	w, _, ids, gate := depositFixture(t)
	key := policyReqSlot(ids[0])
	r := decodeReqHeader(get(w.st.Persistent, FHEPolicyAddress, key))
	set(w.st.Persistent, FHEPolicyAddress, key, encodeReqHeader(r.tag, r.block, r.requester, false))
	held := w.st.Balance(FHEPolicyAddress)
	sig, bm := w.verdictSig(ids[0], w.policy, handle("dg"), big.NewInt(1), w.com, w.epoch, w.quorum()...)
	w.must(w.s.Verdict, w.carol, "submit", [32]byte(ids[0]), big.NewInt(1), [32]byte(handle("dg")), sig, bm)
	require.Equal(t, 0, w.st.Balance(w.gate).Cmp(gate))
	require.Equal(t, 0, w.st.Balance(FHEPolicyAddress).Cmp(held))
}

// TestDepositShortfallRevertsWhole: should FHEPolicy ever hold less than a
// settlement pays (a broken invariant, never a user's doing), the deciding
// call reverts whole — no verdict stored, no partial payment.
func TestDepositShortfallRevertsWhole(t *testing.T) {
	t.Parallel()
	w, d, ids, _ := depositFixture(t)
	require.NoError(t, w.st.AddBalance(FHEPolicyAddress, new(big.Int).Neg(w.st.Balance(FHEPolicyAddress))))
	require.NoError(t, w.st.AddBalance(FHEPolicyAddress, new(big.Int).Sub(d, big.NewInt(1))))
	items := batchItems(ids[:1], func(int) *big.Int { return big.NewInt(1) })
	sig, bm := w.batchSig(w.policy, handle("dg"), items, w.com, w.epoch, w.quorum()...)
	before := w.st.Fingerprint()
	r := w.run(w.s.Verdict, w.carol, false, 100_000_000, w.packBatch(w.policy, handle("dg"), items, sig, bm))
	require.Contains(t, r.reason, "cannot pay")
	require.Equal(t, before, w.st.Fingerprint())
}

// TestNoDepositHost: on a host that cannot hold deposits (Lux's, whose
// precompile interface passes no call value) depositOf is 0, requests carry
// none and their verdicts pay nothing — isolation is unpaid there, as before
// deposits — and a call carrying value is refused by the host adapter.
func TestNoDepositHost(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.noDepositHost = true
	require.Zero(t, w.must(w.s.Policy, w.bob, "depositOf", [32]byte(w.policy))[0].(*big.Int).Sign())
	ids := w.evaluateN(1)
	r, _ := loadPolicyRequest(w.st.Store(FHEPolicyAddress).GetState, ids[0])
	require.True(t, r.exists)
	require.False(t, r.deposit)
	sig, bm := w.verdictSig(ids[0], w.policy, handle("dg"), big.NewInt(1), w.com, w.epoch, w.quorum()...)
	before := w.st.Balance(w.gate)
	w.must(w.s.Verdict, w.carol, "submit", [32]byte(ids[0]), big.NewInt(1), [32]byte(handle("dg")), sig, bm)
	require.Equal(t, 0, w.st.Balance(w.gate).Cmp(before))
}
