package precompiles

import (
	"errors"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
)

// evaluateN queues n requests of w.policy (gate over hA, hB) in the current
// block and returns their ids.
func (w *world) evaluateN(n int) []Hash {
	out := make([]Hash, n)
	for i := range out {
		out[i] = Hash(w.must(w.s.Policy, w.gate, "evaluate", [32]byte(w.policy), [][32]byte{w.hA, w.hB})[0].([32]byte))
	}
	return out
}

// batchItems pairs ids with results result(i).
func batchItems(ids []Hash, result func(i int) *big.Int) []bls.VerdictItem {
	out := make([]bls.VerdictItem, len(ids))
	for i, id := range ids {
		out[i] = bls.VerdictItem{RequestID: id, Result: result(i)}
	}
	return out
}

// batchSig signs a batch with members idx of keys at epoch.
func (w *world) batchSig(policy, digest Hash, items []bls.VerdictItem, keys []*bls.SecretKey, epoch uint64, idx ...int) ([]byte, []byte) {
	d := bls.VerdictBatchDigest(w.chainID, epoch, policy, digest, bls.VerdictBatchRoot(items))
	return aggSign(w.t, keys, d, idx...)
}

func (w *world) packBatch(policy, digest Hash, items []bls.VerdictItem, sig, bm []byte) []byte {
	ids := make([][32]byte, len(items))
	res := make([]*big.Int, len(items))
	for i, it := range items {
		ids[i], res[i] = it.RequestID, it.Result
	}
	return w.pack(w.s.Verdict, "submitBatch", [32]byte(policy), [32]byte(digest), ids, res, sig, bm)
}

// verdict reads verdictOf(req).
func (w *world) verdict(req Hash) (bool, *big.Int, Hash, uint64) {
	out := w.must(w.s.Verdict, w.bob, "verdictOf", [32]byte(req))
	return out[0].(bool), out[1].(*big.Int), Hash(out[2].([32]byte)), out[3].(uint64)
}

// TestSubmitBatch: batches of 1, 64 and 1000 verdicts of one policy are
// accepted under one aggregate; verdictOf answers each exactly as submit
// would have (result — including the sentinels and a value ≥ 2^128 —, the
// batch's result digest, the epoch); gas is static + BLS + GasVerdictItem per
// item (+ one write per result ≥ 2^128).
func TestSubmitBatch(t *testing.T) {
	t.Parallel()
	base := newWorld(t)
	huge := new(big.Int).Lsh(big.NewInt(1), 200)
	for _, n := range []int{1, 64, 1000} {
		t.Run(itoa(n), func(t *testing.T) {
			w := base.fork(t)
			ids := w.evaluateN(n)
			w.number++
			items := batchItems(ids, func(i int) *big.Int {
				switch i % 5 {
				case 3:
					return ResultUnevaluable
				case 4:
					return huge
				}
				return big.NewInt(int64(i % 3))
			})
			digest := handle("batch-result")
			sig, bm := w.batchSig(w.policy, digest, items, w.com, w.epoch, w.quorum()...)
			in := w.packBatch(w.policy, digest, items, sig, bm)
			r := w.run(w.s.Verdict, w.carol, false, 1_000_000_000, in)
			require.NoError(t, r.err, r.reason)
			extra := uint64(0)
			for _, it := range items {
				if it.Result.Cmp(huge) == 0 {
					extra += GasWrite
				}
			}
			want := GasMinimum + GasInputWord*words(len(in)-4) + gasVerdictSubmitBatch + GasVerdictItem*uint64(n) +
				GasBLSVerify + GasBLSPerMember*4 + GasWrite /*first batch counter*/ + extra +
				GasBalanceMove*uint64(n) + gasDepositsSettled /*every request holds a deposit*/
			require.Equal(t, want, r.used)
			for _, it := range items {
				ready, res, dg, ep := w.verdict(Hash(it.RequestID))
				require.True(t, ready)
				require.Equal(t, 0, it.Result.Cmp(res), "result of %s", Hash(it.RequestID))
				require.Equal(t, digest, dg)
				require.Equal(t, w.epoch, ep)
			}
			// the earlier single verdict is untouched
			ready, res, dg, _ := w.verdict(w.req3)
			require.True(t, ready)
			require.Equal(t, int64(1), res.Int64())
			require.Equal(t, handle("result3"), dg)
		})
	}
}

