package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/workloads"
)

// workloadAnchors are the published per-core figures the workloads are read
// against: H33-CKKS on Graviton4 (c8g.metal-48xl, per core, N=8192) and
// Opaque-Go's Lattigo BFV dot-128 on an Apple M4 Pro.
var workloadAnchors = map[string]struct {
	ms   float64
	what string
}{
	"mul_pipeline": {61, "H33 Graviton4"},
	"slot_sum_64":  {293, "H33 Graviton4"},
	"dot_64":       {333, "H33 Graviton4"},
	"square":       {133, "H33 Graviton4"},
	"dense_64x4":   {1555, "H33 Graviton4"},
	"bgv_dot_128":  {33, "Opaque-Go M4 Pro"},
}

func newBenchWorkloadsCmd(a *app) *cobra.Command {
	var (
		jsonPath string
		quick    bool
		runs     int
		only     []string
		bgvName  string
		gf       gpuFlags
		shapes   string
	)
	cmd := &cobra.Command{
		Use:   "workloads",
		Short: "Six encrypted workloads, baseline Lattigo vs same-level Lattigo vs fhegate, single-threaded, with max error vs plaintext",
		Long: `Runs mul_pipeline, slot_sum_64, dot_64, square, dense_64x4 (CKKS N=2^13, preset ckks-n13-s40) and
bgv_dot_128 (BGV N=2^13, preset bgv-n13-t65537), each as "baseline" (straightforward Lattigo calls at the
preset), "same-level" (the same plain Lattigo calls at fhegate's input and output levels, e.g.
mul_pipeline multiplies at level 1 and ends at level 0 instead of 3 → 2) and "fhegate" (the engine's
best, see fhe/workloads), plus fhegate once more with every engine transform on Lattigo's Go NTT
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
			log := a.Log()
			if !cmd.Flags().Changed("runs") && quick {
				runs = 5
			}
			if runs < 1 {
				return usageErrorf("--runs must be ≥ 1")
			}
			names := workloads.Names
			if len(only) > 0 {
				names = only
			}
			bgvPreset, err := fhe.PresetByName(bgvName)
			if err != nil {
				return err
			}
			if bgvPreset.Scheme != fhe.SchemeBGV {
				return usageErrorf("--bgv-preset %s is not a BGV preset", bgvName)
			}
			stop, err := gf.install(log)
			if err != nil {
				return err
			}
			defer stop()
			results, err := runWorkloads(log, names, runs, bgvPreset.ID)
			if err != nil {
				return err
			}
			if err := gateShapes(cmd.ErrOrStderr(), shapes); err != nil {
				return err
			}
			tableOut := cmd.OutOrStdout()
			if jsonPath == "-" {
				tableOut = cmd.ErrOrStderr() // keep stdout machine-readable
			}
			printWorkloads(tableOut, results)
			if jsonPath != "" {
				if err := writeJSON(cmd.OutOrStdout(), jsonPath, results); err != nil {
					return err
				}
				log.Info("wrote workload results", zap.String("file", jsonPath))
			}
			return checkWorkloads(results)
		},
	}
	cmd.Flags().StringVar(&jsonPath, "json", "", "write results as JSON to FILE (\"-\" for stdout)")
	cmd.Flags().BoolVar(&quick, "quick", false, "5 runs per variant instead of 15")
	cmd.Flags().IntVar(&runs, "runs", 15, "timed runs per variant (median reported)")
	cmd.Flags().StringSliceVar(&only, "only", nil, "run only these workloads (comma-separated names)")
	cmd.Flags().StringVar(&shapes, "shapes", "", "write the engine's batch shapes (N, moduli, B, direction) as JSON to this file (input of fhegate calibrate --shapes)")
	gf.register(cmd)
	cmd.Flags().StringVar(&bgvName, "bgv-preset", "bgv-n13-t65537", "preset for bgv_dot_128 (bgv-n14-t65537: the ring Opaque-Go's 1.57 MB ciphertexts imply)")
	return cmd
}

// workloadRow is one row of `fhegate bench workloads --json`: the
// measurement and the NTT gate's columns (baseline_go_ms is the fhegate
// variant with every engine transform on Lattigo's Go NTT, same run).
type workloadRow struct {
	workloads.Result
	gateCounters
}

func runWorkloads(log *zap.Logger, names []string, runs int, bgvID fhe.PresetID) ([]workloadRow, error) {
	envs := map[fhe.PresetID]*workloads.Env{}
	getEnv := func(id fhe.PresetID) (*workloads.Env, error) {
		if e, ok := envs[id]; ok {
			return e, nil
		}
		t0 := time.Now()
		e, err := workloads.NewEnv(id)
		if err != nil {
			return nil, err
		}
		log.Info("keys generated", zap.String("preset", e.P.Preset.Name), zap.Duration("took", time.Since(t0)))
		envs[id] = e
		return e, nil
	}
	// Inputs are random but reproducible (the ciphertexts are not: public-key
	// encryption reads crypto/rand).
	rng := rand.New(rand.NewPCG(0x5eed, 137))
	var out []workloadRow
	for _, name := range names {
		id := fhe.CKKSN13
		if name == "bgv_dot_128" {
			id = bgvID
		}
		env, err := getEnv(id)
		if err != nil {
			return nil, err
		}
		c, err := workloads.New(name, env, rng, false)
		if err != nil {
			return nil, err
		}
		var packed *workloads.Case
		if name != "mul_pipeline" && name != "square" {
			if packed, err = workloads.New(name, env, rng, true); err != nil {
				return nil, err
			}
		}
		gateResetCounters()
		r, err := workloads.MeasureWith(c, packed, workloads.Options{Runs: runs, PureGo: withPureGo})
		if err != nil {
			return nil, err
		}
		g := gateCountersNow(1)
		g.BaselineGoMs = r.FhegateGoMS
		log.Info("workload measured", zap.String("name", r.Name), zap.Float64("baseline_ms", r.BaselineMS),
			zap.Float64("same_level_ms", r.SameLevelMS), zap.Float64("fhegate_ms", r.FhegateMS),
			zap.Float64("baseline_go_ms", r.FhegateGoMS), zap.Float64("max_err", r.MaxErr))
		out = append(out, workloadRow{Result: r, gateCounters: g})
	}
	return out, nil
}

func printWorkloads(w io.Writer, rs []workloadRow) {
	timer := "wall"
	if len(rs) > 0 {
		timer = rs[0].Timer
	}
	fmt.Fprintf(w, "single-threaded (GOMAXPROCS=1 while timing), %s/%s, %d CPUs visible, %s; median of %d runs; ms = %s time (wall medians in the last columns)\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), firstRuns(rs), timer)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tbaseline ms\tsame-level ms\tfhegate ms\tbaseline/same-level\tsame-level/fhegate\tbaseline/fhegate\tmax err\tanchor ms\tanchor/fhegate\tanchor\tpacked\tamortised ms\tbackend\tpure-Go ms\tgo/fhegate\trouted\tbatch p50/p95\twall base ms\twall fhegate ms\t")
	for _, r := range rs {
		an := workloadAnchors[r.Name]
		packed, amort := "-", "-"
		if r.Batch > 0 {
			packed, amort = fmt.Sprintf("%d/ct", r.Batch), fmt.Sprintf("%.3f", r.AmortizedMS)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.1f×\t%.1f×\t%.1f×\t%.1e\t%.0f\t%.1f×\t%s\t%s\t%s\t%s\t%.2f\t%.2f×\t%.1f%%\t%d/%d\t%.2f\t%.2f\t\n", r.Name,
			r.BaselineMS, r.SameLevelMS, r.FhegateMS, r.BaselineMS/r.SameLevelMS, r.SameLevelMS/r.FhegateMS, r.BaselineMS/r.FhegateMS,
			r.MaxErr, an.ms, an.ms/r.FhegateMS, an.what, packed, amort,
			r.Backend, r.BaselineGoMs, r.BaselineGoMs/r.FhegateMS, 100*r.RoutedFraction, r.MedianBatch, r.P95Batch, r.BaselineWallMS, r.FhegateWallMS)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "baseline/same-level = gain of the level choice; same-level/fhegate = gain of fhegate's algorithms at equal levels; go/fhegate = gain of the backend in force over Lattigo's Go NTT (same run)")
	fmt.Fprintln(w, "targets: fhegate ≤ baseline/2 (same run); CKKS also ≤ H33/20. amortised = packed time / instances (throughput, not latency)")
	for _, r := range rs {
		an := workloadAnchors[r.Name]
		var miss []string
		if r.FhegateMS > r.BaselineMS/2 {
			miss = append(miss, fmt.Sprintf("only %.1f× faster than baseline", r.BaselineMS/r.FhegateMS))
		}
		if r.Name != "bgv_dot_128" && r.FhegateMS > an.ms/20 {
			miss = append(miss, fmt.Sprintf("%.2f ms > %s/20 = %.2f ms", r.FhegateMS, an.what, an.ms/20))
		}
		if len(miss) > 0 {
			fmt.Fprintf(w, "  MISS %s: %v\n", r.Name, miss)
		}
	}
}

func firstRuns(rs []workloadRow) int {
	if len(rs) == 0 {
		return 0
	}
	return rs[0].Runs
}

// checkWorkloads fails the command if any result is wrong (timing misses are
// reported, not errors).
func checkWorkloads(rs []workloadRow) error {
	for _, r := range rs {
		bound := 1e-5
		if r.Name == "bgv_dot_128" {
			bound = 0
		}
		if r.MaxErr > bound || r.PackedErr > bound {
			return fmt.Errorf("%s: max error %g (packed %g) exceeds %g", r.Name, r.MaxErr, r.PackedErr, bound)
		}
	}
	return nil
}
