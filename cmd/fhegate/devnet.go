package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/subnet-evm/params"
	"github.com/ava-labs/subnet-evm/plugin/evm"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/precompiles/corebackends"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

// registerEVMExtras registers subnet-evm's libevm extras (header, block and
// chain-config payloads). libevm allows it once per process; every command in
// this binary that builds or reads subnet-evm types must call this, never
// evm.RegisterAllLibEVMExtras directly.
var registerEVMExtras = sync.OnceFunc(evm.RegisterAllLibEVMExtras)

// DevCommittee is the in-process MPC committee that `fhegate devnet` runs
// beside the chain (committee_devnet.go).
type DevCommittee interface {
	// Registry is the committee as FHEVerdict's genesis config expects it:
	// the JSON value of "fheVerdictConfig"."committee" (epoch, threshold,
	// members' BLS public keys and proofs of possession).
	Registry() (json.RawMessage, error)
	// Serve runs the committee against the chain's JSON-RPC endpoint
	// (watching requests, posting verdicts) until ctx is cancelled.
	Serve(ctx context.Context, rpcURL string, chainID *big.Int) error
	// Describe says what the committee is for the banner: size, threshold,
	// the preset it holds keys for, and whether the keys were resumed.
	Describe() string
	// Close releases the committee's resources.
	Close() error
}

// devnetBatchWindow is the devnet committee's default packing window in
// blocks. A window closes when its last block is seen (never on a clock,
// consensus/chainio/batch.go); the devnet builds blocks only when transactions
// arrive — a burst's transactions coalesce into a few blocks — so a member
// holding an open window asks the devnet for empty blocks (evm_mine,
// chainio.BlockMaker) after 2 s without one. 16 blocks gather a burst
// into one or two packed batches for ≤ 15 empty blocks per window.
const devnetBatchWindow = 16

type devnetOptions struct {
	host          string
	port          int
	dataDir       string
	chainID       uint64
	genesisFile   string
	blockInterval time.Duration
	committeeN    int
	committeeT    int
	committeePre  string
	batchWindow   uint64        // the committee's packing window in blocks (consensus.MemberConfig.BatchWindow)
	rootWindow    time.Duration // the longest a member's input root waits for uploads in progress (consensus.MemberConfig.RootWindow)
	noCommittee   bool
	devCommittee  bool
	allowOrigins  []string
}

