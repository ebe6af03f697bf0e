package subnetevm_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/contracts/bindings"
	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

func (f *fixture) balance(a common.Address) *big.Int {
	b, err := f.client.BalanceAt(context.Background(), a, nil)
	require.NoError(f.t, err)
	return b
}

// applied is a PrivateCreditGate request alice made (FHEPolicy's nonce-th),
// with its deposit.
func (f *fixture) applied(tag string, nonce uint64) (gateAddr common.Address, gate *bindings.PrivateCreditGate, policyID, req [32]byte, deposit *big.Int) {
	gateAddr, gate = f.deployGate()
	policyID, err := gate.PolicyId(nil)
	require.NoError(f.t, err)
	income, debt := f.registerInput(alice, tag+"/income"), f.registerInput(alice, tag+"/debt")
	f.ok(f.input.Allow(f.opts(alice, 0), income, gateAddr))
	f.ok(f.input.Allow(f.opts(alice, 0), debt, gateAddr))
	o := f.payGate(f.opts(alice, 0), gate)
	f.ok(gate.ApplyFor(o, income, debt))
	return gateAddr, gate, policyID, [32]byte(reqID(f.chainID, nonce, gateAddr, policyID, income, debt)), o.Value
}

// TestDepositsEVM: through subnet-evm's EVM, a request's deposit moves from
// the applicant through the gate to FHEPolicy's address; the verdict's
// transaction pays it back to the gate (a balance credit: the gate's code
// does not run), whose settle passes it on, so the applicant ends where it
// started less gas; a rejected input's deposit is burnt (FHEPolicy's balance
// drops, nobody is credited); value sent to a non-payable method is refused
// and stays with its sender.
func TestDepositsEVM(t *testing.T) {
	f := newFixture(t)
	gateAddr, gate, policyID, req, d := f.applied("refund", 0)
	require.Positive(t, d.Sign())
	p, err := f.policy.PolicyOf(nil, policyID)
	require.NoError(t, err)
	require.Equal(t, 0, d.Cmp(precompiles.Deposit(p.Cost, false)))
	require.Equal(t, 0, f.balance(subnetevm.PolicyAddress).Cmp(d), "FHEPolicy holds the deposit")
	require.Zero(t, f.balance(gateAddr).Sign())

	digest := ctHandle("result-ct")
	sig, bm := f.signVerdict(f.com, 1, req, policyID, digest, big.NewInt(1), 0, 1, 2)
	rc := f.ok(f.verdict.Submit(f.opts(relayer, 0), req, big.NewInt(1), digest, sig, bm))
	require.Zero(t, f.balance(subnetevm.PolicyAddress).Sign())
	require.Equal(t, 0, f.balance(gateAddr).Cmp(d), "refunded to the requester, the gate")
	settled := false
	for _, l := range rc.Logs {
		if ev, err := f.verdict.ParseDepositsSettled(*l); err == nil {
			settled = true
			require.Equal(t, policyID, ev.PolicyId)
			require.Equal(t, uint32(1), ev.Refunded)
			require.Zero(t, ev.Forfeited)
			require.Equal(t, 0, ev.RefundedWei.Cmp(d))
		}
	}
	require.True(t, settled, "DepositsSettled logged")
	before := f.balance(f.addrs[alice])
	f.ok(gate.Settle(f.opts(bob, 0), req))
	require.Zero(t, f.balance(gateAddr).Sign())
	require.Equal(t, 0, f.balance(f.addrs[alice]).Cmp(new(big.Int).Add(before, d)), "the gate passes the refund on")

	// a rejected input: burnt
	gateAddr, gate, policyID, req, d = f.applied("forfeit", 1)
	held := f.balance(subnetevm.PolicyAddress)
	require.Equal(t, 0, held.Cmp(d))
	rej := precompiles.ResultRejectedInput
	sig, bm = f.signVerdict(f.com, 1, req, policyID, digest, rej, 0, 1, 2)
	f.ok(f.verdict.Submit(f.opts(relayer, 0), req, rej, digest, sig, bm))
	require.Zero(t, f.balance(subnetevm.PolicyAddress).Sign(), "burnt, not kept")
	require.Zero(t, f.balance(gateAddr).Sign(), "nothing refunded")
	before = f.balance(f.addrs[alice])
	f.ok(gate.Settle(f.opts(bob, 0), req))
	require.Equal(t, 0, f.balance(f.addrs[alice]).Cmp(before))

	// value to a method that takes none: refused, the value stays with alice
	o := f.opts(alice, 200_000)
	o.Value = big.NewInt(1)
	before = f.balance(f.addrs[alice])
	rc = f.failed(f.input.Allow(o, ctHandle("x"), gateAddr))
	gasPaid := new(big.Int).Mul(new(big.Int).SetUint64(rc.GasUsed), rc.EffectiveGasPrice)
	require.Equal(t, 0, f.balance(f.addrs[alice]).Cmp(new(big.Int).Sub(before, gasPaid)))
	require.Zero(t, f.balance(subnetevm.InputAddress).Sign())
	data, err := subnetevm.Suite().Input.ABI().Pack("allow", ctHandle("x"), gateAddr)
	require.NoError(t, err)
	require.Contains(t, f.callErrValue(alice, subnetevm.InputAddress, data, big.NewInt(1)), "not payable")
}
