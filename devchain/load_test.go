package devchain

import (
	"math/big"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/core/rawdb"
	"github.com/ava-labs/libevm/core/types"
	ethrpc "github.com/ava-labs/libevm/rpc"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"
)

// pausedBuild is a Config.beforeBuild hook that holds the first block build
// (with the producer's lock held, as a slow build does) until released.
type pausedBuild struct {
	entered, release chan struct{}
	held             bool // only read and written under the producer's lock
}

func newPausedBuild() *pausedBuild {
	return &pausedBuild{entered: make(chan struct{}), release: make(chan struct{})}
}

func (p *pausedBuild) hook() {
	if p.held {
		return
	}
	p.held = true
	close(p.entered)
	<-p.release
}

// transfers signs n value transfers, round-robin over the dev accounts, with
// nonces from each account's nonce in the current state.
func transfers(t *testing.T, c *Chain, n int) []*types.Transaction {
	t.Helper()
	chain := c.Backend().BlockChain()
	head := chain.CurrentBlock()
	st, err := chain.StateAt(head.Root)
	require.NoError(t, err)
	signer := types.LatestSignerForChainID(c.ChainID())
	// Generous: the base fee may climb over the few full blocks these make.
	feeCap := new(big.Int).Mul(head.BaseFee, big.NewInt(100))
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	accts := DevAccounts()
	nonces := make([]uint64, len(accts))
	for i, a := range accts {
		nonces[i] = st.GetNonce(a.Address)
	}
	txs := make([]*types.Transaction, 0, n)
	for i := 0; i < n; i++ {
		a := i % len(accts)
		txs = append(txs, types.MustSignNewTx(accts[a].Key, signer, &types.DynamicFeeTx{
			ChainID: c.ChainID(), Nonce: nonces[a], GasTipCap: big.NewInt(1), GasFeeCap: feeCap,
			Gas: 21000, To: &to, Value: big.NewInt(1),
		}))
		nonces[a]++
	}
	return txs
}

// addOneByOne adds txs to the pool one at a time, each waiting for the pool's
// reorg that promotes it — one arrival event per transaction, as a burst of
// eth_sendRawTransaction calls spread over time makes — and closes done.
func addOneByOne(c *Chain, txs []*types.Transaction, errs chan<- error, done chan<- struct{}) {
	defer close(done)
	pool := c.Backend().TxPool()
	for _, tx := range txs {
		if err := pool.Add([]*types.Transaction{tx}, false, true)[0]; err != nil {
			errs <- err
			return
		}
	}
}

// minedAll reports whether every transaction in txs is in an accepted block
// (the acceptor has indexed it: a client would see its receipt).
func minedAll(c *Chain, txs []*types.Transaction) bool {
	for _, tx := range txs {
		if rawdb.ReadTxLookupEntry(c.db, tx.Hash()) == nil {
			return false
		}
	}
	return true
}

// TestProducerSurvivesArrivalFlood: while a block is being built (the
// producer holds its lock, as a slow build does), the pool announces many more
// arrivals than the subscription's buffer holds. The pool must take them all
// (its reorg never waits on the producer), and blocks must keep coming after:
// every transaction mined, evm_mine answered. A producer that reads the
// subscription only between blocks deadlocks here (the pool's reorg blocks in
// its feed, the producer in TxPool.Sync behind it).
func TestProducerSurvivesArrivalFlood(t *testing.T) {
	paused := newPausedBuild()
	c := newTestChain(t, Config{beforeBuild: paused.hook})

	mined := make(chan error, 1)
	go func() {
		_, err := c.Mine()
		mined <- err
	}()
	select {
	case <-paused.entered:
	case <-time.After(rpcTimeout):
		t.Fatal("Mine never reached the block build")
	}

	flood := transfers(t, c, 4*txEventBuffer)
	errs, added := make(chan error, 1), make(chan struct{})
	go addOneByOne(c, flood, errs, added)
	var stuck bool
	select {
	case <-added:
	case <-time.After(rpcTimeout):
		stuck = true
	}
	close(paused.release)
	require.False(t, stuck, "the pool stopped taking transactions while a block was being built")
	select {
	case err := <-errs:
		require.NoError(t, err)
	default:
	}
	require.NoError(t, <-mined)

	require.Eventually(t, func() bool { return minedAll(c, flood) }, rpcTimeout, 10*time.Millisecond,
		"the flood was not mined")

	// Blocks keep coming while more arrive (no paused build now), and
	// evm_mine is answered.
	more := transfers(t, c, 2*txEventBuffer)
	errs, added = make(chan error, 1), make(chan struct{})
	go addOneByOne(c, more, errs, added)
	rc, err := ethrpc.Dial(c.URL())
	require.NoError(t, err)
	defer rc.Close()
	before := c.Head().NumberU64()
	var n hexutil.Uint64
	require.NoError(t, rc.Call(&n, "evm_mine"))
	require.Greater(t, uint64(n), before)
	<-added
	select {
	case err := <-errs:
		require.NoError(t, err)
	default:
	}
	require.Eventually(t, func() bool { return minedAll(c, more) }, rpcTimeout, 10*time.Millisecond)
	pending, queued := c.Backend().TxPool().Stats()
	require.Zero(t, pending)
	require.Zero(t, queued)
}

