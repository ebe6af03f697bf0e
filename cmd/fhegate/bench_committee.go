package main

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
)

func init() { registerBench(newBenchCommitteeCmd) }

// committeeRow is one measurement of `fhegate bench committee`.
type committeeRow struct {
	Stage         string  `json:"stage"`
	Preset        string  `json:"preset"`
	N             int     `json:"n"`
	T             int     `json:"t"`
	Batch         int     `json:"batch"`
	Ms            float64 `json:"ms"`
	CPUMs         float64 `json:"cpu_ms"` // process user+sys CPU time during the stage (all members)
	VerdictsPerS  float64 `json:"verdicts_per_s,omitempty"`
	DecryptLevel  int     `json:"decrypt_level"`
	FloodSigmaLog float64 `json:"flood_sigma_log2"`
	Note          string  `json:"note,omitempty"`
}

func newBenchCommitteeCmd(a *app) *cobra.Command {
	var (
		jsonPath string
		quick    bool
		n, t     int
		batch    int
		kyc      int
		presets  []string
	)
	cmd := &cobra.Command{
		Use:   "committee",
		Short: "MPC committee: DKG, one verdict end to end, a batch of requests end to end (n members over loopback TLS)",
		Long: `Starts an in-process committee of n members (default 5, threshold 3) talking TLS 1.3 over loopback,
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

Every verdict is checked against the plaintext reference. All members share this machine's cores,
so the times include n-fold CPU contention.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log := a.Log()
			if quick {
				if !cmd.Flags().Changed("batch") {
					batch = 16
				}
				if !cmd.Flags().Changed("kyc-batch") {
					kyc = 0
				}
				if !cmd.Flags().Changed("preset") {
					presets = []string{"bgv-n13-t65537"}
				}
			}
			var rows []committeeRow
			for _, name := range presets {
				r, err := benchCommittee(cmd.Context(), log, name, n, t, batch, kyc)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				rows = append(rows, r...)
			}
			out := cmd.OutOrStdout()
			if jsonPath == "-" {
				out = cmd.ErrOrStderr()
			}
			tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "stage\tpreset\tn\tt\tbatch\tms\tcpu ms\tverdicts/s\tdec level\tlog2 σ\n")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.1f\t%.1f\t%.2f\t%d\t%.0f\n", r.Stage, r.Preset, r.N, r.T, r.Batch, r.Ms, r.CPUMs, r.VerdictsPerS, r.DecryptLevel, r.FloodSigmaLog)
			}
			tw.Flush()
			fmt.Fprintf(out, "machine: %s/%s, %d CPUs (GOMAXPROCS %d), %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version())
			if jsonPath != "" {
				if err := writeJSON(jsonPath, rows); err != nil {
					return err
				}
				log.Info("wrote committee results", zap.String("file", jsonPath))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&jsonPath, "json", "", "write results as JSON to FILE (- for stdout)")
	cmd.Flags().BoolVar(&quick, "quick", false, "BGVN13 only, batch of 16")
	cmd.Flags().IntVar(&n, "n", 5, "committee size")
	cmd.Flags().IntVar(&t, "t", 3, "threshold")
	cmd.Flags().IntVar(&batch, "batch", 64, "requests in the batch stage")
	cmd.Flags().IntVar(&kyc, "kyc-batch", 16, "requests in the KYC/AML policy stage (0: skip; needs a preset deep enough, i.e. BGVN14)")
	cmd.Flags().StringSliceVar(&presets, "preset", []string{"bgv-n13-t65537", "bgv-n14-t65537"}, "presets to measure")
	return cmd
}

func benchCommittee(ctx context.Context, log *zap.Logger, preset string, n, t, batch, kycBatch int) ([]committeeRow, error) {
	dir, err := os.MkdirTemp("", "fhegate-bench-committee-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	c0 := cpuTime()
	t0 := time.Now()
	var traceMu sync.Mutex
	phases := map[string]time.Duration{} // member 1's phases of the verdict stage
	var tracing bool
	trace := func(member uint32, _ [32]byte, ph string, d time.Duration) {
		traceMu.Lock()
		defer traceMu.Unlock()
		if tracing && member == 1 {
			phases[ph] += d
		}
	}
	pr, err := fhe.PresetByName(preset)
	if err != nil {
		return nil, err
	}
	circuits := consensus.NewPolicyCircuits(pr.ID)
	lc, err := consensus.StartLocal(ctx, consensus.LocalOptions{N: n, T: t, Dir: dir, Preset: preset, RoundTimeout: 120 * time.Second, Log: log, Trace: trace, Circuits: circuits})
	if err != nil {
		return nil, err
	}
	defer lc.Close()
	dkg := time.Since(t0)
	dkgCPU := cpuTime() - c0
	m1 := lc.Member(1)
	plan := m1.NoisePlan()
	row := func(stage string, b int, d, cpu time.Duration, note string) committeeRow {
		r := committeeRow{Stage: stage, Preset: preset, N: n, T: t, Batch: b, Ms: float64(d.Microseconds()) / 1000, CPUMs: float64(cpu.Microseconds()) / 1000,
			DecryptLevel: plan.Level, FloodSigmaLog: plan.SigmaBits, Note: note}
		if stage != "dkg" && stage != "upload" && d > 0 {
			r.VerdictsPerS = float64(b) / d.Seconds()
		}
		return r
	}
	galois := len(lc.Config.GaloisElements(m1.Params()))
	rows := []committeeRow{row("dkg", 0, dkg, dkgCPU, fmt.Sprintf("pk + rlk + %d galois keys + thresholdisation", galois))}
	log.Info("committee dkg done", zap.String("preset", preset), zap.Duration("took", dkg))

	p := m1.Params()
	enc := fhe.NewEncryptor(lc.Keys)
	upload := func(v int64) (fhe.Handle, time.Duration, error) {
		ct, err := enc.EncryptInts([]int64{v})
		if err != nil {
			return fhe.Handle{}, 0, err
		}
		b, err := ct.MarshalBinary()
		if err != nil {
			return fhe.Handle{}, 0, err
		}
		s := time.Now()
		att, err := m1.Upload(ctx, b, [20]byte{1}, 1)
		if err != nil {
			return fhe.Handle{}, 0, err
		}
		return att.Handle, time.Since(s), nil
	}
	c1 := cpuTime()
	common, up, err := upload(3)
	if err != nil {
		return nil, err
	}
	rows = append(rows, row("upload", 1, up, cpuTime()-c1, "validate, store, replicate to n−1, quorum BLS attestation"))
	mkReqs := func(tag byte, count int) ([]consensus.Request, []uint64, error) {
		reqs := make([]consensus.Request, count)
		want := make([]uint64, count)
		for k := range reqs {
			v := int64(k%200 - 100)
			h, _, err := upload(v)
			if err != nil {
				return nil, nil, err
			}
			reqs[k] = consensus.Request{ID: [32]byte{tag, byte(k), byte(k >> 8)}, PolicyID: consensus.PolicyProductSum, Kind: consensus.KindPolicy,
				Inputs: []fhe.Handle{h, common}}
			want[k] = uint64((v*3%int64(p.PlaintextModulus()) + int64(p.PlaintextModulus())) % int64(p.PlaintextModulus()))
		}
		return reqs, want, nil
	}
	run := func(reqs []consensus.Request, want []uint64) (time.Duration, time.Duration, error) {
		c := cpuTime()
		var wg sync.WaitGroup
		errs := make([]error, n)
		start := time.Now()
		for i := 1; i <= n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				vs, es := lc.Member(uint32(i)).ProcessBatch(ctx, reqs)
				for k := range vs {
					if es[k] != nil {
						errs[i-1] = es[k]
						return
					}
					if vs[k].Result.Cmp(new(big.Int).SetUint64(want[k])) != 0 {
						errs[i-1] = fmt.Errorf("request %d: verdict %s, plaintext reference %d", k, vs[k].Result, want[k])
						return
					}
				}
			}(i)
		}
		wg.Wait()
		d := time.Since(start)
		cpu := cpuTime() - c
		for _, e := range errs {
			if e != nil {
				return d, cpu, e
			}
		}
		return d, cpu, nil
	}
	reqs, want, err := mkReqs(1, 1)
	if err != nil {
		return nil, err
	}
	traceMu.Lock()
	tracing = true
	traceMu.Unlock()
	d, cpu, err := run(reqs, want)
	if err != nil {
		return nil, err
	}
	traceMu.Lock()
	tracing = false
	traceMu.Unlock()
	rows = append(rows, row("verdict", 1, d, cpu, "evaluate + digest agreement + masked threshold decryption + BLS aggregate, all members"))
	for _, ph := range []string{"eval", "digest", "mask", "decrypt", "sign"} {
		if dd, ok := phases[ph]; ok {
			r := row("verdict/"+ph, 1, dd, 0, "member 1's share of the verdict stage")
			r.VerdictsPerS = 0
			rows = append(rows, r)
		}
	}
	log.Info("committee verdict done", zap.Duration("took", d))
	reqs, want, err = mkReqs(2, batch)
	if err != nil {
		return nil, err
	}
	d, cpu, err = run(reqs, want)
	if err != nil {
		return nil, err
	}
	rows = append(rows, row("batch", batch, d, cpu, "requests end to end on all members, 8 in flight per member"))
	log.Info("committee batch done", zap.Duration("took", d))

	// KYC/AML policy (policy/examples/kyc_aml.yaml, 8 encrypted attributes)
	// compiled for the preset and evaluated with policy/eval; on BGVN13 the
	// plan is deeper than the preset, so every request also runs collective
	// refreshes. Inputs: two uploaded ciphertexts per attribute, request k
	// takes bit j of k to choose attribute j's.
	if kycBatch <= 0 {
		return rows, nil
	}
	spec, err := examples.Get("kyc_aml")
	if err != nil {
		return nil, err
	}
	kycID := [32]byte{0xc0, 0x01}
	if err := circuits.Register(kycID, spec); err != nil {
		log.Warn("kyc-aml policy does not compile for this preset: stage skipped", zap.String("preset", preset), zap.Error(err))
		return rows, nil
	}
	kplan, err := policy.CompileWith(spec, consensus.PolicyOptions(pr.ID))
	if err != nil {
		return nil, err
	}
	vals := [8][2]int64{{17, 40}, {7, 12}, {0, 1}, {0, 3}, {3, 15}, {1, 7}, {2, 15}, {0, 3}}
	var pool [8][2]fhe.Handle
	for j := range vals {
		for b := range vals[j] {
			if pool[j][b], _, err = upload(vals[j][b]); err != nil {
				return nil, err
			}
		}
	}
	kreqs := make([]consensus.Request, kycBatch)
	kwant := make([]uint64, kycBatch)
	for k := range kreqs {
		hs := make([]fhe.Handle, 8)
		col := make([][]int64, 8)
		for j := range hs {
			bit := (k >> uint(j)) & 1
			hs[j] = pool[j][bit]
			col[j] = []int64{vals[j][bit]}
		}
		ref, err := kplan.EvalPlain(col)
		if err != nil {
			return nil, err
		}
		kreqs[k] = consensus.Request{ID: [32]byte{3, byte(k), byte(k >> 8)}, PolicyID: kycID, Kind: consensus.KindPolicy, Inputs: hs}
		tm := int64(p.PlaintextModulus())
		kwant[k] = uint64((ref[0]%tm + tm) % tm)
	}
	d, cpu, err = run(kreqs, kwant)
	if err != nil {
		return nil, err
	}
	note := fmt.Sprintf("KYC/AML policy (8 inputs, plan depth %d, refresh=%v), all members", kplan.UnrefreshedDepth, kplan.NeedsRefresh)
	rows = append(rows, row("kyc-batch", kycBatch, d, cpu, note))
	log.Info("committee kyc batch done", zap.Duration("took", d))
	return rows, nil
}

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
