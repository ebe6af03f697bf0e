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
//  2. register two input handles with FHEInput.register, each attested by a
//     t-of-n BLS aggregate over bls.InputDigest, and allow the gate on them;
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
	"crypto/ecdsa"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ava-labs/libevm/accounts/abi"
	"github.com/ava-labs/libevm/accounts/abi/bind"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
	"github.com/ava-labs/libevm/ethclient"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/contracts/bindings"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/internal/devchain"
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
// two inputs PrivateCreditGate.applyFor passes, small enough for the
// committee's depth-4 preset (income − 3·debt spans 14 values, so the
// comparison is a degree ≤ 15 polynomial).
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
	if o.Committee == nil && o.CommitteeAPI == "" {
		return nil, errors.New("creditgate: a committee API or a stand-in committee is required")
	}
	income, debt := o.Income, o.Debt
	if income == 0 && debt == 0 {
		income, debt = 5, 1
	}
	// The policy's answer; a stand-in committee may be told otherwise.
	verdict := big.NewInt(0)
	if income > 3*debt {
		verdict = big.NewInt(1)
	}
	if o.Verdict != nil && o.CommitteeAPI == "" {
		verdict = o.Verdict
	}
	expect := verdict.Cmp(big.NewInt(1)) == 0
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	from := o.Applicant
	if from == nil {
		a := devchain.DevAccounts()[0]
		from = &a
	}
	spec := o.PolicySpec
	if spec == nil {
		spec = DefaultPolicySpec
	}
	limit := o.CreditLimit
	if limit == nil {
		limit = big.NewInt(1000)
	}
	input, err := bindings.NewIFHEInput(subnetevm.InputAddress, cl)
	if err != nil {
		return nil, err
	}
	verdicts, err := bindings.NewIFHEVerdict(subnetevm.VerdictAddress, cl)
	if err != nil {
		return nil, err
	}

	chainID, err := cl.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("creditgate: chain id: %w", err)
	}
	res := &Result{ChainID: chainID}
	t := &txer{ctx: ctx, cl: cl, key: from.Key, chainID: chainID, res: res}

	// 1. Precompiles active; a plain deploy works.
	for _, a := range []common.Address{subnetevm.InputAddress, subnetevm.PolicyAddress, subnetevm.CRDTAddress, subnetevm.VerdictAddress} {
		code, err := cl.CodeAt(ctx, a, nil)
		if err != nil {
			return nil, fmt.Errorf("creditgate: code at %s: %w", a, err)
		}
		if !bytes.Equal(code, []byte{1}) {
			return nil, fmt.Errorf("creditgate: precompile %s not active (code %x)", a, code)
		}
	}
	if err := t.send(func(o *bind.TransactOpts) (*types.Transaction, error) {
		var tx *types.Transaction
		res.PlainAddress, tx, _, err = bind.DeployContract(o, abi.ABI{}, PlainStoreInit, cl)
		return tx, err
	}); err != nil {
		return nil, fmt.Errorf("creditgate: deploy plain contract: %w", err)
	}
	logf("plain contract deployed at %s", res.PlainAddress)

	// 2. Two attested inputs owned by the applicant.
	var atts [2]*attestation
	if o.CommitteeAPI != "" {
		// Encrypted under the committee key; the handle is the ciphertext's hash.
		for i, v := range []int64{income, debt} {
			if atts[i], err = upload(ctx, o.CommitteeAPI, v, from.Address); err != nil {
				return nil, err
			}
		}
	} else {
		// Stand-in: fresh opaque handles per run, attested locally.
		nonce, err := cl.NonceAt(ctx, from.Address, nil)
		if err != nil {
			return nil, err
		}
		for i, name := range []string{"income", "debt"} {
			a := &attestation{Preset: 1, CType: 1, Owner: from.Address}
			a.Handle = crypto.Keccak256Hash([]byte("fhegate/creditgate/"+name), from.Address[:], new(big.Int).SetUint64(nonce).Bytes(), chainID.Bytes())
			if a.Signature, a.Signers, err = o.Committee.Sign(bls.InputDigest(chainID, o.Committee.Epoch, a.Handle, a.Owner, a.Preset, a.CType)); err != nil {
				return nil, err
			}
			atts[i] = a
		}
	}
	for i, a := range atts {
		res.Handles[i] = a.Handle
		if err := t.send(func(o *bind.TransactOpts) (*types.Transaction, error) {
			return input.Register(o, a.Handle, a.Owner, a.Preset, a.CType, a.Signature, a.Signers)
		}); err != nil {
			return nil, fmt.Errorf("creditgate: FHEInput.register(%s): %w", a.Handle, err)
		}
	}
	logf("inputs registered: %s, %s", res.Handles[0], res.Handles[1])

	// 3. The gate registers the policy in its constructor.
	var gate *bindings.PrivateCreditGate
	if err := t.send(func(o *bind.TransactOpts) (*types.Transaction, error) {
		var tx *types.Transaction
		res.GateAddress, tx, gate, err = bindings.DeployPrivateCreditGate(o, cl, spec, limit)
		return tx, err
	}); err != nil {
		return nil, fmt.Errorf("creditgate: deploy PrivateCreditGate: %w", err)
	}
	call := &bind.CallOpts{Context: ctx}
	if res.PolicyID, err = gate.PolicyId(call); err != nil {
		return nil, fmt.Errorf("creditgate: policyId: %w", err)
	}
	logf("PrivateCreditGate at %s, policy %s", res.GateAddress, res.PolicyID)

	for _, h := range res.Handles {
		if err := t.send(func(o *bind.TransactOpts) (*types.Transaction, error) { return input.Allow(o, h, res.GateAddress) }); err != nil {
			return nil, fmt.Errorf("creditgate: FHEInput.allow: %w", err)
		}
	}
	if err := t.send(func(o *bind.TransactOpts) (*types.Transaction, error) {
		return gate.ApplyFor(o, res.Handles[0], res.Handles[1])
	}); err != nil {
		return nil, fmt.Errorf("creditgate: applyFor: %w", err)
	}
	for _, l := range t.last.Logs {
		if ev, err := gate.ParseApplied(*l); err == nil {
			res.RequestID = ev.RequestId
		}
	}
	if res.RequestID == (common.Hash{}) {
		return nil, errors.New("creditgate: applyFor emitted no Applied event")
	}
	logf("request %s", res.RequestID)

	// Settling before the verdict must fail (VerdictNotReady).
	settle := func(o *bind.TransactOpts) (*types.Transaction, error) { return gate.Settle(o, res.RequestID) }
	if o.CommitteeAPI == "" { // (a real committee may already have answered)
		if err := t.send(settle); err == nil {
			return nil, errors.New("creditgate: settle succeeded before any verdict")
		}
	}

	// 4. The committee's verdict, then settle.
	if o.CommitteeAPI == "" {
		resultDigest := crypto.Keccak256Hash([]byte("fhegate/creditgate/result-ciphertext"), res.RequestID[:])
		sig, bm, err := o.Committee.Sign(bls.VerdictDigest(chainID, o.Committee.Epoch, res.RequestID, res.PolicyID, resultDigest, verdict))
		if err != nil {
			return nil, err
		}
		submit := func(o *bind.TransactOpts) (*types.Transaction, error) {
			return verdicts.Submit(o, res.RequestID, verdict, resultDigest, sig, bm)
		}
		if err := t.send(submit); err != nil {
			return nil, fmt.Errorf("creditgate: FHEVerdict.submit: %w", err)
		}
		if err := t.send(submit); err == nil {
			return nil, errors.New("creditgate: a replayed verdict was accepted")
		}
	} else {
		logf("waiting for the committee's verdict…")
	}
	for {
		v, err := verdicts.VerdictOf(call, res.RequestID)
		if err != nil {
			return nil, fmt.Errorf("creditgate: verdictOf: %w", err)
		}
		if v.Ready {
			res.Verdict = v.Result
			logf("verdict %s (epoch %d, result digest %x)", v.Result, v.Epoch, v.ResultDigest)
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("creditgate: no verdict for %s: %w", res.RequestID, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
	if err := t.send(settle); err != nil {
		return nil, fmt.Errorf("creditgate: settle: %w", err)
	}
	line, err := gate.CreditLine(call, from.Address)
	if err != nil {
		return nil, fmt.Errorf("creditgate: creditLine: %w", err)
	}
	res.CreditLine = line
	res.Approved = line.Cmp(limit) == 0
	logf("settled: approved=%v credit line %s", res.Approved, line)
	if res.Approved != expect {
		return res, fmt.Errorf("creditgate: verdict %s, approved=%v, expected approved=%v", res.Verdict, res.Approved, expect)
	}
	return res, nil
}

// PlainStoreInit deploys a 32-byte contract with no Solidity behind it: empty
// calldata returns slot 0; 32 bytes of calldata are stored in slot 0.
var PlainStoreInit = common.FromHex("602080600b6000396000f3" + "36600f576000546000526020" + "6000f35b600035806000556000526020" + "6000a000")

// txer sends transactions from one key and waits for their receipts.
type txer struct {
	ctx     context.Context
	cl      *ethclient.Client
	key     *ecdsa.PrivateKey
	chainID *big.Int
	res     *Result
	last    *types.Receipt
}

// send builds a transaction with fresh options and waits until it is mined. A
// revert is an error: gas estimation runs the call first and reports the
// reason; a mined failure is reported by status.
func (t *txer) send(build func(*bind.TransactOpts) (*types.Transaction, error)) error {
	o, err := bind.NewKeyedTransactorWithChainID(t.key, t.chainID)
	if err != nil {
		return err
	}
	o.Context = t.ctx
	tx, err := build(o)
	if err != nil {
		return err
	}
	r, err := bind.WaitMined(t.ctx, t.cl, tx)
	if err != nil {
		return err
	}
	t.res.Transactions++
	t.last = r
	if r.Status != types.ReceiptStatusSuccessful {
		return fmt.Errorf("transaction %s reverted", tx.Hash())
	}
	return nil
}

// attestation is a committee's quorum attestation of one input: the arguments
// of FHEInput.register.
type attestation struct {
	Handle    common.Hash
	Owner     common.Address
	Preset    uint8
	CType     uint8
	Signature []byte
	Signers   []byte
}

// upload encrypts value (slot 0) under the committee's public key and posts
// it to the committee API (POST /v1/inputs), which stores and replicates the
// ciphertext and returns the quorum attestation.
func upload(ctx context.Context, api string, value int64, owner common.Address) (*attestation, error) {
	api = strings.TrimRight(api, "/")
	pkBytes, err := httpDo(ctx, http.MethodGet, api+"/v1/publickey", nil)
	if err != nil {
		return nil, fmt.Errorf("creditgate: committee public key: %w", err)
	}
	pk, err := fhe.UnmarshalPublicKey(pkBytes)
	if err != nil {
		return nil, fmt.Errorf("creditgate: committee public key: %w", err)
	}
	ct, err := fhe.NewEncryptor(pk).EncryptInts([]int64{value})
	if err != nil {
		return nil, err
	}
	ctBytes, err := ct.MarshalBinary()
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(consensus.UploadRequest{Ciphertext: hexutil.Encode(ctBytes), Owner: owner.Hex(), CType: 1})
	if err != nil {
		return nil, err
	}
	rb, err := httpDo(ctx, http.MethodPost, api+"/v1/inputs", body)
	if err != nil {
		return nil, fmt.Errorf("creditgate: upload: %w", err)
	}
	var aj consensus.AttestationJSON
	if err := json.Unmarshal(rb, &aj); err != nil {
		return nil, fmt.Errorf("creditgate: attestation: %w", err)
	}
	a := &attestation{Handle: common.HexToHash(aj.Handle), Owner: common.HexToAddress(aj.Owner), Preset: aj.Preset, CType: aj.CType}
	if a.Signature, err = hexutil.Decode(aj.Signature); err != nil {
		return nil, fmt.Errorf("creditgate: attestation signature: %w", err)
	}
	if a.Signers, err = hexutil.Decode(aj.Signers); err != nil {
		return nil, fmt.Errorf("creditgate: attestation signers: %w", err)
	}
	if want := common.Hash(fhe.HandleOf(ctBytes)); a.Handle != want || a.Owner != owner {
		return nil, fmt.Errorf("creditgate: committee attested %s for %s, expected %s for %s", a.Handle, a.Owner, want, owner)
	}
	return a, nil
}

func httpDo(ctx context.Context, method, url string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, strings.TrimSpace(string(b)))
	}
	return b, nil
}
