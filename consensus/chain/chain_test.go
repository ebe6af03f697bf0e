package chain_test

import (
	"context"
	"encoding/hex"
	"math/big"
	"os"
	"testing"
	"time"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/accounts/abi"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
	"github.com/ava-labs/libevm/ethclient"
	"github.com/ava-labs/subnet-evm/plugin/evm"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/consensus/api"
	"github.com/fhegate/fhegate/consensus/chain"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
	"github.com/fhegate/fhegate/precompiles/precompilestest"
)

func TestMain(m *testing.M) {
	evm.RegisterAllLibEVMExtras()
	os.Exit(m.Run())
}

const allowlist = `fhegate_policy: 1
name: allowlist
inputs:
  - {name: member, min: 0, max: 3}
constants:
  allowed: [1, 3]
output:
  type: bool
  expr: "member in allowed"
`

// TestCommitteeOnDevchain: a 3-of-2 committee over loopback TLS serves a real
// subnet-evm chain over JSON-RPC: a policy registered on chain is compiled by
// the members, inputs uploaded to the committee are registered with its
// attestation, FHEPolicy.evaluate queues a request, and the committee posts a
// verdict that FHEVerdict accepts and that equals the plaintext reference;
// an FHECRDT G-Counter's value request is answered with its plaintext total.
func TestCommitteeOnDevchain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel) // cancelled last, after the cleanups startDevchain registers
	d := startDevchain(ctx, t)

	// 1. Register the policy on chain.
	rc := d.send(precompiles.FHEPolicyAddress, d.suite.Policy.ABI(), "registerPolicy", []byte(allowlist))
	policyID := d.topic(rc, d.suite.Policy.ABI(), "PolicyRegistered")

	// 2.–4. Encrypted inputs evaluated by the policy; FHEVerdict accepted
	// the committee's verdicts.
	d.checkPolicyVerdicts(policyID)

	// 5. An encrypted G-Counter: three replicas upload and register their
	// block's ciphertext, FHECRDT.create records the public metadata,
	// FHECRDT.value queues a request; the adapter reads the metadata with
	// stateOf and the committee posts the total.
	d.checkCRDTValue()

	// 6. The committee binds its FHE public key to its epoch on chain
	// (FHEVerdict.setCommitteeKey through the adapter); a resubmission is
	// a no-op, and the adapter reads the digest back for a rotation's
	// target check.
	d.checkCommitteeKey()
}

