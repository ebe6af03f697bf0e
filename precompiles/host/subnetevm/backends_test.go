package subnetevm_test

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/ava-labs/libevm/core/types"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/contracts/bindings"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/corebackends"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
	"github.com/fhegate/fhegate/precompiles/precompilestest"
)

func useRealBackends(t *testing.T) {
	require.NoError(t, subnetevm.SetBackends(corebackends.Policy{}, corebackends.CRDTMeta{}))
	t.Cleanup(func() {
		require.NoError(t, subnetevm.SetBackends(precompilestest.Compiler{}, precompilestest.Merger{}))
	})
}

// TestRealPolicyBackend: a policy document from policy/examples registered on
// chain gets the compiler's plan hash, depth, gas and input count; evaluate
// charges the plan's gas and enforces the input count. credit_limit has no
// packed form (each request books its whole evaluation against the
// committee's budget), yet a request is charged its per-request cost, the
// same in every block.
func TestRealPolicyBackend(t *testing.T) {
	useRealBackends(t)
	f := newFixture(t)
	doc := examples.MustGet("credit_limit")
	plan, err := policy.Compile(doc)
	require.NoError(t, err)

	f.ok(f.policy.RegisterPolicy(f.opts(alice, 0), doc))
	p, err := f.policy.PolicyOf(nil, plan.Hash())
	require.NoError(t, err)
	require.True(t, p.Exists)
	require.Equal(t, uint32(plan.Depth), p.Depth)
	require.Equal(t, corebackends.PerRequestGas(plan), p.Cost)
	t.Logf("credit_limit: plan gas %d, slots %d, per-request %d", plan.Gas(), plan.Slots, p.Cost)
	require.Equal(t, uint32(4), p.Inputs)

	f.failed(f.policy.RegisterPolicy(f.opts(alice, 1_000_000), []byte("fhegate_policy: 1\nname: broken\n")))

	var hs [][32]byte
	for _, tag := range []string{"amount", "income", "debt", "default"} {
		hs = append(hs, f.registerInput(alice, tag))
	}
	f.failed(f.policy.Evaluate(f.pay(f.opts(alice, 5_000_000), plan.Hash()), plan.Hash(), hs[:3]))
	r := f.ok(f.policy.Evaluate(f.pay(f.opts(alice, 0), plan.Hash()), plan.Hash(), hs))
	require.Greater(t, r.GasUsed, corebackends.PerRequestGas(plan), "evaluate charges the plan gas")
	info, err := corebackends.Policy{}.Compile(doc)
	require.NoError(t, err)
	require.True(t, info.Alone)
	require.Equal(t, plan.AloneGas(), info.AloneGas)
	r2 := f.ok(f.policy.Evaluate(f.pay(f.opts(alice, 0), plan.Hash()), plan.Hash(), hs))
	r3 := f.ok(f.policy.Evaluate(f.pay(f.opts(alice, 0), plan.Hash()), plan.Hash(), hs))
	require.Equal(t, r2.GasUsed, r3.GasUsed, "the charge does not depend on the block")
	require.Less(t, r2.GasUsed, uint64(200_000), "a request of a policy evaluated alone pays its per-request cost, not its evaluation")
	t.Logf("credit_limit evaluate: %d gas (books %d of the committee's budget)", r2.GasUsed, info.AloneGas)
}

