package gpu

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/tuneinsight/lattigo/v6/ring"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/fhe/engine"
)

// Options configure a Dispatcher.
type Options struct {
	// Log receives arming decisions and fallbacks (never per-call success).
	Log *zap.Logger
	// Accelerator is the candidate backend; nil means CPU only.
	Accelerator Backend
	// Table is the crossover table in force (nil: CPU only unless
	// ForceThreshold is set). TableSource names where it came from.
	Table       *Table
	TableSource string
	// ForceThreshold > 0 routes every batch of at least this many
	// polynomials to the (armed) accelerator regardless of the table; for
	// tests and calibration only.
	ForceThreshold int
	// SelfTestSeed seeds the arming self-test vectors.
	SelfTestSeed uint64
}

// BackendStats are the per-backend counters.
type BackendStats struct {
	Backend string `json:"backend"`
	// Batches and Polys count what the backend executed (for "cpu": calls
	// the dispatcher saw and left to Lattigo's Go NTT or ran itself).
	Batches uint64 `json:"batches"`
	Polys   uint64 `json:"polys"`
	// Fallbacks counts accelerator batches that failed (error or a
	// first-use mismatch) and were recomputed on the CPU.
	Fallbacks uint64 `json:"fallbacks"`
}

type counters struct{ batches, polys, fallbacks atomic.Uint64 }

// Status is the dispatcher's arming state, for logs and `fhegate gpu info`.
type Status struct {
	Accelerator    string         `json:"accelerator,omitempty"`
	Armed          bool           `json:"armed"`
	Routing        bool           `json:"routing"`
	Reason         string         `json:"reason"`
	TableSource    string         `json:"table_source,omitempty"`
	Table          *Table         `json:"table,omitempty"`
	ForceThreshold int            `json:"force_threshold,omitempty"`
	Stats          []BackendStats `json:"stats"`
	Router         RouterStats    `json:"router"`
}

// Dispatcher is the router behind fhegate's engine seam (engine.Router):
// see the package documentation.
type Dispatcher struct {
	log      *zap.Logger
	cpu      *CPU
	accel    Backend // nil unless armed
	accelNm  string
	armed    bool
	reason   string
	table    *Table // nil unless usable for the armed accelerator
	tableSrc string
	rawTable *Table
	force    int

	routing atomic.Bool // armed && some N has a threshold

	mu       sync.Mutex
	params   map[*ring.SubRing]*Params // nil entry: unsupported SubRing
	verified map[Key]int8              // 0 unknown, 1 proved on first use, -1 mismatch (CPU forever)

	cpuStats, accelStats counters
	batches, transforms  atomic.Uint64
	routed               atomic.Uint64
	sizes                sizeHistogram
}

// NewDispatcher arms the accelerator (if any) by SelfTest and decides which
// table applies. It never fails for a bad accelerator or table: those leave
// the dispatcher CPU only, with one warning.
func NewDispatcher(o Options) *Dispatcher {
	d := &Dispatcher{
		log:      o.Log,
		cpu:      NewCPU(),
		tableSrc: o.TableSource,
		rawTable: o.Table,
		force:    o.ForceThreshold,
		params:   map[*ring.SubRing]*Params{},
		verified: map[Key]int8{},
	}
	if d.log == nil {
		d.log = zap.NewNop()
	}
	switch a := o.Accelerator; {
	case a == nil:
		d.reason = "no accelerator: CPU only"
	default:
		d.accelNm = a.Name()
		if err := SelfTest(a, o.SelfTestSeed); err != nil {
			d.reason = "self-test failed: " + err.Error()
			d.log.Warn("gpu: accelerator not armed (self-test failed); CPU only", zap.String("backend", a.Name()), zap.Error(err))
			break
		}
		d.accel, d.armed = a, true
		switch {
		case d.force > 0:
			d.reason = fmt.Sprintf("armed; forced threshold B ≥ %d at every N", d.force)
		case o.Table == nil:
			d.reason = "armed but no crossover table: CPU only"
		case o.Table.Fingerprint.Backend == "" && len(o.Table.Entries) == 0:
			d.reason = "armed but the table in force has no measurements (run `fhegate calibrate`): CPU only"
		case o.Table.Fingerprint != FingerprintOf(a):
			d.reason = fmt.Sprintf("armed but the table was measured on %+v, not this device %+v: CPU only", o.Table.Fingerprint, FingerprintOf(a))
			d.log.Warn("gpu: crossover table is for another device; CPU only", zap.String("backend", a.Name()),
				zap.Any("table", o.Table.Fingerprint), zap.Any("device", FingerprintOf(a)))
		case !o.Table.HasCrossover():
			d.table = o.Table
			d.reason = "armed; the table has no crossover (CPU faster at every measured B): CPU only"
		default:
			d.table = o.Table
			d.reason = "armed; routing batches at or above the table's crossovers"
		}
	}
	d.routing.Store(d.armed && (d.force > 0 || d.table.HasCrossover()))
	return d
}