func newDevnetCmd(a *app) *cobra.Command {
	var o devnetOptions
	var gpu gpuFlags
	cmd := &cobra.Command{
		Use:   "devnet",
		Short: "Run a local fhegate chain (subnet-evm, precompiles active) with JSON-RPC on 127.0.0.1:8545",
		Long: `Run a single-process development chain: subnet-evm v0.8.0's EVM with the fhegate
precompiles active, served over HTTP and WebSocket JSON-RPC, producing a block as
soon as a transaction arrives. Funded development accounts (well-known keys) are
printed at start. No node, no docker.

The JSON-RPC serves the eth, net, web3 and txpool namespaces (and evm_mine), not admin,
debug or personal. Browser pages may call it only from localhost origins
(http://localhost:*, http://127.0.0.1:*, http://[::1]:*) unless --rpc-allow-origin adds
others (e.g. a dApp dev server on another host name); clients that send no Origin
header (Go, node, curl) are not affected.

State lives in a temporary directory removed on exit, unless --datadir is given
(then the chain resumes on the next start). Ctrl-C or SIGTERM stops cleanly.`,
		Example: `  fhegate devnet
  fhegate devnet --datadir ~/.fhegate/devnet --http-port 8545
  fhegate devnet --dev-committee --block-interval 2s
  fhegate devnet --committee-preset bgv-n13-t65537 --rpc-allow-origin http://myhost:5173`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !o.noCommittee && !o.devCommittee { // the in-process MPC committee evaluates FHE here
				stopGPU, err := gpu.install(a.Log())
				if err != nil {
					return err
				}
				defer stopGPU()
			}
			return runDevnet(cmd.Context(), a.Log(), cmd.OutOrStdout(), o)
		},
	}
	gpu.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.host, "http-host", "127.0.0.1", "JSON-RPC listen host (0.0.0.0 exposes the dev keys' chain to the network)")
	f.IntVar(&o.port, "http-port", 8545, "JSON-RPC listen port (HTTP and WebSocket); 0 picks a free port")
	f.StringVar(&o.dataDir, "datadir", "", "keep chain state here across restarts (default: temporary, removed on exit)")
	f.Uint64Var(&o.chainID, "chain-id", 0, "EVM chain id (default: the genesis's, 1337)")
	f.StringVar(&o.genesisFile, "genesis", "", "subnet-evm genesis JSON (default: configs/genesis-devnet.json, embedded)")
	f.DurationVar(&o.blockInterval, "block-interval", 0, "also produce (empty) blocks at this interval; 0 = only when transactions arrive")
	f.IntVar(&o.committeeN, "committee-n", 3, "in-process committee size")
	f.IntVar(&o.committeeT, "committee-t", 2, "in-process committee threshold")
	f.StringVar(&o.committeePre, "committee-preset", config.DefaultPreset, "preset the in-process committee holds keys for "+
		"(bgv-n13-t65537: a 4× faster DKG and cheaper verdicts, but comparisons over more than 16 values are unevaluable)")
	f.StringSliceVar(&o.allowOrigins, "rpc-allow-origin", nil, "also accept JSON-RPC (HTTP CORS and WebSocket) from these browser origins, "+
		"scheme://host[:port] with port * for any (repeatable; localhost origins are always accepted; '*' accepts every web page — avoid)")
	f.Uint64Var(&o.batchWindow, "batch-window", devnetBatchWindow, "committee packing window in blocks: a policy's requests in one aligned window are evaluated "+
		"as one packed batch; a window closes when its last block is seen (the devnet builds blocks only when transactions arrive, "+
		"so the committee asks it for empty blocks with evm_mine after 2 s without one)")
	f.DurationVar(&o.rootWindow, "root-window", consensus.DefaultRootWindow, "the longest the committee's member holds an input root open for the rooted uploads in progress "+
		"(it closes once none is left, or after as long as its first upload took to be attested; "+
		"FHEPolicy.evaluateRooted: each root costs its first request one pairing, the others none)")
	f.BoolVar(&o.noCommittee, "no-committee", false, "do not start the in-process committee (FHEVerdict gets only its governance address)")
	f.BoolVar(&o.devCommittee, "dev-committee", false, "register the well-known, insecure development committee (public BLS keys, devchain.DevCommittee) "+
		"instead of running the MPC committee: clients attest inputs and sign verdicts themselves (examples/go)")
	return cmd
}

// runDevnet runs the devnet until ctx is cancelled: the in-process
// committee (unless --no-committee or --dev-committee), the chain, and the
// banner on out.
func runDevnet(ctx context.Context, log *zap.Logger, out io.Writer, o devnetOptions) error {
	d, err := startDevnet(ctx, log, o)
	if err != nil {
		return err
	}
	printBanner(out, d.chain, o, d.committeeNote, d.committeeAPI, d.dataDir)
	<-ctx.Done()
	fmt.Fprintln(out, "\nstopping devnet…")
	d.close()
	return nil
}

// devnet is a started devnet (runDevnet, and `fhegate bench load` without
// --rpc).
type devnet struct {
	chain                       *devchain.Chain
	committeeAPI, committeeNote string
	dataDir                     string
	close                       func() // stops the committee, then the chain; removes a temporary data directory
	// bounce kills an in-process committee member and restarts it after
	// down (devCommittee.Bounce); nil without an in-process committee.
	bounce func(ctx context.Context, member uint32, down time.Duration) error
}

