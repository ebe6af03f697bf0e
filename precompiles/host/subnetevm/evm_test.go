package subnetevm_test

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/ava-labs/libevm/accounts/abi/bind"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/contracts/bindings"
	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
	"github.com/fhegate/fhegate/precompiles/precompilestest"
)

const (
	alice   = 0
	bob     = 1
	relayer = 2
	gov     = 3
)

var creditSpec = []byte("credit: income*1 - debt*1 > 500; inputs=2")

// fixture: a chain with the precompiles active and bound clients.
type fixture struct {
	*chain
	com     *testCommittee
	input   *bindings.IFHEInput
	policy  *bindings.IFHEPolicy
	crdt    *bindings.IFHECRDT
	verdict *bindings.IFHEVerdict
}

func newFixture(t *testing.T) *fixture {
	com := newCommittee(t, "genesis", 1, 4, 3)
	c := newChain(t, gov, com)
	f := &fixture{chain: c, com: com}
	var err error
	f.input, err = bindings.NewIFHEInput(subnetevm.InputAddress, c.be())
	require.NoError(t, err)
	f.policy, err = bindings.NewIFHEPolicy(subnetevm.PolicyAddress, c.be())
	require.NoError(t, err)
	f.crdt, err = bindings.NewIFHECRDT(subnetevm.CRDTAddress, c.be())
	require.NoError(t, err)
	f.verdict, err = bindings.NewIFHEVerdict(subnetevm.VerdictAddress, c.be())
	require.NoError(t, err)
	return f
}

// pay sets o's value to policy's deposit (FHEPolicy.depositOf), as a
// well-behaved client does for every request.
func (f *fixture) pay(o *bind.TransactOpts, policy [32]byte) *bind.TransactOpts {
	d, err := f.policy.DepositOf(nil, policy)
	require.NoError(f.t, err)
	o.Value = d
	return o
}

// payGate is pay for PrivateCreditGate.applyFor (the gate's policy).
func (f *fixture) payGate(o *bind.TransactOpts, gate *bindings.PrivateCreditGate) *bind.TransactOpts {
	id, err := gate.PolicyId(nil)
	require.NoError(f.t, err)
	return f.pay(o, id)
}

// reqID is the id of the nonce-th FHEPolicy request by requester for policy
// over handles.
func reqID(chainID *big.Int, nonce uint64, requester common.Address, policy [32]byte, handles ...[32]byte) precompiles.Hash {
	hs := make([]precompiles.Hash, len(handles))
	for i := range handles {
		hs[i] = handles[i]
	}
	return precompiles.RequestID(chainID, precompiles.FHEPolicyAddress, nonce, precompiles.Address(requester), policy, precompiles.HandlesHash(hs))
}

func ctHandle(tag string) [32]byte {
	return [32]byte(crypto.Keccak256Hash([]byte("ciphertext/" + tag)))
}

// registerInput registers a committee-attested handle for owner (sent by owner).
func (f *fixture) registerInput(owner int, tag string) [32]byte {
	return f.registerInputs(owner, tag)[0]
}

// inputBatch is one upload of handles with ctype 1 and stand-in proof
// digests, ready for FHEInput.registerBatch.
type inputBatch struct {
	handles, proofs [][32]byte
	ctypes          []uint8
}

func newInputBatch(tags ...string) *inputBatch {
	b := &inputBatch{}
	for _, tag := range tags {
		h := ctHandle(tag)
		b.handles = append(b.handles, h)
		b.ctypes = append(b.ctypes, 1)
		b.proofs = append(b.proofs, [32]byte(crypto.Keccak256Hash([]byte("proof/"), h[:])))
	}
	return b
}

// digest is bls.InputBatchDigest of the batch for owner at epoch.
func (b *inputBatch) digest(chainID *big.Int, epoch uint64, owner common.Address) [32]byte {
	items := make([]bls.InputItem, len(b.handles))
	for i := range items {
		items[i] = bls.InputItem{Handle: b.handles[i], CType: b.ctypes[i], ProofDigest: b.proofs[i]}
	}
	return bls.InputBatchDigest(chainID, epoch, owner, 1, bls.InputBatchRoot(items))
}

// register sends FHEInput.registerBatch of b for owner with opts.
func (f *fixture) register(opts *bind.TransactOpts, owner common.Address, b *inputBatch, sig, bm []byte) (*types.Transaction, error) {
	return f.input.RegisterBatch(opts, owner, 1, b.handles, b.ctypes, b.proofs, sig, bm)
}

