package subnetevm_test

import (
	"context"
	"errors"
	"math/big"
	"testing"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/accounts/abi/bind"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/crypto"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/contracts/bindings"
	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/precompilestest"
)

// customError runs eth_call of method(args…) on contract `to` (ABI meta) from
// account `from`, requires it to revert with a Solidity custom error, and
// returns the error's name and decoded arguments.
func (f *fixture) customError(meta *bind.MetaData, from int, to common.Address, method string, args ...any) (string, []any) {
	f.t.Helper()
	a, err := meta.GetAbi()
	require.NoError(f.t, err)
	data, err := a.Pack(method, args...)
	require.NoError(f.t, err)
	_, err = f.client.CallContract(context.Background(), ethereum.CallMsg{From: f.addrs[from], To: &to, Data: data, Gas: 5_000_000}, nil)
	require.Error(f.t, err, "%s should revert", method)
	var de interface{ ErrorData() interface{} }
	require.True(f.t, errors.As(err, &de), "no revert data: %v", err)
	var rd []byte
	switch v := de.ErrorData().(type) {
	case string:
		rd, err = hexutil.Decode(v)
		require.NoError(f.t, err)
	case []byte:
		rd = v
	default:
		f.t.Fatalf("revert data of type %T", v)
	}
	require.GreaterOrEqual(f.t, len(rd), 4, "revert data %x", rd)
	e, err := a.ErrorByID([4]byte(rd[:4]))
	require.NoError(f.t, err, "revert data %x is not a custom error of the contract (%v)", rd, err)
	vals, err := e.Inputs.Unpack(rd[4:])
	require.NoError(f.t, err)
	return e.Name, vals
}

// gateScene is TestCreditGateConfusedDeputy's setting: a credit gate, and
// alice's income and debt inputs, registered and allowed to the gate.
type gateScene struct {
	f            *fixture
	gateAddr     common.Address
	gate         *bindings.PrivateCreditGate
	policyID     [32]byte
	income, debt [32]byte
}

func newGateScene(t *testing.T) gateScene {
	f := newFixture(t)
	gateAddr, gate := f.deployGate()
	policyID, err := gate.PolicyId(nil)
	require.NoError(t, err)
	income, debt := f.registerInput(alice, "income"), f.registerInput(alice, "debt")
	f.ok(f.input.Allow(f.opts(alice, 0), income, gateAddr))
	f.ok(f.input.Allow(f.opts(alice, 0), debt, gateAddr))
	return gateScene{f: f, gateAddr: gateAddr, gate: gate, policyID: policyID, income: income, debt: debt}
}

// applyForError requires applyFor(h1, h2) from account `from` to revert and
// returns the custom error's name and arguments.
func (s gateScene) applyForError(from int, h1, h2 [32]byte) (string, []any) {
	s.f.t.Helper()
	return s.f.customError(bindings.PrivateCreditGateMetaData, from, s.gateAddr, "applyFor", h1, h2)
}

// settleError requires settle(id) from bob to revert and returns the custom
// error's name and arguments.
func (s gateScene) settleError(id [32]byte) (string, []any) {
	s.f.t.Helper()
	return s.f.customError(bindings.PrivateCreditGateMetaData, bob, s.gateAddr, "settle", id)
}

// TestCreditGateConfusedDeputy: alice registers her inputs and allows the
// gate on them; bob front-runs her applyFor with her handles. Against the
// original gate (which recorded msg.sender without checking the handles) bob
// got request 0 recorded as his, verdict 1 and the credit line, and alice's own
// application with the same handles became a second request over the same
// ciphertexts that the committee never answers. The gate now requires that the
// applicant owns every handle and accepts a handle pair once.
func TestCreditGateConfusedDeputy(t *testing.T) {
	s := newGateScene(t)
	first := s.frontRunRefused(t)
	s.aliceApplies(t, first)
	s.settleCreditsAlice(t, first)
	s.settleBound(t, first)
}

// frontRunRefused: bob's applyFor with (any of) alice's handles reverts, and
// mined it fails and leaves no request. It returns the id that request 0 of
// the gate for (policy, income‖debt) will have.
func (s gateScene) frontRunRefused(t *testing.T) [32]byte {
	f := s.f
	// bob front-runs with alice's handles: refused, naming the handle, bob and its owner
	name, args := s.applyForError(bob, s.income, s.debt)
	require.Equal(t, "NotHandleOwner", name)
	require.Equal(t, []any{s.income, f.addrs[bob], f.addrs[alice]}, args)
	// …also when only one of the handles is alice's
	own := f.registerInput(bob, "bob-debt")
	f.ok(f.input.Allow(f.opts(bob, 0), own, s.gateAddr))
	name, args = s.applyForError(bob, s.income, own)
	require.Equal(t, "NotHandleOwner", name)
	require.Equal(t, s.income, args[0])
	name, args = s.applyForError(bob, own, s.debt)
	require.Equal(t, "NotHandleOwner", name)
	require.Equal(t, s.debt, args[0])
	// a handle nobody registered
	name, args = s.applyForError(bob, ctHandle("never-registered"), own)
	require.Equal(t, "UnknownHandle", name)
	require.Equal(t, []any{ctHandle("never-registered")}, args)
	// mined, the front-run fails and leaves no request
	f.failed(s.gate.ApplyFor(f.payGate(f.opts(bob, 1_000_000), s.gate), s.income, s.debt))
	// request 0 of the gate for (policy, income‖debt): ids bind the requester, policy and handles
	first := [32]byte(precompiles.RequestID(f.chainID, precompiles.FHEPolicyAddress, 0, precompiles.Address(s.gateAddr),
		precompiles.Hash(s.policyID), precompiles.HandlesHash([]precompiles.Hash{precompiles.Hash(s.income), precompiles.Hash(s.debt)})))
	req, err := f.policy.RequestOf(nil, first)
	require.NoError(t, err)
	require.False(t, req.Exists, "the attacker's applyFor must not create a request")
	return first
}