// threshold returns the smallest batch routed to the accelerator for N.
func (d *Dispatcher) threshold(n int) int {
	if !d.armed {
		return 0
	}
	if d.force > 0 {
		return d.force
	}
	if b, ok := d.table.Crossover(n); ok {
		return b
	}
	return 0
}

// Threshold reports the batch size from which N routes to the accelerator (ok=false: never).
func (d *Dispatcher) Threshold(n int) (int, bool) {
	b := d.threshold(n)
	return b, b > 0
}

// Status reports the arming state and counters.
func (d *Dispatcher) Status() Status {
	return Status{
		Accelerator: d.accelNm, Armed: d.armed, Routing: d.routing.Load(), Reason: d.reason,
		TableSource: d.tableSrc, Table: d.rawTable, ForceThreshold: d.force, Stats: d.Stats(), Router: d.RouterStats(),
	}
}

// Stats returns the counters: "cpu" first, then the accelerator if armed.
func (d *Dispatcher) Stats() []BackendStats {
	s := []BackendStats{{Backend: CPUName, Batches: d.cpuStats.batches.Load(), Polys: d.cpuStats.polys.Load(), Fallbacks: 0}}
	if d.accelNm != "" {
		s = append(s, BackendStats{Backend: d.accelNm, Batches: d.accelStats.batches.Load(),
			Polys: d.accelStats.polys.Load(), Fallbacks: d.accelStats.fallbacks.Load()})
	}
	return s
}

// RouterStats are the counters of the engine seam: every batch the engine
// handed over, how many per-limb transforms it held, how many of those the
// accelerator ran, and the batch size (transforms per batch) distribution.
type RouterStats struct {
	Batches     uint64 `json:"batches"`
	Transforms  uint64 `json:"transforms"`
	Routed      uint64 `json:"routed"`
	MedianBatch int    `json:"median_batch"`
	P95Batch    int    `json:"p95_batch"`
}

// RoutedFraction is Routed / Transforms (0 when nothing was seen).
func (s RouterStats) RoutedFraction() float64 {
	if s.Transforms == 0 {
		return 0
	}
	return float64(s.Routed) / float64(s.Transforms)
}

// RouterStats returns the seam counters.
func (d *Dispatcher) RouterStats() RouterStats {
	med, p95 := d.sizes.quantiles()
	return RouterStats{Batches: d.batches.Load(), Transforms: d.transforms.Load(), Routed: d.routed.Load(),
		MedianBatch: med, P95Batch: p95}
}

// ResetRouterStats zeroes the seam counters (RouterStats), e.g. between
// benchmark cases. Counts of batches running meanwhile may be split.
func (d *Dispatcher) ResetRouterStats() {
	d.batches.Store(0)
	d.transforms.Store(0)
	d.routed.Store(0)
	for i := range d.sizes.n {
		d.sizes.n[i].Store(0)
	}
}

// maxTrackedBatch bounds the exact part of the batch-size histogram; larger
// batches are counted as maxTrackedBatch.
const maxTrackedBatch = 4096

