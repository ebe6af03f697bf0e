package devchain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow"
	"github.com/ava-labs/avalanchego/upgrade"
	avaconstants "github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/logging"
	"github.com/ava-labs/avalanchego/utils/timer/mockable"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/ava-labs/libevm/core/rawdb"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/ethdb"
	"github.com/ava-labs/subnet-evm/commontype"
	"github.com/ava-labs/subnet-evm/consensus/dummy"
	"github.com/ava-labs/subnet-evm/constants"
	"github.com/ava-labs/subnet-evm/core"
	"github.com/ava-labs/subnet-evm/eth"
	"github.com/ava-labs/subnet-evm/eth/ethconfig"
	"github.com/ava-labs/subnet-evm/node"
	"github.com/ava-labs/subnet-evm/params"
	"github.com/ava-labs/subnet-evm/plugin/evm/customrawdb"
	"github.com/ava-labs/subnet-evm/plugin/evm/customtypes"
	"github.com/ava-labs/subnet-evm/rpc"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/configs"
)

// DefaultHTTPAddr is where the JSON-RPC endpoint listens unless told otherwise.
const DefaultHTTPAddr = "127.0.0.1:8545"

// DevChainID is the avalanchego blockchain ID the development chain reports
// in its snow context (there is no P-chain to assign one).
var DevChainID = ids.ID{'f', 'h', 'e', 'g', 'a', 't', 'e', '-', 'd', 'e', 'v', 'n', 'e', 't'}

// ErrClosed is returned by a Chain's methods after Close.
var ErrClosed = errors.New("devchain: closed")

// lastAcceptedKey stores the hash of the last accepted block in the chain
// database, so that a datadir resumes where it stopped.
var lastAcceptedKey = []byte("fhegate/devchain/last-accepted")

// Config describes a development chain. The zero value is usable: the embedded
// devnet genesis, a temporary state directory and 127.0.0.1:8545.
type Config struct {
	// Genesis is a subnet-evm genesis document (JSON). Nil means
	// configs.DevnetGenesis().
	Genesis []byte
	// ChainID, if non-zero, replaces the genesis config's chainId.
	ChainID uint64
	// DataDir holds the chain database. Empty means a fresh temporary
	// directory that Close removes.
	DataDir string
	// HTTPAddr is the listen address of the JSON-RPC endpoint; empty means
	// DefaultHTTPAddr. Port 0 picks a free port (see Chain.URL).
	HTTPAddr string
	// BlockInterval, if positive, also produces a block (possibly empty) at
	// this interval. Transactions always trigger a block at once.
	BlockInterval time.Duration
	// PrepareGenesis, if set, may change the parsed genesis (e.g. add
	// GenesisPrecompiles through params.GetExtra(g.Config)) before it is
	// verified and committed. This is the seam through which the fhegate
	// precompiles and the committee registry are enabled.
	PrepareGenesis func(g *core.Genesis) error
	// AllowOrigins are browser origins (scheme://host[:port], port may be
	// "*"; "*" alone allows every origin) that may call the JSON-RPC endpoint
	// besides DefaultAllowOrigins (localhost pages). Requests without an
	// Origin header (not from a browser) are always served.
	AllowOrigins []string
	// StallWarning is how long the head may stay at one block while the
	// pool holds executable transactions before the chain logs a warning
	// (repeated every StallWarning while it lasts). Zero means
	// DefaultStallWarning; negative turns the warning off.
	StallWarning time.Duration
	// Logger receives the chain's own events; nil means no logging.
	Logger *zap.Logger

	// beforeBuild, if set, runs inside produce with the producer's lock held,
	// after the pool is synced and before the block is built: tests use it
	// to stand for a slow block build.
	beforeBuild func()
}

// DefaultStallWarning is Config.StallWarning's default.
const DefaultStallWarning = 30 * time.Second

// Chain is a running development chain.
type Chain struct {
	log     *zap.Logger
	eth     *eth.Ethereum
	db      ethdb.Database
	clock   *mockable.Clock
	rpc     *rpc.Server
	http    *http.Server
	ln      net.Listener
	origins *originPolicy
	genesis *core.Genesis
	chainID *big.Int
	dataDir string
	tempDir bool

	mu     sync.Mutex // serialises block production, Head and Close
	closed bool

	beforeBuild func()

	closeOnce sync.Once
	closeErr  error

	quit     chan struct{}
	done     chan struct{}  // closed when produceLoop returns
	watchers sync.WaitGroup // watchStall

	serveErr chan error
}

