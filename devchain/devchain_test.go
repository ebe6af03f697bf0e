package devchain

import (
	"context"
	"encoding/json"
	"math/big"
	"net"
	"os"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/ethclient"
	ethrpc "github.com/ava-labs/libevm/rpc"
	"github.com/ava-labs/subnet-evm/core"
	"github.com/ava-labs/subnet-evm/plugin/evm"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	ethereum "github.com/ava-labs/libevm"

	"github.com/fhegate/fhegate/configs"
)

func TestMain(m *testing.M) {
	evm.RegisterAllLibEVMExtras()
	os.Exit(m.Run())
}

// storeInit deploys a 32-byte contract: a call with empty calldata returns
// slot 0; a call with 32 bytes of calldata stores them in slot 0 and emits them
// as a LOG0.
//
//	runtime: CALLDATASIZE PUSH1 0x0f JUMPI PUSH1 0 SLOAD PUSH1 0 MSTORE
//	         PUSH1 32 PUSH1 0 RETURN JUMPDEST PUSH1 0 CALLDATALOAD DUP1
//	         PUSH1 0 SSTORE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 LOG0 STOP
//	init:    PUSH1 32 DUP1 PUSH1 11 PUSH1 0 CODECOPY PUSH1 0 RETURN
var (
	storeRuntime = common.FromHex("36600f576000546000526020" + "6000f35b600035806000556000526020" + "6000a000")
	storeInit    = append(common.FromHex("602080600b6000396000f3"), storeRuntime...)
)

// rpcTimeout bounds each wait for the chain; it is a deadline for a hung
// test, not a performance assertion.
const rpcTimeout = 30 * time.Second

func newTestChain(t *testing.T, cfg Config) *Chain {
	t.Helper()
	if cfg.HTTPAddr == "" {
		cfg.HTTPAddr = "127.0.0.1:0"
	}
	if cfg.Logger == nil {
		cfg.Logger = zaptest.NewLogger(t)
	}
	c, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

func dial(t *testing.T, c *Chain) *ethclient.Client {
	t.Helper()
	cl, err := ethclient.Dial(c.URL())
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

// sendTx signs an EIP-1559 transaction from the dev account and waits for its
// receipt, which the chain must produce without being asked to mine.
func sendTx(t *testing.T, cl *ethclient.Client, from Account, to *common.Address, data []byte) *types.Receipt {
	t.Helper()
	return waitReceipt(t, cl, submitTx(t, cl, from, to, data))
}

// submitTx signs and sends a transaction without waiting for it.
func submitTx(t *testing.T, cl *ethclient.Client, from Account, to *common.Address, data []byte) common.Hash {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	chainID, err := cl.ChainID(ctx)
	require.NoError(t, err)
	nonce, err := cl.PendingNonceAt(ctx, from.Address)
	require.NoError(t, err)
	tip, err := cl.SuggestGasTipCap(ctx)
	require.NoError(t, err)
	head, err := cl.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	gas, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: from.Address, To: to, Data: data})
	require.NoError(t, err)
	tx := types.MustSignNewTx(from.Key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID:   chainID,
		Nonce:     nonce,
		GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))),
		Gas:       gas + gas/5,
		To:        to,
		Data:      data,
	})
	require.NoError(t, cl.SendTransaction(ctx, tx))
	return tx.Hash()
}

