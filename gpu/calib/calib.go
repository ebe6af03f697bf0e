package calib

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/gpu"
)

// ErrSelfTest: the accelerator failed its self-test; no thresholds are written.
var ErrSelfTest = errors.New("calib: accelerator failed its self-test; refusing to write thresholds")

// Options drive Measure and Verify.
type Options struct {
	Log *zap.Logger
	// Accel is the accelerator to measure against the CPU; nil = CPU ladder only.
	Accel   gpu.Backend
	LogNs   []int
	Batches []int
	// Budget bounds the whole measurement (not the self-test).
	Budget time.Duration
	// K is the number of timed rounds per cell (best of K).
	K int
	// MaxWords caps B·N per cell (memory: about four buffers of that size).
	MaxWords int
	// MinRound is the least wall time of one timed round (short cells are
	// repeated inside a round).
	MinRound time.Duration
	// Progress, if set, is called after every cell.
	Progress func(done, total int, label string)
	// Command is recorded in the table.
	Command string
}

// Defaults returns the ladder of a full (quick=false) or quick run.
func Defaults(quick bool) Options {
	o := Options{LogNs: []int{10, 11, 12, 13, 14, 15, 16}, K: 5, Budget: 2 * time.Minute, MaxWords: 1 << 23, MinRound: 10 * time.Millisecond}
	for b := 1; b <= 2048; b *= 2 {
		o.Batches = append(o.Batches, b)
	}
	if quick {
		o.LogNs, o.K, o.Budget, o.MaxWords, o.MinRound = []int{10, 12, 14}, 3, 20*time.Second, 1<<21, 5*time.Millisecond
		o.Batches = o.Batches[:9] // up to 256
	}
	return o
}

func (o *Options) fill() {
	d := Defaults(false)
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	if len(o.LogNs) == 0 {
		o.LogNs = d.LogNs
	}
	if len(o.Batches) == 0 {
		o.Batches = d.Batches
	}
	if o.K <= 0 {
		o.K = d.K
	}
	if o.Budget <= 0 {
		o.Budget = d.Budget
	}
	if o.MaxWords <= 0 {
		o.MaxWords = d.MaxWords
	}
	if o.MinRound <= 0 {
		o.MinRound = d.MinRound
	}
}

// Prime is the modulus the ladder is measured with (60 bits; NTT cost does
// not depend on the prime).
func Prime() uint64 { return gpu.SelfTestPrimes()[1] }

type batch struct {
	src, dst [][]uint64
}

func newBatch(p *gpu.Params, b int, rng *rand.Rand) batch {
	x := batch{src: make([][]uint64, b), dst: make([][]uint64, b)}
	for i := range x.src {
		x.src[i] = make([]uint64, p.N)
		for j := range x.src[i] {
			x.src[i][j] = rng.Uint64N(p.Q)
		}
		x.dst[i] = make([]uint64, p.N)
	}
	return x
}

// timer times f in rounds of at least minRound; best is the fastest single
// call over all rounds.
type timer struct {
	f     func() error
	inner int
	best  float64
}

func newTimer(f func() error, minRound time.Duration) (*timer, error) {
	t0 := time.Now()
	if err := f(); err != nil { // warm-up (twiddle upload, first-use checks)
		return nil, err
	}
	one := time.Since(t0)
	inner := 1
	if one > 0 && one < minRound {
		inner = int(minRound/one) + 1
	}
	return &timer{f: f, inner: inner}, nil
}

func (t *timer) round() error {
	// Each call is timed on its own and the best call kept: a preemption by
	// another process spoils one call, not the whole round.
	for i := 0; i < t.inner; i++ {
		t0 := time.Now()
		if err := t.f(); err != nil {
			return err
		}
		ns := float64(time.Since(t0).Nanoseconds())
		if t.best == 0 || ns < t.best {
			t.best = ns
		}
	}
	return nil
}

// bestOf interleaves k rounds of every timer (so drift hits all alike).
func bestOf(ctx context.Context, k int, ts ...*timer) error {
	for r := 0; r < k; r++ {
		for _, t := range ts {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := t.round(); err != nil {
				return err
			}
		}
	}
	return nil
}