// New builds the chain, starts its JSON-RPC endpoint and its block producer.
func New(cfg Config) (_ *Chain, err error) {
	log := cfg.Logger
	if log == nil {
		log = zap.NewNop()
	}
	genesisJSON := cfg.Genesis
	if genesisJSON == nil {
		genesisJSON = configs.DevnetGenesis()
	}
	g, err := ParseGenesis(genesisJSON, cfg.ChainID, cfg.PrepareGenesis)
	if err != nil {
		return nil, err
	}
	origins, err := newOriginPolicy(cfg.AllowOrigins)
	if err != nil {
		return nil, err
	}

	c := &Chain{
		log:      log,
		clock:    &mockable.Clock{},
		genesis:  g,
		chainID:  new(big.Int).Set(g.Config.ChainID),
		origins:  origins,
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
		serveErr: make(chan error, 1),

		beforeBuild: cfg.beforeBuild,
	}
	// Undo whatever was built if a later step fails: each step registers the
	// undoing of what it built, even when it fails half-way.
	var cleanups []func()
	defer func() {
		if err != nil {
			for i := len(cleanups) - 1; i >= 0; i-- {
				cleanups[i]()
			}
		}
	}()
	for _, step := range []func() ([]func(), error){
		func() ([]func(), error) { return c.openDataDir(cfg.DataDir) },
		c.startEth,
		func() ([]func(), error) { return c.startRPC(cfg.HTTPAddr) },
	} {
		undo, err := step()
		cleanups = append(cleanups, undo...)
		if err != nil {
			return nil, err
		}
	}

	go c.produceLoop(cfg.BlockInterval)
	stallAfter := cfg.StallWarning
	if stallAfter == 0 {
		stallAfter = DefaultStallWarning
	}
	if stallAfter > 0 {
		c.watchers.Add(1)
		go c.watchStall(stallAfter)
	}

	head := c.eth.BlockChain().LastAcceptedBlock()
	log.Info("devchain started",
		zap.String("url", c.URL()),
		zap.Stringer("chainID", c.chainID),
		zap.String("datadir", c.dataDir),
		zap.Bool("temporary", c.tempDir),
		zap.Uint64("head", head.NumberU64()),
	)
	return c, nil
}

// openDataDir sets c.dataDir: dataDir made absolute and created, or a fresh
// temporary directory when dataDir is empty.
func (c *Chain) openDataDir(dataDir string) ([]func(), error) {
	if dataDir == "" {
		dir, err := os.MkdirTemp("", "fhegate-devchain-")
		if err != nil {
			return nil, fmt.Errorf("devchain: temp dir: %w", err)
		}
		c.dataDir, c.tempDir = dir, true
		return []func(){func() { _ = os.RemoveAll(dir) }}, nil
	}
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("devchain: datadir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("devchain: datadir: %w", err)
	}
	c.dataDir = dir
	return nil, nil
}

// openDatabase opens the chain database in c.dataDir and returns the block to
// resume from. Like the VM: the recorded last accepted block, else genesis. A
// datadir made for another chain id is refused (the genesis block hash does
// not cover the chain config).
func (c *Chain) openDatabase() (common.Hash, error) {
	var err error
	c.db, err = rawdb.NewLevelDBDatabase(filepath.Join(c.dataDir, "chaindata"), 16, 64, "", false)
	if err != nil {
		return common.Hash{}, fmt.Errorf("devchain: open database in %s: %w", c.dataDir, err)
	}
	g := c.genesis
	lastAccepted := g.ToBlock().Hash()
	if b, err := c.db.Get(lastAcceptedKey); err == nil && len(b) == common.HashLength {
		lastAccepted = common.BytesToHash(b)
	}
	if stored := rawdb.ReadCanonicalHash(c.db, 0); stored != (common.Hash{}) {
		if sc := customrawdb.ReadChainConfig(c.db, stored); sc != nil && sc.ChainID != nil && sc.ChainID.Cmp(g.Config.ChainID) != 0 {
			return common.Hash{}, fmt.Errorf("devchain: %s holds a chain with chain id %s, not %s: use another datadir", c.dataDir, sc.ChainID, g.Config.ChainID)
		}
	}
	return lastAccepted, nil
}

