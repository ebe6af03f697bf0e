// Package policy measures the policy engine (`fhegate bench policy`): for
// each example policy (policy/examples), or with --wide for wide unsigned
// integers (8- to 64-bit comparisons in base-16 digits and a 1,000-entry
// list, policy/wide.go), it compiles the document, generates a single-party
// key for the plan's preset, encrypts a full ciphertext set of random
// in-range decisions (slot i of input j = input j of decision i) and times
// one evaluation single-threaded: the plan is slot-wise, so one evaluation
// is the cost of one request and per_decision_ms = request_ms / slots.
// Every verdict is decrypted and checked against the plan's plaintext
// evaluation, and the pure-Go baseline (every transform on Lattigo's Go NTT)
// must produce the same bytes. Refresh points go through a stand-in for the
// committee's collective refresh (eval.LocalRefresh); the collective refresh is
// priced separately (policy/costs.json refresh_us, bench/committee).
//
// The engine under test is imported as policylang: this package's name is
// the bench's.
package policy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/pprof"
	"slices"
	"text/tabwriter"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bench"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/gpu"
	policylang "github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
	"github.com/fhegate/fhegate/policy/examples"
	"github.com/fhegate/fhegate/precompiles/corebackends"
)

// luxPolicyMs is Lux's TFHE policy bundle: 5.41 s per decision (M1 Max, LP-137).
const luxPolicyMs = 5410.0

// Row is one measurement of `fhegate bench policy`.
type Row struct {
	Policy         string  `json:"policy"`
	Preset         string  `json:"preset"`
	Depth          int     `json:"depth"`
	RequestMs      float64 `json:"request_ms"`     // wall time of one evaluation (one ciphertext set), single-threaded
	RequestCPUMs   float64 `json:"request_cpu_ms"` // CPU time of the same (robust on a loaded machine)
	PerDecisionMs  float64 `json:"per_decision_ms"`
	DecisionsPerCt int     `json:"decisions_per_ct"`
	SpeedupVsLux   float64 `json:"speedup_vs_lux"` // 5410 ms / per_decision_ms
	EstimatedMs    float64 `json:"estimated_ms"`   // the cost model's estimate (policy/costs.json)
	Gas            uint64  `json:"gas"`
	GasPerDecision uint64  `json:"gas_per_decision"`
	CtCt           int     `json:"ct_ct"`
	Refreshes      int     `json:"refreshes,omitempty"`   // collective refreshes per evaluation (stood in for here)
	RequestGas     uint64  `json:"request_gas,omitempty"` // what one evaluate() pays (corebackends.PerRequestGas)
	Verified       bool    `json:"verified"`              // every packed verdict decrypted and checked against the plaintext reference
	// Gathered: the routed evaluation ran as a dataflow over one
	// engine.Gather (eval.Options.Gather), handing the gate every ready
	// op's transforms of a step at once; the pure-Go baseline is always
	// the sequential evaluation, and must give the same bytes.
	Gathered bool `json:"gathered"`
	Reps     int  `json:"reps"`
	// BaselineGoCPUMs is the pure-Go evaluation's best CPU time (the ratio
	// of CPU times is the robust one on a shared host).
	BaselineGoCPUMs float64 `json:"baseline_go_cpu_ms"`
	// The NTT gate (the dispatcher behind fhe/engine, --gpu-backend /
	// --gpu-table): backend in force, per-evaluation counters (per-limb
	// transforms the engine batched, how many the accelerator ran, the
	// batches and their size) and baseline_go_ms, the same evaluation with
	// every transform on Lattigo's Go NTT, best of the same reps, this run.
	bench.Gate
}

// Command is `fhegate bench policy`: every example policy (or Names; with
// Wide the wide-integer specs instead) measured best of 3 (Quick: 1) under
// the dispatcher Gate installs. Shapes and Profile are the --shapes and
// --cpuprofile files; the table goes to Out, the rows as JSON to JSONPath.
type Command struct {
	JSONPath string
	Quick    bool
	Names    []string
	Wide     bool
	Shapes   string
	Profile  string
	Gate     bench.Install
	// Sequential evaluates op after op (each key switch its own batches)
	// instead of gathering every ready op's transforms (the default).
	Sequential bool
	Log        *zap.Logger
	Out        io.Writer
}

// spec is a policy document to measure, by name.
type spec struct {
	name string
	doc  []byte
}