// TestRealCRDTBackend: the encrypted tally with fhe/crdt/meta PN-counter
// metadata; metadata that references a ciphertext the voter may not use is refused.
func TestRealCRDTBackend(t *testing.T) {
	useRealBackends(t)
	f := newFixture(t)
	addr, tx, tally, err := bindings.DeployEncryptedTally(f.opts(bob, 0), f.be())
	f.ok(tx, err)
	layout := meta.Layout{Type: meta.TypePNCounter, Preset: 1, Level: 0, Blocks: 3, Width: 1}
	state := func(block uint32, h [32]byte) []byte {
		s, err := meta.New(layout)
		require.NoError(t, err)
		s, err = s.Put(meta.Entry{Block: block, Clock: 1, Replica: block, Handle: meta.Handle(h)})
		require.NoError(t, err)
		return s.Encode()
	}
	voters := []int{alice, bob, relayer}
	var handles [][32]byte
	for i, v := range voters {
		h := f.registerInput(v, "pn-vote-"+string(rune('a'+i)))
		f.ok(f.input.Allow(f.opts(v, 0), h, addr))
		handles = append(handles, h)
	}
	// bob's vote whose metadata points at alice's ciphertext: refused
	bad, err := meta.New(layout)
	require.NoError(t, err)
	bad, err = bad.Put(meta.Entry{Block: 1, Clock: 1, Replica: 1, Handle: meta.Handle(handles[bob])})
	require.NoError(t, err)
	bad, err = bad.Put(meta.Entry{Block: 0, Clock: 2, Replica: 0, Handle: meta.Handle(handles[alice])})
	require.NoError(t, err)
	// the tally contract is allowed on alice's handle, so use a fresh contract-free path:
	// bob creates directly; he is not allowed on alice's handle.
	f.failed(f.crdt.Create(f.opts(bob, 2_000_000), uint8(meta.TypePNCounter), handles[bob], bad.Encode()))
	// wrong kind for the metadata
	f.failed(f.crdt.Create(f.opts(bob, 2_000_000), uint8(meta.TypeGCounter), handles[bob], state(1, handles[bob])))

	for i, v := range voters {
		f.ok(tally.Vote(f.opts(v, 0), handles[i], state(uint32(i), handles[i])))
	}
	cur, err := tally.Current(nil)
	require.NoError(t, err)
	st, err := f.crdt.StateOf(nil, cur)
	require.NoError(t, err)
	joined, err := meta.Decode(st.Metadata)
	require.NoError(t, err)
	require.Len(t, joined.Entries, 3)
	for i := range voters {
		require.Equal(t, meta.Handle(handles[i]), joined.Entries[i].Handle)
	}

	r := f.ok(tally.RequestReveal(f.opts(bob, 0)))
	ev, err := tally.ParseRevealRequested(*r.Logs[len(r.Logs)-1])
	require.NoError(t, err)
	minusOne := big.NewInt(65536) // −1 as the committee posts it: t − 1 (decrypted values are mod t = 65537)
	d := bls.VerdictDigest(f.chainID, 1, ev.RequestId, precompiles.CRDTValuePolicyID, ctHandle("tally"), minusOne)
	sig, bm := f.com.sign(t, d, 0, 1, 2)
	f.ok(f.verdict.Submit(f.opts(relayer, 0), ev.RequestId, minusOne, ctHandle("tally"), sig, bm))
	total, err := tally.Total(nil)
	require.NoError(t, err)
	require.Equal(t, int64(-1), total.Int64())
}