// checkCommitteeKey binds the committee's key through a chain.Adapter and
// reads it back.
func (d *chainRig) checkCommitteeKey() {
	t, ctx := d.t, d.ctx
	relayer, err := crypto.HexToECDSA(chain.DevRelayerKey)
	require.NoError(t, err)
	ad, err := chain.Dial(ctx, chain.Config{URL: d.ch.URL(), Key: relayer, Poll: 100 * time.Millisecond, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	defer ad.Close()
	epoch := d.lc.Config.Epoch
	got, err := ad.CommitteeKeyOf(ctx, epoch)
	require.NoError(t, err)
	require.Equal(t, [32]byte{}, got, "nothing recorded at genesis")
	require.ErrorIs(t, chainio.VerifyTargetKey(ctx, ad, epoch, [32]byte{1}), chainio.ErrTargetKeyNotOnChain)
	pkd, err := d.lc.BindKey(ctx, ad)
	require.NoError(t, err)
	km, err := d.lc.Member(1).Keys()
	require.NoError(t, err)
	require.Equal(t, km.PKDigest, pkd)
	got, err = ad.CommitteeKeyOf(ctx, epoch)
	require.NoError(t, err)
	require.Equal(t, pkd, got)
	require.NoError(t, chainio.VerifyTargetKey(ctx, ad, epoch, pkd))
	_, err = d.lc.BindKey(ctx, ad)
	require.NoError(t, err, "resubmitting the recorded digest is a no-op")
}

// chainRig is the committee serving a devchain, and a client of the chain.
type chainRig struct {
	t     *testing.T
	ctx   context.Context
	lc    *local.Committee
	ch    *devchain.Chain
	ad    *chain.Adapter
	c     *ethclient.Client
	suite *precompiles.Suite
	alice devchain.Account
	enc   *fhe.Encryptor
}

// startDevchain starts a committee with policy circuits, a devchain whose
// genesis registers it, and the committee serving the chain through a
// chain.Adapter; everything stops when the test ends.
func startDevchain(ctx context.Context, t *testing.T) *chainRig {
	log := zaptest.NewLogger(t)
	pc := circuit.NewPolicyCircuits(fhetest.InsecureBGVN10)
	lc, err := local.Start(ctx, local.Options{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		Circuits: pc, RoundTimeout: 20 * time.Second, Log: log})
	require.NoError(t, err)
	t.Cleanup(lc.Close)

	reg := &subnetevm.Committee{Epoch: lc.Config.Epoch, Threshold: uint32(lc.Config.Threshold)}
	for _, m := range lc.Config.Members {
		pk, _ := hex.DecodeString(m.BLSKey)
		pop, _ := hex.DecodeString(m.BLSPoP)
		reg.Members = append(reg.Members, subnetevm.Member{PublicKey: pk, ProofOfPossession: pop})
	}
	genesis, err := configs.WithCommittee(configs.DevnetGenesis(), reg)
	require.NoError(t, err)
	ch, err := devchain.New(devchain.Config{Genesis: genesis, HTTPAddr: "127.0.0.1:0", Logger: log})
	require.NoError(t, err)
	t.Cleanup(func() { ch.Close() })
	lc.SetChainID(ch.ChainID())

	relayer, err := crypto.HexToECDSA(chain.DevRelayerKey)
	require.NoError(t, err)
	ad, err := chain.Dial(ctx, chain.Config{URL: ch.URL(), Key: relayer, Poll: 100 * time.Millisecond, Log: log,
		OnPolicy: func(id [32]byte, spec []byte) { require.NoError(t, pc.Register(id, spec)) }})
	require.NoError(t, err)
	t.Cleanup(func() { ad.Close() })
	serveCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- lc.ServeChain(serveCtx, ad) }()
	t.Cleanup(func() { stop(); <-done })

	c, err := ethclient.DialContext(ctx, ch.URL())
	require.NoError(t, err)
	t.Cleanup(c.Close)
	suite, err := precompilestest.NewSuite()
	require.NoError(t, err)
	return &chainRig{t: t, ctx: ctx, lc: lc, ch: ch, ad: ad, c: c, suite: suite, alice: devchain.DevAccounts()[0], enc: fhe.NewEncryptor(lc.Keys)}
}

// send sends a transaction from alice calling method on the precompile at
// to, waits for its receipt and requires it to succeed.
func (d *chainRig) send(to precompiles.Address, a abi.ABI, method string, args ...any) *types.Receipt {
	t, ctx, c := d.t, d.ctx, d.c
	data, err := a.Pack(method, args...)
	require.NoError(t, err)
	toA := common.Address(to)
	value := depositFor(ctx, t, c, to, data)
	gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: d.alice.Address, To: &toA, Data: data, Value: value})
	require.NoError(t, err, method)
	nonce, err := c.PendingNonceAt(ctx, d.alice.Address)
	require.NoError(t, err)
	tip, err := c.SuggestGasTipCap(ctx)
	require.NoError(t, err)
	head, err := c.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: d.ch.ChainID(), Nonce: nonce, GasTipCap: tip, GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))),
		Gas: gas * 2, To: &toA, Data: data, Value: value})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(d.ch.ChainID()), d.alice.Key)
	require.NoError(t, err)
	require.NoError(t, c.SendTransaction(ctx, signed))
	for {
		rc, err := c.TransactionReceipt(ctx, signed.Hash())
		if err == nil {
			require.Equal(t, types.ReceiptStatusSuccessful, rc.Status, method)
			return rc
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// topic returns the first indexed argument of the receipt's (last) event
// named event of a, and requires there to be one.
func (d *chainRig) topic(rc *types.Receipt, a abi.ABI, event string) [32]byte {
	var id [32]byte
	for _, l := range rc.Logs {
		if l.Topics[0] == a.Events[event].ID {
			id = l.Topics[1]
		}
	}
	require.NotEqual(d.t, [32]byte{}, id)
	return id
}

// uploadAndRegister encrypts lanes, uploads the ciphertext to the committee
// through member via and registers the attested input on chain.
func (d *chainRig) uploadAndRegister(via uint32, lanes []int64) *api.InputAttestation {
	b, proof, err := d.lc.Member(via).EncryptInput(lanes, d.alice.Address)
	require.NoError(d.t, err)
	att, err := d.lc.Member(via).Upload(d.ctx, b, proof, d.alice.Address, 1)
	require.NoError(d.t, err)
	d.send(precompiles.FHEInputAddress, d.suite.Input.ABI(), "registerBatch", common.Address(att.Owner), att.Preset, att.Handles(), att.CTypes(), att.ProofDigests(), att.Signature, att.Signers)
	return att
}

// verdictOf calls FHEVerdict.verdictOf(id).
func (d *chainRig) verdictOf(id [32]byte) (bool, *big.Int) {
	data, err := d.suite.Verdict.ABI().Pack("verdictOf", id)
	require.NoError(d.t, err)
	to := common.Address(precompiles.FHEVerdictAddress)
	res, err := d.c.CallContract(d.ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	require.NoError(d.t, err)
	vals, err := d.suite.Verdict.ABI().Unpack("verdictOf", res)
	require.NoError(d.t, err)
	return vals[0].(bool), vals[1].(*big.Int)
}

// waitVerdict polls FHEVerdict until it holds a verdict for id and returns
// its result; it fails with msgAndArgs when the test's context ends first.
func (d *chainRig) waitVerdict(id [32]byte, msgAndArgs ...any) *big.Int {
	for {
		ready, result := d.verdictOf(id)
		if ready {
			return result
		}
		require.NoError(d.t, d.ctx.Err(), msgAndArgs...)
		time.Sleep(200 * time.Millisecond)
	}
}

// checkPolicyVerdicts encrypts, uploads and registers one input per case
// (2), queues an evaluation of policyID for each (3), and checks that the
// committee's verdicts, accepted by FHEVerdict, equal the plaintext
// reference (4).
func (d *chainRig) checkPolicyVerdicts(policyID [32]byte) {
	t := d.t
	plan, err := policy.CompileWith([]byte(allowlist), circuit.PolicyOptions(fhetest.InsecureBGVN10))
	require.NoError(t, err)
	cases := []int64{3, 2}
	var reqIDs [][32]byte
	var wants []int64
	for _, member := range cases {
		att := d.uploadAndRegister(2, []int64{member})
		rc := d.send(precompiles.FHEPolicyAddress, d.suite.Policy.ABI(), "evaluate", policyID, [][32]byte{[32]byte(att.Handle)})
		reqIDs = append(reqIDs, d.topic(rc, d.suite.Policy.ABI(), "EvaluationRequested"))
		ref, err := plan.EvalPlain([][]int64{{member}})
		require.NoError(t, err)
		wants = append(wants, ref[0])
	}
	for i, id := range reqIDs {
		result := d.waitVerdict(id, "verdict for request %d not accepted", i)
		require.Equal(t, wants[i], result.Int64(), "member %d", cases[i])
	}
}

// checkCRDTValue builds an encrypted G-Counter of three replicas' blocks,
// creates it on FHECRDT, requests its value and checks the committee's
// verdict is the plaintext total.
func (d *chainRig) checkCRDTValue() {
	t := d.t
	l := meta.Layout{Type: meta.TypeGCounter, Preset: uint8(fhetest.InsecureBGVN10), Level: 0, Blocks: 3, Width: 2}
	st, err := meta.New(l)
	require.NoError(t, err)
	counts := []int64{4, 11, 9}
	for r, n := range counts {
		lanes := make([]int64, l.Lanes())
		lo, _ := l.BlockLanes(uint32(r))
		lanes[lo] = n
		att := d.uploadAndRegister(1, lanes)
		st, err = st.Put(meta.Entry{Block: uint32(r), Clock: 1, Replica: uint32(r), Handle: meta.Handle(att.Handle)})
		require.NoError(t, err)
	}
	rc := d.send(precompiles.FHECRDTAddress, d.suite.CRDT.ABI(), "create", uint8(l.Type), [32]byte(st.Entries[0].Handle), st.Encode())
	stateID := d.topic(rc, d.suite.CRDT.ABI(), "StateCreated")
	rc = d.send(precompiles.FHECRDTAddress, d.suite.CRDT.ABI(), "value", stateID)
	valueReq := d.topic(rc, d.suite.CRDT.ABI(), "ValueRequested")
	result := d.waitVerdict(valueReq, "CRDT value verdict not accepted")
	require.Equal(t, int64(4+11+9), result.Int64())
}

var _ chainio.CommitteeKeyRegistry = (*chain.Adapter)(nil)

// depositFor is the call value of data sent to to: the policy's deposit
// (FHEPolicy.depositOf, read over JSON-RPC) for one of FHEPolicy's
// evaluations, whose first argument is the policy id; nil otherwise.
func depositFor(ctx context.Context, t testing.TB, c *ethclient.Client, to precompiles.Address, data []byte) *big.Int {
	pa := subnetevm.Suite().Policy.ABI()
	m, err := pa.MethodById(data[:4])
	if to != precompiles.FHEPolicyAddress || err != nil || (m.Name != "evaluate" && m.Name != "evaluateAttested" && m.Name != "evaluateRooted") {
		return nil
	}
	q, err := pa.Pack("depositOf", [32]byte(data[4:36]))
	require.NoError(t, err)
	toA := common.Address(to)
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &toA, Data: q}, nil)
	require.NoError(t, err)
	return new(big.Int).SetBytes(out)
}