// startDevnet starts the devnet's committee and chain; the committee serves
// until ctx is cancelled or close is called.
func startDevnet(ctx context.Context, log *zap.Logger, o devnetOptions) (*devnet, error) {
	genesis, err := devnetGenesis(o)
	if err != nil {
		return nil, err
	}
	// One directory holds the chain database and the committee's state:
	// --datadir, or a temporary directory removed on exit.
	d := &devnet{dataDir: o.dataDir}
	var cleanup []func()
	d.close = func() {
		for i := len(cleanup) - 1; i >= 0; i-- {
			cleanup[i]()
		}
	}
	if d.dataDir == "" {
		tmp, err := os.MkdirTemp("", "fhegate-devnet-")
		if err != nil {
			return nil, err
		}
		cleanup = append(cleanup, func() { os.RemoveAll(tmp) })
		d.dataDir = tmp
	}
	// Committee first: its keys go into FHEVerdict's genesis registry.
	committee, genesis, note, err := devnetCommittee(ctx, log, o, genesis, d.dataDir)
	if err != nil {
		d.close()
		return nil, err
	}
	d.committeeNote = note
	if committee != nil {
		cleanup = append(cleanup, func() { committee.Close() })
		// The DKG is a one-time burst (key shares, transcripts, the
		// self-test): hand its freed pages back to the OS now rather than
		// when the runtime's background scavenger gets to them, minutes later.
		debug.FreeOSMemory()
	}
	d.chain, err = devchain.New(devchain.Config{
		Genesis:       genesis,
		ChainID:       o.chainID,
		DataDir:       d.dataDir,
		HTTPAddr:      net.JoinHostPort(o.host, strconv.Itoa(o.port)),
		BlockInterval: o.blockInterval,
		AllowOrigins:  o.allowOrigins,
		Logger:        log,
	})
	if err != nil {
		d.close()
		return nil, err
	}
	cleanup = append(cleanup, func() {
		if cerr := d.chain.Close(); cerr != nil {
			log.Error("devnet shutdown", zap.Error(cerr))
		}
	})
	if committee != nil {
		d.serveCommittee(ctx, log, committee, &cleanup)
		if b, ok := committee.(interface {
			Bounce(context.Context, uint32, time.Duration) error
		}); ok {
			d.bounce = b.Bounce
		}
	}
	return d, nil
}

// serveCommittee runs the committee against the chain until ctx is
// cancelled or the devnet closes, and waits (up to 10 s) for its client
// API address.
func (d *devnet) serveCommittee(ctx context.Context, log *zap.Logger, committee DevCommittee, cleanup *[]func()) {
	// A warm start (--datadir) finds the last run's address: remove it so
	// that waitCommitteeAPI sees this run's.
	_ = os.Remove(filepath.Join(d.dataDir, "committee", "api.addr"))
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := committee.Serve(ctx, d.chain.URL(), d.chain.ChainID()); err != nil && ctx.Err() == nil {
			log.Error("committee stopped", zap.Error(err))
		}
	}()
	*cleanup = append(*cleanup, func() { cancel(); wg.Wait() })
	if d.committeeAPI = waitCommitteeAPI(ctx, d.dataDir); d.committeeAPI != "" {
		d.committeeNote = committee.Describe() + "; registered in FHEVerdict at genesis"
	}
}

// devnetGenesis checks the devnet's flags, installs the precompile backends
// and returns the base genesis (--genesis, or the embedded one).
func devnetGenesis(o devnetOptions) ([]byte, error) {
	registerEVMExtras()
	// Same precompile backends as the VM plugin (cmd/fhegate-vm).
	if err := subnetevm.SetBackends(corebackends.Policy{}, corebackends.CRDTMeta{}); err != nil {
		return nil, fmt.Errorf("precompile backends: %w", err)
	}
	if o.port < 0 || o.port > 65535 {
		return nil, usageErrorf("--http-port %d: out of range", o.port)
	}
	if err := devchain.ValidateOrigins(o.allowOrigins); err != nil {
		return nil, fmt.Errorf("--rpc-allow-origin: %w", err)
	}
	genesis := configs.DevnetGenesis()
	if o.genesisFile != "" {
		var err error
		if genesis, err = os.ReadFile(o.genesisFile); err != nil {
			return nil, fmt.Errorf("--genesis: %w", err)
		}
	}
	return genesis, nil
}