// startEth opens the database and starts subnet-evm's eth service on it.
func (c *Chain) startEth() ([]func(), error) {
	lastAccepted, err := c.openDatabase()
	dbOwned := true // eth.Stop closes the database once eth.New succeeded
	undo := []func(){func() {
		if dbOwned && c.db != nil {
			_ = c.db.Close()
		}
	}}
	if err != nil {
		return undo, err
	}
	stack, err := node.New(&node.Config{KeyStoreDir: filepath.Join(c.dataDir, "keystore")})
	if err != nil {
		return undo, fmt.Errorf("devchain: node: %w", err)
	}
	g := c.genesis
	ethCfg := ethconfig.NewDefaultConfig()
	ethCfg.Genesis = g
	ethCfg.NetworkId = g.Config.ChainID.Uint64()
	ethCfg.Pruning = false // archival: every block's state is on disk
	ethCfg.TrieCleanCache = 64
	ethCfg.TrieDirtyCache = 64
	ethCfg.SnapshotCache = 64
	ethCfg.AllowUnfinalizedQueries = true
	ethCfg.TxPool.NoLocals = true
	ethCfg.TxPool.Journal = ""
	ethCfg.RPCGasCap = 50_000_000
	ethCfg.Miner.Etherbase = constants.BlackholeAddr

	c.eth, err = eth.New(
		stack, &ethCfg, noGossip{}, c.db, eth.Settings{}, lastAccepted,
		dummy.NewDummyEngine(dummy.Mode{}, nil), c.clock,
	)
	if err != nil {
		if strings.Contains(err.Error(), "incompatible genesis") || strings.Contains(err.Error(), "genesis mismatch") {
			return undo, fmt.Errorf("devchain: %s was created with a different genesis or chain id: %w", c.dataDir, err)
		}
		return undo, fmt.Errorf("devchain: eth.New: %w", err)
	}
	dbOwned = false
	c.eth.SetEtherbase(constants.BlackholeAddr)
	c.eth.Start()
	return append(undo, func() { _ = c.eth.Stop() }), nil
}