func waitReceipt(t *testing.T, cl *ethclient.Client, hash common.Hash) *types.Receipt {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	for {
		r, err := cl.TransactionReceipt(ctx, hash)
		if err == nil {
			return r
		}
		require.ErrorIs(t, err, ethereum.NotFound)
		select {
		case <-ctx.Done():
			t.Fatalf("no receipt for %s: %v", hash, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestDevAccountsAreTheWellKnownKeysAndFunded(t *testing.T) {
	want := []string{
		"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
		"0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
		"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
		"0x90F79bf6EB2c4f870365E785982E1f101E93b906",
		"0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65",
		"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
		"0x976EA74026E726554dB657fA54763abd0C3a0aa9",
		"0x14dC79964da2C08b23698B3D3cc7Ca32193d9955",
		"0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f",
		"0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
		"0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC", // ewoq
	}
	g, err := ParseGenesis(configs.DevnetGenesis(), 0, nil)
	require.NoError(t, err)
	accts := DevAccounts()
	require.Len(t, accts, len(want))
	for i, a := range accts {
		require.Equal(t, want[i], a.Address.Hex(), a.Name)
		alloc, ok := g.Alloc[a.Address]
		require.True(t, ok, "%s not funded in genesis", a.Name)
		require.Positive(t, alloc.Balance.Sign())
		require.Len(t, a.KeyHex(), 66)
	}
}

func TestParseGenesis(t *testing.T) {
	for _, tc := range []struct {
		name    string
		genesis []byte
		chainID uint64
		wantID  int64
		wantErr string
	}{
		{name: "devnet default", genesis: configs.DevnetGenesis(), wantID: 1337},
		{name: "chain id override", genesis: configs.DevnetGenesis(), chainID: 99999, wantID: 99999},
		{name: "not json", genesis: []byte("{"), wantErr: "parsing genesis"},
		{name: "no config", genesis: []byte(`{"alloc":{},"gasLimit":"0x1","difficulty":"0x0"}`), wantErr: "no config"},
		{name: "gas limit mismatch", genesis: editGenesis(t, func(cfg map[string]json.RawMessage) {
			cfg["feeConfig"] = json.RawMessage(`{"gasLimit":8000000,"targetBlockRate":2,"minBaseFee":1,"targetGas":15000000,"baseFeeChangeDenominator":36,"minBlockGasCost":0,"maxBlockGasCost":1,"blockGasCostStep":1}`)
		}), wantErr: "gas limit"},
		{name: "zero chain id", genesis: editGenesis(t, func(cfg map[string]json.RawMessage) {
			cfg["chainId"] = json.RawMessage(`0`)
		}), wantErr: "positive chainId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ParseGenesis(tc.genesis, tc.chainID, nil)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantID, g.Config.ChainID.Int64())
		})
	}
}

func editGenesis(t *testing.T, edit func(map[string]json.RawMessage)) []byte {
	t.Helper()
	out, err := configs.EditGenesisConfig(configs.DevnetGenesis(), func(cfg map[string]json.RawMessage) error {
		edit(cfg)
		return nil
	})
	require.NoError(t, err)
	return out
}

func TestDeployAndCallOverHTTP(t *testing.T) {
	c := newTestChain(t, Config{})
	cl := dial(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()

	id, err := cl.ChainID(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1337), id.Int64())
	dev := DevAccounts()[0]
	bal, err := cl.BalanceAt(ctx, dev.Address, nil)
	require.NoError(t, err)
	require.Positive(t, bal.Sign())

	// Deploying is a transaction; a block must appear without Mine.
	r := sendTx(t, cl, dev, nil, storeInit)
	require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
	require.Equal(t, uint64(1), r.BlockNumber.Uint64())
	code, err := cl.CodeAt(ctx, r.ContractAddress, nil)
	require.NoError(t, err)
	require.Equal(t, storeRuntime, code)

	addr := r.ContractAddress
	value := common.BigToHash(big.NewInt(424242))
	r = sendTx(t, cl, dev, &addr, value.Bytes())
	require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
	require.Len(t, r.Logs, 1)
	require.Equal(t, value.Bytes(), r.Logs[0].Data)

	out, err := cl.CallContract(ctx, ethereum.CallMsg{To: &addr}, nil)
	require.NoError(t, err)
	require.Equal(t, value.Bytes(), out)

	// Archival state: the value before the store is still readable.
	out, err = cl.CallContract(ctx, ethereum.CallMsg{To: &addr}, big.NewInt(1))
	require.NoError(t, err)
	require.Equal(t, common.Hash{}.Bytes(), out)

	// Logs are queryable by filter.
	logs, err := cl.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{addr}, FromBlock: big.NewInt(0)})
	require.NoError(t, err)
	require.Len(t, logs, 1)
}

func TestBlockPerTransactionBurst(t *testing.T) {
	c := newTestChain(t, Config{})
	cl := dial(t, c)
	accts := DevAccounts()
	// A burst from several senders, sent before any is mined: every
	// transaction is mined and none is left pending.
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	var hashes []common.Hash
	for i := 0; i < 4; i++ {
		hashes = append(hashes, submitTx(t, cl, accts[i], &to, nil))
	}
	for _, h := range hashes {
		require.Equal(t, types.ReceiptStatusSuccessful, waitReceipt(t, cl, h).Status)
	}
	pending, queued := c.Backend().TxPool().Stats()
	require.Zero(t, pending)
	require.Zero(t, queued)
	require.GreaterOrEqual(t, c.Head().NumberU64(), uint64(1))
}

func TestMineAndEvmMineRPC(t *testing.T) {
	c := newTestChain(t, Config{ChainID: 4242})
	require.Equal(t, int64(4242), c.ChainID().Int64())
	b, err := c.Mine()
	require.NoError(t, err)
	require.Equal(t, uint64(1), b.NumberU64())
	require.Empty(t, b.Transactions())

	rc, err := ethrpc.Dial(c.URL())
	require.NoError(t, err)
	defer rc.Close()
	var n hexutil.Uint64
	require.NoError(t, rc.Call(&n, "evm_mine"))
	require.Equal(t, hexutil.Uint64(2), n)

	// Timestamps strictly increase (milliseconds after Granite).
	cl := dial(t, c)
	h1, err := cl.HeaderByNumber(context.Background(), big.NewInt(1))
	require.NoError(t, err)
	h2, err := cl.HeaderByNumber(context.Background(), big.NewInt(2))
	require.NoError(t, err)
	require.LessOrEqual(t, h1.Time, h2.Time)

	// The same endpoint speaks WebSocket.
	wc, err := ethclient.Dial(c.WSURL())
	require.NoError(t, err)
	defer wc.Close()
	num, err := wc.BlockNumber(context.Background())
	require.NoError(t, err)
	require.Equal(t, uint64(2), num)
}

func TestIntervalProducesEmptyBlocks(t *testing.T) {
	c := newTestChain(t, Config{BlockInterval: 20 * time.Millisecond})
	require.Eventually(t, func() bool { return c.Head().NumberU64() >= 2 }, rpcTimeout, 10*time.Millisecond)
}

func TestCleanShutdown(t *testing.T) {
	c, err := New(Config{HTTPAddr: "127.0.0.1:0", Logger: zaptest.NewLogger(t)})
	require.NoError(t, err)
	dir, addr := c.DataDir(), c.ln.Addr().String()
	_, err = os.Stat(dir)
	require.NoError(t, err)

	require.NoError(t, c.Close())
	require.NoError(t, c.Close(), "second Close is a no-op")

	_, err = os.Stat(dir)
	require.True(t, os.IsNotExist(err), "temporary datadir removed")
	_, err = net.DialTimeout("tcp", addr, time.Second)
	require.Error(t, err, "listener closed")
	_, err = c.Mine()
	require.ErrorIs(t, err, ErrClosed)
}

func TestDataDirPersistsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	c, err := New(Config{DataDir: dir, HTTPAddr: "127.0.0.1:0", Logger: zaptest.NewLogger(t)})
	require.NoError(t, err)
	cl, err := ethclient.Dial(c.URL())
	require.NoError(t, err)
	dev := DevAccounts()[1]
	r := sendTx(t, cl, dev, nil, storeInit)
	addr := r.ContractAddress
	value := common.BigToHash(big.NewInt(7))
	sendTx(t, cl, dev, &addr, value.Bytes())
	head := c.Head()
	cl.Close()
	require.NoError(t, c.Close())
	_, err = os.Stat(dir)
	require.NoError(t, err, "a given datadir is kept")

	c, err = New(Config{DataDir: dir, HTTPAddr: "127.0.0.1:0", Logger: zaptest.NewLogger(t)})
	require.NoError(t, err)
	require.Equal(t, head.Hash(), c.Head().Hash())
	cl = dial(t, c)
	out, err := cl.CallContract(context.Background(), ethereum.CallMsg{To: &addr}, nil)
	require.NoError(t, err)
	require.Equal(t, value.Bytes(), out)
	nonce, err := cl.NonceAt(context.Background(), dev.Address, nil)
	require.NoError(t, err)
	require.Equal(t, uint64(2), nonce)
	// The chain keeps growing from where it stopped.
	r = sendTx(t, cl, dev, &addr, common.BigToHash(big.NewInt(8)).Bytes())
	require.Equal(t, head.NumberU64()+1, r.BlockNumber.Uint64())
	require.NoError(t, c.Close())

	// A different chain id is a different genesis: refused, not silently reset.
	_, err = New(Config{DataDir: dir, ChainID: 777, HTTPAddr: "127.0.0.1:0", Logger: zaptest.NewLogger(t)})
	require.ErrorContains(t, err, "chain id 1337, not 777")
	// …and the refusal leaves the datadir usable.
	c = newTestChain(t, Config{DataDir: dir})
	require.Equal(t, head.NumberU64()+1, c.Head().NumberU64())
}