// Run measures the selected policies and prints and writes the results.
func (c Command) Run(ctx context.Context) error {
	log, out := c.Log, c.Out
	if log == nil {
		log = zap.NewNop()
	}
	var specs []spec
	if c.Wide {
		all, err := wideSpecs()
		if err != nil {
			return err
		}
		for _, s := range all {
			if len(c.Names) == 0 || slices.Contains(c.Names, s.name) {
				specs = append(specs, s)
			}
		}
	} else {
		names := c.Names
		if len(names) == 0 {
			names = examples.Names()
		}
		for _, name := range names {
			doc, err := examples.Get(name)
			if err != nil {
				return err
			}
			specs = append(specs, spec{name: name, doc: doc})
		}
	}
	reps := 3
	if c.Quick {
		reps = 1
	}
	stopGPU, err := c.Gate.Start(log)
	if err != nil {
		return err
	}
	defer stopGPU()
	stopProfile, err := bench.StartCPUProfile(c.Profile)
	if err != nil {
		return err
	}
	defer stopProfile()
	var rows []Row
	for _, sp := range specs {
		row, err := Measure(ctx, log, sp.name, sp.doc, reps, !c.Sequential)
		if err != nil {
			return fmt.Errorf("%s: %w", sp.name, err)
		}
		rows = append(rows, row)
	}
	if err := Print(out, rows, c.Wide); err != nil {
		return err
	}
	if !c.Wide { // the wide rows list no shapes
		if err := bench.WriteShapes(out, c.Shapes); err != nil {
			return err
		}
	}
	if c.JSONPath != "" {
		return bench.WriteJSON(out, c.JSONPath, rows)
	}
	return nil
}

// Print prints rows as a table: with wide, the wide-integer columns
// (refreshes and per-request gas beside the time), else the example
// policies' columns with the NTT gate's.
func Print(out io.Writer, rows []Row, wide bool) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	if wide {
		fmt.Fprintln(w, "policy\tpreset\tdepth\tct×ct\trefreshes\trequest ms\tcpu ms\test. ms\tdecisions/ct\tms/decision\tgas/request\t")
		for _, r := range rows {
			fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f\t%d\t%.4f\t%d\t\n", r.Policy, r.Preset, r.Depth, r.CtCt, r.Refreshes,
				r.RequestMs, r.RequestCPUMs, r.EstimatedMs, r.DecisionsPerCt, r.PerDecisionMs, r.RequestGas)
		}
		return w.Flush()
	}
	fmt.Fprintln(w, "policy\tpreset\tdepth\tct×ct\trequest ms\tcpu ms\test. ms\tdecisions/ct\tms/decision\tvs Lux 5.41 s\tgas\tgas/decision\tbackend\tpure-Go ms\tpure-Go cpu ms\tgo/routed\tcpu go/routed\ttransforms\trouted\tgathered\tbatches\tbatch p50/p95/mean\ttransform's batch p50\t")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%d\t%.4f\t%.0f×\t%d\t%d\t%s\t%.1f\t%.1f\t%.2f×\t%.2f×\t%d\t%d\t%s\t%d\t%d/%d/%.1f\t%d\t\n", r.Policy, r.Preset, r.Depth, r.CtCt,
			r.RequestMs, r.RequestCPUMs, r.EstimatedMs, r.DecisionsPerCt, r.PerDecisionMs, r.SpeedupVsLux, r.Gas, r.GasPerDecision,
			r.Backend, r.BaselineGoMs, r.BaselineGoCPUMs, r.BaselineGoMs/r.RequestMs, r.BaselineGoCPUMs/r.RequestCPUMs, r.Transforms, r.Routed, yesNo(r.Gathered), r.Batches, r.MedianBatch, r.P95Batch, r.MeanBatch, r.TransformMedianBatch)
	}
	return w.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Measure measures one policy document: a full ciphertext set of random
