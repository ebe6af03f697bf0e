package subnetevm_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"os"
	"testing"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/accounts/abi/bind"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
	"github.com/ava-labs/subnet-evm/eth/ethconfig"
	"github.com/ava-labs/subnet-evm/ethclient/simulated"
	"github.com/ava-labs/subnet-evm/node"
	"github.com/ava-labs/subnet-evm/plugin/evm"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
	"github.com/fhegate/fhegate/precompiles/precompilestest"
)

// TestMain starts every test on the core's deterministic stand-in compiler
// and merger (the package default is the real pair): the flow tests use
// stand-in specs, and backends_test.go switches to the real backends itself.
func TestMain(m *testing.M) {
	evm.RegisterAllLibEVMExtras()
	if err := subnetevm.SetBackends(precompilestest.Compiler{}, precompilestest.Merger{}); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// testCommittee is n deterministic BLS members.
type testCommittee struct {
	epoch     uint64
	threshold uint32
	keys      []*bls.SecretKey
}

func newCommittee(t testing.TB, tag string, epoch uint64, n int, threshold uint32) *testCommittee {
	c := &testCommittee{epoch: epoch, threshold: threshold}
	for i := 0; i < n; i++ {
		seed := crypto.Keccak256([]byte(fmt.Sprintf("fhegate-test-committee/%s/%d", tag, i)))
		sk, err := bls.Keygen(seed)
		require.NoError(t, err)
		c.keys = append(c.keys, sk)
	}
	return c
}

func (c *testCommittee) config() *subnetevm.Committee {
	out := &subnetevm.Committee{Epoch: c.epoch, Threshold: c.threshold}
	for _, k := range c.keys {
		out.Members = append(out.Members, subnetevm.Member{PublicKey: k.PublicKey(), ProofOfPossession: k.ProvePossession()})
	}
	return out
}

// sign returns the aggregate signature and bitmap of members idx over digest.
func (c *testCommittee) sign(t testing.TB, digest [32]byte, idx ...int) ([]byte, []byte) {
	var sigs [][]byte
	for _, i := range idx {
		sigs = append(sigs, c.keys[i].Sign(digest[:]))
	}
	agg, err := bls.Aggregate(sigs)
	require.NoError(t, err)
	bm, err := bls.NewBitmap(len(c.keys), idx)
	require.NoError(t, err)
	return agg, bm
}

type chain struct {
	t       testing.TB
	backend *simulated.Backend
	client  simulated.Client
	chainID *big.Int
	keys    []*ecdsa.PrivateKey
	addrs   []common.Address
}

func newChain(t testing.TB, governance int, committee *testCommittee) *chain {
	c := &chain{t: t}
	alloc := types.GenesisAlloc{}
	for i := 0; i < 4; i++ {
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("fhegate-test-account/%d", i))))
		require.NoError(t, err)
		c.keys = append(c.keys, k)
		c.addrs = append(c.addrs, crypto.PubkeyToAddress(k.PublicKey))
		alloc[c.addrs[i]] = types.Account{Balance: new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18))}
	}
	var cc *subnetevm.Committee
	if committee != nil {
		cc = committee.config()
	}
	gov := c.addrs[governance]
	c.backend = simulated.NewBackend(alloc, simulated.WithBlockGasLimit(30_000_000), func(_ *node.Config, ec *ethconfig.Config) {
		subnetevm.Enable(ec.Genesis.Config, gov, cc)
	})
	t.Cleanup(func() { c.backend.Close() })
	c.client = c.backend.Client()
	id, err := c.client.ChainID(context.Background())
	require.NoError(t, err)
	c.chainID = id
	return c
}

// backend adapts the simulated client to libevm's bind.ContractBackend
// (subnet-evm exposes "accepted" instead of "pending" state).
type backend struct{ simulated.Client }

func (b backend) PendingCodeAt(ctx context.Context, a common.Address) ([]byte, error) {
	return b.AcceptedCodeAt(ctx, a)
}
func (b backend) PendingNonceAt(ctx context.Context, a common.Address) (uint64, error) {
	return b.AcceptedNonceAt(ctx, a)
}

func (c *chain) be() backend { return backend{c.client} }

// opts returns transact options for account i; gasLimit > 0 skips estimation
// (so a transaction that will revert is still sent and mined).
func (c *chain) opts(i int, gasLimit uint64) *bind.TransactOpts {
	o, err := bind.NewKeyedTransactorWithChainID(c.keys[i], c.chainID)
	require.NoError(c.t, err)
	o.GasLimit = gasLimit
	return o
}

// mine commits a block and returns the transaction's receipt.
func (c *chain) mine(tx *types.Transaction, err error) *types.Receipt {
	c.t.Helper()
	require.NoError(c.t, err)
	c.backend.Commit(true)
	r, err := c.client.TransactionReceipt(context.Background(), tx.Hash())
	require.NoError(c.t, err)
	return r
}

func (c *chain) ok(tx *types.Transaction, err error) *types.Receipt {
	c.t.Helper()
	r := c.mine(tx, err)
	require.Equal(c.t, types.ReceiptStatusSuccessful, r.Status, "transaction failed")
	return r
}

func (c *chain) failed(tx *types.Transaction, err error) *types.Receipt {
	c.t.Helper()
	r := c.mine(tx, err)
	require.Equal(c.t, types.ReceiptStatusFailed, r.Status, "transaction should have failed")
	return r
}

// callErr runs eth_call of data against to from account i and returns the error text.
func (c *chain) callErr(from int, to common.Address, data []byte) string {
	return c.callErrValue(from, to, data, nil)
}

// callErrValue is callErr with a call value.
func (c *chain) callErrValue(from int, to common.Address, data []byte, value *big.Int) string {
	_, err := c.client.CallContract(context.Background(), ethereum.CallMsg{From: c.addrs[from], To: &to, Data: data, Gas: 5_000_000, Value: value}, nil)
	if err == nil {
		return ""
	}
	return err.Error()
}