// Measure runs the ladder and returns the table (crossovers derived). With
// an accelerator it first runs gpu.SelfTest and returns ErrSelfTest on failure.
func Measure(ctx context.Context, o Options) (*gpu.Table, error) {
	o.fill()
	cpu := gpu.NewCPU()
	fp := gpu.FingerprintOf(cpu)
	if o.Accel != nil {
		if err := gpu.SelfTest(o.Accel, uint64(time.Now().UnixNano())); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSelfTest, err)
		}
		fp = gpu.FingerprintOf(o.Accel)
	}
	tab := &gpu.Table{Version: gpu.TableVersion, Fingerprint: fp, Created: time.Now().UTC().Format(time.RFC3339), Command: o.Command}
	what := "speedup = cpu_ns/accel_ns"
	if o.Accel == nil {
		what = "CPU only (no accelerator built or selected): no crossovers"
	}
	tab.Note = fmt.Sprintf("fastest single call over %d interleaved rounds (≥%v each) of one forward NTT batch of B polynomials, q = %d (60 bits), cpu = Lattigo NTT on %d goroutines; %s; budget %v",
		o.K, o.MinRound, Prime(), runtime.GOMAXPROCS(0), what, o.Budget)

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	deadline := time.Now().Add(o.Budget)
	total := len(o.LogNs) * len(o.Batches)
	done := 0
	for ni, logN := range o.LogNs {
		p, err := gpu.NewParams(1<<logN, Prime())
		if err != nil {
			return nil, err
		}
		e := gpu.Entry{LogN: logN}
		share := time.Until(deadline) / time.Duration(len(o.LogNs)-ni)
		nEnd := time.Now().Add(share)
		var last time.Duration
		for bi, b := range o.Batches {
			if b*p.N > o.MaxWords || (bi > 0 && time.Now().Add(last*5/2).After(nEnd)) {
				o.Log.Debug("calibrate: ladder cut", zap.Int("log_n", logN), zap.Int("from_b", b))
				done += len(o.Batches) - bi
				break
			}
			t0 := time.Now()
			x := newBatch(p, b, rng)
			c, err := newTimer(func() error { return cpu.NTT(gpu.Forward, p, x.src, x.dst) }, o.MinRound)
			if err != nil {
				return nil, err
			}
			ts := []*timer{c}
			if o.Accel != nil {
				a, err := newTimer(func() error { return o.Accel.NTT(gpu.Forward, p, x.src, x.dst) }, o.MinRound)
				if err != nil {
					return nil, fmt.Errorf("calib: %s N=2^%d B=%d: %w", o.Accel.Name(), logN, b, err)
				}
				ts = append(ts, a)
			}
			if err := bestOf(ctx, o.K, ts...); err != nil {
				return nil, err
			}
			cell := gpu.Cell{B: b, CPUNs: round3(c.best)}
			if o.Accel != nil {
				cell.AccelNs = round3(ts[1].best)
				cell.Speedup = cell.CPUNs / cell.AccelNs
			}
			e.Ladder = append(e.Ladder, cell)
			last = time.Since(t0)
			done++
			if o.Progress != nil {
				o.Progress(done, total, fmt.Sprintf("N=2^%d B=%d", logN, b))
			}
		}
		e.Crossover = gpu.DeriveCrossover(e.Ladder)
		tab.Entries = append(tab.Entries, e)
	}
	if err := tab.Validate(); err != nil {
		return nil, err
	}
	return tab, nil
}

func round3(ns float64) float64 { return float64(int64(ns*1000+0.5)) / 1000 }

// VerifyCell is one re-measured cell.
type VerifyCell struct {
	LogN     int     `json:"log_n"`
	B        int     `json:"b"`
	CPUNs    float64 `json:"cpu_ns"`
	AccelNs  float64 `json:"accel_ns,omitempty"`
	RoutedNs float64 `json:"routed_ns"`
	Route    string  `json:"route"`
	Ratio    float64 `json:"ratio"` // routed / min(cpu, accel)
	OK       bool    `json:"ok"`
}

// verifyAttempts bounds the re-measurement of a cell out of tolerance.
const verifyAttempts = 5

// Tolerance is the --verify bound: routed ≤ Tolerance × min(cpu, accelerator).
const Tolerance = 1.05

