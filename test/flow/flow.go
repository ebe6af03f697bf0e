// Package flow drives fhegate's example contracts end to end over JSON-RPC,
// against any chain that runs the fhegate precompiles: `fhegate devnet`, the
// in-process devchain, or a real avalanchego node with the fhegate VM plugin
// (test/e2e).
//
// The flow (PrivateCreditGate, contracts/src/examples):
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
// Committee stands in for the MPC committee processes (consensus/): it holds
// deterministic BLS keys registered in FHEVerdict's genesis config and signs
// what the committee would sign. It does no FHE: the handles are opaque ids and
// the verdict is supplied by the caller. The precompiles' checks (attestation,
// ACL, quorum, binding to chain id, request and policy, accept-once) all run
// for real.
package flow

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ava-labs/libevm/accounts/abi"
	"github.com/ava-labs/libevm/accounts/abi/bind"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
	"github.com/ava-labs/libevm/ethclient"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm/devchain"
)

// Committee is a stand-in committee: n deterministic BLS keys, threshold t.
type Committee struct {
	Epoch     uint64
	Threshold uint32
	keys      []*bls.SecretKey
}

// NewCommittee derives n member keys from tag (same tag → same keys).
func NewCommittee(tag string, epoch uint64, n int, threshold uint32) (*Committee, error) {
	if n < 1 || threshold < 1 || int(threshold) > n {
		return nil, fmt.Errorf("flow: committee threshold %d of %d", threshold, n)
	}
	c := &Committee{Epoch: epoch, Threshold: threshold}
	for i := 0; i < n; i++ {
		sk, err := bls.Keygen(crypto.Keccak256([]byte(fmt.Sprintf("fhegate/flow-committee/%s/%d", tag, i))))
		if err != nil {
			return nil, err
		}
		c.keys = append(c.keys, sk)
	}
	return c, nil
}

// Registry is the committee as FHEVerdict's genesis config takes it
// ("fheVerdictConfig"."committee").
func (c *Committee) Registry() *subnetevm.Committee {
	out := &subnetevm.Committee{Epoch: c.Epoch, Threshold: c.Threshold}
	for _, k := range c.keys {
		out.Members = append(out.Members, subnetevm.Member{PublicKey: k.PublicKey(), ProofOfPossession: k.ProvePossession()})
	}
	return out
}

// Sign returns the aggregate signature of the first Threshold members over
// digest and the signer bitmap.
func (c *Committee) Sign(digest [32]byte) (sig, bitmap []byte, err error) {
	var sigs [][]byte
	var idx []int
	for i := 0; i < int(c.Threshold); i++ {
		sigs = append(sigs, c.keys[i].Sign(digest[:]))
		idx = append(idx, i)
	}
	if sig, err = bls.Aggregate(sigs); err != nil {
		return nil, nil, err
	}
	if bitmap, err = bls.NewBitmap(len(c.keys), idx); err != nil {
		return nil, nil, err
	}
	return sig, bitmap, nil
}

// Options configures Run.
type Options struct {
	// Committee signs attestations and the verdict; it must be the committee
	// registered in the chain's FHEVerdict.
	Committee *Committee
	// Applicant sends every transaction (default: dev account 0).
	Applicant *devchain.Account
	// Verdict is the committee's decision: 1 approves (default), 0 denies.
	Verdict *big.Int
	// PolicySpec is passed to PrivateCreditGate's constructor.
	PolicySpec []byte
	// CreditLimit is PrivateCreditGate's limit (default 1000).
	CreditLimit *big.Int
	// ArtifactsDir holds the compiled contracts (default: contracts/artifacts
	// of this source tree).
	ArtifactsDir string
	// Logf, if set, narrates the steps.
	Logf func(format string, args ...any)
}

// DefaultPolicySpec is the credit policy the flow registers.
var DefaultPolicySpec = []byte("fhegate/example/credit-v1 inputs=2: approve iff income > 3*debt")

// Result is what the flow observed.
type Result struct {
	ChainID      *big.Int
	PlainAddress common.Address
	GateAddress  common.Address
	Handles      [2]common.Hash
	PolicyID     common.Hash
	RequestID    common.Hash
	Approved     bool
	CreditLine   *big.Int
	Transactions int
}

type contracts struct {
	input, verdict, gate abi.ABI
	gateBin              []byte
}

