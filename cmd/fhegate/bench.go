package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bench/committee"
	benchcrdt "github.com/fhegate/fhegate/bench/crdt"
	"github.com/fhegate/fhegate/bench/inputs"
	"github.com/fhegate/fhegate/bench/load"
	benchpolicy "github.com/fhegate/fhegate/bench/policy"
	"github.com/fhegate/fhegate/bench/workloads"
	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/fhe"
)

// The bench commands: flags and help only. What each measures, and how, is
// its package under bench/ (bench/doc.go has the map).

func newBenchCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Reproduce the measurements in docs/LP-137.md (workloads, policy, crdt, committee, inputs, load)",
		Long: `Each bench subcommand measures one area in this process, prints a table and, with --json FILE,
writes machine-readable results. Baselines are measured in the same run: compare ratios, not
absolute times, across machines.`,
	}
	cmd.AddCommand(
		newBenchCommitteeCmd(a),
		newBenchCRDTCmd(a),
		newBenchInputsCmd(a),
		newBenchLoadCmd(a),
		newBenchPolicyCmd(a),
		newBenchWorkloadsCmd(a),
	)
	return cmd
}

// inputsQuickRuns are the runs per row of `fhegate bench inputs --quick`.
const inputsQuickRuns = 3

// inputsRuns is --runs, or inputsQuickRuns under --quick where --runs is
// not given explicitly.
func inputsRuns(fl flagSet, quick bool, runs int) int {
	if quick && !fl.Changed("runs") {
		return inputsQuickRuns
	}
	return runs
}