func TestPrepareGenesisSeam(t *testing.T) {
	funded := common.HexToAddress("0x00000000000000000000000000000000000fee01")
	c := newTestChain(t, Config{PrepareGenesis: func(g *core.Genesis) error {
		g.Alloc[funded] = types.Account{Balance: big.NewInt(12345)}
		return nil
	}})
	bal, err := dial(t, c).BalanceAt(context.Background(), funded, nil)
	require.NoError(t, err)
	require.Equal(t, int64(12345), bal.Int64())
}

func TestBadListenAddressLeavesNothingBehind(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	dir := t.TempDir()
	_, err = New(Config{DataDir: dir, HTTPAddr: ln.Addr().String(), Logger: zaptest.NewLogger(t)})
	require.ErrorContains(t, err, "listen")
	// The database was closed: it can be opened again.
	c := newTestChain(t, Config{DataDir: dir})
	require.Equal(t, uint64(0), c.Head().NumberU64())
}

// BenchmarkTxToReceipt measures a value transfer from eth_sendRawTransaction
// to its receipt over HTTP JSON-RPC, one at a time (block per transaction).
//
//	go test -run '^$' -bench TxToReceipt -benchtime 50x ./devchain/
func BenchmarkTxToReceipt(b *testing.B) {
	c, err := New(Config{HTTPAddr: "127.0.0.1:0"})
	require.NoError(b, err)
	defer c.Close()
	cl, err := ethclient.Dial(c.URL())
	require.NoError(b, err)
	defer cl.Close()
	ctx := context.Background()
	dev := DevAccounts()[0]
	chainID := c.ChainID()
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	head, err := cl.HeaderByNumber(ctx, nil)
	require.NoError(b, err)
	feeCap := new(big.Int).Mul(head.BaseFee, big.NewInt(4))
	signer := types.LatestSignerForChainID(chainID)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tx := types.MustSignNewTx(dev.Key, signer, &types.DynamicFeeTx{
			ChainID: chainID, Nonce: uint64(i), GasTipCap: big.NewInt(1), GasFeeCap: feeCap, Gas: 21000, To: &to, Value: big.NewInt(1),
		})
		require.NoError(b, cl.SendTransaction(ctx, tx))
		for {
			if _, err := cl.TransactionReceipt(ctx, tx.Hash()); err == nil {
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
	}
	b.StopTimer()
	require.Equal(b, uint64(b.N), c.Head().NumberU64())
}

// TestEstimateGasOnGenesisAcceptsShanghaiOpcodes: a dApp's first call on a
// fresh devnet — eth_estimateGas for a contract creation, run on the
// genesis block — sees the same rules as the blocks that follow. The
// upgrades (Durango, hence Shanghai's PUSH0) are active from
// upgrade.InitiallyActiveTime, so the genesis timestamp must not precede it.
func TestEstimateGasOnGenesisAcceptsShanghaiOpcodes(t *testing.T) {
	c := newTestChain(t, Config{})
	cl := dial(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	head, err := cl.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	require.Zero(t, head.Number.Uint64(), "a fresh chain is at its genesis block")
	// init: PUSH0 PUSH0 RETURN — deploys empty code; PUSH0 is Shanghai's.
	dev := DevAccounts()[0]
	gas, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: dev.Address, Data: common.FromHex("5f5ff3")})
	require.NoError(t, err, "eth_estimateGas on the genesis block refuses PUSH0")
	require.Positive(t, gas)
}