type sizeHistogram struct {
	n [maxTrackedBatch + 1]atomic.Uint64
}

func (h *sizeHistogram) record(b int) {
	if b > maxTrackedBatch {
		b = maxTrackedBatch
	}
	h.n[b].Add(1)
}

// quantiles returns the median and the 95th percentile (nearest rank).
func (h *sizeHistogram) quantiles() (med, p95 int) {
	var counts [maxTrackedBatch + 1]uint64
	var total uint64
	for i := range counts {
		counts[i] = h.n[i].Load()
		total += counts[i]
	}
	if total == 0 {
		return 0, 0
	}
	rank := func(q float64) int {
		want := uint64(q*float64(total) + 0.999999)
		if want == 0 {
			want = 1
		}
		var acc uint64
		for i, c := range counts {
			acc += c
			if acc >= want {
				return i
			}
		}
		return maxTrackedBatch
	}
	return rank(0.5), rank(0.95)
}

// ----- installation ---------------------------------------------------------

var (
	installMu sync.Mutex
	current   atomic.Pointer[Dispatcher]
)

// ErrInstalled is returned by Install when another dispatcher is installed.
var ErrInstalled = errors.New("gpu: another dispatcher is installed")

// Install makes d the router of fhegate's engine (engine.SetRouter): the
// batched transforms of every key switch the engine runs go through d from
// now on. Exactly one dispatcher may be installed; its owner must Uninstall
// it. Install and Uninstall are safe while evaluations run.
func (d *Dispatcher) Install() error {
	installMu.Lock()
	defer installMu.Unlock()
	if cur := current.Load(); cur != nil {
		if cur == d {
			return nil
		}
		return ErrInstalled
	}
	current.Store(d)
	engine.SetRouter(d)
	return nil
}

// Uninstall removes d if it is installed (else it is a no-op). Afterwards
// the engine runs Lattigo's own per-limb transforms.
func (d *Dispatcher) Uninstall() {
	installMu.Lock()
	defer installMu.Unlock()
	if current.Load() == d {
		engine.SetRouter(nil)
		current.Store(nil)
	}
}

// Installed returns the installed dispatcher, or nil.
func Installed() *Dispatcher { return current.Load() }

// ----- routing ---------------------------------------------------------------

// maxKeys bounds the per-SubRing cache: rings that come and go (temporary
// rings built by callers) must not pin memory forever.
const maxKeys = 1024

// paramsOf returns the cached NTT constants of s (nil: unsupported).
func (d *Dispatcher) paramsOf(s *ring.SubRing) *Params {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.params[s]
	if !ok {
		if len(d.params) >= maxKeys {
			clear(d.params)
		}
		p, _ = ParamsOf(s)
		d.params[s] = p
	}
	return p
}

// Transform implements engine.Router. The batch is split by modulus; each
// modulus's B transforms go to the armed accelerator iff B reaches the
// threshold for N (crossover table, or the forced threshold), else they run
// Lattigo's own per-limb transform (NTTLazy/INTTLazy where the engine asked
// for lazy). Nothing waits for other callers: a batch is what the engine
// formed.
func (d *Dispatcher) Transform(inverse, lazy bool, jobs []engine.Job) {
	n := uint64(len(jobs))
	if n == 0 {
		return
	}
	d.batches.Add(1)
	d.transforms.Add(n)
	d.sizes.record(len(jobs))
	if !d.routing.Load() {
		engine.RunLattigo(inverse, lazy, jobs)
		d.cpuStats.batches.Add(1)
		d.cpuStats.polys.Add(n)
		return
	}
	dir := Forward
	if inverse {
		dir = Inverse
	}
	// Group by SubRing in order of first appearance.
	type group struct {
		s   *ring.SubRing
		idx []int
	}
	var groups []group
	at := map[*ring.SubRing]int{}
	for i, j := range jobs {
		g, ok := at[j.S]
		if !ok {
			g = len(groups)
			at[j.S] = g
			groups = append(groups, group{s: j.S})
		}
		groups[g].idx = append(groups[g].idx, i)
	}
	for _, g := range groups {
		if p := d.paramsOf(g.s); p != nil {
			if t := d.threshold(p.N); t > 0 && len(g.idx) >= t {
				src := make([][]uint64, len(g.idx))
				dst := make([][]uint64, len(g.idx))
				for k, i := range g.idx {
					src[k], dst[k] = jobs[i].Src, jobs[i].Dst
				}
				if CheckBatch(p, src, dst) == nil {
					if handled, onAccel := d.accelerate(dir, p, src, dst); handled {
						if onAccel {
							d.routed.Add(uint64(len(g.idx)))
						}
						continue
					}
				}
			}
		}
		sub := make([]engine.Job, len(g.idx))
		for k, i := range g.idx {
			sub[k] = jobs[i]
		}
		engine.RunLattigo(inverse, lazy, sub)
		d.cpuStats.batches.Add(1)
		d.cpuStats.polys.Add(uint64(len(sub)))
	}
}