func newBenchInputsCmd(a *app) *cobra.Command {
	var (
		c     inputs.Command
		quick bool
	)
	cmd := &cobra.Command{
		Use:   "inputs",
		Short: "Input proofs of plaintext knowledge (fhe/zkpok): prove and verify time, proof size per ciphertext",
		Long: `Measures, for bgv-n13-t65537 and bgv-n14-t65537, encrypting one ciphertext with its proof of
plaintext knowledge (client side), verifying the proof (every committee member, per upload) and the
proof size, beside a plain public-key encryption; soundness_bits is −log2 of the proof's knowledge
error (r repetitions of 2N monomial challenges). Medians of --runs runs (default 11, --quick 3).
Published figures of the protocol family are in the fhe/zkpok package doc.`,
		Example: `  fhegate bench inputs
  fhegate bench inputs --quick
  fhegate bench inputs --runs 11 --json docs/results/inputs.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c.Log, c.Stdout, c.Stderr = a.Log(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			c.Runs = inputsRuns(cmd.Flags(), quick, c.Runs)
			return c.Run()
		},
	}
	cmd.Flags().StringVar(&c.JSONPath, "json", "", "write results as JSON to FILE (- for stdout)")
	cmd.Flags().IntVar(&c.Runs, "runs", 11, "timed runs per row (median reported)")
	cmd.Flags().BoolVar(&quick, "quick", false, fmt.Sprintf("%d runs per row instead of 11 (a --runs given wins)", inputsQuickRuns))
	return cmd
}

func newBenchPolicyCmd(a *app) *cobra.Command {
	var (
		c  benchpolicy.Command
		gf gpuFlags
	)
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Policy engine: one request and per packed decision for the example policies, against Lux's 5.41 s",
		Long: `For each example policy (policy/examples): compile, generate a single-party key for the plan's
preset, encrypt a full ciphertext set of random in-range decisions (slot i of input j = input j of
decision i: 8192 on BGVN13, 16384 on BGVN14) and time one evaluation single-threaded
(GOMAXPROCS=1): request_ms is the wall time of that evaluation, which is also the cost of a single
request (the plan is slot-wise), and per_decision_ms = request_ms / decisions_per_ct. Best of 3
(--quick: 1). Every verdict is decrypted and checked against plan.EvalPlain. A plan's refresh points
(credit_limit and kyc_aml have them: plans stay above the preset's refresh floor) go through a
stand-in for the committee's collective refresh — decrypt and re-encrypt with the bench key, once per
distinct ciphertext, so repetitions and the pure-Go baseline reuse it and best-of times the
evaluation alone; the collective refresh is priced separately (policy/costs.json refresh_us).

The routed evaluation gathers (unless --sequential): every op starts as soon as its operands are
ready and the engine's transforms of all ops that can proceed together (and of the independent
products of a polynomial's power basis and giant steps) reach the gate as one batch per step.
The gate columns: transforms and batches per evaluation, the batch size in per-limb polynomials
(median, p95 and mean over calls) and the batch the median transform travelled in.`,
		Example: `  fhegate bench policy --json docs/results/policy.json
  fhegate bench policy --quick --policy kyc_aml,credit_limit`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c.Gate, c.Log, c.Out = gf.install, a.Log(), cmd.OutOrStdout()
			return c.Run(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&c.JSONPath, "json", "", "write the results as JSON to this file (- for stdout)")
	cmd.Flags().BoolVar(&c.Quick, "quick", false, "one repetition instead of best of 3")
	cmd.Flags().BoolVar(&c.Sequential, "sequential", false, "evaluate op after op (each key switch hands the gate its own batches) instead of gathering the transforms of every ready op (eval.Options.Gather); the pure-Go baseline is sequential either way")
	cmd.Flags().StringSliceVar(&c.Names, "policy", nil, "example policies to run (default: all)")
	cmd.Flags().BoolVar(&c.Wide, "wide", false, "measure wide unsigned integers instead: 8/16/32/64-bit comparisons with a constant and with each other, and a 1,000-entry 16-bit list (--policy selects among cmp8_const … cmp64_xy, list1000)")
	cmd.Flags().StringVar(&c.Shapes, "shapes", "", "write the engine's batch shapes (N, moduli, B, direction) of all runs as JSON to this file (input of fhegate calibrate --shapes)")
	cmd.Flags().StringVar(&c.Profile, "cpuprofile", "", "write a Go CPU profile of the run to FILE; the routed evaluations carry the pprof label eval=routed, the pure-Go baseline eval=go (go tool pprof -tagfocus eval=routed)")
	gf.register(cmd)
	return cmd
}

func newBenchWorkloadsCmd(a *app) *cobra.Command {
	var (
		c       workloads.Command
		quick   bool
		bgvName string
		gf      gpuFlags
	)
	cmd := &cobra.Command{
		Use:   "workloads",
		Short: "Six encrypted workloads, baseline Lattigo vs same-level Lattigo vs fhegate, single-threaded, with max error vs plaintext",
		Long: `Runs mul_pipeline, slot_sum_64, dot_64, square, dense_64x4 (CKKS N=2^13, preset ckks-n13-s40) and
bgv_dot_128 (BGV N=2^13, preset bgv-n13-t65537), each as "baseline" (straightforward Lattigo calls at the
preset), "same-level" (the same plain Lattigo calls at fhegate's input and output levels, e.g.
mul_pipeline multiplies at level 1 and ends at level 0 instead of 3 → 2) and "fhegate" (the engine's
best, see bench/workloads), plus fhegate once more with every engine transform on Lattigo's Go NTT
(baseline_go_ms: the pure-Go baseline of the backend in force, --gpu-backend / --gpu-table),
interleaved in this process with GOMAXPROCS(1) during timing. baseline/same-level is the gain of the
level choice, same-level/fhegate the gain of fhegate's algorithms at equal levels. Each row also
carries the backend in force and the engine's counters over the fhegate runs (routed fraction,
median and p95 batch size). Reports the median of --runs runs (default 15, --quick 5), the maximum
absolute error against a plaintext reference (BGV: exact), and for the reduction workloads the
amortised time per instance when the ciphertext is packed with independent instances (throughput,
not latency). Only the evaluation is timed: key generation, encryption, encoding of plaintext
operands and decryption are not.`,
		Example: `  fhegate bench workloads --json docs/results/workloads.json
  fhegate bench workloads --only bgv_dot_128 --bgv-preset bgv-n14-t65537 --json docs/results/workloads_bgv_n14.json
  fhegate bench workloads --quick --only square,dot_64`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("runs") && quick {
				c.Runs = 5
			}
			bgvPreset, err := fhe.PresetByName(bgvName)
			if err != nil {
				return err
			}
			if bgvPreset.Scheme != fhe.SchemeBGV {
				return usageErrorf("--bgv-preset %s is not a BGV preset", bgvName)
			}
			c.BGVPreset, c.Gate = bgvPreset.ID, gf.install
			c.Log, c.Stdout, c.Stderr = a.Log(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			return c.Run()
		},
	}
	cmd.Flags().StringVar(&c.JSONPath, "json", "", "write results as JSON to FILE (\"-\" for stdout)")
	cmd.Flags().BoolVar(&quick, "quick", false, "5 runs per variant instead of 15")
	cmd.Flags().IntVar(&c.Runs, "runs", 15, "timed runs per variant (median reported)")
	cmd.Flags().StringSliceVar(&c.Names, "only", nil, "run only these workloads (comma-separated names)")
	cmd.Flags().StringVar(&c.Shapes, "shapes", "", "write the engine's batch shapes (N, moduli, B, direction) as JSON to this file (input of fhegate calibrate --shapes)")
	gf.register(cmd)
	cmd.Flags().StringVar(&bgvName, "bgv-preset", "bgv-n13-t65537", "preset for bgv_dot_128 (bgv-n14-t65537: the ring Opaque-Go's 1.57 MB ciphertexts imply)")
	return cmd
}

func newBenchCRDTCmd(a *app) *cobra.Command {
	var c benchcrdt.Command
	cmd := &cobra.Command{
		Use:   "crdt",
		Short: "Encrypted CRDT merges on BGVN14 (16384 lanes): materialisation, metadata merge, reads, baselines",
		Long: `Measures, on preset bgv-n14-t65537 with GOMAXPROCS(1) during timing, the committee-side
materialisation of a merge of two 16384-lane states (G-/PN-Counter, LWW register and map, add-wins
set), the on-chain metadata merge (meta.MergePlan), the normalisation of one writer ciphertext, the
counter and set reads, and two baselines: a mask select of two packed ciphertexts and an OR union
(a + b − a·b). Each merge is checked once by decryption against a plaintext model before it is
timed. Medians of --runs runs (default 21, --quick 7); merges_per_s counts metadata + ciphertext.`,
		Example: `  fhegate bench crdt --json docs/results/crdt.json
  fhegate bench crdt --quick`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("runs") && c.Quick {
				c.Runs = 7
			}
			c.Log, c.Stdout, c.Stderr = a.Log(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			return c.Run()
		},
	}
	cmd.Flags().StringVar(&c.JSONPath, "json", "", "write results as JSON to FILE (- for stdout)")
	cmd.Flags().BoolVar(&c.Quick, "quick", false, "fewer runs, skip the ct×ct OR-union baseline and the 128-replica row")
	cmd.Flags().IntVar(&c.Runs, "runs", 21, "timed runs per row (median reported)")
	return cmd
}

// benchLoadFlags are the command line of `fhegate bench load`: the load
// and, without --rpc, the in-process devnet it runs against.
type benchLoadFlags struct {
	c            load.Command
	dataDir      string
	committeePre string
	committeeN   int
	committeeT   int
	rootWindow   time.Duration
}

func newBenchLoadCmd(a *app) *cobra.Command {
	var o benchLoadFlags
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
processes whose CPU (/proc/<pid>/stat) is measured.

--kill-member injects a fault where users run: once a request is on chain and --kill-after verdicts
are in (others still missing), that in-process member is killed abruptly (transport, serve loop and client API gone mid-round; its store stays on disk) and
restarted on its store --kill-for later. The run passes only if every request is still answered with
its reference verdict; the fault and its times are in the summary and the JSON ("fault").`,
		Example: `  fhegate bench load --accounts 4 --requests 16
  fhegate bench load --policy allowlist --accounts 4 --requests 64 --json docs/results/load-allowlist.json
  fhegate bench load --policy kyc_aml --accounts 8 --inputs vector --rate 1 --duration 2m
  fhegate bench load --policy allowlist --accounts 4 --requests 32 --kill-member 3 --kill-for 20s
  fhegate bench load --rpc http://127.0.0.1:8545 --committee-api http://127.0.0.1:40123 --accounts 8 --requests 64`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBenchLoad(cmd.Context(), a.Log(), cmd.OutOrStdout(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.c.Config.RPC, "rpc", "", "JSON-RPC URL of the chain (default: start an in-process devnet)")
	f.StringVar(&o.c.Config.CommitteeAPI, "committee-api", "", "a committee member's client API URL (with --rpc)")
	f.IntVar(&o.c.Config.Accounts, "accounts", 4, "sending accounts (derived keys, funded from dev0)")
	f.IntVar(&o.c.Config.Requests, "requests", 16, "requests in all (request k from account k mod --accounts; a paced run sends --rate × --duration instead)")
	f.Float64Var(&o.c.Config.Rate, "rate", 0, "paced mode: send evaluations at this many requests/s (request k at k/rate s) for --duration instead of all at once")
	f.DurationVar(&o.c.Config.Duration, "duration", 0, "paced mode: how long to send at --rate (the run then waits for the last verdicts)")
	f.StringVar(&o.c.Config.Policy, "policy", "kyc_aml", "shipped policy example (fhegate policy list)")
	f.Uint64Var(&o.c.Config.Seed, "seed", 0, "seed for the random inputs (0: a fresh one, printed)")
	f.IntVar(&o.c.Config.Offenders, "offenders", 0, "requests (spread over the run) whose attributes are outside their declared ranges: each must be answered ResultRejectedInput and forfeit its deposit, the others keep their reference verdicts and get their deposits back")
	f.IntVar(&o.c.Config.InFlight, "inflight", 16, "transactions in flight per account")
	f.StringVar((*string)(&o.c.Config.Inputs), "inputs", string(load.InputsRooted), "how inputs reach the chain: rooted (uploads under a committee-signed input root, FHEPolicy.evaluateRooted, one transaction), vector (rooted, with all of a request's attributes in one vector input: one handle, one proof), set (FHEInput.registerSet, then evaluate), per-handle (registerBatch, then evaluate) or inline (FHEPolicy.evaluateAttested, one transaction)")
	f.DurationVar(&o.rootWindow, "root-window", consensus.DefaultRootWindow, "in-process devnet: the longest the committee's member holds an input root open for the uploads in progress (it closes once none is left, or after as long as its first upload took to be attested; each root costs its first request one pairing)")
	f.DurationVar(&o.c.Config.Timeout, "timeout", 30*time.Minute, "give up after this long")
	f.IntSliceVar(&o.c.PIDs, "committee-pid", nil, "with --rpc: committee member process ids whose CPU to measure (repeatable)")
	f.StringVar(&o.c.JSONPath, "json", "", "also write the result as JSON to this file (- for stdout)")
	f.StringVar(&o.dataDir, "datadir", "", "in-process devnet: keep chain and committee keys here (a second run skips the DKG)")
	f.StringVar(&o.committeePre, "committee-preset", config.DefaultPreset, "in-process devnet: the committee's preset")
	f.IntVar(&o.committeeN, "committee-n", 3, "in-process devnet: committee size")
	f.IntVar(&o.committeeT, "committee-t", 2, "in-process devnet: committee threshold")
	f.Uint32Var(&o.c.KillMember, "kill-member", 0, "in-process devnet: kill this committee member mid-batch (once a request is on chain and --kill-after "+
		"verdicts are in) and restart it on its store after --kill-for; the run still needs every verdict, correct")
	f.IntVar(&o.c.Config.FaultAfter, "kill-after", 0, "with --kill-member: verdicts in before the kill (fewer than --requests)")
	f.DurationVar(&o.c.KillFor, "kill-for", 0, fmt.Sprintf("how long the member killed by --kill-member stays down (default %s)", load.DefaultKillFor))
	return cmd
}

// runBenchLoad runs the load, without --rpc against an in-process devnet
// (startDevnet, the code path of fhegate devnet, on a free loopback port).
func runBenchLoad(ctx context.Context, log *zap.Logger, out io.Writer, o benchLoadFlags) error {
	c := o.c
	c.Out = out
	c.StartDevnet = func(ctx context.Context) (*load.Devnet, error) {
		fmt.Fprintf(out, "load: starting an in-process devnet (committee n=%d t=%d, %s)…\n", o.committeeN, o.committeeT, o.committeePre)
		d, err := startDevnet(ctx, log, devnetOptions{host: "127.0.0.1", port: 0, dataDir: o.dataDir,
			committeeN: o.committeeN, committeeT: o.committeeT, committeePre: o.committeePre, batchWindow: devnetBatchWindow,
			rootWindow: o.rootWindow})
		if err != nil {
			return nil, err
		}
		return &load.Devnet{RPC: d.chain.URL(), CommitteeAPI: d.committeeAPI, Note: d.committeeNote, Close: d.close, Bounce: d.bounce}, nil
	}
	return c.Run(ctx)
}

const benchCommitteeLong = `Starts an in-process committee of n members (default 5, threshold 3) talking TLS 1.3 over loopback,
each with its own bbolt store and share ledger, and measures on each preset:

  dkg        distributed key generation: collective public key, relinearisation key, the default
             Galois keys (powers of two), t-of-n thresholdisation, digest comparison
  upload     one ciphertext uploaded, replicated and attested (quorum BLS signature)
  verdict    one request end to end on every member: evaluation (one multiplication), result-digest
             agreement, slot mask, threshold decryption with noise flooding at the decryption level,
             robust combination, BLS signing and aggregation
  batch      --batch requests (default 64, --quick 16) end to end the same way, 8 in flight per member
  kyc-batch  --kyc-batch requests (default 16) of the KYC/AML policy (policy/examples/kyc_aml.yaml,
             8 encrypted attributes) compiled for the preset and evaluated with policy/eval
             (skipped where the plan does not compile, e.g. BGVN13)
  packed-kyc the KYC/AML policy on packed batches of each --packed size (default 64,1024;
             capped at the preset's slot count): every member packs the batch's inputs slot-masked
             at circuit.PackLevel (one ct×pt product per request input, no NTT), refreshes each
             packed input collectively, evaluates the policy ONCE, agrees on the digest, masks the
             result to the batch's slots, threshold-decrypts all of them in one round and signs one
             BLS aggregate over the batch digest (consensus.Member.ProcessPacked). Inputs are
             proof-checked uploads encrypting each value in every slot; a pool of two per attribute
             is reused across requests (proving 8 inputs per request would dominate the set-up), but
             every request's inputs are read from each member's store and masked from their bytes
             one by one, as distinct inputs would be. Rows per phase of member 1 follow (packed-kyc/pack …).
             verdicts_per_s = batch / wall, cpu_ms_per_verdict = process CPU / batch (all members).
  packed-kyc-vector
             packed-kyc with VECTOR inputs (fhe/vector.go): each request's 8 attributes in ONE
             proof-checked ciphertext (a pool of 16 is reused across requests), one block-masked
             product per request, and one collective refresh that un-interleaves the accumulators
             into the 8 attribute ciphertexts (protocol.RefreshTransform). Same --packed sizes,
             same checks and rows (packed-kyc-vector/pack …).
  refresh    one verified collective refresh (MPC bootstrap, protocol.Refresh: masked decryption by
             proven masks, cross-checked over every t-subset) of a ciphertext at the preset's refresh
             floor (noise.RefreshFloorLevel: level 1 on BGVN13/BGVN14, the lowest level a plan's
             refresh point hands the committee) back to the top level, on committees of each
             --refresh-n size (default 3 and 5; t = ⌊n/2⌋+1), every member contributing a mask from its
             pool (made ahead in the background; the process CPU counts it) (local.Committee.Refresh). ms and cpu ms are the medians over --refresh-k
             refreshes (default 7, --quick 3), each of a fresh ciphertext. share_bytes is what one
             masking member (the first t) sends to each other member (its mask message and share bundle,
             protocol.RefreshBytes); bytes_per_member = (n−1) × share_bytes. Frame headers (7 bytes +
             the session name per message), the commitments and TLS record overhead are not counted. Every refreshed
             ciphertext is threshold-decrypted (all slots) and compared with the encrypted vector.

The refresh stage reuses the (n, t) committee of the other stages where its size matches and one is
running; otherwise it starts its own, whose dkg row (note "refresh stage committee") is reported too.
--stages picks stages (the dkg of each committee always runs); --refresh-only is --stages refresh. Every verdict is checked against the
plaintext reference. All members share this machine's cores, so the times include n-fold CPU
contention. --procs 1,2,4,8,16 (alias --gomaxprocs) runs each packed batch once per value on the
same committee and prints a ladder: per run wall ms, process CPU ms, verdicts/s and the parallel
efficiency cpu/(wall·procs), then every member's wall time per phase (pack: block packing and the
accumulators' agreement; xform: the refresh transform that un-interleaves them, with its rescales;
eval; decrypt: digest agreement, mask, threshold decryption; sign: BLS aggregate and persistence).
The JSON rows carry the same (parallel_efficiency, members[].phases_ms). A member spreads its block
packing over runs of its requests, the refresh transform over its inputs and outputs, the plan over its
independent ops and each key switch's transforms over its limbs; results are the same bytes for any
GOMAXPROCS.`

// benchCommitteeFlags are the command line of `fhegate bench committee`.
type benchCommitteeFlags struct {
	o           committee.Options
	jsonPath    string
	cpuProfile  string
	quick       bool
	refreshOnly bool
	gpu         gpuFlags
}

// flagSet is the part of a cobra command's flag set that options reads
// (*pflag.FlagSet).
type flagSet interface{ Changed(name string) bool }

func (f *benchCommitteeFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.jsonPath, "json", "", "write results as JSON to FILE (- for stdout)")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the whole run to FILE (go tool pprof)")
	fl.StringVar(&f.o.PackedProfile, "packed-cpuprofile", "", "write a Go CPU profile of each packed batch alone (no set-up or DKG) to PREFIX-<stage>-<size>-p<GOMAXPROCS>.prof")
	f.gpu.register(cmd)
	fl.BoolVar(&f.quick, "quick", false, "BGVN13 only, batch of 16, no KYC/AML batch, refresh at n=3 with 3 runs")
	fl.IntVar(&f.o.N, "n", 5, "committee size")
	fl.IntVar(&f.o.T, "t", 3, "threshold")
	fl.IntVar(&f.o.Batch, "batch", 64, "requests in the batch stage")
	fl.IntVar(&f.o.KYCBatch, "kyc-batch", 16, "requests in the KYC/AML policy stage (0: skip; needs a preset deep enough, i.e. BGVN14)")
	fl.IntSliceVar(&f.o.Packed, "packed", []int{64, 1024}, "batch sizes of the packed KYC/AML stage (capped at the preset's slots; needs BGVN14)")
	fl.StringSliceVar(&f.o.Presets, "preset", []string{"bgv-n13-t65537", "bgv-n14-t65537"}, "presets to measure")
	fl.StringSliceVar(&f.o.Stages, "stages", committee.Stages, "stages to run, comma-separated (the dkg of each committee always runs)")
	fl.BoolVar(&f.refreshOnly, "refresh-only", false, "only the refresh stage (--stages refresh)")
	fl.IntSliceVar(&f.o.RefreshN, "refresh-n", []int{3, 5}, "committee sizes of the refresh stage (t = n/2+1)")
	fl.IntVar(&f.o.RefreshK, "refresh-k", 7, "refreshes measured per preset and committee size (median)")
	fl.IntSliceVar(&f.o.GOMAXPROCS, "procs", nil, "run each packed batch once per GOMAXPROCS value of this ladder (e.g. 1,2,4,8,16), on the same committee: verdicts/s, parallel efficiency and every member's phases against cores")
	fl.IntSliceVar(&f.o.GOMAXPROCS, "gomaxprocs", nil, "the same as --procs")
}

// options applies --quick and --refresh-only to the parsed flags (a flag
// given explicitly wins over --quick) and validates the result.
func (f *benchCommitteeFlags) options(fl flagSet, log *zap.Logger) (*committee.Options, error) {
	o := f.o
	o.Log = log
	if f.quick {
		if !fl.Changed("batch") {
			o.Batch = 16
		}
		if !fl.Changed("kyc-batch") {
			o.KYCBatch = 0
		}
		if !fl.Changed("packed") {
			o.Packed = nil
		}
		if !fl.Changed("preset") {
			o.Presets = []string{"bgv-n13-t65537"}
		}
		if !fl.Changed("refresh-n") {
			o.RefreshN = []int{3}
		}
		if !fl.Changed("refresh-k") {
			o.RefreshK = 3
		}
	}
	if f.refreshOnly {
		if fl.Changed("stages") {
			return nil, usageErrorf("--refresh-only and --stages are exclusive")
		}
		o.Stages = []string{committee.StageRefresh}
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return &o, nil
}

func newBenchCommitteeCmd(a *app) *cobra.Command {
	var f benchCommitteeFlags
	cmd := &cobra.Command{
		Use:   "committee",
		Short: "MPC committee: DKG, one verdict end to end, a batch of requests end to end, collective refresh (n members over loopback TLS)",
		Long:  benchCommitteeLong,
		Example: `  fhegate bench committee --json docs/results/committee.json
  fhegate bench committee --preset bgv-n14-t65537 --kyc-batch 64 --json docs/results/committee-kyc64.json
  fhegate bench committee --refresh-only --refresh-k 15 --json docs/results/committee-refresh.json
  fhegate bench committee --quick`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := f.options(cmd.Flags(), a.Log())
			if err != nil {
				return err
			}
			c := committee.Command{Options: *o, JSONPath: f.jsonPath, CPUProfile: f.cpuProfile, Gate: f.gpu.install,
				Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()}
			return c.Run(cmd.Context())
		},
	}
	f.register(cmd)
	return cmd
}