// TestHeadCoversVisibleReceipts: once a client sees a transaction's receipt,
// Head is that receipt's block or a later one (the acceptor makes receipts
// visible just before it moves the last accepted block).
func TestHeadCoversVisibleReceipts(t *testing.T) {
	c := newTestChain(t, Config{})
	cl := dial(t, c)
	dev := DevAccounts()[2]
	to := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	for i := 0; i < 10; i++ {
		r := sendTx(t, cl, dev, &to, nil)
		require.GreaterOrEqual(t, c.Head().NumberU64(), r.BlockNumber.Uint64(), "transaction %d", i)
	}
}

func TestStallWatch(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	type obs struct {
		at              float64
		head            uint64
		pending         int
		warn, recovered bool
		stuckFor        float64
	}
	for _, tc := range []struct {
		name string
		obs  []obs
	}{
		{name: "idle chain never stalls", obs: []obs{
			{at: 0, head: 5}, {at: 10, head: 5}, {at: 100, head: 5},
		}},
		{name: "head moving with work pending", obs: []obs{
			{at: 0, head: 5, pending: 3}, {at: 8, head: 6, pending: 3}, {at: 16, head: 7, pending: 3},
		}},
		{name: "stuck with work pending warns after the delay, then every delay", obs: []obs{
			{at: 0, head: 5, pending: 3},
			{at: 9, head: 5, pending: 3, stuckFor: 9},
			{at: 10, head: 5, pending: 4, warn: true, stuckFor: 10},
			{at: 15, head: 5, pending: 4, stuckFor: 15},
			{at: 20, head: 5, pending: 4, warn: true, stuckFor: 20},
			{at: 21, head: 6, pending: 4, recovered: true},
			{at: 30, head: 6, pending: 4, stuckFor: 9},
		}},
		{name: "the clock starts when work arrives, not when the head last moved", obs: []obs{
			{at: 0, head: 5},
			{at: 100, head: 5, pending: 1},
			{at: 105, head: 5, pending: 1, stuckFor: 5},
			{at: 110, head: 5, pending: 1, warn: true, stuckFor: 10},
		}},
		{name: "pool emptying ends a stall", obs: []obs{
			{at: 0, head: 5, pending: 2},
			{at: 10, head: 5, pending: 2, warn: true, stuckFor: 10},
			{at: 11, head: 5, recovered: true},
			{at: 12, head: 5, pending: 1},
			{at: 21, head: 5, pending: 1, stuckFor: 9},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := stallWatch{after: 10 * time.Second}
			for i, o := range tc.obs {
				r := w.observe(at(o.at), o.head, o.pending)
				require.Equal(t, stallReport{warn: o.warn, recovered: o.recovered, stuckFor: time.Duration(o.stuckFor * float64(time.Second))}, r, "observation %d", i)
			}
		})
	}
}

// TestStallWarningLogged: a producer stuck in a block build while a
// transaction is pending is reported (a small StallWarning stands for the
// default), and the recovery is noted once blocks come again.
func TestStallWarningLogged(t *testing.T) {
	obsCore, logs := observer.New(zapcore.InfoLevel)
	log := zap.New(zapcore.NewTee(zaptest.NewLogger(t).Core(), obsCore))
	paused := newPausedBuild()
	c := newTestChain(t, Config{StallWarning: 100 * time.Millisecond, Logger: log, beforeBuild: paused.hook})
	released := false
	defer func() {
		if !released {
			close(paused.release)
		}
	}()

	tx := transfers(t, c, 1)
	require.NoError(t, c.Backend().TxPool().Add(tx, false, true)[0])
	select {
	case <-paused.entered:
	case <-time.After(rpcTimeout):
		t.Fatal("the pending transaction never started a block build")
	}
	stalled := func() bool { return logs.FilterMessageSnippet("head stalled").Len() > 0 }
	require.Eventually(t, stalled, rpcTimeout, 10*time.Millisecond)
	w := logs.FilterMessageSnippet("head stalled").All()[0]
	require.Equal(t, zapcore.WarnLevel, w.Level)
	fields := w.ContextMap()
	require.EqualValues(t, 0, fields["head"])
	require.EqualValues(t, 1, fields["pending"])

	released = true
	close(paused.release)
	require.Eventually(t, func() bool { return minedAll(c, tx) }, rpcTimeout, 10*time.Millisecond)
	require.Eventually(t, func() bool { return logs.FilterMessageSnippet("advancing again").Len() > 0 },
		rpcTimeout, 10*time.Millisecond)
}