// in-range decisions evaluated reps times single-threaded (best of), every
// verdict checked against the plaintext reference; with gather the routed
// evaluation is eval.Options.Gather's (the baseline stays sequential).
func Measure(ctx context.Context, log *zap.Logger, name string, doc []byte, reps int, gather bool) (Row, error) {
	p, err := policylang.Compile(doc)
	if err != nil {
		return Row{}, err
	}
	params, err := fhe.NewParams(fhe.PresetID(p.Preset))
	if err != nil {
		return Row{}, err
	}
	keys := fhe.GenKeys(params, p.GaloisRotations())
	// the stand-in for the committee's refresh: the bench's own key,
	// memoised, so the best-of timing and the pure-Go baseline get the same
	// refreshed ciphertexts; the collective refresh is priced separately
	// (policy/costs.json refresh_us, `bench committee --stages refresh`)
	refresh := eval.LocalRefresh(keys)
	ev, err := fhe.NewEvaluator(params, fhe.EvaluationKeys{Relin: keys.Relin, Galois: keys.Galois})
	if err != nil {
		return Row{}, err
	}
	r := rand.New(rand.NewPCG(uint64(len(name)), 42))
	decisions := make([][]int64, p.Slots)
	for i := range decisions {
		decisions[i] = make([]int64, len(p.Inputs))
		for j, in := range p.Inputs {
			decisions[i][j] = in.Min + r.Int64N(in.Max-in.Min+1)
		}
	}
	cts, err := eval.EncryptDecisions(fhe.NewEncryptor(keys.Public), p, decisions)
	if err != nil {
		return Row{}, err
	}
	d := gpu.Installed()
	if d != nil {
		d.ResetRouterStats() // not the shapes: --shapes lists every policy's
	}
	// The routed and the pure-Go evaluations alternate, one repetition
	// each, so that drifting load on a shared host hits both alike; each
	// keeps its best wall and CPU time.
	var out *fhe.Ciphertext
	var best, bestCPU, goBest, goCPU time.Duration
	var gate bench.Gate
	better := func(a, b time.Duration) time.Duration {
		if a == 0 || b < a {
			return b
		}
		return a
	}
	for k := 0; k < reps; k++ {
		var o *fhe.Ciphertext
		var w, c time.Duration
		pprof.Do(ctx, pprof.Labels("eval", "routed"), func(ctx context.Context) {
			o, w, c, err = timePolicy(ctx, log, name, p, ev, cts, 1, eval.Options{Refresh: refresh, Gather: gather})
		})
		if err != nil {
			return Row{}, err
		}
		out, best, bestCPU = o, better(best, w), better(bestCPU, c)
		if k == reps-1 {
			gate = bench.GateNow(reps)
		}
		if err := bench.WithPureGo(func() (err error) {
			pprof.Do(ctx, pprof.Labels("eval", "go"), func(ctx context.Context) {
				var goOut *fhe.Ciphertext
				goOut, w, c, err = timePolicy(ctx, log, name+" (pure Go)", p, ev, cts, 1, eval.Options{Refresh: refresh})
				if err == nil && !sameCiphertext(goOut, out) {
					err = fmt.Errorf("pure-Go evaluation differs from the routed one")
				}
			})
			return err
		}); err != nil {
			return Row{}, err
		}
		goBest, goCPU = better(goBest, w), better(goCPU, c)
	}
	gate.BaselineGoMs = bench.Round2(float64(goBest.Microseconds()) / 1e3)
	got, err := eval.DecryptVerdicts(fhe.NewDecryptor(keys.Secret), out, p.Slots)
	if err != nil {
		return Row{}, err
	}
	packed, err := p.PackInputs(decisions)
	if err != nil {
		return Row{}, err
	}
	want, err := p.EvalPlain(packed)
	if err != nil {
		return Row{}, err
	}
	for i := range want {
		if got[i] != want[i] {
			return Row{}, fmt.Errorf("decision %d: encrypted verdict %d ≠ reference %d", i, got[i], want[i])
		}
	}
	ms := float64(best.Microseconds()) / 1e3
	per := ms / float64(p.Slots)
	return Row{
		Policy: p.Name, Preset: p.PresetName, Depth: p.Depth,
		RequestMs: bench.Round2(ms), RequestCPUMs: bench.Round2(float64(bestCPU.Microseconds()) / 1e3),
		PerDecisionMs: float64(int64(per*1e5+0.5)) / 1e5, DecisionsPerCt: p.Slots,
		SpeedupVsLux: float64(int64(luxPolicyMs/per + 0.5)), EstimatedMs: bench.Round2(p.EstimatedMillis()),
		Gas: p.Gas(), GasPerDecision: p.GasPerDecision(), CtCt: p.Counts.CtCt, Verified: true, Reps: reps,
		BaselineGoCPUMs: bench.Round2(float64(goCPU.Microseconds()) / 1e3), Gate: gate,
		Refreshes: p.Counts.Refreshes, RequestGas: corebackends.PerRequestGas(p), Gathered: gather,
	}, nil
}

// timePolicy evaluates p on cts reps times with GOMAXPROCS(1) and returns
// the last result and the best wall and CPU times.
func timePolicy(ctx context.Context, log *zap.Logger, name string, p *policylang.Plan, ev *fhe.Evaluator, cts []*fhe.Ciphertext, reps int, opt eval.Options) (*fhe.Ciphertext, time.Duration, time.Duration, error) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	var best, bestCPU time.Duration
	var out *fhe.Ciphertext
	for k := 0; k < reps; k++ {
		runtime.GC()
		c0, t0 := bench.CPUTime(), time.Now()
		var err error
		out, err = eval.EvaluateWith(ctx, p, ev, cts, opt)
		wall, cpu := time.Since(t0), bench.CPUTime()-c0
		if err != nil {
			return nil, 0, 0, err
		}
		if k == 0 || wall < best {
			best = wall
		}
		if k == 0 || cpu < bestCPU {
			bestCPU = cpu
		}
		log.Info("policy evaluation", zap.String("policy", name), zap.Int("rep", k), zap.Duration("wall", wall), zap.Duration("cpu", cpu))
	}
	return out, best, bestCPU, nil
}

// sameCiphertext reports whether a and b have the same canonical bytes.
func sameCiphertext(a, b *fhe.Ciphertext) bool {
	x, errA := a.MarshalBinary()
	y, errB := b.MarshalBinary()
	return errA == nil && errB == nil && bytes.Equal(x, y)
}