// TestSubmitBatchAttacks: every way a user, a contract or fewer than t
// members could try to get verdicts stored through submitBatch is refused with
// a reason, leaves the state untouched and stores nothing:
// forged aggregate (outsider keys), under quorum, wrong epoch, a result or
// request id changed after signing, an item of another policy, a CRDT request
// smuggled into a policy batch, an unknown request, a duplicate item, a
// replayed batch, mismatched array lengths, an empty batch, more items than
// MaxVerdictBatch (refused before decoding), a read-only call and too little gas.
func TestSubmitBatchAttacks(t *testing.T) {
	t.Parallel()
	base := newWorld(t)
	ids := base.evaluateN(4)
	other := Hash(base.must(base.s.Policy, base.alice, "registerPolicy", []byte("other: income*2 > 0; inputs=2"))[0].([32]byte))
	otherReq := Hash(base.must(base.s.Policy, base.gate, "evaluate", [32]byte(other), [][32]byte{base.hA, base.hB})[0].([32]byte))
	base.number++
	one := func(int) *big.Int { return big.NewInt(1) }
	items := batchItems(ids, one)
	dg := handle("batch")
	good := func(items []bls.VerdictItem) ([]byte, []byte) {
		return base.batchSig(base.policy, dg, items, base.com, base.epoch, base.quorum()...)
	}
	sig, bm := good(items)
	outsiders := committeeKeys(t, "outsiders", 4)
	type tc struct {
		name, reason string
		input        []byte
		static       bool
		oog          bool
	}
	var cases []tc
	add := func(name, reason string, in []byte) *tc {
		cases = append(cases, tc{name: name, reason: reason, input: in})
		return &cases[len(cases)-1]
	}
	s, b := base.batchSig(base.policy, dg, items, outsiders, base.epoch, 0, 1, 2)
	add("forged aggregate", "does not verify", base.packBatch(base.policy, dg, items, s, b))
	s, b = base.batchSig(base.policy, dg, items, base.com, base.epoch, 0, 1)
	add("under quorum", "under quorum: 2 signers, threshold 3", base.packBatch(base.policy, dg, items, s, b))
	s, b = base.batchSig(base.policy, dg, items, base.com, base.epoch+1, base.quorum()...)
	add("wrong epoch", "does not verify for committee epoch 1", base.packBatch(base.policy, dg, items, s, b))
	swapped := batchItems(ids, one)
	swapped[2].Result = big.NewInt(0)
	add("result changed after signing", "does not verify", base.packBatch(base.policy, dg, swapped, sig, bm))
	reordered := batchItems([]Hash{ids[1], ids[0], ids[2], ids[3]}, one)
	add("items reordered after signing", "does not verify", base.packBatch(base.policy, dg, reordered, sig, bm))
	add("digest changed after signing", "does not verify", base.packBatch(base.policy, handle("other"), items, sig, bm))
	withOther := batchItems([]Hash{ids[0], otherReq}, one)
	s, b = good(withOther)
	add("item of another policy", "is for policy", base.packBatch(base.policy, dg, withOther, s, b))
	withCRDT := batchItems([]Hash{ids[0], base.crdtReq}, one)
	s, b = good(withCRDT)
	add("CRDT request in a policy batch", "unknown policy request", base.packBatch(base.policy, dg, withCRDT, s, b))
	unknown := batchItems([]Hash{ids[0], handle("no-such-request")}, one)
	s, b = good(unknown)
	add("unknown request", "unknown policy request", base.packBatch(base.policy, dg, unknown, s, b))
	dup := batchItems([]Hash{ids[0], ids[1], ids[0]}, one)
	s, b = good(dup)
	add("duplicate item", "item 2 repeats request", base.packBatch(base.policy, dg, dup, s, b))
	decidedOnly := batchItems([]Hash{base.req3}, one)
	s, b = good(decidedOnly)
	add("replay of decided requests", "already has a verdict (replay)", base.packBatch(base.policy, dg, decidedOnly, s, b))
	mismatch := base.pack(base.s.Verdict, "submitBatch", [32]byte(base.policy), [32]byte(dg), [][32]byte{ids[0], ids[1]}, []*big.Int{big.NewInt(1)}, sig, bm)
	add("length mismatch", "2 request ids but 1 results", mismatch)
	empty := base.pack(base.s.Verdict, "submitBatch", [32]byte(base.policy), [32]byte(dg), [][32]byte{}, []*big.Int{}, sig, bm)
	add("empty batch", "0 items outside [1,16384]", empty)
	big17 := make([][32]byte, MaxVerdictBatch+1)
	tooMany := base.pack(base.s.Verdict, "submitBatch", [32]byte(base.policy), [32]byte(dg), big17, []*big.Int{big.NewInt(1)}, sig, bm)
	add("more than MaxVerdictBatch", "16385 items outside [1,16384]", tooMany)
	add("more than the calldata cap", "exceeds the method's", base.packBatch(base.policy, dg, batchItems(make([]Hash, MaxVerdictBatch+1), one), sig, bm))
	add("read-only call", "read-only", base.packBatch(base.policy, dg, items, sig, bm)).static = true
	add("out of gas", "", base.packBatch(base.policy, dg, items, sig, bm)).oog = true
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := base.fork(t)
			before := w.st.Fingerprint()
			gas := uint64(100_000_000)
			if c.oog {
				gas = gasVerdictSubmitBatch + 4*GasVerdictItem + 50_000 // short of the BLS charge
			}
			r := w.run(w.s.Verdict, w.carol, c.static, gas, c.input)
			require.Error(t, r.err)
			if c.oog {
				require.ErrorIs(t, r.err, ErrOutOfGas)
				require.Equal(t, gas, r.used)
			} else {
				require.Contains(t, r.reason, c.reason)
			}
			require.Equal(t, before, w.st.Fingerprint(), "state changed")
			for _, id := range ids {
				ready, _, _, _ := w.verdict(id)
				require.False(t, ready)
			}
		})
	}
	// the over-size batch is refused after the static charge only: nothing
	// per item was charged and nothing decoded
	w := base.fork(t)
	r := w.run(w.s.Verdict, w.carol, false, 100_000_000, tooMany)
	require.Equal(t, GasMinimum+GasInputWord*words(len(tooMany)-4)+gasVerdictSubmitBatch, r.used)
	// the genuine batch still works afterwards
	r = w.run(w.s.Verdict, w.carol, false, 100_000_000, base.packBatch(base.policy, dg, items, sig, bm))
	require.NoError(t, r.err, r.reason)
}

