package chain_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/accounts/abi"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
	"github.com/ava-labs/libevm/ethclient"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/consensus/chain"
	"github.com/fhegate/fhegate/consensus/chainio"
	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/precompilestest"
)

// TestSentinelsAgree: the unevaluable and rejected-input sentinels the
// committee posts are the ones the chain documents, and the chain's expired
// sentinel differs from both.
func TestSentinelsAgree(t *testing.T) {
	t.Parallel()
	require.Equal(t, 0, chainio.ResultUnevaluable.Cmp(precompiles.ResultUnevaluable))
	require.Equal(t, 0, new(big.Int).Sub(precompiles.ResultUnevaluable, big.NewInt(1)).Cmp(precompiles.ResultExpired))
	require.Equal(t, 0, chainio.ResultRejectedInput.Cmp(precompiles.ResultRejectedInput))
	require.Equal(t, 0, new(big.Int).Sub(precompiles.ResultUnevaluable, big.NewInt(2)).Cmp(precompiles.ResultRejectedInput))
}

// batchRig is a devchain with a 3-of-4 test committee in its genesis, an
// adapter and a client.
type batchRig struct {
	t     *testing.T
	ctx   context.Context
	ch    *devchain.Chain
	c     *ethclient.Client
	ad    *chain.Adapter
	com   *devchain.Committee
	suite *precompiles.Suite
	alice devchain.Account
}

func newBatchRig(ctx context.Context, t *testing.T) *batchRig {
	com, err := devchain.NewCommittee("chain-batch", 1, 4, 3)
	require.NoError(t, err)
	genesis, err := configs.WithCommittee(configs.DevnetGenesis(), com.Registry())
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	ch, err := devchain.New(devchain.Config{Genesis: genesis, HTTPAddr: "127.0.0.1:0", Logger: log})
	require.NoError(t, err)
	t.Cleanup(func() { ch.Close() })
	relayer, err := crypto.HexToECDSA(chain.DevRelayerKey)
	require.NoError(t, err)
	ad, err := chain.Dial(ctx, chain.Config{URL: ch.URL(), Key: relayer, Poll: 50 * time.Millisecond, Log: log})
	require.NoError(t, err)
	t.Cleanup(ad.Close)
	c, err := ethclient.DialContext(ctx, ch.URL())
	require.NoError(t, err)
	t.Cleanup(c.Close)
	suite, err := precompilestest.NewSuite()
	require.NoError(t, err)
	return &batchRig{t: t, ctx: ctx, ch: ch, c: c, ad: ad, com: com, suite: suite, alice: devchain.DevAccounts()[0]}
}

// sendAll sends one transaction per data from alice to the precompile at to
// (consecutive nonces, fixed gas) and returns the receipts, all successful.
func (r *batchRig) sendAll(to precompiles.Address, datas [][]byte) []*types.Receipt {
	t, ctx := r.t, r.ctx
	nonce, err := r.c.PendingNonceAt(ctx, r.alice.Address)
	require.NoError(t, err)
	head, err := r.c.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	toA := common.Address(to)
	var hashes []common.Hash
	for i, data := range datas {
		tx := types.NewTx(&types.DynamicFeeTx{ChainID: r.ch.ChainID(), Nonce: nonce + uint64(i), GasTipCap: big.NewInt(1),
			GasFeeCap: new(big.Int).Mul(head.BaseFee, big.NewInt(4)), Gas: 5_000_000, To: &toA, Data: data, Value: depositFor(ctx, t, r.c, to, data)})
		signed, err := types.SignTx(tx, types.LatestSignerForChainID(r.ch.ChainID()), r.alice.Key)
		require.NoError(t, err)
		require.NoError(t, r.c.SendTransaction(ctx, signed))
		hashes = append(hashes, signed.Hash())
	}
	out := make([]*types.Receipt, len(hashes))
	for i, h := range hashes {
		for {
			rc, err := r.c.TransactionReceipt(ctx, h)
			if err == nil {
				require.Equal(t, types.ReceiptStatusSuccessful, rc.Status, "tx %d", i)
				out[i] = rc
				break
			}
			require.NoError(t, ctx.Err())
			time.Sleep(20 * time.Millisecond)
		}
	}
	return out
}

func (r *batchRig) pack(a abi.ABI, method string, args ...any) []byte {
	data, err := a.Pack(method, args...)
	require.NoError(r.t, err)
	return data
}

