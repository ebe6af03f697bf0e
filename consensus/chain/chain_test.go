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
	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/chain"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/internal/devchain"
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
  - {name: member, min: 0, max: 15}
constants:
  allowed: [1, 2, 3, 5, 8, 13]
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
	defer cancel()
	log := zaptest.NewLogger(t)
	pc := consensus.NewPolicyCircuits(fhetest.InsecureBGVN10)
	lc, err := consensus.StartLocal(ctx, consensus.LocalOptions{N: 3, T: 2, Dir: t.TempDir(), Preset: "InsecureBGVN10", Rotations: []int{1},
		Circuits: pc, RoundTimeout: 20 * time.Second, Log: log})
	require.NoError(t, err)
	defer lc.Close()

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
	defer ch.Close()
	lc.SetChainID(ch.ChainID())

	relayer, err := crypto.HexToECDSA(chain.DevRelayerKey)
	require.NoError(t, err)
	ad, err := chain.Dial(ctx, chain.Config{URL: ch.URL(), Key: relayer, Poll: 100 * time.Millisecond, Log: log,
		OnPolicy: func(id [32]byte, spec []byte) { require.NoError(t, pc.Register(id, spec)) }})
	require.NoError(t, err)
	defer ad.Close()
	serveCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- lc.ServeChain(serveCtx, ad) }()
	defer func() { stop(); <-done }()

	c, err := ethclient.DialContext(ctx, ch.URL())
	require.NoError(t, err)
	defer c.Close()
	suite, err := precompilestest.NewSuite()
	require.NoError(t, err)
	alice := devchain.DevAccounts()[0]
	send := func(to precompiles.Address, a abi.ABI, method string, args ...any) *types.Receipt {
		data, err := a.Pack(method, args...)
		require.NoError(t, err)
		toA := common.Address(to)
		gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: alice.Address, To: &toA, Data: data})
		require.NoError(t, err, method)
		nonce, err := c.PendingNonceAt(ctx, alice.Address)
		require.NoError(t, err)
		tip, err := c.SuggestGasTipCap(ctx)
		require.NoError(t, err)
		head, err := c.HeaderByNumber(ctx, nil)
		require.NoError(t, err)
		tx := types.NewTx(&types.DynamicFeeTx{ChainID: ch.ChainID(), Nonce: nonce, GasTipCap: tip, GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))),
			Gas: gas * 2, To: &toA, Data: data})
		signed, err := types.SignTx(tx, types.LatestSignerForChainID(ch.ChainID()), alice.Key)
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

	// 1. Register the policy on chain.
	rc := send(precompiles.FHEPolicyAddress, suite.Policy.ABI(), "registerPolicy", []byte(allowlist))
	var policyID [32]byte
	for _, l := range rc.Logs {
		if l.Topics[0] == suite.Policy.ABI().Events["PolicyRegistered"].ID {
			policyID = l.Topics[1]
		}
	}
	require.NotEqual(t, [32]byte{}, policyID)

	// 2. Encrypt, upload to the committee, register the attested input.
	plan, err := policy.CompileWith([]byte(allowlist), consensus.PolicyOptions(fhetest.InsecureBGVN10))
	require.NoError(t, err)
	enc := fhe.NewEncryptor(lc.Keys)
	cases := []int64{5, 6}
	var reqIDs [][32]byte
	var wants []int64
	for _, member := range cases {
		ct, err := enc.EncryptInts([]int64{member})
		require.NoError(t, err)
		b, err := ct.MarshalBinary()
		require.NoError(t, err)
		att, err := lc.Member(2).Upload(ctx, b, alice.Address, 1)
		require.NoError(t, err)
		send(precompiles.FHEInputAddress, suite.Input.ABI(), "register", [32]byte(att.Handle), alice.Address, att.Preset, att.CType, att.Signature, att.Signers)
		// 3. Queue the evaluation.
		rc := send(precompiles.FHEPolicyAddress, suite.Policy.ABI(), "evaluate", policyID, [][32]byte{[32]byte(att.Handle)})
		var rid [32]byte
		for _, l := range rc.Logs {
			if l.Topics[0] == suite.Policy.ABI().Events["EvaluationRequested"].ID {
				rid = l.Topics[1]
			}
		}
		require.NotEqual(t, [32]byte{}, rid)
		reqIDs = append(reqIDs, rid)
		ref, err := plan.EvalPlain([][]int64{{member}})
		require.NoError(t, err)
		wants = append(wants, ref[0])
	}

	// 4. The committee posts the verdicts; FHEVerdict accepted them.
	verdictOf := func(id [32]byte) (bool, *big.Int) {
		data, err := suite.Verdict.ABI().Pack("verdictOf", id)
		require.NoError(t, err)
		to := common.Address(precompiles.FHEVerdictAddress)
		res, err := c.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
		require.NoError(t, err)
		vals, err := suite.Verdict.ABI().Unpack("verdictOf", res)
		require.NoError(t, err)
		return vals[0].(bool), vals[1].(*big.Int)
	}
	for i, id := range reqIDs {
		for {
			ready, result := verdictOf(id)
			if ready {
				require.Equal(t, wants[i], result.Int64(), "member %d", cases[i])
				break
			}
			require.NoError(t, ctx.Err(), "verdict for request %d not accepted", i)
			time.Sleep(200 * time.Millisecond)
		}
	}

	// 5. An encrypted G-Counter: three replicas upload and register their
	// block's ciphertext, FHECRDT.create records the public metadata,
	// FHECRDT.value queues a request; the adapter reads the metadata with
	// stateOf and the committee posts the total.
	l := meta.Layout{Type: meta.TypeGCounter, Preset: uint8(fhetest.InsecureBGVN10), Level: 0, Blocks: 3, Width: 2}
	st, err := meta.New(l)
	require.NoError(t, err)
	counts := []int64{4, 11, 9}
	for r, n := range counts {
		lanes := make([]int64, l.Lanes())
		lo, _ := l.BlockLanes(uint32(r))
		lanes[lo] = n
		ct, err := enc.EncryptInts(lanes)
		require.NoError(t, err)
		b, err := ct.MarshalBinary()
		require.NoError(t, err)
		att, err := lc.Member(1).Upload(ctx, b, alice.Address, 1)
		require.NoError(t, err)
		send(precompiles.FHEInputAddress, suite.Input.ABI(), "register", [32]byte(att.Handle), alice.Address, att.Preset, att.CType, att.Signature, att.Signers)
		st, err = st.Put(meta.Entry{Block: uint32(r), Clock: 1, Replica: uint32(r), Handle: meta.Handle(att.Handle)})
		require.NoError(t, err)
	}
	rc = send(precompiles.FHECRDTAddress, suite.CRDT.ABI(), "create", uint8(l.Type), [32]byte(st.Entries[0].Handle), st.Encode())
	var stateID [32]byte
	for _, lg := range rc.Logs {
		if lg.Topics[0] == suite.CRDT.ABI().Events["StateCreated"].ID {
			stateID = lg.Topics[1]
		}
	}
	require.NotEqual(t, [32]byte{}, stateID)
	rc = send(precompiles.FHECRDTAddress, suite.CRDT.ABI(), "value", stateID)
	var valueReq [32]byte
	for _, lg := range rc.Logs {
		if lg.Topics[0] == suite.CRDT.ABI().Events["ValueRequested"].ID {
			valueReq = lg.Topics[1]
		}
	}
	require.NotEqual(t, [32]byte{}, valueReq)
	for {
		ready, result := verdictOf(valueReq)
		if ready {
			require.Equal(t, int64(4+11+9), result.Int64())
			break
		}
		require.NoError(t, ctx.Err(), "CRDT value verdict not accepted")
		time.Sleep(200 * time.Millisecond)
	}
}
