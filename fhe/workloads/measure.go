package workloads

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"time"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
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
	c0, okc := processCPU()
	t0 := time.Now()
	outs, err := c.Run(v)
	wall := float64(time.Since(t0).Nanoseconds()) / 1e6
	c1, _ := processCPU()
	cpu := wall
	if okc {
		cpu = float64(c1-c0) / 1e6
	}
	return cpu, wall, outs, err
}

// Measure runs both variants of c (and of packed, if not nil) runs times
// each, interleaved (baseline, fhegate, baseline, …) after one warm-up run
// each, with runtime.GOMAXPROCS(1) for the whole measurement (restored on
// return), and reports the medians of process CPU time (and of wall time). Errors are measured on the last run's
// outputs of each variant.
func Measure(c, packed *Case, runs int) (Result, error) {
	if runs < 1 {
		runs = 1
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)

	r := Result{Name: c.Name, Params: ParamsString(c.env), Threads: 1, Runs: runs,
		BaselineTimed: c.Timed(Baseline), FhegateTimed: c.Timed(Fhegate)}
	r.Timer = "wall"
	if _, ok := processCPU(); ok {
		r.Timer = "process-cpu"
	}
	var times, walls [2][]float64
	for i := -1; i < runs; i++ {
		for _, v := range Variants {
			cpu, wall, outs, err := timeRun(c, v)
			if err != nil {
				return r, fmt.Errorf("%s/%v: %w", c.Name, v, err)
			}
			if i < 0 {
				continue // warm-up
			}
			times[v] = append(times[v], cpu)
			walls[v] = append(walls[v], wall)
			if i == runs-1 {
				e, err := c.MaxErr(v, outs)
				if err != nil {
					return r, fmt.Errorf("%s/%v: %w", c.Name, v, err)
				}
				if v == Baseline {
					r.BaselineErr = e
				} else {
					r.FhegateErr = e
				}
			}
		}
	}
	r.BaselineMS, r.FhegateMS = median(times[Baseline]), median(times[Fhegate])
	r.BaselineWallMS, r.FhegateWallMS = median(walls[Baseline]), median(walls[Fhegate])
	r.MaxErr = max(r.BaselineErr, r.FhegateErr)
	if packed == nil {
		return r, nil
	}
	var pt []float64
	for i := -1; i < runs; i++ {
		cpu, _, outs, err := timeRun(packed, Fhegate)
		if err != nil {
			return r, fmt.Errorf("%s/packed: %w", c.Name, err)
		}
		if i < 0 {
			continue
		}
		pt = append(pt, cpu)
		if i == runs-1 {
			if r.PackedErr, err = packed.MaxErr(Fhegate, outs); err != nil {
				return r, fmt.Errorf("%s/packed: %w", c.Name, err)
			}
		}
	}
	r.Batch = packed.Batch
	r.AmortizedMS = median(pt) / float64(packed.Batch)
	return r, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