// TestKYCAMLRequestGas measures evaluate for the shipped kyc_aml policy (8
// encrypted inputs) under the target-occupancy price, through the EVM: the
// chain's first request (every counter written from zero) and a steady-state
// one (the next block: nonce, queue and the policy's batch marker updated).
// The figures are the evaluate rows of docs/gas.md; the "vector input" lines
// are the same requests with one handle holding all 8 attributes.
func TestKYCAMLRequestGas(t *testing.T) {
	useRealBackends(t)
	f := newFixture(t)
	doc := examples.MustGet("kyc_aml")
	plan, err := policy.Compile(doc)
	require.NoError(t, err)
	data, err := subnetevm.Suite().Policy.ABI().Pack("registerPolicy", doc)
	require.NoError(t, err)
	require.Empty(t, f.callErr(alice, subnetevm.PolicyAddress, data))
	f.ok(f.policy.RegisterPolicy(f.opts(alice, 8_000_000), doc))
	var hs [][32]byte
	for i := 0; i < 8; i++ {
		hs = append(hs, f.registerInput(alice, "kyc-"+string(rune('a'+i))))
	}
	first := f.ok(f.policy.Evaluate(f.pay(f.opts(alice, 0), plan.Hash()), plan.Hash(), hs))
	steady := f.ok(f.policy.Evaluate(f.pay(f.opts(alice, 0), plan.Hash()), plan.Hash(), hs))
	require.Equal(t, uint64(29_647), corebackends.PerRequestGas(plan))
	require.Less(t, steady.GasUsed, first.GasUsed)
	t.Logf("kyc_aml evaluate (8 handles, cost %d): first on chain %d gas, steady state %d gas", corebackends.PerRequestGas(plan), first.GasUsed, steady.GasUsed)

	// The same request on an input set (FHEInput.registerSet): one slot for
	// the upload and one check in evaluate.
	tags := make([]string, 8)
	for i := range tags {
		tags[i] = "kyc-set-" + string(rune('a'+i))
	}
	b := newInputBatch(tags...)
	sig, bm := f.com.sign(t, b.digest(f.chainID, f.com.epoch, f.addrs[alice]), 0, 1, 2)
	reg := f.ok(f.input.RegisterSet(f.opts(alice, 0), f.addrs[alice], 1, b.handles, b.ctypes, b.proofs, sig, bm))
	onSet := f.ok(f.policy.Evaluate(f.pay(f.opts(alice, 0), plan.Hash()), plan.Hash(), b.handles))
	require.Less(t, onSet.GasUsed, steady.GasUsed)
	t.Logf("kyc_aml on an input set: registerSet %d gas, evaluate %d gas (steady state)", reg.GasUsed, onSet.GasUsed)

	// The same request with the attestation inline (FHEPolicy.evaluateAttested):
	// one transaction, nothing stored for the inputs.
	for i := range tags {
		tags[i] = "kyc-inline-" + string(rune('a'+i))
	}
	b = newInputBatch(tags...)
	sig, bm = f.com.sign(t, b.digest(f.chainID, f.com.epoch, f.addrs[alice]), 0, 1, 2)
	inline := f.ok(f.policy.EvaluateAttested(f.pay(f.opts(alice, 0), plan.Hash()), plan.Hash(), 1, b.handles, b.ctypes, b.proofs, sig, bm))
	require.Less(t, inline.GasUsed, reg.GasUsed+onSet.GasUsed)
	t.Logf("kyc_aml with the attestation inline: evaluateAttested %d gas (steady state)", inline.GasUsed)

	// The same request under an input root (FHEPolicy.evaluateRooted): the
	// committee signed one root over 16 uploads; the first request under it
	// verifies and stores it, the others walk their 4-sibling paths.
	const uploads = 16
	// underRoot evaluates each upload of batches under one root the
	// committee signed over all of them (the signature sent with the first
	// request only) and returns each request's gas; each checks a receipt.
	underRoot := func(batches []*inputBatch, each func(*types.Receipt)) []uint64 {
		leaves := make([][32]byte, len(batches))
		for u, b := range batches {
			leaves[u] = b.digest(f.chainID, f.com.epoch, f.addrs[alice])
		}
		root, paths, err := bls.InputRootTree(leaves)
		require.NoError(t, err)
		rsig, rbm := f.com.sign(t, bls.InputRootDigest(f.chainID, f.com.epoch, root), 0, 1, 2)
		var gas []uint64
		for u, b := range batches {
			sig, bm := rsig, rbm
			if u > 0 {
				sig, bm = nil, nil
			}
			r := f.ok(f.policy.EvaluateRooted(f.pay(f.opts(alice, 0), plan.Hash()), plan.Hash(), 1, b.handles, b.ctypes, b.proofs, root, uint32(u), paths[u], sig, bm))
			if each != nil {
				each(r)
			}
			gas = append(gas, r.GasUsed)
		}
		return gas
	}
	batches := make([]*inputBatch, uploads)
	for u := range batches {
		for i := range tags {
			tags[i] = fmt.Sprintf("kyc-rooted-%d-%d", u, i)
		}
		batches[u] = newInputBatch(tags...)
	}
	rooted := underRoot(batches, nil)
	require.Less(t, rooted[1], inline.GasUsed)
	t.Logf("kyc_aml under an input root of %d uploads: evaluateRooted first %d gas (verifies and stores the root), then %d (steady state)", uploads, rooted[0], rooted[uploads-1])

	// Vector inputs: the same requests with ONE handle, a ciphertext holding
	// all 8 attributes (fhe.VectorInts). Each logs one handle.
	oneHandle := func(r *types.Receipt) {
		t.Helper()
		ev, err := f.policy.ParseEvaluationRequested(*r.Logs[len(r.Logs)-1])
		require.NoError(t, err)
		require.Len(t, ev.Handles, 1, "a vector input is one handle")
	}
	vec := f.registerInput(alice, "kyc-vector")
	vEval := f.ok(f.policy.Evaluate(f.pay(f.opts(alice, 0), plan.Hash()), plan.Hash(), [][32]byte{vec}))
	oneHandle(vEval)
	require.Less(t, vEval.GasUsed, steady.GasUsed)
	t.Logf("kyc_aml vector input (1 handle): evaluate %d gas (steady state), against %d for 8 handles", vEval.GasUsed, steady.GasUsed)

	vb := newInputBatch("kyc-vector-inline")
	sig, bm = f.com.sign(t, vb.digest(f.chainID, f.com.epoch, f.addrs[alice]), 0, 1, 2)
	vInline := f.ok(f.policy.EvaluateAttested(f.pay(f.opts(alice, 0), plan.Hash()), plan.Hash(), 1, vb.handles, vb.ctypes, vb.proofs, sig, bm))
	oneHandle(vInline)
	require.Less(t, vInline.GasUsed, inline.GasUsed)
	t.Logf("kyc_aml vector input (1 handle): evaluateAttested %d gas (steady state), against %d for 8 handles", vInline.GasUsed, inline.GasUsed)

	// under a fresh root of 16 one-handle uploads, as above
	for u := range batches {
		batches[u] = newInputBatch(fmt.Sprintf("kyc-vector-rooted-%d", u))
	}
	vRooted := underRoot(batches, oneHandle)
	require.Less(t, vRooted[0], rooted[0])
	require.Less(t, vRooted[uploads-1], rooted[uploads-1])
	t.Logf("kyc_aml vector input (1 handle) under an input root of %d uploads: evaluateRooted first %d gas (verifies and stores the root), then %d (steady state); 8 handles: %d, then %d",
		uploads, vRooted[0], vRooted[uploads-1], rooted[0], rooted[uploads-1])
}
