package workloads

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"

	"github.com/fhegate/fhegate/bench"
	"github.com/fhegate/fhegate/internal/stats"
)

// Result is one row of `fhegate bench workloads --json`.
type Result struct {
	Name   string `json:"name"`
	Params string `json:"params"`
	// BaselineMS and FhegateMS are medians of the process CPU time (user +
	// system, getrusage) of one evaluation with GOMAXPROCS(1): the work of
	// one thread, insensitive to other processes competing for the cores.
	// The wall-clock medians are in BaselineWallMS / FhegateWallMS; on an
	// idle machine the two agree.
	BaselineMS float64 `json:"baseline_ms"`
	FhegateMS  float64 `json:"fhegate_ms"`
	// MaxErr is the larger of the two variants' maximum absolute errors
	// against the plaintext reference (BGV: 0 means exact).
	MaxErr  float64 `json:"max_err"`
	Threads int     `json:"threads"`

	Timer          string  `json:"timer"`
	BaselineWallMS float64 `json:"baseline_wall_ms"`
	FhegateWallMS  float64 `json:"fhegate_wall_ms"`

	BaselineErr float64 `json:"baseline_err"`
	FhegateErr  float64 `json:"fhegate_err"`
	Runs        int     `json:"runs"`
	// Packed throughput (only for workloads with a packed case): Batch
	// independent instances per ciphertext, evaluated by the same fhegate
	// circuit; AmortizedMS = median time of that evaluation / Batch. It is
	// a throughput figure, not a latency.
	Batch       int     `json:"packed_batch,omitempty"`
	AmortizedMS float64 `json:"fhegate_amortized_ms,omitempty"`
	PackedErr   float64 `json:"packed_max_err,omitempty"`

	BaselineTimed string `json:"baseline_timed"`
	FhegateTimed  string `json:"fhegate_timed"`

	// SameLevelMS is the third column: the baseline's plain Lattigo calls
	// at fhegate's input and output levels (Variant SameLevel), same timer.
	// BaselineMS/SameLevelMS is the gain of the level choice alone,
	// SameLevelMS/FhegateMS the gain of fhegate's algorithms at equal levels.
	SameLevelMS     float64 `json:"same_level_ms"`
	SameLevelWallMS float64 `json:"same_level_wall_ms"`
	SameLevelErr    float64 `json:"same_level_err"`
	SameLevelTimed  string  `json:"same_level_timed"`

	// FhegateGoMS is the Fhegate variant with every engine transform on
	// Lattigo's Go NTT (no router), measured in the same process when
	// Options.PureGo is set (0 otherwise): the pure-Go baseline of the
	// backend in force. Not in this JSON: `fhegate bench workloads` reports
	// it as baseline_go_ms next to the backend and counters.
	FhegateGoMS     float64 `json:"-"`
	FhegateGoWallMS float64 `json:"baseline_go_wall_ms,omitempty"`
	FhegateGoErr    float64 `json:"baseline_go_err,omitempty"`
}

// ParamsString describes the preset of an environment for reports, e.g.
// "ckks-n13-s40: N=2^13, logQ [50 40 40 40], logP [45], logQP 215, scale 2^40".
func ParamsString(e *Env) string {
	p := e.P
	bitsOf := func(m []uint64) []int {
		out := make([]int, len(m))
		for i, q := range m {
			out[i] = int(math.Round(math.Log2(float64(q))))
		}
		return out
	}
	s := fmt.Sprintf("%s: N=2^%d, logQ %v, logP %v, logQP %.0f", p.Preset.Name, p.LogN(), bitsOf(p.Q()), bitsOf(p.P()), p.LogQP())
	if t := p.PlaintextModulus(); t != 0 {
		return s + fmt.Sprintf(", t=%d", t)
	}
	return s + fmt.Sprintf(", scale 2^%d", p.CKKS().LogDefaultScale())
}

// timeRun evaluates v once and returns (cpu ms, wall ms, outputs).
func timeRun(c *Case, v Variant) (float64, float64, []*rlwe.Ciphertext, error) {
	c0, okc := bench.ProcessCPU()
	t0 := time.Now()
	outs, err := c.Run(v)
	wall := float64(time.Since(t0).Nanoseconds()) / 1e6
	c1, _ := bench.ProcessCPU()
	cpu := wall
	if okc {
		cpu = float64(c1-c0) / 1e6
	}
	return cpu, wall, outs, err
}