// Run executes the flow; every step is checked and an unexpected chain
// response is an error.
func Run(ctx context.Context, cl *ethclient.Client, o Options) (*Result, error) {
	if o.Committee == nil {
		return nil, errors.New("flow: a committee is required")
	}
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	from := o.Applicant
	if from == nil {
		a := devchain.DevAccounts()[0]
		from = &a
	}
	verdict := o.Verdict
	if verdict == nil {
		verdict = big.NewInt(1)
	}
	spec := o.PolicySpec
	if spec == nil {
		spec = DefaultPolicySpec
	}
	limit := o.CreditLimit
	if limit == nil {
		limit = big.NewInt(1000)
	}
	cs, err := loadContracts(o.ArtifactsDir)
	if err != nil {
		return nil, err
	}

	chainID, err := cl.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("flow: chain id: %w", err)
	}
	res := &Result{ChainID: chainID}
	t := &txer{ctx: ctx, cl: cl, key: from.Key, chainID: chainID, res: res}

	// 1. Precompiles active; a plain deploy works.
	for _, a := range []common.Address{subnetevm.InputAddress, subnetevm.PolicyAddress, subnetevm.CRDTAddress, subnetevm.VerdictAddress} {
		code, err := cl.CodeAt(ctx, a, nil)
		if err != nil {
			return nil, fmt.Errorf("flow: code at %s: %w", a, err)
		}
		if !bytes.Equal(code, []byte{1}) {
			return nil, fmt.Errorf("flow: precompile %s not active (code %x)", a, code)
		}
	}
	if res.PlainAddress, err = t.deploy(abi.ABI{}, PlainStoreInit); err != nil {
		return nil, fmt.Errorf("flow: deploy plain contract: %w", err)
	}
	logf("plain contract deployed at %s", res.PlainAddress)

	// 2. Two attested inputs owned by the applicant; fresh handles per run.
	nonce, err := cl.NonceAt(ctx, from.Address, nil)
	if err != nil {
		return nil, err
	}
	const preset, ctype = 1, 1
	for i, name := range []string{"income", "debt"} {
		h := crypto.Keccak256Hash([]byte("fhegate/flow/"+name), from.Address[:], new(big.Int).SetUint64(nonce).Bytes(), chainID.Bytes())
		res.Handles[i] = h
		sig, bm, err := o.Committee.Sign(bls.InputDigest(chainID, o.Committee.Epoch, h, from.Address, preset, ctype))
		if err != nil {
			return nil, err
		}
		if _, err := t.call(subnetevm.InputAddress, cs.input, "register", h, from.Address, uint8(preset), uint8(ctype), sig, bm); err != nil {
			return nil, fmt.Errorf("flow: FHEInput.register(%s): %w", name, err)
		}
	}
	logf("inputs registered: %s, %s", res.Handles[0], res.Handles[1])

	// 3. The gate registers the policy in its constructor.
	if res.GateAddress, err = t.deploy(cs.gate, cs.gateBin, spec, limit); err != nil {
		return nil, fmt.Errorf("flow: deploy PrivateCreditGate: %w", err)
	}
	gate := bind.NewBoundContract(res.GateAddress, cs.gate, cl, cl, cl)
	var pid [32]byte
	if err := callView(ctx, gate, &pid, "policyId"); err != nil {
		return nil, err
	}
	res.PolicyID = pid
	logf("PrivateCreditGate at %s, policy %s", res.GateAddress, res.PolicyID)

	for _, h := range res.Handles {
		if _, err := t.call(subnetevm.InputAddress, cs.input, "allow", h, res.GateAddress); err != nil {
			return nil, fmt.Errorf("flow: FHEInput.allow: %w", err)
		}
	}
	rcpt, err := t.call(res.GateAddress, cs.gate, "applyFor", res.Handles[0], res.Handles[1])
	if err != nil {
		return nil, fmt.Errorf("flow: applyFor: %w", err)
	}
	applied := cs.gate.Events["Applied"]
	for _, l := range rcpt.Logs {
		if l.Address == res.GateAddress && len(l.Topics) == 3 && l.Topics[0] == applied.ID {
			res.RequestID = l.Topics[2]
		}
	}
	if res.RequestID == (common.Hash{}) {
		return nil, errors.New("flow: applyFor emitted no Applied event")
	}
	logf("request %s", res.RequestID)

	// Settling before the verdict must fail (VerdictNotReady).
	if _, err := t.call(res.GateAddress, cs.gate, "settle", res.RequestID); err == nil {
		return nil, errors.New("flow: settle succeeded before any verdict")
	}

	// 4. The committee's verdict, then settle.
	resultDigest := crypto.Keccak256Hash([]byte("fhegate/flow/result-ciphertext"), res.RequestID[:])
	sig, bm, err := o.Committee.Sign(bls.VerdictDigest(chainID, o.Committee.Epoch, res.RequestID, res.PolicyID, resultDigest, verdict))
	if err != nil {
		return nil, err
	}
	if _, err := t.call(subnetevm.VerdictAddress, cs.verdict, "submit", res.RequestID, verdict, resultDigest, sig, bm); err != nil {
		return nil, fmt.Errorf("flow: FHEVerdict.submit: %w", err)
	}
	if _, err := t.call(subnetevm.VerdictAddress, cs.verdict, "submit", res.RequestID, verdict, resultDigest, sig, bm); err == nil {
		return nil, errors.New("flow: a replayed verdict was accepted")
	}
	if _, err := t.call(res.GateAddress, cs.gate, "settle", res.RequestID); err != nil {
		return nil, fmt.Errorf("flow: settle: %w", err)
	}
	var line *big.Int
	if err := callView(ctx, gate, &line, "creditLine", from.Address); err != nil {
		return nil, err
	}
	res.CreditLine = line
	res.Approved = line.Cmp(limit) == 0
	logf("settled: approved=%v credit line %s", res.Approved, line)
	if want := verdict.Cmp(big.NewInt(1)) == 0; res.Approved != want {
		return res, fmt.Errorf("flow: verdict %s but approved=%v", verdict, res.Approved)
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
}

