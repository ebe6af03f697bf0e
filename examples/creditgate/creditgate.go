// Package creditgate is a complete client of fhegate's example contract
// PrivateCreditGate (contracts/src/examples), written with ethclient and the
// abigen bindings in contracts/bindings. It runs against any chain with the
// fhegate precompiles: `fhegate devnet` (examples/go), the in-process devchain
// (its test), or a real avalanchego node with the fhegate VM plugin (test/e2e).
//
// The flow:
//
//  1. check the four precompiles are active (subnet-evm marks each activated
//     address with code 0x01) and deploy a plain contract;
//  2. register the two input handles (income, debt: one upload, each value
//     replicated in every slot) with one FHEInput.registerBatch, attested by
//     one t-of-n BLS aggregate over bls.InputBatchDigest (the proofs'
//     digests in its root), and allow the gate on them;
//  3. deploy PrivateCreditGate (its constructor registers the policy through
//     FHEPolicy) and call applyFor(income, debt) → a request id (Applied event);
//  4. post the committee's verdict with FHEVerdict.submit (t-of-n aggregate
//     over bls.VerdictDigest) and call settle → the credit line is granted.
//
// devchain.Committee stands in for the MPC committee processes (consensus/): it
// holds deterministic BLS keys registered in FHEVerdict's genesis config and
// signs what the committee would sign. It does no FHE: the handles are opaque ids and
// the verdict is supplied by the caller. The precompiles' checks (attestation,
// ACL, quorum, binding to chain id, request and policy, accept-once) all run
// for real.
package creditgate

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ava-labs/libevm/accounts/abi"
	"github.com/ava-labs/libevm/accounts/abi/bind"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
	"github.com/ava-labs/libevm/ethclient"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/contracts/bindings"
	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/examples/fheclient"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

// Options configures Run.
type Options struct {
	// CommitteeAPI is a committee member's client API (the MPC committee of
	// `fhegate devnet`: URL in <datadir>/committee/api.addr). The inputs are
	// encrypted under the committee's public key and uploaded for a quorum
	// attestation; the committee evaluates the policy and posts the verdict.
	CommitteeAPI string
	// Committee, used when CommitteeAPI is empty, is a development stand-in
	// (devnet --dev-committee, tests): it signs the attestations and the
	// verdict locally, and no FHE runs.
	Committee *devchain.Committee
	// Income and Debt are the applicant's private values (buckets 0–7 and
	// 0–2; defaults 5 and 1). The policy approves when income > 3*debt.
	Income, Debt int64
	// Applicant sends every transaction (default: dev account 0).
	Applicant *devchain.Account
	// Verdict is the stand-in committee's decision (default: the policy's
	// result on Income and Debt). Ignored with CommitteeAPI.
	Verdict *big.Int
	// PolicySpec is passed to PrivateCreditGate's constructor.
	PolicySpec []byte
	// CreditLimit is PrivateCreditGate's limit (default 1000).
	CreditLimit *big.Int
	// Logf, if set, narrates the steps.
	Logf func(format string, args ...any)
}

// DefaultPolicySpec is the credit policy the flow registers
// (credit_policy.yaml, also read by examples/js): a policy/ document with the
// two inputs PrivateCreditGate.applyFor passes (income − 3·debt spans 14
// values, so the comparison is a degree-15 polynomial, depth 4: the default
// BGVN14 committee evaluates it; BGVN13 keeps only 3 levels per segment
// above its refresh floor).
//
//go:embed credit_policy.yaml
var DefaultPolicySpec []byte

// Result is what the flow observed.
type Result struct {
	ChainID      *big.Int
	PlainAddress common.Address
	GateAddress  common.Address
	Handles      [2]common.Hash
	PolicyID     common.Hash
	RequestID    common.Hash
	Verdict      *big.Int
	Approved     bool
	CreditLine   *big.Int
	Transactions int
}