// Options configure MeasureWith.
type Options struct {
	// Runs is the number of timed runs per variant (median reported); < 1
	// means 1.
	Runs int
	// PureGo, if set, adds one more interleaved series: the Fhegate variant
	// run inside PureGo, which must run its argument with every engine
	// transform on Lattigo's own Go NTT (no router installed) — the pure-Go
	// baseline of the same process (FhegateGoMS).
	PureGo func(run func() error) error
}

// Measure is MeasureWith(c, packed, Options{Runs: runs}).
func Measure(c, packed *Case, runs int) (Result, error) {
	return MeasureWith(c, packed, Options{Runs: runs})
}

// series is one interleaved timing series.
type series struct {
	v     Variant
	wrap  func(func() error) error // nil: run directly
	times []float64
	walls []float64
	err   float64
}

// MeasureWith runs every variant of c (and the pure-Go series, if
// o.PureGo is set) o.Runs times each, interleaved (baseline, same-level,
// fhegate, fhegate-go, baseline, …) after one warm-up run each, with
// runtime.GOMAXPROCS(1) for the whole measurement (restored on return), and
// reports the medians of process CPU time (and of wall time). Errors are
// measured on the last run's outputs of each series. Then packed, if not
// nil, is timed the same way (Fhegate only).
func MeasureWith(c, packed *Case, o Options) (Result, error) {
	runs := max(o.Runs, 1)
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)

	r := Result{Name: c.Name, Params: ParamsString(c.env), Threads: 1, Runs: runs,
		BaselineTimed: c.Timed(Baseline), FhegateTimed: c.Timed(Fhegate), SameLevelTimed: c.Timed(SameLevel)}
	r.Timer = "wall"
	if _, ok := bench.ProcessCPU(); ok {
		r.Timer = "process-cpu"
	}
	var ss []*series
	for _, v := range Variants {
		if c.Has(v) {
			ss = append(ss, &series{v: v})
		}
	}
	if o.PureGo != nil && c.Has(Fhegate) {
		ss = append(ss, &series{v: Fhegate, wrap: o.PureGo})
	}
	for i := -1; i < runs; i++ {
		for _, s := range ss {
			if err := s.once(c, i < 0, i == runs-1); err != nil {
				return r, err
			}
		}
	}
	for _, s := range ss {
		ms, wall := stats.Median(s.times), stats.Median(s.walls)
		switch {
		case s.wrap != nil:
			r.FhegateGoMS, r.FhegateGoWallMS, r.FhegateGoErr = ms, wall, s.err
		case s.v == Baseline:
			r.BaselineMS, r.BaselineWallMS, r.BaselineErr = ms, wall, s.err
		case s.v == SameLevel:
			r.SameLevelMS, r.SameLevelWallMS, r.SameLevelErr = ms, wall, s.err
		case s.v == Fhegate:
			r.FhegateMS, r.FhegateWallMS, r.FhegateErr = ms, wall, s.err
		}
	}
	r.MaxErr = max(r.BaselineErr, r.FhegateErr, r.SameLevelErr, r.FhegateGoErr)
	if packed == nil {
		return r, nil
	}
	ps := &series{v: Fhegate}
	for i := -1; i < runs; i++ {
		if err := ps.once(packed, i < 0, i == runs-1); err != nil {
			return r, fmt.Errorf("packed: %w", err)
		}
	}
	r.PackedErr = ps.err
	r.Batch = packed.Batch
	r.AmortizedMS = stats.Median(ps.times) / float64(packed.Batch)
	return r, nil
}

// once times one run of the series (kept unless warmUp) and, on the last
// run, measures its error.
func (s *series) once(c *Case, warmUp, last bool) error {
	var cpu, wall float64
	var outs []*rlwe.Ciphertext
	run := func() error {
		var err error
		cpu, wall, outs, err = timeRun(c, s.v)
		return err
	}
	var err error
	if s.wrap != nil {
		err = s.wrap(run)
	} else {
		err = run()
	}
	if err != nil {
		return fmt.Errorf("%s/%v: %w", c.Name, s.v, err)
	}
	if warmUp {
		return nil
	}
	s.times = append(s.times, cpu)
	s.walls = append(s.walls, wall)
	if last {
		if s.err, err = c.MaxErr(s.v, outs); err != nil {
			return fmt.Errorf("%s/%v: %w", c.Name, s.v, err)
		}
	}
	return nil
}
