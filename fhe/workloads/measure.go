package workloads

import (
	"fmt"
	"runtime"
	"sort"
	"time"
)

// Result is one row of `fhegate bench workloads --json`.
type Result struct {
	Name       string  `json:"name"`
	Params     string  `json:"params"`
	BaselineMS float64 `json:"baseline_ms"`
	FhegateMS  float64 `json:"fhegate_ms"`
	// MaxErr is the larger of the two variants' maximum absolute errors
	// against the plaintext reference (BGV: 0 means exact).
	MaxErr  float64 `json:"max_err"`
	Threads int     `json:"threads"`

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

// ParamsString describes the preset of an environment for reports.
func ParamsString(e *Env) string {
	p := e.P
	s := fmt.Sprintf("%s (N=2^%d, %d primes in Q, logQP=%.0f", p.Preset.Name, p.LogN(), p.MaxLevel()+1, p.LogQP())
	if t := p.PlaintextModulus(); t != 0 {
		s += fmt.Sprintf(", t=%d", t)
	}
	return s + ")"
}

// Measure runs both variants of c (and of packed, if not nil) runs times
// each, interleaved (baseline, fhegate, baseline, …) after one warm-up run
// each, with runtime.GOMAXPROCS(1) for the whole measurement (restored on
// return), and reports the medians. Errors are measured on the last run's
// outputs of each variant.
func Measure(c, packed *Case, runs int) (Result, error) {
	if runs < 1 {
		runs = 1
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)

	r := Result{Name: c.Name, Params: ParamsString(c.env), Threads: 1, Runs: runs,
		BaselineTimed: c.Timed(Baseline), FhegateTimed: c.Timed(Fhegate)}
	var times [2][]float64
	for i := -1; i < runs; i++ {
		for _, v := range Variants {
			t0 := time.Now()
			outs, err := c.Run(v)
			d := time.Since(t0)
			if err != nil {
				return r, fmt.Errorf("%s/%v: %w", c.Name, v, err)
			}
			if i < 0 {
				continue // warm-up
			}
			times[v] = append(times[v], float64(d.Nanoseconds())/1e6)
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
	r.MaxErr = max(r.BaselineErr, r.FhegateErr)
	if packed == nil {
		return r, nil
	}
	var pt []float64
	for i := -1; i < runs; i++ {
		t0 := time.Now()
		outs, err := packed.Run(Fhegate)
		d := time.Since(t0)
		if err != nil {
			return r, fmt.Errorf("%s/packed: %w", c.Name, err)
		}
		if i < 0 {
			continue
		}
		pt = append(pt, float64(d.Nanoseconds())/1e6)
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