// Run executes the flow; every step is checked and an unexpected chain
// response is an error.
func Run(ctx context.Context, cl *ethclient.Client, o Options) (*Result, error) {
	f, err := newFlow(ctx, cl, o)
	if err != nil {
		return nil, err
	}
	for _, step := range []func() error{
		f.checkPrecompiles, // 1.
		f.deployPlain,
		f.registerInputs, // 2.
		f.deployGate,     // 3.
		f.apply,
		f.settleTooEarly,
		f.postVerdict, // 4.
		f.awaitVerdict,
		f.settle,
	} {
		err := step()
		f.res.Transactions = f.t.Count
		if err != nil {
			return nil, err
		}
	}
	if f.res.Approved != f.expect {
		return f.res, fmt.Errorf("creditgate: verdict %s, approved=%v, expected approved=%v", f.res.Verdict, f.res.Approved, f.expect)
	}
	return f.res, nil
}

// flow is one run of the flow: the options with their defaults filled in,
// the chain's bindings and what the steps have observed so far.
type flow struct {
	ctx          context.Context
	cl           *ethclient.Client
	o            Options
	income, debt int64
	verdict      *big.Int // what the stand-in committee posts
	expect       bool     // whether the gate should approve
	logf         func(format string, args ...any)
	from         *devchain.Account
	spec         []byte
	limit        *big.Int
	input        *bindings.IFHEInput
	policy       *bindings.IFHEPolicy
	verdicts     *bindings.IFHEVerdict
	chainID      *big.Int
	res          *Result
	t            *fheclient.Sender
	committee    *fheclient.Committee
	gate         *bindings.PrivateCreditGate
	call         *bind.CallOpts
}

// newFlow fills in the defaults of o and binds the precompiles.
func newFlow(ctx context.Context, cl *ethclient.Client, o Options) (*flow, error) {
	if o.Committee == nil && o.CommitteeAPI == "" {
		return nil, errors.New("creditgate: a committee API or a stand-in committee is required")
	}
	f := &flow{ctx: ctx, cl: cl, o: o, income: o.Income, debt: o.Debt, logf: o.Logf, from: o.Applicant,
		spec: o.PolicySpec, limit: o.CreditLimit, call: &bind.CallOpts{Context: ctx}}
	if f.income == 0 && f.debt == 0 {
		f.income, f.debt = 5, 1
	}
	// The policy's answer; a stand-in committee may be told otherwise.
	f.verdict = big.NewInt(0)
	if f.income > 3*f.debt {
		f.verdict = big.NewInt(1)
	}
	if o.Verdict != nil && o.CommitteeAPI == "" {
		f.verdict = o.Verdict
	}
	f.expect = f.verdict.Cmp(big.NewInt(1)) == 0
	if f.logf == nil {
		f.logf = func(string, ...any) {}
	}
	if f.from == nil {
		a := devchain.DevAccounts()[0]
		f.from = &a
	}
	if f.spec == nil {
		f.spec = DefaultPolicySpec
	}
	if f.limit == nil {
		f.limit = big.NewInt(1000)
	}
	var err error
	if f.input, err = bindings.NewIFHEInput(subnetevm.InputAddress, cl); err != nil {
		return nil, err
	}
	if f.policy, err = bindings.NewIFHEPolicy(subnetevm.PolicyAddress, cl); err != nil {
		return nil, err
	}
	if f.verdicts, err = bindings.NewIFHEVerdict(subnetevm.VerdictAddress, cl); err != nil {
		return nil, err
	}
	if f.chainID, err = cl.ChainID(ctx); err != nil {
		return nil, fmt.Errorf("creditgate: chain id: %w", err)
	}
	f.res = &Result{ChainID: f.chainID}
	f.committee = &fheclient.Committee{API: o.CommitteeAPI}
	f.t = &fheclient.Sender{Client: cl, Key: f.from.Key, ChainID: f.chainID}
	return f, nil
}

// checkPrecompiles: the four precompiles are active.
func (f *flow) checkPrecompiles() error {
	for _, a := range []common.Address{subnetevm.InputAddress, subnetevm.PolicyAddress, subnetevm.CRDTAddress, subnetevm.VerdictAddress} {
		code, err := f.cl.CodeAt(f.ctx, a, nil)
		if err != nil {
			return fmt.Errorf("creditgate: code at %s: %w", a, err)
		}
		if !bytes.Equal(code, []byte{1}) {
			return fmt.Errorf("creditgate: precompile %s not active (code %x)", a, code)
		}
	}
	return nil
}