func (t *txer) opts() (*bind.TransactOpts, error) {
	o, err := bind.NewKeyedTransactorWithChainID(t.key, t.chainID)
	if err != nil {
		return nil, err
	}
	o.Context = t.ctx
	return o, nil
}

func (t *txer) deploy(a abi.ABI, bin []byte, args ...any) (common.Address, error) {
	o, err := t.opts()
	if err != nil {
		return common.Address{}, err
	}
	addr, tx, _, err := bind.DeployContract(o, a, bin, t.cl, args...)
	if err != nil {
		return common.Address{}, err
	}
	if _, err := t.wait(tx); err != nil {
		return common.Address{}, err
	}
	return addr, nil
}

// call sends a state-changing call; a revert is returned as an error with the
// reason when the node reports one (gas estimation runs the call first).
func (t *txer) call(to common.Address, a abi.ABI, method string, args ...any) (*types.Receipt, error) {
	o, err := t.opts()
	if err != nil {
		return nil, err
	}
	tx, err := bind.NewBoundContract(to, a, t.cl, t.cl, t.cl).Transact(o, method, args...)
	if err != nil {
		return nil, err
	}
	return t.wait(tx)
}

func (t *txer) wait(tx *types.Transaction) (*types.Receipt, error) {
	r, err := bind.WaitMined(t.ctx, t.cl, tx)
	if err != nil {
		return nil, err
	}
	t.res.Transactions++
	if r.Status != types.ReceiptStatusSuccessful {
		return r, fmt.Errorf("transaction %s reverted", tx.Hash())
	}
	return r, nil
}

func callView(ctx context.Context, c *bind.BoundContract, out any, method string, args ...any) error {
	var ret []any
	if err := c.Call(&bind.CallOpts{Context: ctx}, &ret, method, args...); err != nil {
		return fmt.Errorf("flow: %s: %w", method, err)
	}
	if len(ret) != 1 {
		return fmt.Errorf("flow: %s returned %d values", method, len(ret))
	}
	switch dst := out.(type) {
	case *[32]byte:
		v, ok := ret[0].([32]byte)
		if !ok {
			return fmt.Errorf("flow: %s returned %T", method, ret[0])
		}
		*dst = v
	case **big.Int:
		v, ok := ret[0].(*big.Int)
		if !ok {
			return fmt.Errorf("flow: %s returned %T", method, ret[0])
		}
		*dst = v
	default:
		return fmt.Errorf("flow: unsupported output %T", out)
	}
	return nil
}

// ArtifactsDir is contracts/artifacts of the source tree this file is in.
func ArtifactsDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "contracts", "artifacts")
}

func loadContracts(dir string) (*contracts, error) {
	if dir == "" {
		dir = ArtifactsDir()
	}
	readABI := func(name string) (abi.ABI, error) {
		f, err := os.Open(filepath.Join(dir, name+".abi.json"))
		if err != nil {
			return abi.ABI{}, fmt.Errorf("flow: artifacts: %w", err)
		}
		defer f.Close()
		return abi.JSON(f)
	}
	var cs contracts
	var err error
	if cs.input, err = readABI("IFHEInput"); err != nil {
		return nil, err
	}
	if cs.verdict, err = readABI("IFHEVerdict"); err != nil {
		return nil, err
	}
	if cs.gate, err = readABI("PrivateCreditGate"); err != nil {
		return nil, err
	}
	bin, err := os.ReadFile(filepath.Join(dir, "PrivateCreditGate.bin"))
	if err != nil {
		return nil, fmt.Errorf("flow: artifacts: %w", err)
	}
	cs.gateBin = common.FromHex(strings.TrimSpace(string(bin)))
	return &cs, nil
}