// TestSubmitBatchSkipsDecided: attack — anyone front-runs the committee's
// batch by expiring (or a relayer by submitting singly) one of its requests;
// the batch still lands, the decided request keeps its verdict (never
// overwritten), the event reports count and stored.
func TestSubmitBatchSkipsDecided(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ids := w.evaluateN(3)
	w.number += ExpiryBlocks
	w.must(w.s.Verdict, w.bob, "expire", [32]byte(ids[1]))
	items := batchItems(ids, func(int) *big.Int { return big.NewInt(1) })
	dg := handle("batch")
	sig, bm := w.batchSig(w.policy, dg, items, w.com, w.epoch, w.quorum()...)
	w.st.EndTransaction()
	w.must(w.s.Verdict, w.carol, "submitBatch", [32]byte(w.policy), [32]byte(dg), [][32]byte{ids[0], ids[1], ids[2]},
		[]*big.Int{big.NewInt(1), big.NewInt(1), big.NewInt(1)}, sig, bm)
	require.Len(t, w.st.Logs, 2) // DepositsSettled, VerdictBatchAccepted
	ev := w.s.Verdict.ABI().Events["VerdictBatchAccepted"]
	require.Equal(t, Hash(ev.ID), w.st.Logs[1].Topics[0])
	vals, err := ev.Inputs.NonIndexed().Unpack(w.st.Logs[1].Data)
	require.NoError(t, err)
	require.Equal(t, []any{[32]byte(dg), w.epoch, uint32(3), uint32(3), uint32(2)}, vals)
	_, res, _, _ := w.verdict(ids[1])
	require.Equal(t, 0, res.Cmp(ResultExpired))
	for _, i := range []int{0, 2} {
		_, res, _, _ := w.verdict(ids[i])
		require.Equal(t, int64(1), res.Int64())
	}
	// replaying the same batch now stores nothing: refused
	r := w.run(w.s.Verdict, w.carol, false, 100_000_000, w.packBatch(w.policy, dg, items, sig, bm))
	require.Contains(t, r.reason, "replay")
}