// deployPlain: a plain deploy works.
func (f *flow) deployPlain() error {
	if err := f.t.Send(f.ctx, func(o *bind.TransactOpts) (*types.Transaction, error) {
		var tx *types.Transaction
		var err error
		f.res.PlainAddress, tx, _, err = bind.DeployContract(o, abi.ABI{}, PlainStoreInit, f.cl)
		return tx, err
	}); err != nil {
		return fmt.Errorf("creditgate: deploy plain contract: %w", err)
	}
	f.logf("plain contract deployed at %s", f.res.PlainAddress)
	return nil
}

// registerInputs registers the applicant's two attested inputs with one
// FHEInput.registerBatch.
func (f *flow) registerInputs() error {
	a, err := f.attest()
	if err != nil {
		return err
	}
	if len(a.Handles) != 2 {
		return fmt.Errorf("creditgate: attestation of %d handles, want 2", len(a.Handles))
	}
	f.res.Handles = [2]common.Hash{a.Handles[0], a.Handles[1]}
	if err := f.t.Send(f.ctx, func(o *bind.TransactOpts) (*types.Transaction, error) { return a.Register(o, f.input) }); err != nil {
		return fmt.Errorf("creditgate: FHEInput.registerBatch: %w", err)
	}
	f.logf("inputs registered: %s, %s (gas %d)", f.res.Handles[0], f.res.Handles[1], f.t.Last.GasUsed)
	return nil
}

// attest returns the attestation of the upload (income, debt): from the
// committee (encrypted under the committee key, each value in every slot;
// the handle is the ciphertext's hash) or, with the stand-in, fresh opaque
// handles per run with stand-in proof digests, attested locally.
func (f *flow) attest() (*fheclient.Attestation, error) {
	if f.o.CommitteeAPI != "" {
		return f.committee.Upload(f.ctx, f.from.Address, f.income, f.debt)
	}
	nonce, err := f.cl.NonceAt(f.ctx, f.from.Address, nil)
	if err != nil {
		return nil, err
	}
	c := f.o.Committee
	a := &fheclient.Attestation{Preset: 1, Owner: f.from.Address}
	items := make([]bls.InputItem, 2)
	for i, name := range []string{"income", "debt"} {
		h := crypto.Keccak256Hash([]byte("fhegate/creditgate/"+name), f.from.Address[:], new(big.Int).SetUint64(nonce).Bytes(), f.chainID.Bytes())
		items[i] = bls.InputItem{Handle: h, CType: 1, ProofDigest: crypto.Keccak256Hash([]byte("fhegate/creditgate/proof"), h[:])}
		a.Handles, a.CTypes, a.ProofDigests = append(a.Handles, items[i].Handle), append(a.CTypes, 1), append(a.ProofDigests, items[i].ProofDigest)
	}
	a.Signature, a.Signers, err = c.Sign(bls.InputBatchDigest(f.chainID, c.Epoch, a.Owner, a.Preset, bls.InputBatchRoot(items)))
	return a, err
}

// deployGate deploys PrivateCreditGate, which registers the policy in its
// constructor.
func (f *flow) deployGate() error {
	if err := f.t.Send(f.ctx, func(o *bind.TransactOpts) (*types.Transaction, error) {
		var tx *types.Transaction
		var err error
		f.res.GateAddress, tx, f.gate, err = bindings.DeployPrivateCreditGate(o, f.cl, f.spec, f.limit)
		return tx, err
	}); err != nil {
		return fmt.Errorf("creditgate: deploy PrivateCreditGate: %w", err)
	}
	var err error
	if f.res.PolicyID, err = f.gate.PolicyId(f.call); err != nil {
		return fmt.Errorf("creditgate: policyId: %w", err)
	}
	f.logf("PrivateCreditGate at %s, policy %s", f.res.GateAddress, f.res.PolicyID)
	return nil
}