// startRPC registers the public eth APIs (servedNamespaces) and evm_mine on an
// RPC server and serves it over HTTP and WebSocket on addr (DefaultHTTPAddr
// when empty).
func (c *Chain) startRPC(addr string) ([]func(), error) {
	c.rpc = rpc.NewServer(0)
	undo := []func(){c.rpc.Stop}
	for _, api := range c.eth.APIs() {
		if !servedNamespaces[api.Namespace] {
			continue
		}
		if err := c.rpc.RegisterName(api.Namespace, api.Service); err != nil {
			return undo, fmt.Errorf("devchain: register %s API: %w", api.Namespace, err)
		}
	}
	if err := c.rpc.RegisterName("evm", &evmAPI{c: c}); err != nil {
		return undo, fmt.Errorf("devchain: register evm API: %w", err)
	}
	if addr == "" {
		addr = DefaultHTTPAddr
	}
	var err error
	c.ln, err = net.Listen("tcp", addr)
	if err != nil {
		return undo, fmt.Errorf("devchain: listen on %s: %w", addr, err)
	}
	c.http = &http.Server{
		Handler:           c.handler(),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { c.serveErr <- c.http.Serve(c.ln) }()
	return undo, nil
}

// ParseGenesis decodes a subnet-evm genesis the way the subnet-evm VM does
// (default fee config, network upgrades of a local network, Ethereum upgrades
// aligned to them), applying chainID (if non-zero) and prepare (if non-nil)
// before verification.
func ParseGenesis(genesisJSON []byte, chainID uint64, prepare func(*core.Genesis) error) (*core.Genesis, error) {
	g := new(core.Genesis)
	if err := json.Unmarshal(genesisJSON, g); err != nil {
		return nil, fmt.Errorf("devchain: parsing genesis: %w", err)
	}
	if g.Config == nil {
		return nil, errors.New("devchain: genesis has no config")
	}
	if chainID != 0 {
		g.Config.ChainID = new(big.Int).SetUint64(chainID)
	}
	if g.Config.ChainID == nil || g.Config.ChainID.Sign() <= 0 {
		return nil, errors.New("devchain: genesis config needs a positive chainId")
	}
	extra := params.GetExtra(g.Config)
	if extra.FeeConfig == commontype.EmptyFeeConfig {
		extra.FeeConfig = params.DefaultFeeConfig
	}
	// The chain runs as if on a local avalanchego network (tmpnet,
	// --network-id=local): upgrade.Default, every upgrade (Granite included)
	// active from the start. Precompiles see this context through
	// AccessibleState.GetSnowContext; it has no validator state (no warp).
	extra.SnowCtx = &snow.Context{
		NetworkID:       avaconstants.LocalID,
		ChainID:         DevChainID,
		NetworkUpgrades: upgrade.Default,
		Log:             logging.NoLog{},
	}
	extra.NetworkUpgrades.SetDefaults(upgrade.Default)
	if prepare != nil {
		if err := prepare(g); err != nil {
			return nil, fmt.Errorf("devchain: preparing genesis: %w", err)
		}
	}
	if err := g.Verify(); err != nil {
		return nil, fmt.Errorf("devchain: invalid genesis: %w", err)
	}
	if err := params.SetEthUpgrades(g.Config); err != nil {
		return nil, fmt.Errorf("devchain: genesis upgrades: %w", err)
	}
	return g, nil
}

// handler serves JSON-RPC over HTTP POST and over WebSocket on the same port,
// to clients without an Origin (not browsers) and to pages from the allowed
// origins (localhost by default) only.
func (c *Chain) handler() http.Handler {
	// The origin was checked by the guard; the WebSocket handler's own check
	// (exact origins only) is not needed.
	return c.origins.guard(c.rpc, c.rpc.WebsocketHandler([]string{"*"}))
}

// URL is the HTTP JSON-RPC endpoint (also a WebSocket endpoint with ws://).
func (c *Chain) URL() string { return "http://" + c.ln.Addr().String() }

// WSURL is the WebSocket JSON-RPC endpoint.
func (c *Chain) WSURL() string { return "ws://" + c.ln.Addr().String() }

// ChainID is the EVM chain id (EIP-155).
func (c *Chain) ChainID() *big.Int { return new(big.Int).Set(c.chainID) }

// DataDir is the directory holding the chain database.
func (c *Chain) DataDir() string { return c.dataDir }

// Genesis is the parsed, verified genesis the chain was started with. Callers
// must not modify it.
func (c *Chain) Genesis() *core.Genesis { return c.genesis }

// Head is the last block the producer finished: inserted, accepted, indexed,
// and recorded in the datadir. It waits for a block being produced, so once a
// client sees a receipt (the acceptor indexes transactions just before it
// moves BlockChain().LastAcceptedBlock), Head is that block or a later one.
func (c *Chain) Head() *types.Block {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.eth.BlockChain().LastAcceptedBlock()
}

// Backend exposes subnet-evm's eth service, e.g. for in-process subscribers
// (BlockChain().SubscribeChainAcceptedEvent). Do not produce blocks through
// it; use Mine.
func (c *Chain) Backend() *eth.Ethereum { return c.eth }

// Mine produces one block now from whatever is pending (possibly none) and
// returns it once it is accepted.
func (c *Chain) Mine() (*types.Block, error) { return c.produce(true) }

// pendingPoll is how often produceLoop checks for pending transactions that
// no event announced.
const pendingPoll = 250 * time.Millisecond

// txEventBuffer is the capacity of the pool subscription's channel. The pool
// blocks its reorg (and so TxPool.Sync) until every subscriber has taken its
// event; drainArrivals empties the channel whatever the producer is doing.
const txEventBuffer = 64

// produceLoop builds a block whenever transactions become pending, and on the
// optional interval, until Close.
//
// The pool's arrival events are drained on their own goroutine. The producer
// waits for the pool (TxPool.Sync, while it holds c.mu), and the pool's reorg
// waits for its subscribers to take each event: were the producer also the
// subscription's only reader, a burst of arrivals larger than the channel's
// buffer while a block is being built would block the reorg, the Sync, the
// producer, and every evm_mine behind c.mu, for good.
func (c *Chain) produceLoop(interval time.Duration) {
	defer close(c.done)
	txs := make(chan core.NewTxsEvent, txEventBuffer)
	sub := c.eth.TxPool().SubscribeTransactions(txs, true)
	arrived := make(chan struct{}, 1)
	stopDrain, drained := make(chan struct{}), make(chan struct{})
	go drainArrivals(txs, arrived, stopDrain, drained)
	defer func() {
		sub.Unsubscribe() // the feed sends nothing more once this returns
		close(stopDrain)
		<-drained
	}()

	var tick <-chan time.Time
	if interval > 0 {
		t := time.NewTicker(interval)
		defer t.Stop()
		tick = t.C
	}
	// A transaction's event can come before the pool counts it as pending
	// (then produce finds nothing to do and no later event comes): a slow
	// poll builds a block for anything left pending (never an empty one).
	poll := time.NewTicker(pendingPoll)
	defer poll.Stop()
	for {
		var force bool
		select {
		case <-c.quit:
			return
		case <-poll.C:
		case err := <-sub.Err():
			if err != nil {
				c.log.Error("txpool subscription ended", zap.Error(err))
			}
			return
		case <-arrived: // one signal stands for any number of arrivals
		case <-tick:
			force = true
		}
		// Keep building while the pool still has executable transactions
		// (e.g. more than one block's worth of gas).
		for {
			b, err := c.produce(force)
			if errors.Is(err, ErrClosed) {
				return
			}
			if err != nil {
				c.log.Warn("block production failed", zap.Error(err))
				break
			}
			if b == nil || len(b.Transactions()) == 0 {
				break
			}
			force = false
		}
	}
}

// drainArrivals takes every event from txs as soon as the feed sends it and
// turns any number of them into one pending signal on arrived (capacity 1),
// until stop is closed; then it closes done.
func drainArrivals(txs <-chan core.NewTxsEvent, arrived chan<- struct{}, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-txs:
			select {
			case arrived <- struct{}{}:
			default: // a signal is already waiting
			}
		case <-stop:
			return
		}
	}
}