// devnetCommittee sets up the devnet's committee and registers it in
// genesis: none (--no-committee), the well-known development committee
// (--dev-committee), or the in-process MPC committee under dataDir (nil
// otherwise). It returns the committee to serve (nil for the first two), the
// genesis and the banner's note.
func devnetCommittee(ctx context.Context, log *zap.Logger, o devnetOptions, genesis []byte, dataDir string) (DevCommittee, []byte, string, error) {
	switch {
	case o.noCommittee:
		return nil, genesis, "none (--no-committee): FHEVerdict has only its governance address", nil
	case o.devCommittee:
		// The well-known development committee: public keys, so clients
		// attest inputs and post verdicts themselves (examples/go).
		dev := devchain.DevCommittee()
		genesis, err := configs.WithCommittee(genesis, dev.Registry())
		if err != nil {
			return nil, nil, "", err
		}
		return nil, genesis, fmt.Sprintf("well-known DEV committee (epoch %d, %d BLS keys, t=%d; devchain.DevCommittee): "+
			"INSECURE public keys — clients sign attestations and verdicts themselves, see examples/go", dev.Epoch, dev.Size(), dev.Threshold), nil
	}
	if o.dataDir != "" {
		_, chainErr := os.Stat(filepath.Join(o.dataDir, "chaindata"))
		if chainErr == nil && !local.HasState(filepath.Join(o.dataDir, "committee")) {
			// The committee's keys are part of the genesis state: a chain
			// without the committee that made it cannot resume with one.
			return nil, nil, "", fmt.Errorf("--datadir %s holds a chain but no in-process committee state: resume it with "+
				"--dev-committee or --no-committee if it was created with that flag, or use a new --datadir", o.dataDir)
		}
	}
	if o.committeeT < 1 || o.committeeT > o.committeeN {
		return nil, nil, "", fmt.Errorf("committee threshold %d out of range for %d members", o.committeeT, o.committeeN)
	}
	committee, err := newLocalDevCommittee(ctx, log, o, dataDir)
	if err != nil {
		return nil, nil, "", fmt.Errorf("committee: %w", err)
	}
	reg, err := committee.Registry()
	if err == nil {
		genesis, err = configs.WithCommittee(genesis, reg)
	} else {
		err = fmt.Errorf("committee registry: %w", err)
	}
	if err != nil {
		committee.Close()
		return nil, nil, "", err
	}
	return committee, genesis, committee.Describe() + "; registered in FHEVerdict at genesis; client API address in " +
		filepath.Join(dataDir, "committee", "api.addr"), nil
}