// TestExpire: a request with no verdict can be expired by anyone once it is
// ExpiryBlocks old, exactly once, to ResultExpired; attacks: expiring too
// early (to kill someone's pending request), expiring a decided request (to
// overwrite its verdict), expiring twice, and a committee verdict arriving
// after expiry (submit refused; no overwrite).
func TestExpire(t *testing.T) {
	t.Parallel()
	base := newWorld(t) // req1 queued at block 10, crdtReq too; req3 decided
	at := func(n uint64) *world { w := base.fork(t); w.number = n; return w }
	expire := func(w *world, req Hash) result {
		return w.run(w.s.Verdict, w.bob, false, 1_000_000, w.pack(w.s.Verdict, "expire", [32]byte(req)))
	}
	r := expire(at(10+ExpiryBlocks-1), base.req1)
	require.Contains(t, r.reason, "expires at block 1034 (now 1033)")
	require.Contains(t, expire(at(10+ExpiryBlocks), base.req3).reason, "already has a verdict")
	require.Contains(t, expire(at(10+ExpiryBlocks), handle("nope")).reason, "unknown request")

	w := at(10 + ExpiryBlocks)
	for _, req := range []Hash{base.req1, base.crdtReq} {
		r := expire(w, req)
		require.NoError(t, r.err, r.reason)
		want := GasMinimum + GasInputWord + gasVerdictExpire
		if req == base.req1 { // a policy request: its deposit is refunded
			want += GasRead + GasBalanceMove + gasDepositsSettled
		}
		require.Equal(t, want, r.used)
		ready, res, dg, ep := w.verdict(req)
		require.True(t, ready)
		require.Equal(t, 0, res.Cmp(ResultExpired))
		require.Equal(t, Hash{}, dg)
		require.Zero(t, ep)
		require.Contains(t, expire(w, req).reason, "already has a verdict")
	}
	// the committee's late verdict is refused
	dg := handle("late")
	sig, bm := w.verdictSig(base.req1, w.policy, dg, big.NewInt(1), w.com, w.epoch, w.quorum()...)
	r = w.run(w.s.Verdict, w.carol, false, 10_000_000, w.pack(w.s.Verdict, "submit", [32]byte(base.req1), big.NewInt(1), [32]byte(dg), sig, bm))
	require.Contains(t, r.reason, "already accepted")
	items := batchItems([]Hash{base.req1}, func(int) *big.Int { return big.NewInt(1) })
	sig, bm = w.batchSig(w.policy, dg, items, w.com, w.epoch, w.quorum()...)
	r = w.run(w.s.Verdict, w.carol, false, 10_000_000, w.packBatch(w.policy, dg, items, sig, bm))
	require.Contains(t, r.reason, "replay")
	_, res, _, _ := w.verdict(base.req1)
	require.Equal(t, 0, res.Cmp(ResultExpired))
}

// TestQueueFull: attack — flood one block with evaluate calls to queue more
// committee work than the committee can evaluate per block. The
// (MaxRequestsPerBlock+1)-th request of a block reverts with ErrQueueFull
// and changes nothing (no nonce, no request, no log); the next block accepts
// requests again.
func TestQueueFull(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.number = 50
	w.evaluateN(MaxRequestsPerBlock)
	before := w.st.Fingerprint()
	in := w.pack(w.s.Policy, "evaluate", [32]byte(w.policy), [][32]byte{w.hA, w.hB})
	r := w.run(w.s.Policy, w.gate, false, 10_000_000, in)
	require.True(t, errors.Is(r.err, ErrQueueFull), "%v", r.err)
	require.Contains(t, r.reason, "FHEPolicy.evaluate: request queue full for this block: block 50 already queued 4096 requests")
	require.Equal(t, before, w.st.Fingerprint())
	w.number++
	r = w.run(w.s.Policy, w.gate, false, 10_000_000, in)
	require.NoError(t, r.err, r.reason)
}

// TestEvaluateGas pins evaluate's charge: static + per handle + plan cost +
// the nonce, queue and batch-marker writes (GasUpdate once they are
// non-zero), the same for the first request of the policy in a block and for
// later ones (eth_estimateGas runs in another block than the transaction).
func TestEvaluateGas(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := loadPolicy(w.st.Store(FHEPolicyAddress).GetState, w.policy)
	in := w.pack(w.s.Policy, "evaluate", [32]byte(w.policy), [][32]byte{w.hA, w.hB})
	base := GasMinimum + GasInputWord*words(len(in)-4) + gasPolicyEvaluate + 2*(gasPolicyPerHandle+gasPolicyHandleACL) + gasPolicySetCheck + p.cost + 3*GasUpdate
	for i, want := range []uint64{base, base} {
		r := w.run(w.s.Policy, w.gate, false, 10_000_000, in)
		require.NoError(t, r.err, r.reason)
		require.Equal(t, want, r.used, "request %d of the block", i)
	}
}