// registerInputs registers one committee-attested upload of handles for
// owner (sent by owner) and returns the handles.
func (f *fixture) registerInputs(owner int, tags ...string) [][32]byte {
	b := newInputBatch(tags...)
	sig, bm := f.com.sign(f.t, b.digest(f.chainID, f.com.epoch, f.addrs[owner]), 0, 1, 2)
	f.ok(f.register(f.opts(owner, 0), f.addrs[owner], b, sig, bm))
	return b.handles
}

func (f *fixture) signVerdict(com *testCommittee, epoch uint64, req, policy [32]byte, digest [32]byte, result *big.Int, idx ...int) ([]byte, []byte) {
	d := bls.VerdictDigest(f.chainID, epoch, req, policy, digest, result)
	return com.sign(f.t, d, idx...)
}

func readArtifact(t *testing.T, name string) []byte {
	b, err := os.ReadFile("../../../contracts/artifacts/" + name + ".bin")
	require.NoError(t, err)
	return common.FromHex(strings.TrimSpace(string(b)))
}

// TestArtifactsMatchBindings: the bindings were generated from the committed artifacts.
func TestArtifactsMatchBindings(t *testing.T) {
	t.Parallel()
	require.Equal(t, readArtifact(t, "PrivateCreditGate"), common.FromHex(bindings.PrivateCreditGateMetaData.Bin))
	require.Equal(t, readArtifact(t, "EncryptedTally"), common.FromHex(bindings.EncryptedTallyMetaData.Bin))
	require.Equal(t, readArtifact(t, "FHEProbe"), common.FromHex(bindings.FHEProbeMetaData.Bin))
}

func (f *fixture) deployGate() (common.Address, *bindings.PrivateCreditGate) {
	addr, tx, gate, err := bindings.DeployPrivateCreditGate(f.opts(bob, 0), f.be(), creditSpec, big.NewInt(10_000))
	f.ok(tx, err)
	return addr, gate
}

func (f *fixture) deployProbe() (common.Address, *bindings.FHEProbe) {
	addr, tx, p, err := bindings.DeployFHEProbe(f.opts(bob, 0), f.be())
	f.ok(tx, err)
	return addr, p
}

// TestCreditGate: the private credit gate requests a verdict, the committee
// (watching EvaluationRequested over JSON-RPC) posts a signed verdict, the
// gate acts on it once; a replayed verdict is refused.
func TestCreditGate(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	gateAddr, gate := f.deployGate()
	policyID, err := gate.PolicyId(nil)
	require.NoError(t, err)
	p, err := f.policy.PolicyOf(nil, policyID)
	require.NoError(t, err)
	require.True(t, p.Exists)
	require.Equal(t, gateAddr, p.Registrant)
	require.Equal(t, uint32(2), p.Inputs)

	income, debt := f.registerInput(alice, "income"), f.registerInput(alice, "debt")
	f.ok(f.input.Allow(f.opts(alice, 0), income, gateAddr))
	f.ok(f.input.Allow(f.opts(alice, 0), debt, gateAddr))
	rcpt := f.ok(gate.ApplyFor(f.payGate(f.opts(alice, 0), gate), income, debt))

	// the committee's view: the request event, filtered over JSON-RPC
	it, err := f.policy.FilterEvaluationRequested(&bind.FilterOpts{Start: 0, Context: ctx}, nil, nil, nil)
	require.NoError(t, err)
	require.True(t, it.Next())
	ev := it.Event
	require.False(t, it.Next())
	require.Equal(t, policyID, ev.PolicyId)
	require.Equal(t, gateAddr, ev.Requester)
	require.Equal(t, [][32]byte{income, debt}, ev.Handles)
	require.Equal(t, rcpt.BlockNumber.Uint64(), ev.Raw.BlockNumber)
	require.Equal(t, [32]byte(reqID(f.chainID, 0, gateAddr, policyID, income, debt)), ev.RequestId)
	applicant, err := gate.ApplicantOf(nil, ev.RequestId)
	require.NoError(t, err)
	require.Equal(t, f.addrs[alice], applicant)

	// settle before the verdict: VerdictNotReady
	_, err = gate.Settle(&bind.TransactOpts{From: f.addrs[bob], NoSend: true, Signer: f.opts(bob, 0).Signer}, ev.RequestId)
	require.Error(t, err)

	digest := ctHandle("result-ct")
	sig, bm := f.signVerdict(f.com, 1, ev.RequestId, policyID, digest, big.NewInt(1), 0, 1, 3)
	f.ok(f.verdict.Submit(f.opts(relayer, 0), ev.RequestId, big.NewInt(1), digest, sig, bm))
	v, err := f.verdict.VerdictOf(nil, ev.RequestId)
	require.NoError(t, err)
	require.True(t, v.Ready)
	require.Equal(t, int64(1), v.Result.Int64())
	require.Equal(t, uint64(1), v.Epoch)

	f.ok(gate.Settle(f.opts(bob, 0), ev.RequestId))
	line, err := gate.CreditLine(nil, f.addrs[alice])
	require.NoError(t, err)
	require.Equal(t, int64(10_000), line.Int64())
	f.failed(gate.Settle(f.opts(bob, 300_000), ev.RequestId)) // AlreadySettled

	// replayed verdict: the same signed verdict again
	f.failed(f.verdict.Submit(f.opts(relayer, 500_000), ev.RequestId, big.NewInt(1), digest, sig, bm))
	data, _ := subnetevm.Suite().Verdict.ABI().Pack("submit", ev.RequestId, big.NewInt(1), digest, sig, bm)
	require.Contains(t, f.callErr(relayer, subnetevm.VerdictAddress, data), "already accepted")
}