// aliceApplies: alice's own application is request 0, recorded under its
// handle set; the same handles again are refused.
func (s gateScene) aliceApplies(t *testing.T, first [32]byte) {
	f := s.f
	// alice's own application is request 0 and is answered
	r := f.ok(s.gate.ApplyFor(f.payGate(f.opts(alice, 0), s.gate), s.income, s.debt))
	ev, err := s.gate.ParseApplied(*r.Logs[len(r.Logs)-1])
	require.NoError(t, err)
	require.Equal(t, first, ev.RequestId)
	require.Equal(t, f.addrs[alice], ev.Applicant)
	req, err := f.policy.RequestOf(nil, first)
	require.NoError(t, err)
	require.True(t, req.Exists)
	require.Equal(t, s.gateAddr, req.Requester)
	setID := crypto.Keccak256Hash(s.income[:], s.debt[:])
	got, err := s.gate.RequestOfHandles(nil, setID)
	require.NoError(t, err)
	require.Equal(t, first, got)

	// the same handles again (a replay, a double click, or bob now that alice
	// has applied): refused, naming the request they went to
	for _, who := range []int{alice, bob} {
		name, args := s.applyForError(who, s.income, s.debt)
		if who == alice {
			require.Equal(t, "HandlesAlreadyUsed", name)
			require.Equal(t, []any{[32]byte(setID), first}, args)
		} else {
			require.Equal(t, "NotHandleOwner", name)
		}
	}
}

// settleCreditsAlice: verdict 1 on request first, settled by anyone, gives
// alice the credit line and bob nothing.
func (s gateScene) settleCreditsAlice(t *testing.T, first [32]byte) {
	f := s.f
	digest := ctHandle("result-ct")
	sig, bm := f.signVerdict(f.com, 1, first, s.policyID, digest, big.NewInt(1), 0, 1, 2)
	f.ok(f.verdict.Submit(f.opts(relayer, 0), first, big.NewInt(1), digest, sig, bm))
	f.ok(s.gate.Settle(f.opts(bob, 0), first))
	line, err := s.gate.CreditLine(nil, f.addrs[alice])
	require.NoError(t, err)
	require.Equal(t, int64(10_000), line.Int64())
	line, err = s.gate.CreditLine(nil, f.addrs[bob])
	require.NoError(t, err)
	require.Zero(t, line.Sign(), "the attacker got nothing")
}

// settleBound: settle is bound to the gate's own requests and acts once;
// alice may apply again with fresh inputs, and before the verdict settle
// says so.
func (s gateScene) settleBound(t *testing.T, first [32]byte) {
	f := s.f
	// settle is bound to the gate's own requests and acts once
	name, _ := s.settleError(first)
	require.Equal(t, "AlreadySettled", name)
	name, args := s.settleError(ctHandle("not-a-request"))
	require.Equal(t, "UnknownRequest", name)
	require.Equal(t, []any{ctHandle("not-a-request")}, args)

	// alice may apply again with fresh inputs; before the verdict settle says so
	income2 := f.registerInput(alice, "income-2")
	f.ok(f.input.Allow(f.opts(alice, 0), income2, s.gateAddr))
	r := f.ok(s.gate.ApplyFor(f.payGate(f.opts(alice, 0), s.gate), income2, s.debt))
	ev, err := s.gate.ParseApplied(*r.Logs[len(r.Logs)-1])
	require.NoError(t, err)
	name, args = s.settleError(ev.RequestId)
	require.Equal(t, "VerdictNotReady", name)
	require.Equal(t, []any{ev.RequestId}, args)
}

// TestTallyConfusedDeputy: the same class of bug in EncryptedTally — a voter
// who allowed the tally on their ballot could have it cast by anyone (and by
// several accounts). vote now requires the caller to own the ballot.
func TestTallyConfusedDeputy(t *testing.T) {
	f := newFixture(t)
	addr, tx, tally, err := bindings.DeployEncryptedTally(f.opts(bob, 0), f.be())
	f.ok(tx, err)
	h := f.registerInput(alice, "vote-a")
	f.ok(f.input.Allow(f.opts(alice, 0), h, addr))
	meta := bindings.EncryptedTallyMetaData
	vv := precompilestest.EncodeVersionVector([2]uint64{1, 1})

	name, args := f.customError(meta, bob, addr, "vote", h, vv)
	require.Equal(t, "NotHandleOwner", name)
	require.Equal(t, []any{h, f.addrs[bob], f.addrs[alice]}, args)
	f.failed(tally.Vote(f.opts(bob, 1_000_000), h, vv))
	voted, err := tally.Voted(nil, f.addrs[bob])
	require.NoError(t, err)
	require.False(t, voted)
	n, err := tally.Votes(nil)
	require.NoError(t, err)
	require.Zero(t, n.Sign())

	f.ok(tally.Vote(f.opts(alice, 0), h, vv))
	name, _ = f.customError(meta, alice, addr, "vote", h, vv)
	require.Equal(t, "AlreadyVoted", name)
	name, _ = f.customError(meta, relayer, addr, "vote", h, vv)
	require.Equal(t, "NotHandleOwner", name)
	n, err = tally.Votes(nil)
	require.NoError(t, err)
	require.Equal(t, int64(1), n.Int64())
}