// waitCommitteeAPI waits (up to 10 s) for the in-process committee to write
// its client API address under dataDir and returns it ("" if it did not).
func waitCommitteeAPI(ctx context.Context, dataDir string) string {
	addrFile := filepath.Join(dataDir, "committee", "api.addr")
	for i := 0; i < 100 && ctx.Err() == nil; i++ {
		if b, err := os.ReadFile(addrFile); err == nil && len(b) > 0 {
			return strings.TrimSpace(string(b))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return ""
}

// The precompiles and their genesis config keys (docs/precompiles.md).
var devnetPrecompiles = []struct {
	name, key string
	addr      common.Address
}{
	{"FHEInput", subnetevm.InputConfigKey, subnetevm.InputAddress},
	{"FHEPolicy", subnetevm.PolicyConfigKey, subnetevm.PolicyAddress},
	{"FHECRDT", subnetevm.CRDTConfigKey, subnetevm.CRDTAddress},
	{"FHEVerdict", subnetevm.VerdictConfigKey, subnetevm.VerdictAddress},
}

func printBanner(w io.Writer, chain *devchain.Chain, o devnetOptions, committeeNote, committeeAPI, dataDir string) {
	// One Write for the whole banner: whoever reads the output while the
	// devnet runs (a terminal multiplexer, a test, a supervisor that
	// scrapes the RPC URL) never sees half of it.
	out := new(bytes.Buffer)
	defer func() { _, _ = w.Write(out.Bytes()) }()
	id := chain.ChainID()
	state := chain.DataDir() + " (temporary: removed on exit; --datadir keeps it)"
	if o.dataDir != "" {
		state = chain.DataDir() + " (kept)"
	}
	fmt.Fprintf(out, "\nfhegate devnet — subnet-evm v0.8.0 chain with the fhegate precompiles\n\n")
	fmt.Fprintf(out, "  JSON-RPC   %s\n", chain.URL())
	fmt.Fprintf(out, "  WebSocket  %s\n", chain.WSURL())
	fmt.Fprintf(out, "  Origins    %s (browser pages; --rpc-allow-origin adds)\n",
		strings.Join(append(append([]string(nil), devchain.DefaultAllowOrigins...), o.allowOrigins...), ", "))
	fmt.Fprintf(out, "  Chain ID   %s (0x%x)\n", id, id)
	fmt.Fprintf(out, "  Head       block %d\n", chain.Head().NumberU64())
	fmt.Fprintf(out, "  State      %s\n", state)
	fmt.Fprintf(out, "  Committee  %s\n", committeeNote)
	if committeeAPI != "" {
		fmt.Fprintf(out, "  Committee API  %s  (public key: %s)\n", committeeAPI, filepath.Join(dataDir, "committee", "committee.pk"))
	}
	fmt.Fprintln(out)

	active := params.GetExtra(chain.Genesis().Config).GenesisPrecompiles
	fmt.Fprintf(out, "Precompiles\n")
	for _, p := range devnetPrecompiles {
		status := "active from genesis"
		if _, ok := active[p.key]; !ok {
			status = "NOT ACTIVE (not enabled in the genesis config)"
		}
		fmt.Fprintf(out, "  %-11s %s  %s\n", p.name, strings.ToLower(p.addr.Hex()), status)
	}

	fmt.Fprintf(out, "\nDev accounts (well-known public keys: NEVER use them on a real network)\n")
	alloc := chain.Genesis().Alloc
	for i, a := range devchain.DevAccounts() {
		bal := "unfunded"
		if acct, ok := alloc[a.Address]; ok && acct.Balance != nil {
			bal = new(big.Int).Div(acct.Balance, big.NewInt(1e18)).String() + " ETH"
		}
		fmt.Fprintf(out, "  (%2d) %s  %s  %s\n", i, a.Address.Hex(), a.KeyHex(), bal)
	}
	fmt.Fprintf(out, "\nTry it:\n")
	fmt.Fprintf(out, "  curl -s -X POST -H 'Content-Type: application/json' --data '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_blockNumber\",\"params\":[]}' %s\n", chain.URL())
	switch {
	case committeeAPI != "":
		fmt.Fprintf(out, "  go run ./cmd/fhegate encrypt --key %s --values 5 --submit %s --owner 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n",
			filepath.Join(dataDir, "committee", "committee.pk"), committeeAPI)
		fmt.Fprintf(out, "  go run ./examples/go --rpc %s --committee-api %s\n", chain.URL(), committeeAPI)
		fmt.Fprintf(out, "  go run ./examples/policies --rpc %s --committee-api %s   # every shipped policy, KYC/AML and deep ones included\n", chain.URL(), committeeAPI)
		fmt.Fprintf(out, "  (cd examples/js && npm ci && RPC_URL=%s FHEGATE_DATADIR=%s npm start)\n", chain.URL(), dataDir)
	case o.devCommittee:
		fmt.Fprintf(out, "  go run ./examples/go --rpc %s --dev-committee\n", chain.URL())
	}
	fmt.Fprintf(out, "\nBlocks are produced as transactions arrive. Ctrl-C stops the devnet.\n")
}