// TestVerdictRejections: forged, under-quorum and wrong-epoch signatures are
// refused with a reason and leave no verdict.
func TestVerdictRejections(t *testing.T) {
	f := newFixture(t)
	gateAddr, gate := f.deployGate()
	policyID, _ := gate.PolicyId(nil)
	income, debt := f.registerInput(alice, "income"), f.registerInput(alice, "debt")
	f.ok(f.input.Allow(f.opts(alice, 0), income, gateAddr))
	f.ok(f.input.Allow(f.opts(alice, 0), debt, gateAddr))
	f.ok(gate.ApplyFor(f.payGate(f.opts(alice, 0), gate), income, debt))
	req := [32]byte(reqID(f.chainID, 0, gateAddr, policyID, income, debt))
	digest := ctHandle("result-ct")
	one := big.NewInt(1)
	outsiders := newCommittee(t, "outsiders", 1, 4, 3)

	type sigCase struct {
		name   string
		sig    []byte
		bm     []byte
		result *big.Int
		reason string
	}
	var cases []sigCase
	s, b := f.signVerdict(outsiders, 1, req, policyID, digest, one, 0, 1, 2)
	cases = append(cases, sigCase{"forged (outsider keys)", s, b, one, "does not verify"})
	s, b = f.signVerdict(f.com, 1, req, policyID, digest, one, 0, 1)
	cases = append(cases, sigCase{"under quorum", s, b, one, "under quorum: 2 signers, threshold 3"})
	s, b = f.signVerdict(f.com, 2, req, policyID, digest, one, 0, 1, 2)
	cases = append(cases, sigCase{"wrong epoch", s, b, one, "does not verify for committee epoch 1"})
	s, b = f.signVerdict(f.com, 1, req, policyID, digest, one, 0, 1, 2)
	cases = append(cases, sigCase{"result swapped", s, b, big.NewInt(0), "does not verify"})
	bm3, _ := bls.NewBitmap(4, []int{0, 1, 3})
	cases = append(cases, sigCase{"bitmap claims other signers", s, bm3, one, "does not verify"})
	cases = append(cases, sigCase{"truncated signature", s[:95], b, one, "signature must be 96 bytes"})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, err := subnetevm.Suite().Verdict.ABI().Pack("submit", req, tc.result, digest, tc.sig, tc.bm)
			require.NoError(t, err)
			require.Contains(t, f.callErr(relayer, subnetevm.VerdictAddress, data), tc.reason)
			f.failed(f.verdict.Submit(f.opts(relayer, 500_000), req, tc.result, digest, tc.sig, tc.bm))
			v, err := f.verdict.VerdictOf(nil, req)
			require.NoError(t, err)
			require.False(t, v.Ready)
		})
	}
	// the correct signature still works afterwards
	s, b = f.signVerdict(f.com, 1, req, policyID, digest, one, 1, 2, 3)
	f.ok(f.verdict.Submit(f.opts(relayer, 0), req, one, digest, s, b))
}

