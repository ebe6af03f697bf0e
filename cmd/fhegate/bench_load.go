package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/internal/loadgen"
)

type benchLoadOptions struct {
	cfg          loadgen.Config
	jsonPath     string
	pids         []int
	dataDir      string
	committeePre string
	committeeN   int
	committeeT   int
	rootWindow   time.Duration
}

func newBenchLoadCmd(a *app) *cobra.Command {
	var o benchLoadOptions
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Load generator: N accounts send M policy requests (KYC/AML) against a chain and its committee",
		Long: `N derived accounts (funded from dev0) send M requests in all for a shipped policy: each encrypts
random in-range attributes with proofs of plaintext knowledge under the committee key, uploads them
for attestations and registers them (phase 1), then every account sends its FHEPolicy.evaluate
transactions at once and the run waits for every verdict (phase 2). Every verdict is read with
verdictOf and checked against the plaintext reference (the policy document evaluated over the
integers); a mismatch fails the command.

With --rate and --duration phase 2 is paced instead: request k is sent k/rate seconds after the
phase starts (a steady load; rate × duration requests in all).

It reports accepted requests/s, verdicts/s, the latency from evaluate on chain to verdictOf
(p50/p95/p99), how many verdicts each committee member signed (from the verdict transactions'
signer bitmaps), gas per request by step (register, evaluate, share of the verdict transaction),
committee CPU per verdict and the bottleneck: the stage with the lowest capacity in requests/s
(chain gas per block, committee, inputs), with the RPC round trip beside them.

Without --rpc it starts an in-process devnet (the code path of fhegate devnet, JSON-RPC on a free
loopback port, in-process MPC committee); committee CPU is then this process's CPU over phase 2
(committee + chain + the clients' polling). With --rpc, --committee-pid gives the committee
processes whose CPU (/proc/<pid>/stat) is measured.`,
		Example: `  fhegate bench load --accounts 4 --requests 16
  fhegate bench load --policy allowlist --accounts 4 --requests 64 --json docs/results/load-allowlist.json
  fhegate bench load --policy kyc_aml --accounts 8 --inputs vector --rate 1 --duration 2m
  fhegate bench load --rpc http://127.0.0.1:8545 --committee-api http://127.0.0.1:40123 --accounts 8 --requests 64`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBenchLoad(cmd.Context(), a.Log(), cmd.OutOrStdout(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.cfg.RPC, "rpc", "", "JSON-RPC URL of the chain (default: start an in-process devnet)")
	f.StringVar(&o.cfg.CommitteeAPI, "committee-api", "", "a committee member's client API URL (with --rpc)")
	f.IntVar(&o.cfg.Accounts, "accounts", 4, "sending accounts (derived keys, funded from dev0)")
	f.IntVar(&o.cfg.Requests, "requests", 16, "requests in all (request k from account k mod --accounts; a paced run sends --rate × --duration instead)")
	f.Float64Var(&o.cfg.Rate, "rate", 0, "paced mode: send evaluations at this many requests/s (request k at k/rate s) for --duration instead of all at once")
	f.DurationVar(&o.cfg.Duration, "duration", 0, "paced mode: how long to send at --rate (the run then waits for the last verdicts)")
	f.StringVar(&o.cfg.Policy, "policy", "kyc_aml", "shipped policy example (fhegate policy list)")
	f.Uint64Var(&o.cfg.Seed, "seed", 0, "seed for the random inputs (0: a fresh one, printed)")
	f.IntVar(&o.cfg.InFlight, "inflight", 16, "transactions in flight per account")
	f.StringVar((*string)(&o.cfg.Inputs), "inputs", string(loadgen.InputsRooted), "how inputs reach the chain: rooted (uploads under a committee-signed input root, FHEPolicy.evaluateRooted, one transaction), vector (rooted, with all of a request's attributes in one vector input: one handle, one proof), set (FHEInput.registerSet, then evaluate), per-handle (registerBatch, then evaluate) or inline (FHEPolicy.evaluateAttested, one transaction)")
	f.DurationVar(&o.rootWindow, "root-window", consensus.DefaultRootWindow, "in-process devnet: how long the committee's member collects uploads into one input root (each root costs its first request one pairing)")
	f.DurationVar(&o.cfg.Timeout, "timeout", 30*time.Minute, "give up after this long")
	f.IntSliceVar(&o.pids, "committee-pid", nil, "with --rpc: committee member process ids whose CPU to measure (repeatable)")
	f.StringVar(&o.jsonPath, "json", "", "also write the result as JSON to this file (- for stdout)")
	f.StringVar(&o.dataDir, "datadir", "", "in-process devnet: keep chain and committee keys here (a second run skips the DKG)")
	f.StringVar(&o.committeePre, "committee-preset", config.DefaultPreset, "in-process devnet: the committee's preset")
	f.IntVar(&o.committeeN, "committee-n", 3, "in-process devnet: committee size")
	f.IntVar(&o.committeeT, "committee-t", 2, "in-process devnet: committee threshold")
	return cmd
}

func runBenchLoad(ctx context.Context, log *zap.Logger, out io.Writer, o benchLoadOptions) error {
	cfg := o.cfg
	cfg.Progress = out
	switch {
	case cfg.RPC == "":
		if cfg.CommitteeAPI != "" || len(o.pids) > 0 {
			return usageErrorf("--committee-api and --committee-pid need --rpc (without it the devnet's own committee is used)")
		}
		fmt.Fprintf(out, "load: starting an in-process devnet (committee n=%d t=%d, %s)…\n", o.committeeN, o.committeeT, o.committeePre)
		d, err := startDevnet(ctx, log, devnetOptions{host: "127.0.0.1", port: 0, dataDir: o.dataDir,
			committeeN: o.committeeN, committeeT: o.committeeT, committeePre: o.committeePre, batchWindow: devnetBatchWindow,
			rootWindow: o.rootWindow})
		if err != nil {
			return err
		}
		defer d.close()
		if d.committeeAPI == "" {
			return fmt.Errorf("the in-process committee did not start its client API")
		}
		cfg.RPC, cfg.CommitteeAPI = d.chain.URL(), d.committeeAPI
		fmt.Fprintf(out, "load: devnet %s, committee API %s (%s)\n", cfg.RPC, cfg.CommitteeAPI, d.committeeNote)
		cfg.CommitteeCPU = func() (time.Duration, error) { return cpuTime(), nil }
		cfg.CPUSource = "process CPU of this process (in-process devnet: committee + chain + load clients' polling)"
	case cfg.CommitteeAPI == "":
		return usageErrorf("--rpc needs --committee-api")
	case len(o.pids) > 0:
		cfg.CommitteeCPU = loadgen.ProcessCPU(o.pids)
		cfg.CPUSource = fmt.Sprintf("/proc CPU of committee processes %v", o.pids)
	}
	res, err := loadgen.Run(ctx, cfg)
	if res != nil && o.jsonPath != "" {
		if werr := writeJSON(out, o.jsonPath, res); werr != nil {
			return werr
		}
	}
	return err
}