// TestCommitteeBudget: attack — spread one block's requests over many
// expensive policies so that each opens its own packed evaluation and the
// block buys more committee CPU than the committee has (gas prices each
// request at the target occupancy, which such requests never reach). The
// first request of a policy books cost × BatchOccupancy against
// CommitteeGasPerBlock; the request that would exceed it reverts with
// ErrQueueFull (no state change), while more requests of an already-booked
// policy still join its evaluation, and the next block has a fresh budget.
func TestCommitteeBudget(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	heavy := func(tag string) Hash {
		spec := append([]byte("heavy: income*1 > 0; inputs=2 # "+tag+" "), make([]byte, MaxSpecBytes-64)...)
		for i := len(spec) - (MaxSpecBytes - 64); i < len(spec); i++ {
			spec[i] = ' '
		}
		return Hash(w.must(w.s.Policy, w.alice, "registerPolicy", spec)[0].([32]byte))
	}
	p1, p2 := heavy("one"), heavy("two")
	c1 := loadPolicy(w.st.Store(FHEPolicyAddress).GetState, p1).cost
	require.Greater(t, c1*BatchOccupancy, uint64(CommitteeGasPerBlock/2), "two heavy evaluations must exceed the budget")
	w.number = 77
	eval := func(id Hash) result {
		return w.run(w.s.Policy, w.gate, false, 10_000_000, w.pack(w.s.Policy, "evaluate", [32]byte(id), [][32]byte{w.hA, w.hB}))
	}
	require.NoError(t, eval(p1).err)
	before := w.st.Fingerprint()
	r := eval(p2)
	require.True(t, errors.Is(r.err, ErrQueueFull), "%v", r.err)
	require.Contains(t, r.reason, "request queue full for this block: block 77 already booked")
	require.Equal(t, before, w.st.Fingerprint())
	require.NoError(t, eval(p1).err, "a booked policy's evaluation takes more requests")
	require.NoError(t, eval(w.policy).err, "a cheap policy still fits")
	w.number++
	require.NoError(t, eval(p2).err)
}

// TestPackedVerdictForms: the one-word verdict encoding round-trips every
// boundary (form 0 below 2^128, form 1 near 2^256 including the three sentinels,
// form 2 in between).
func TestPackedVerdictForms(t *testing.T) {
	t.Parallel()
	one := big.NewInt(1)
	two128m1 := new(big.Int).Sub(two128, one)
	top := new(big.Int).Sub(new(big.Int).Add(ResultUnevaluable, one), two128) // 2^256 − 2^128
	for _, tc := range []struct {
		r     *big.Int
		extra bool
	}{
		{big.NewInt(0), false}, {one, false}, {two128m1, false}, {two128, true},
		{new(big.Int).Sub(top, one), true}, {top, false}, {ResultExpired, false}, {ResultUnevaluable, false}, {ResultRejectedInput, false},
	} {
		st := NewMemState()
		o := newOverlay(&MemEnv{State: st, Self: FHEVerdictAddress})
		req := handle(tc.r.String())
		require.Equal(t, tc.extra, needsExtraSlot(tc.r), tc.r.String())
		writePacked(o, req, packedVerdict{seq: 7, epoch: 3, result: tc.r})
		o.set(batchDigestSlot(7), handle("d"))
		ready, res, dg, ep := readVerdict(o.get, req)
		require.True(t, ready)
		require.Equal(t, 0, tc.r.Cmp(res), tc.r.String())
		require.Equal(t, handle("d"), dg)
		require.Equal(t, uint64(3), ep)
	}
}

// TestSubmitBatchGasBound: SubmitBatchGas is exactly what a batch of small
// results costs the first time (batch counter written from zero) and an
// upper bound afterwards; MaxBatchItems fits a 30M-gas block.
func TestSubmitBatchGasBound(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ids := w.evaluateN(64)
	w.number++
	for i, part := range [][]Hash{ids[:40], ids[40:]} {
		items := batchItems(part, func(i int) *big.Int { return big.NewInt(int64(i % 2)) })
		sig, bm := w.batchSig(w.policy, handle("d"), items, w.com, w.epoch, w.quorum()...)
		r := w.run(w.s.Verdict, w.carol, false, 100_000_000, w.packBatch(w.policy, handle("d"), items, sig, bm))
		require.NoError(t, r.err, r.reason)
		want := SubmitBatchGas(len(part), 4)
		if i > 0 {
			want -= GasWrite - GasUpdate
		}
		require.Equal(t, want, r.used, "batch %d", i)
	}
	n := MaxBatchItems(30_000_000, 4)
	require.Greater(t, n, 900)
	require.LessOrEqual(t, submitBatchTxGas(n, 4), uint64(30_000_000))
	require.Greater(t, submitBatchTxGas(n+1, 4), uint64(30_000_000))
	require.Equal(t, MaxVerdictBatch, MaxBatchItems(1<<40, 4))
	require.Zero(t, MaxBatchItems(50_000, 4))
}