// TestCommitteeRotation: governance installs epoch 2; epoch-1 signatures stop
// verifying; non-governance callers are refused.
func TestCommitteeRotation(t *testing.T) {
	f := newFixture(t)
	next := newCommittee(t, "epoch2", 2, 5, 4)
	cfg := next.config()
	var pks, pops [][]byte
	for _, m := range cfg.Members {
		pks = append(pks, m.PublicKey)
		pops = append(pops, m.ProofOfPossession)
	}
	f.failed(f.verdict.SetCommittee(f.opts(alice, 2_000_000), 2, 4, pks, pops))
	f.ok(f.verdict.SetCommittee(f.opts(gov, 0), 2, 4, pks, pops))
	ci, err := f.verdict.Committee(nil)
	require.NoError(t, err)
	require.Equal(t, uint64(2), ci.Epoch)
	require.Equal(t, uint32(4), ci.Threshold)
	require.Equal(t, uint32(5), ci.Size)

	b := newInputBatch("x")
	sig, bm := f.com.sign(t, b.digest(f.chainID, 1, f.addrs[alice]), 0, 1, 2)
	f.failed(f.register(f.opts(alice, 500_000), f.addrs[alice], b, sig, bm))
	sig, bm = next.sign(t, b.digest(f.chainID, 2, f.addrs[alice]), 0, 1, 2, 4)
	f.ok(f.register(f.opts(alice, 0), f.addrs[alice], b, sig, bm))
}

// TestRevertLeavesNoTrace: a contract that calls evaluate and then reverts
// leaves no request, no nonce bump and no log.
func TestRevertLeavesNoTrace(t *testing.T) {
	f := newFixture(t)
	probeAddr, probe := f.deployProbe()
	_, gate := f.deployGate()
	policyID, _ := gate.PolicyId(nil)
	a, b := f.registerInput(alice, "a"), f.registerInput(alice, "b")
	f.ok(f.input.Allow(f.opts(alice, 0), a, probeAddr))
	f.ok(f.input.Allow(f.opts(alice, 0), b, probeAddr))

	r := f.failed(probe.EvaluateThenRevert(f.pay(f.opts(alice, 1_000_000), policyID), policyID, [][32]byte{a, b}))
	require.Empty(t, r.Logs)
	first := [32]byte(reqID(f.chainID, 0, probeAddr, policyID, a, b))
	req, err := f.policy.RequestOf(nil, first)
	require.NoError(t, err)
	require.False(t, req.Exists)

	// the next successful evaluate gets nonce 0's id: the reverted call consumed nothing
	r = f.ok(probe.Evaluate(f.pay(f.opts(alice, 0), policyID), policyID, [][32]byte{a, b}))
	require.Len(t, r.Logs, 1)
	require.Equal(t, subnetevm.PolicyAddress, r.Logs[0].Address)
	require.Equal(t, common.Hash(first), r.Logs[0].Topics[1])
	req, err = f.policy.RequestOf(nil, first)
	require.NoError(t, err)
	require.True(t, req.Exists)
	require.Equal(t, probeAddr, req.Requester)
}

// TestStaticCallRefusesWrites: STATICCALL into a state-changing method fails
// with a reason; views work under STATICCALL.
func TestStaticCallRefusesWrites(t *testing.T) {
	f := newFixture(t)
	_, probe := f.deployProbe()
	h := f.registerInput(alice, "a")
	r := f.ok(probe.StaticAllow(f.opts(alice, 0), h, f.addrs[bob]))
	ev, err := probe.ParseProbed(*r.Logs[0])
	require.NoError(t, err)
	require.False(t, ev.Ok)
	reason, ok := precompiles.DecodeRevert(ev.Data)
	require.True(t, ok)
	require.Contains(t, reason, "read-only (static) call")
	allowed, err := f.input.IsAllowed(nil, h, f.addrs[bob])
	require.NoError(t, err)
	require.False(t, allowed)
	allowed, err = probe.StaticIsAllowed(nil, h, f.addrs[alice])
	require.NoError(t, err)
	require.True(t, allowed)
}