// Verify re-measures every ladder cell of tab through a dispatcher built
// from (o.Accel, tab) and checks routed ≤ 1.05 × min(cpu, accel). A cell
// out of tolerance gets up to four more, doubling, series of rounds before it counts as
// failed (noise, not routing: a wrong route is slower in every round). It
// returns the cells and whether all passed.
func Verify(ctx context.Context, o Options, tab *gpu.Table) ([]VerifyCell, bool, error) {
	o.fill()
	d := gpu.NewDispatcher(gpu.Options{Log: o.Log, Accelerator: o.Accel, Table: tab, SelfTestSeed: uint64(time.Now().UnixNano())})
	cpu := gpu.NewCPU()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	var cells []VerifyCell
	all := true
	total := 0
	for _, e := range tab.Entries {
		total += len(e.Ladder)
	}
	done := 0
	for _, e := range tab.Entries {
		p, err := gpu.NewParams(1<<e.LogN, Prime())
		if err != nil {
			return nil, false, err
		}
		for _, c := range e.Ladder {
			done++
			if c.B*p.N > o.MaxWords {
				continue
			}
			x := newBatch(p, c.B, rng)
			vc := VerifyCell{LogN: e.LogN, B: c.B}
			ct, err := newTimer(func() error { return cpu.NTT(gpu.Forward, p, x.src, x.dst) }, o.MinRound)
			if err != nil {
				return nil, false, err
			}
			rt, err := newTimer(func() error {
				r, err := d.RouteBatch(gpu.Forward, p, x.src, x.dst)
				vc.Route = r
				return err
			}, o.MinRound)
			if err != nil {
				return nil, false, err
			}
			ts := []*timer{ct, rt}
			if o.Accel != nil {
				at, err := newTimer(func() error { return o.Accel.NTT(gpu.Forward, p, x.src, x.dst) }, o.MinRound)
				if err != nil {
					return nil, false, err
				}
				ts = append(ts, at)
			}
			// Best-of-k, extended with 2k, 4k, … more rounds (the timers keep
			// their best) while the cell is out of tolerance: noise from other
			// processes only ever adds time, a wrong route is slower in every
			// round. The round order alternates so no timer always goes first.
			for attempt := 0; attempt < verifyAttempts; attempt++ {
				order := ts
				if attempt%2 == 1 {
					order = []*timer{ts[1], ts[0]}
					order = append(order, ts[2:]...)
				}
				if err := bestOf(ctx, o.K<<attempt, order...); err != nil {
					return nil, false, err
				}
				vc.CPUNs, vc.RoutedNs = round3(ct.best), round3(rt.best)
				best := vc.CPUNs
				if o.Accel != nil {
					vc.AccelNs = round3(ts[2].best)
					best = min(best, vc.AccelNs)
				}
				vc.Ratio = vc.RoutedNs / best
				vc.OK = vc.Ratio <= Tolerance
				if vc.OK {
					break
				}
			}
			all = all && vc.OK
			cells = append(cells, vc)
			if o.Progress != nil {
				o.Progress(done, total, fmt.Sprintf("verify N=2^%d B=%d", e.LogN, c.B))
			}
		}
	}
	return cells, all, nil
}

// WriteLadder prints the LP-137-style table: speedup (cpu/accelerator) per
// cell, or µs per polynomial on the CPU when there is no accelerator, and the
// crossover per N.
func WriteLadder(w io.Writer, tab *gpu.Table) {
	var bs []int
	seen := map[int]bool{}
	for _, e := range tab.Entries {
		for _, c := range e.Ladder {
			if !seen[c.B] {
				seen[c.B] = true
				bs = append(bs, c.B)
			}
		}
	}
	sortInts(bs)
	accel := tab.Fingerprint.Backend != "" && tab.Fingerprint.Backend != gpu.CPUName
	if accel {
		fmt.Fprintf(w, "speedup cpu/%s (>1: %s faster); device %q, driver %q, host %q\n",
			tab.Fingerprint.Backend, tab.Fingerprint.Backend, tab.Fingerprint.Device, tab.Fingerprint.Driver, tab.Fingerprint.HostCPU)
	} else {
		fmt.Fprintf(w, "CPU only: µs per polynomial (forward NTT); host %q\n", tab.Fingerprint.HostCPU)
	}
	var hdr strings.Builder
	hdr.WriteString("| N |")
	sep := "|---|"
	for _, b := range bs {
		fmt.Fprintf(&hdr, " B=%d |", b)
		sep += "---|"
	}
	hdr.WriteString(" crossover |")
	fmt.Fprintln(w, hdr.String())
	fmt.Fprintln(w, sep+"---|")
	for _, e := range tab.Entries {
		row := fmt.Sprintf("| %d |", 1<<e.LogN)
		for _, b := range bs {
			cell := " – |"
			for _, c := range e.Ladder {
				if c.B == b {
					if accel {
						cell = fmt.Sprintf(" %.2fx |", c.Speedup)
					} else {
						cell = fmt.Sprintf(" %.1f |", c.CPUNs/float64(c.B)/1e3)
					}
				}
			}
			row += cell
		}
		if e.Crossover != nil {
			row += fmt.Sprintf(" %d |", *e.Crossover)
		} else {
			row += " none |"
		}
		fmt.Fprintln(w, row)
	}
}

// WriteVerify prints the verify cells.
func WriteVerify(w io.Writer, cells []VerifyCell) {
	fmt.Fprintln(w, "| N | B | cpu µs | accel µs | routed µs | route | routed/min | ok |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, c := range cells {
		acc := "–"
		if c.AccelNs > 0 {
			acc = fmt.Sprintf("%.1f", c.AccelNs/1e3)
		}
		fmt.Fprintf(w, "| %d | %d | %.1f | %s | %.1f | %s | %.3f | %v |\n", 1<<c.LogN, c.B, c.CPUNs/1e3, acc, c.RoutedNs/1e3, c.Route, c.Ratio, c.OK)
	}
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