// requests registers the allowlist policy and one attested input of alice
// and queues n evaluations of it; it returns the policy and request ids.
func (r *batchRig) requests(n int) ([32]byte, [][32]byte) {
	pa := r.suite.Policy.ABI()
	rc := r.sendAll(precompiles.FHEPolicyAddress, [][]byte{r.pack(pa, "registerPolicy", []byte(allowlist))})[0]
	policyID := [32]byte(rc.Logs[0].Topics[1])
	h := [32]byte(crypto.Keccak256Hash([]byte("chain-batch/input")))
	pd := [32]byte(crypto.Keccak256Hash([]byte("chain-batch/proof")))
	root := bls.InputBatchRoot([]bls.InputItem{{Handle: h, CType: precompiles.CTypeCiphertext, ProofDigest: pd}})
	sig, bm, err := r.com.Sign(bls.InputBatchDigest(r.ch.ChainID(), 1, r.alice.Address, 1, root))
	require.NoError(r.t, err)
	r.sendAll(precompiles.FHEInputAddress, [][]byte{r.pack(r.suite.Input.ABI(), "registerBatch", r.alice.Address, uint8(1),
		[][32]byte{h}, []uint8{precompiles.CTypeCiphertext}, [][32]byte{pd}, sig, bm)})
	datas := make([][]byte, n)
	for i := range datas {
		datas[i] = r.pack(pa, "evaluate", policyID, [][32]byte{h})
	}
	ids := make([][32]byte, n)
	for i, rc := range r.sendAll(precompiles.FHEPolicyAddress, datas) {
		ids[i] = [32]byte(rc.Logs[0].Topics[1])
	}
	return policyID, ids
}

// TestAdapterSubmitBatchAndExpire: the adapter posts a 64-verdict batch
// under one aggregate over JSON-RPC (verdictOf answers each), treats a
// resubmission as done, refuses a batch signed for another epoch before
// sending, and expires a stale request (refused while too young); the
// committee's later batch for it is a no-op. Attack: a relayer replaying
// or re-posting a batch cannot change any verdict.
func TestAdapterSubmitBatchAndExpire(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r := newBatchRig(ctx, t)
	policyID, ids := r.requests(65)
	stale, ids := ids[64], ids[:64]

	items := make([]bls.VerdictItem, len(ids))
	for i, id := range ids {
		items[i] = bls.VerdictItem{RequestID: id, Result: big.NewInt(int64(i % 2))}
	}
	digest := [32]byte(crypto.Keccak256Hash([]byte("packed result")))
	sig, bm, err := r.com.Sign(bls.VerdictBatchDigest(r.ch.ChainID(), 1, policyID, digest, bls.VerdictBatchRoot(items)))
	require.NoError(t, err)
	require.ErrorContains(t, r.ad.SubmitVerdictBatch(ctx, policyID, digest, 2, items, sig, bm), "signed for epoch 2")
	require.NoError(t, r.ad.SubmitVerdictBatch(ctx, policyID, digest, 1, items, sig, bm))
	for i, id := range ids {
		ready, err := r.ad.VerdictPosted(ctx, id)
		require.NoError(t, err)
		require.True(t, ready, "item %d", i)
	}
	// a resubmission of the same batch is done, not an error
	require.NoError(t, r.ad.SubmitVerdictBatch(ctx, policyID, digest, 1, items, sig, bm))

	// expiry: refused while younger than ExpiryBlocks, then stored
	require.ErrorContains(t, r.ad.Expire(ctx, stale), "expires at block")
	for i := 0; i < precompiles.ExpiryBlocks; i++ {
		_, err := r.ch.Mine()
		require.NoError(t, err)
	}
	require.NoError(t, r.ad.Expire(ctx, stale))
	res, err := r.c.CallContract(ctx, ethereumCall(precompiles.FHEVerdictAddress, r.pack(r.suite.Verdict.ABI(), "verdictOf", stale)), nil)
	require.NoError(t, err)
	vals, err := r.suite.Verdict.ABI().Unpack("verdictOf", res)
	require.NoError(t, err)
	require.True(t, vals[0].(bool))
	require.Equal(t, 0, precompiles.ResultExpired.Cmp(vals[1].(*big.Int)))
	// the committee's late batch for it changes nothing and is not an error
	late := []bls.VerdictItem{{RequestID: stale, Result: big.NewInt(1)}}
	sig, bm, err = r.com.Sign(bls.VerdictBatchDigest(r.ch.ChainID(), 1, policyID, digest, bls.VerdictBatchRoot(late)))
	require.NoError(t, err)
	require.NoError(t, r.ad.SubmitVerdictBatch(ctx, policyID, digest, 1, late, sig, bm))
	require.NoError(t, r.ad.Expire(ctx, stale), "expiring twice is done")
}

func ethereumCall(to precompiles.Address, data []byte) ethereum.CallMsg {
	a := common.Address(to)
	return ethereum.CallMsg{To: &a, Data: data}
}