// produce builds, inserts and accepts one block. Without force it returns
// (nil, nil) when nothing is pending.
func (c *Chain) produce(force bool) (*types.Block, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	pool := c.eth.TxPool()
	if err := pool.Sync(); err != nil {
		return nil, fmt.Errorf("txpool sync: %w", err)
	}
	if pending, _ := pool.Stats(); pending == 0 && !force {
		return nil, nil
	}
	if c.beforeBuild != nil {
		c.beforeBuild()
	}
	chain := c.eth.BlockChain()
	parent := chain.CurrentBlock()
	// Wall-clock timestamps, strictly increasing at millisecond resolution
	// (Granite headers carry milliseconds).
	now := time.Now()
	if floor := customtypes.BlockTime(parent).Add(time.Millisecond); now.Before(floor) {
		now = floor
	}
	c.clock.Set(now)

	block, err := c.eth.Miner().GenerateBlock(nil)
	if err != nil {
		return nil, fmt.Errorf("generate block: %w", err)
	}
	if err := chain.InsertBlock(block); err != nil {
		return nil, fmt.Errorf("insert block %d: %w", block.NumberU64(), err)
	}
	// Let the pool catch up with the new head before the block's receipts
	// become visible (at Accept), so a client that sees its receipt and asks
	// for its pending nonce at once gets the new one.
	if err := pool.Sync(); err != nil {
		return nil, fmt.Errorf("txpool sync: %w", err)
	}
	if err := chain.Accept(block); err != nil {
		return nil, fmt.Errorf("accept block %d: %w", block.NumberU64(), err)
	}
	chain.DrainAcceptorQueue()
	if err := c.db.Put(lastAcceptedKey, block.Hash().Bytes()); err != nil {
		return nil, fmt.Errorf("record last accepted: %w", err)
	}
	c.log.Debug("block accepted",
		zap.Uint64("number", block.NumberU64()),
		zap.Int("txs", len(block.Transactions())),
		zap.Uint64("gasUsed", block.GasUsed()),
		zap.Stringer("hash", block.Hash()),
	)
	return block, nil
}

// Close stops the JSON-RPC endpoint and the producer, shuts the chain down
// cleanly (the database is flushed and closed), and removes a temporary data
// directory. It is safe to call more than once.
func (c *Chain) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.close() })
	return c.closeErr
}

func (c *Chain) close() error {
	// Let in-flight requests finish; connections a client opened but never
	// used (Go's transport dials spares) would hold Shutdown for 5 s, so after
	// a short grace period the rest are closed.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var errs []error
	if err := c.http.Shutdown(ctx); err != nil {
		if err := c.http.Close(); err != nil {
			errs = append(errs, fmt.Errorf("http close: %w", err))
		}
	}
	if err := <-c.serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		errs = append(errs, fmt.Errorf("http serve: %w", err))
	}

	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	close(c.quit)
	<-c.done
	c.watchers.Wait()

	c.rpc.Stop()
	if err := c.eth.Stop(); err != nil {
		errs = append(errs, fmt.Errorf("eth stop: %w", err))
	}
	if c.tempDir {
		if err := os.RemoveAll(c.dataDir); err != nil {
			errs = append(errs, fmt.Errorf("remove temp dir: %w", err))
		}
	}
	c.log.Info("devchain stopped", zap.String("datadir", c.dataDir), zap.Bool("removed", c.tempDir))
	return errors.Join(errs...)
}

// noGossip satisfies eth.PushGossiper: there are no peers.
type noGossip struct{}

func (noGossip) Add(*types.Transaction) {}

// evmAPI is the Hardhat/Anvil-style "evm" namespace: evm_mine.
type evmAPI struct{ c *Chain }

// Mine produces a block now (evm_mine) and returns its number.
func (a *evmAPI) Mine() (hexutil.Uint64, error) {
	b, err := a.c.Mine()
	if err != nil {
		return 0, err
	}
	return hexutil.Uint64(b.NumberU64()), nil
}