// accelerate runs one batch on the armed accelerator. The first batch of
// every (N, q) is also computed on the CPU and compared; a mismatch turns the
// accelerator off for that (N, q) for the life of the dispatcher. It returns
// handled=false, with dst untouched, when the caller must compute on the
// CPU; onAccel reports whether dst holds the accelerator's output (false
// when a first-use mismatch left the CPU result there).
func (d *Dispatcher) accelerate(dir Direction, p *Params, src, dst [][]uint64) (handled, onAccel bool) {
	d.mu.Lock()
	state := d.verified[p.Key()]
	d.mu.Unlock()
	if state < 0 {
		return false, false
	}
	var ref [][]uint64
	if state == 0 {
		ref = make([][]uint64, len(src))
		for i := range ref {
			ref[i] = make([]uint64, p.N)
		}
		if err := d.cpu.NTT(dir, p, src, ref); err != nil {
			return false, false
		}
	}
	if err := d.accel.NTT(dir, p, src, dst); err != nil {
		d.accelStats.fallbacks.Add(1)
		d.log.Warn("gpu: accelerator batch failed; CPU fallback", zap.String("backend", d.accelNm),
			zap.Int("n", p.N), zap.Int("batch", len(src)), zap.Error(err))
		return false, false
	}
	if ref != nil {
		ok := true
		for i := range ref {
			if !equalU64(ref[i], dst[i]) {
				ok = false
			}
			copy(dst[i], ref[i]) // the CPU result is authoritative either way
		}
		d.mu.Lock()
		if ok {
			d.verified[p.Key()] = 1
		} else {
			d.verified[p.Key()] = -1
		}
		d.mu.Unlock()
		if !ok {
			d.accelStats.fallbacks.Add(1)
			d.log.Error("gpu: accelerator output differs from Lattigo; disabled for this modulus",
				zap.String("backend", d.accelNm), zap.Int("n", p.N), zap.Uint64("q", p.Q), zap.Stringer("dir", dir))
			return true, false
		}
	}
	d.accelStats.batches.Add(1)
	d.accelStats.polys.Add(uint64(len(src)))
	return true, true
}

// RouteBatch transforms an explicit batch of one (N, q), routed exactly as
// an engine batch with B transforms of that modulus would be: accelerator iff armed and
// len(src) ≥ threshold(N), else the CPU backend. It returns the backend used.
func (d *Dispatcher) RouteBatch(dir Direction, p *Params, src, dst [][]uint64) (string, error) {
	if err := CheckBatch(p, src, dst); err != nil {
		return "", err
	}
	if t := d.threshold(p.N); t > 0 && len(src) >= t {
		if handled, onAccel := d.accelerate(dir, p, src, dst); handled {
			if onAccel {
				return d.accelNm, nil
			}
			return CPUName, nil
		}
	}
	d.cpuStats.batches.Add(1)
	d.cpuStats.polys.Add(uint64(len(src)))
	return CPUName, d.cpu.NTT(dir, p, src, dst)
}

func equalU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