// apply allows the gate on both handles and calls applyFor → request id.
func (f *flow) apply() error {
	for _, h := range f.res.Handles {
		if err := f.t.Send(f.ctx, func(o *bind.TransactOpts) (*types.Transaction, error) { return f.input.Allow(o, h, f.res.GateAddress) }); err != nil {
			return fmt.Errorf("creditgate: FHEInput.allow: %w", err)
		}
	}
	if err := f.t.Send(f.ctx, func(o *bind.TransactOpts) (*types.Transaction, error) {
		if err := fheclient.PayDeposit(o, f.policy, f.res.PolicyID); err != nil { // the gate forwards it to FHEPolicy
			return nil, err
		}
		return f.gate.ApplyFor(o, f.res.Handles[0], f.res.Handles[1])
	}); err != nil {
		return fmt.Errorf("creditgate: applyFor: %w", err)
	}
	for _, l := range f.t.Last.Logs {
		if ev, err := f.gate.ParseApplied(*l); err == nil {
			f.res.RequestID = ev.RequestId
		}
	}
	if f.res.RequestID == (common.Hash{}) {
		return errors.New("creditgate: applyFor emitted no Applied event")
	}
	f.logf("request %s", f.res.RequestID)
	return nil
}

func (f *flow) settleTx(o *bind.TransactOpts) (*types.Transaction, error) {
	return f.gate.Settle(o, f.res.RequestID)
}

// settleTooEarly: settling before the verdict must fail (VerdictNotReady).
// Skipped with a real committee, which may already have answered.
func (f *flow) settleTooEarly() error {
	if f.o.CommitteeAPI != "" {
		return nil
	}
	if err := f.t.Send(f.ctx, f.settleTx); err == nil {
		return errors.New("creditgate: settle succeeded before any verdict")
	}
	return nil
}

// postVerdict: the stand-in committee posts its verdict, and a replay of it
// is refused. A real committee posts its own.
func (f *flow) postVerdict() error {
	if f.o.CommitteeAPI != "" {
		f.logf("waiting for the committee's verdict…")
		return nil
	}
	req := f.res.RequestID
	resultDigest := crypto.Keccak256Hash([]byte("fhegate/creditgate/result-ciphertext"), req[:])
	sig, bm, err := f.o.Committee.Sign(bls.VerdictDigest(f.chainID, f.o.Committee.Epoch, req, f.res.PolicyID, resultDigest, f.verdict))
	if err != nil {
		return err
	}
	submit := func(o *bind.TransactOpts) (*types.Transaction, error) {
		return f.verdicts.Submit(o, req, f.verdict, resultDigest, sig, bm)
	}
	if err := f.t.Send(f.ctx, submit); err != nil {
		return fmt.Errorf("creditgate: FHEVerdict.submit: %w", err)
	}
	if err := f.t.Send(f.ctx, submit); err == nil {
		return errors.New("creditgate: a replayed verdict was accepted")
	}
	return nil
}

// awaitVerdict polls FHEVerdict until the request's verdict is ready.
func (f *flow) awaitVerdict() error {
	for {
		v, err := f.verdicts.VerdictOf(f.call, f.res.RequestID)
		if err != nil {
			return fmt.Errorf("creditgate: verdictOf: %w", err)
		}
		if v.Ready {
			f.res.Verdict = v.Result
			f.logf("verdict %s (epoch %d, result digest %x)", v.Result, v.Epoch, v.ResultDigest)
			return nil
		}
		select {
		case <-f.ctx.Done():
			return fmt.Errorf("creditgate: no verdict for %s: %w", f.res.RequestID, f.ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// settle settles the request and reads the applicant's credit line.
func (f *flow) settle() error {
	if err := f.t.Send(f.ctx, f.settleTx); err != nil {
		return fmt.Errorf("creditgate: settle: %w", err)
	}
	line, err := f.gate.CreditLine(f.call, f.from.Address)
	if err != nil {
		return fmt.Errorf("creditgate: creditLine: %w", err)
	}
	f.res.CreditLine = line
	f.res.Approved = line.Cmp(f.limit) == 0
	f.logf("settled: approved=%v credit line %s", f.res.Approved, line)
	return nil
}

// PlainStoreInit deploys a 32-byte contract with no Solidity behind it: empty
// calldata returns slot 0; 32 bytes of calldata are stored in slot 0.
var PlainStoreInit = common.FromHex("602080600b6000396000f3" + "36600f576000546000526020" + "6000f35b600035806000556000526020" + "6000a000")