// TestOutOfGas: a precompile call with too little gas fails, consumes the gas
// it was given and changes nothing; the same call with enough gas succeeds.
func TestOutOfGas(t *testing.T) {
	f := newFixture(t)
	probeAddr, probe := f.deployProbe()
	h := f.registerInput(alice, "a")
	f.ok(f.input.Allow(f.opts(alice, 0), h, probeAddr))
	data, err := subnetevm.Suite().Input.ABI().Pack("allow", h, f.addrs[bob])
	require.NoError(t, err)
	r := f.ok(probe.CallWithGas(f.opts(alice, 0), subnetevm.InputAddress, data, big.NewInt(20_000)))
	ev, err := probe.ParseProbed(*r.Logs[0])
	require.NoError(t, err)
	require.False(t, ev.Ok)
	require.Empty(t, ev.Data) // out of gas: no revert data
	allowed, _ := f.input.IsAllowed(nil, h, f.addrs[bob])
	require.False(t, allowed)
	r = f.ok(probe.CallWithGas(f.opts(alice, 0), subnetevm.InputAddress, data, big.NewInt(100_000)))
	require.Len(t, r.Logs, 2) // Allowed from the precompile, Probed from the probe
	ev, err = probe.ParseProbed(*r.Logs[1])
	require.NoError(t, err)
	require.True(t, ev.Ok)
	allowed, _ = f.input.IsAllowed(nil, h, f.addrs[bob])
	require.True(t, allowed)

	// a top-level transaction with too little gas for the precompile fails and uses all its gas
	rc := f.failed(f.verdict.Submit(f.opts(relayer, 60_000), ctHandle("r"), big.NewInt(1), ctHandle("d"), make([]byte, 96), []byte{7}))
	require.Equal(t, uint64(60_000), rc.GasUsed)
}

// TestACLDenial: only accounts allowed on a handle can use it.
func TestACLDenial(t *testing.T) {
	f := newFixture(t)
	gateAddr, gate := f.deployGate()
	income, debt := f.registerInput(alice, "income"), f.registerInput(alice, "debt")
	// not allowed yet: the gate's evaluate is refused
	f.failed(gate.ApplyFor(f.payGate(f.opts(alice, 1_000_000), gate), income, debt))
	f.ok(f.input.Allow(f.opts(alice, 0), income, gateAddr))
	f.failed(gate.ApplyFor(f.payGate(f.opts(alice, 1_000_000), gate), income, debt))
	gateABI, err := bindings.PrivateCreditGateMetaData.GetAbi()
	require.NoError(t, err)
	data, err := gateABI.Pack("applyFor", income, debt)
	require.NoError(t, err)
	require.Contains(t, f.callErrValue(alice, gateAddr, data, f.payGate(f.opts(alice, 0), gate).Value), "is not allowed on handle 1")
	// bob cannot grant access to alice's handle
	f.failed(f.input.Allow(f.opts(bob, 500_000), debt, gateAddr))
	f.ok(f.input.Allow(f.opts(alice, 0), debt, gateAddr))
	f.ok(gate.ApplyFor(f.payGate(f.opts(alice, 0), gate), income, debt))
}

// TestTransientAllow: an allowance granted with allowTransient holds for the
// rest of the transaction only.
func TestTransientAllow(t *testing.T) {
	f := newFixture(t)
	probeAddr, probe := f.deployProbe()
	h := f.registerInput(alice, "a")
	f.ok(f.input.Allow(f.opts(alice, 0), h, probeAddr))
	r := f.ok(probe.TransientAllowAndCheck(f.opts(alice, 0), h, f.addrs[relayer]))
	ev, err := probe.ParseProbed(*r.Logs[len(r.Logs)-1])
	require.NoError(t, err)
	require.True(t, ev.Ok)
	allowed, err := f.input.IsAllowed(nil, h, f.addrs[relayer])
	require.NoError(t, err)
	require.False(t, allowed)
}

