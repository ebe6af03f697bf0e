package workloads

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"text/tabwriter"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bench"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/internal/usage"
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

// Command is `fhegate bench workloads`: the workloads Names (default all)
// measured Runs times each (median) under the dispatcher Gate installs,
// bgv_dot_128 on BGVPreset; Shapes is the --shapes file. The table goes to
// Stdout (Stderr when JSONPath is "-"), the rows as JSON to JSONPath.
type Command struct {
	JSONPath       string
	Runs           int
	Names          []string
	BGVPreset      fhe.PresetID
	Shapes         string
	Gate           bench.Install
	Log            *zap.Logger
	Stdout, Stderr io.Writer
}

// Run measures, prints and writes the rows; it fails if any result is wrong
// (timing misses are printed, not errors).
func (c Command) Run() error {
	if c.Runs < 1 {
		return usage.Errorf("--runs must be ≥ 1")
	}
	if c.Log == nil {
		c.Log = zap.NewNop()
	}
	names := Names
	if len(c.Names) > 0 {
		names = c.Names
	}
	stop, err := c.Gate.Start(c.Log)
	if err != nil {
		return err
	}
	defer stop()
	results, err := RunAll(c.Log, names, c.Runs, c.BGVPreset)
	if err != nil {
		return err
	}
	if err := bench.WriteShapes(c.Stderr, c.Shapes); err != nil {
		return err
	}
	if err := bench.Report(c.Stdout, c.Stderr, c.JSONPath, c.Log, "workload", results, func(w io.Writer) { Print(w, results) }); err != nil {
		return err
	}
	return Check(results)
}

// Row is one row of `fhegate bench workloads --json`: the
// measurement and the NTT gate's columns (baseline_go_ms is the fhegate
// variant with every engine transform on Lattigo's Go NTT, same run).
type Row struct {
	Result
	bench.Gate
}

// RunAll measures the named workloads (CKKS on ckks-n13-s40, bgv_dot_128 on
// bgvID) with the gate's counters of each.
func RunAll(log *zap.Logger, names []string, runs int, bgvID fhe.PresetID) ([]Row, error) {
	envs := map[fhe.PresetID]*Env{}
	getEnv := func(id fhe.PresetID) (*Env, error) {
		if e, ok := envs[id]; ok {
			return e, nil
		}
		t0 := time.Now()
		e, err := NewEnv(id)
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
	var out []Row
	for _, name := range names {
		id := fhe.CKKSN13
		if name == "bgv_dot_128" {
			id = bgvID
		}
		env, err := getEnv(id)
		if err != nil {
			return nil, err
		}
		c, err := New(name, env, rng, false)
		if err != nil {
			return nil, err
		}
		var packed *Case
		if name != "mul_pipeline" && name != "square" {
			if packed, err = New(name, env, rng, true); err != nil {
				return nil, err
			}
		}
		var r Result
		g, err := bench.GateOf(func() (err error) {
			r, err = MeasureWith(c, packed, Options{Runs: runs, PureGo: bench.WithPureGo})
			return err
		})
		if err != nil {
			return nil, err
		}
		g.BaselineGoMs = r.FhegateGoMS
		log.Info("workload measured", zap.String("name", r.Name), zap.Float64("baseline_ms", r.BaselineMS),
			zap.Float64("same_level_ms", r.SameLevelMS), zap.Float64("fhegate_ms", r.FhegateMS),
			zap.Float64("baseline_go_ms", r.FhegateGoMS), zap.Float64("max_err", r.MaxErr))
		out = append(out, Row{Result: r, Gate: g})
	}
	return out, nil
}

// Print prints the table, the ratios' legend and the targets missed.
func Print(w io.Writer, rs []Row) {
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

func firstRuns(rs []Row) int {
	if len(rs) == 0 {
		return 0
	}
	return rs[0].Runs
}

// Check fails the command if any result is wrong (timing misses are
// reported, not errors).
func Check(rs []Row) error {
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