// TestEncryptedTally: three votes merged into one PN-counter state on chain,
// one value request, the committee posts the decrypted total.
func TestEncryptedTally(t *testing.T) {
	f := newFixture(t)
	addr, tx, tally, err := bindings.DeployEncryptedTally(f.opts(bob, 0), f.be())
	f.ok(tx, err)
	voters := []int{alice, bob, relayer}
	var states [][32]byte
	for i, v := range voters {
		h := f.registerInput(v, "vote-"+string(rune('a'+i)))
		f.ok(f.input.Allow(f.opts(v, 0), h, addr))
		meta := precompilestest.EncodeVersionVector([2]uint64{uint64(i + 1), 1})
		r := f.ok(tally.Vote(f.opts(v, 0), h, meta))
		ev, err := tally.ParseVoted(*r.Logs[len(r.Logs)-1])
		require.NoError(t, err)
		states = append(states, ev.Merged)
	}
	f.failed(tally.Vote(f.opts(alice, 1_000_000), ctHandle("again"), nil)) // AlreadyVoted
	cur, err := tally.Current(nil)
	require.NoError(t, err)
	require.Equal(t, states[2], cur)
	st, err := f.crdt.StateOf(nil, cur)
	require.NoError(t, err)
	require.True(t, st.Exists)
	require.Equal(t, uint8(2), st.Kind)
	require.Equal(t, addr, st.Owner)
	require.Equal(t, precompilestest.EncodeVersionVector([2]uint64{1, 1}, [2]uint64{2, 1}, [2]uint64{3, 1}), st.Metadata)

	r := f.ok(tally.RequestReveal(f.opts(bob, 0)))
	ev, err := tally.ParseRevealRequested(*r.Logs[len(r.Logs)-1])
	require.NoError(t, err)
	cr, err := f.crdt.RequestOf(nil, ev.RequestId)
	require.NoError(t, err)
	require.True(t, cr.Exists)
	require.Equal(t, cur, cr.StateId)

	total := big.NewInt(1) // e.g. +1 +1 -1
	sig, bm := f.signVerdict(f.com, 1, ev.RequestId, [32]byte(precompiles.CRDTValuePolicyID), ctHandle("tally-ct"), total, 0, 1, 2, 3)
	f.ok(f.verdict.Submit(f.opts(relayer, 0), ev.RequestId, total, ctHandle("tally-ct"), sig, bm))
	got, err := tally.Total(nil)
	require.NoError(t, err)
	require.Equal(t, int64(1), got.Int64())
}

// TestPrecompileAccountsPersist: the EIP-158 trap is closed — every precompile
// account has nonce 1 after activation, so its storage survives.
func TestPrecompileAccountsPersist(t *testing.T) {
	f := newFixture(t)
	for _, a := range []common.Address{subnetevm.InputAddress, subnetevm.PolicyAddress, subnetevm.CRDTAddress, subnetevm.VerdictAddress} {
		n, err := f.client.NonceAt(context.Background(), a, nil)
		require.NoError(t, err)
		require.Equal(t, uint64(1), n, "EIP-158: precompile account %s must not be empty", a)
	}
}

// TestRegisterBatchOnEVM: FHEInput.registerBatch on subnet-evm with 1 and 8
// handles, sent by a relayer: every handle is registered for the attested
// owner (one InputRegistered log each), and a second submission of the same
// set reverts. Attacks through real transactions: the same set with one
// proof digest changed, reordered, or claimed for another owner is refused
// and registers nothing.
func TestRegisterBatchOnEVM(t *testing.T) {
	f := newFixture(t)
	for _, n := range []int{1, 8} {
		tags := make([]string, n)
		for i := range tags {
			tags[i] = fmt.Sprintf("evm-batch-%d/%d", n, i)
		}
		b := newInputBatch(tags...)
		sig, bm := f.com.sign(t, b.digest(f.chainID, 1, f.addrs[alice]), 0, 1, 2)

		bad := newInputBatch(tags...)
		bad.proofs[n-1][0] ^= 1
		f.failed(f.register(f.opts(relayer, 3_000_000), f.addrs[alice], bad, sig, bm))
		f.failed(f.register(f.opts(relayer, 3_000_000), f.addrs[bob], b, sig, bm))
		if n > 1 {
			swapped := newInputBatch(tags...)
			swapped.handles[0], swapped.handles[1] = swapped.handles[1], swapped.handles[0]
			f.failed(f.register(f.opts(relayer, 3_000_000), f.addrs[alice], swapped, sig, bm))
		}
		for _, h := range b.handles {
			info, err := f.input.HandleInfo(nil, h)
			require.NoError(t, err)
			require.False(t, info.Exists)
		}

		r := f.ok(f.register(f.opts(relayer, 0), f.addrs[alice], b, sig, bm))
		require.Len(t, r.Logs, n)
		t.Logf("registerBatch of %d handles: %d gas", n, r.GasUsed)
		for _, h := range b.handles {
			info, err := f.input.HandleInfo(nil, h)
			require.NoError(t, err)
			require.True(t, info.Exists)
			require.Equal(t, f.addrs[alice], info.Owner)
			require.Equal(t, uint8(1), info.Ctype)
		}
		f.failed(f.register(f.opts(relayer, 3_000_000), f.addrs[alice], b, sig, bm))
	}
}
