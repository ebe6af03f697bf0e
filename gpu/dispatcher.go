package gpu

import (
	"errors"
	"fmt"
	"slices"
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
	// Queue makes calls to an exclusive accelerator (Exclusive: one device
	// queue) wait for it; by default a batch that finds it busy runs on the
	// CPU instead (Dispatcher.claim). FHEGATE_GPU_QUEUE=1 sets it.
	Queue bool
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
	// Shed counts routed calls (transform batches and key-switch or
	// product kernels) that found an exclusive accelerator busy and ran on
	// the CPU instead.
	Shed uint64 `json:"shed,omitempty"`
}

type counters struct{ batches, polys, fallbacks, shed atomic.Uint64 }

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

	// device is held by the call running on an exclusive accelerator
	// unless queue is set (claim)
	device    sync.Mutex
	exclusive bool
	queue     bool

	mu       sync.Mutex
	params   map[*ring.SubRing]*Params // nil entry: unsupported SubRing
	verified map[Key]int8              // 0 unknown, 1 proved on first use, -1 mismatch (CPU forever)
	// macVerified: the same for the key switch's multiply-accumulate.
	macVerified   map[macKey]int8
	modUpVerified map[modUpKey]int8
	sdVerified    map[macKey]int8
	// tensorVerified, mulAddVerified, linCombVerified: BGV's tensor,
	// multiply-add and linear combination.
	tensorVerified, mulAddVerified, linCombVerified map[macKey]int8

	cpuStats, accelStats counters
	batches, transforms  atomic.Uint64
	routed               atomic.Uint64
	mulAcc               atomic.Uint64 // moduli of key-switch multiply-accumulates the accelerator ran
	modUps               atomic.Uint64 // basis extensions the accelerator ran
	scaleDiffs           atomic.Uint64 // ModDown/rescale limbs the accelerator ran
	tensors, mulAdds     atomic.Uint64 // BGV tensor and multiply-add limbs the accelerator ran
	linCombs             atomic.Uint64 // linear-combination limbs the accelerator ran
	shed                 atomic.Uint64 // routed calls run on the CPU: the exclusive accelerator was busy
	sizes                sizeHistogram
	shapes               shapeCounter
}

// NewDispatcher arms the accelerator (if any) by SelfTest and decides which
// table applies. It never fails for a bad accelerator or table: those leave
// the dispatcher CPU only, with one warning.
func NewDispatcher(o Options) *Dispatcher {
	d := &Dispatcher{
		log:      o.Log,
		cpu:      &CPU{Workers: 1}, // serial, as the engine's own unrouted transforms
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
		if e, ok := a.(Exclusive); ok && e.Exclusive() {
			d.exclusive, d.queue = true, o.Queue
		}
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

// thresholdFor returns the smallest B (polynomials per modulus) from which
// a batch of shape s (s.B ignored) goes to the accelerator; 0: never.
func (d *Dispatcher) thresholdFor(s Shape) int {
	if !d.armed {
		return 0
	}
	if d.force > 0 {
		return d.force
	}
	if b, ok := d.table.Route(s); ok {
		return b
	}
	return 0
}

// Threshold reports the batch size (polynomials per modulus) from which
// batches of shape s route to the accelerator (ok=false: never).
func (d *Dispatcher) Threshold(s Shape) (int, bool) {
	b := d.thresholdFor(s)
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
			Polys: d.accelStats.polys.Load(), Fallbacks: d.accelStats.fallbacks.Load(), Shed: d.accelStats.shed.Load()})
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
	// TransformMedianBatch is the size of the batch the median transform
	// travelled in (the batch-size distribution weighted by size: what an
	// accelerator sees per transform, where MedianBatch counts calls).
	TransformMedianBatch int `json:"transform_median_batch"`
	// MulAcc counts the moduli of key-switch multiply-accumulates
	// (engine.MulAccJob) the accelerator ran.
	MulAcc uint64 `json:"muladd_routed,omitempty"`
	// ModUp counts the basis extensions (engine.ModUpJob) the accelerator
	// ran.
	ModUp uint64 `json:"modup_routed,omitempty"`
	// ScaleDiff counts the ModDown/rescale limbs (engine.ScaleDiffJob) the
	// accelerator ran.
	ScaleDiff uint64 `json:"scalediff_routed,omitempty"`
	// Tensor and MulAdd count the limbs of BGV tensor products
	// (engine.TensorJob) and multiply-adds by an integer
	// (engine.MulAddJob) the accelerator ran.
	Tensor uint64 `json:"tensor_routed,omitempty"`
	MulAdd uint64 `json:"scalar_muladd_routed,omitempty"`
	// LinComb counts the limbs of linear combinations (engine.LinCombJob:
	// a baby step's multiply-adds in one pass) the accelerator ran.
	LinComb uint64 `json:"lincomb_routed,omitempty"`
	// Shed counts routed calls that found an exclusive accelerator busy
	// and ran on the CPU (Dispatcher.claim).
	Shed uint64 `json:"shed,omitempty"`
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
		MedianBatch: med, P95Batch: p95, TransformMedianBatch: d.sizes.weightedMedian(), MulAcc: d.mulAcc.Load(), ModUp: d.modUps.Load(), ScaleDiff: d.scaleDiffs.Load(),
		Tensor: d.tensors.Load(), MulAdd: d.mulAdds.Load(), LinComb: d.linCombs.Load(), Shed: d.shed.Load()}
}

// ResetRouterStats zeroes the seam counters (RouterStats), e.g. between
// benchmark cases. Counts of batches running meanwhile may be split.
func (d *Dispatcher) ResetRouterStats() {
	d.batches.Store(0)
	d.transforms.Store(0)
	d.routed.Store(0)
	d.mulAcc.Store(0)
	d.modUps.Store(0)
	d.scaleDiffs.Store(0)
	d.tensors.Store(0)
	d.mulAdds.Store(0)
	d.linCombs.Store(0)
	d.shed.Store(0)
	for i := range d.sizes.n {
		d.sizes.n[i].Store(0)
	}
}

// ResetShapes forgets the batch shapes counted so far (Shapes).
func (d *Dispatcher) ResetShapes() { d.shapes.reset() }

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

// weightedMedian returns the batch size of the median transform (nearest
// rank over the histogram weighted by batch size).
func (h *sizeHistogram) weightedMedian() int {
	var total uint64
	for i := range h.n {
		total += uint64(i) * h.n[i].Load()
	}
	if total == 0 {
		return 0
	}
	want := (total + 1) / 2
	var acc uint64
	for i := range h.n {
		acc += uint64(i) * h.n[i].Load()
		if acc >= want {
			return i
		}
	}
	return maxTrackedBatch
}

// ----- installation ---------------------------------------------------------

var (
	installMu sync.Mutex
	current   atomic.Pointer[Dispatcher]
)

// ErrInstalled is returned by Install when another dispatcher is installed.
var ErrInstalled = errors.New("gpu: another dispatcher is installed")

// WantsBatches implements engine.BatchWanter: a dispatcher gains from
// whole-step batches only while it routes to an accelerator (Status().Routing);
// CPU-only, every transform stays in Lattigo's loop and gathering only
// adds its rounds' waits.
func (d *Dispatcher) WantsBatches() bool { return d.routing.Load() }

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

// Transform implements engine.Router. The batch is grouped by modulus into
// one multi-modulus Batch (B polynomials × L moduli) and routed whole by its
// shape (N, L, B = the largest group, direction): to the armed accelerator
// iff the table's entry for that shape (or the forced threshold) says
// B ≥ crossover, else Lattigo's own per-limb transform
// (NTTLazy/INTTLazy where the engine asked for lazy). Jobs on SubRings no
// backend handles (conjugate-invariant, N < MinN) always run Lattigo's.
// Nothing waits for other callers: a batch is what the engine formed.
func (d *Dispatcher) Transform(inverse, lazy bool, jobs []engine.Job) {
	n := uint64(len(jobs))
	if n == 0 {
		return
	}
	d.batches.Add(1)
	d.transforms.Add(n)
	d.sizes.record(len(jobs))
	dir := Forward
	if inverse {
		dir = Inverse
	}
	if !d.routing.Load() {
		// Fast path: count the shape without building the Batch.
		if s, ok := shapeOf(dir, jobs); ok {
			d.shapes.record(s)
		}
		d.runLattigo(inverse, lazy, jobs)
		return
	}
	batch, rest := d.group(dir, lazy, jobs)
	if len(batch.Limbs) > 0 {
		d.shapes.record(batch.Shape())
	}
	if len(batch.Limbs) > 0 {
		if t := d.thresholdFor(batch.Shape()); t > 0 && batch.Shape().B >= t && CheckMulti(batch) == nil {
			if handled, onAccel := d.accelerate(batch); handled {
				if onAccel {
					d.routed.Add(uint64(batch.Polys()))
				}
				d.runLattigo(inverse, lazy, rest)
				return
			}
		}
	}
	d.runLattigo(inverse, lazy, jobs)
}

// shapeOf is the shape of an engine batch (Batch.Shape of the batch group
// would build), computed without allocating for up to 64 moduli; ok is
// false beyond that or for rings below MinN.
func shapeOf(dir Direction, jobs []engine.Job) (Shape, bool) {
	var subs [64]*ring.SubRing
	var cnt [64]int
	l := 0
	for _, j := range jobs {
		i := 0
		for i < l && subs[i] != j.S {
			i++
		}
		if i == l {
			if l == len(subs) {
				return Shape{}, false
			}
			subs[l] = j.S
			l++
		}
		cnt[i]++
	}
	n := jobs[0].S.N
	if n < MinN {
		return Shape{}, false
	}
	s := Shape{LogN: log2(n), Moduli: l, Dir: dir}
	for _, c := range cnt[:l] {
		s.B = max(s.B, c)
	}
	return s, true
}

func (d *Dispatcher) runLattigo(inverse, lazy bool, jobs []engine.Job) {
	if len(jobs) == 0 {
		return
	}
	engine.RunLattigo(inverse, lazy, jobs)
	d.cpuStats.batches.Add(1)
	d.cpuStats.polys.Add(uint64(len(jobs)))
}

// group turns the engine's jobs into one multi-modulus Batch (limbs in
// order of first appearance) plus the jobs no backend handles.
func (d *Dispatcher) group(dir Direction, lazy bool, jobs []engine.Job) (*Batch, []engine.Job) {
	b := &Batch{Dir: dir, Lazy: lazy}
	var rest []engine.Job
	at := map[*ring.SubRing]int{}
	for _, j := range jobs {
		i, ok := at[j.S]
		if !ok {
			p := d.paramsOf(j.S)
			if p == nil {
				rest = append(rest, j)
				continue
			}
			i = len(b.Limbs)
			at[j.S] = i
			b.Limbs = append(b.Limbs, Limb{P: p})
		}
		b.Limbs[i].Src = append(b.Limbs[i].Src, j.Src)
		b.Limbs[i].Dst = append(b.Limbs[i].Dst, j.Dst)
	}
	return b, rest
}

// accelerate runs one batch on the armed accelerator (gpu.NTTMulti: its own
// multi-modulus entry point or the generic adapter). The first batch that
// holds a new (N, q) also computes that limb on the CPU and compares; a
// mismatch turns the accelerator off for that (N, q) for the life of the
// dispatcher, and a batch holding a disabled (N, q) runs on the CPU. It
// returns handled=false, with src intact, when the caller must compute on
// the CPU; onAccel reports whether every limb of dst holds the
// accelerator's output (false when a first-use mismatch left the CPU result
// there).
func (d *Dispatcher) accelerate(b *Batch) (handled, onAccel bool) {
	release, claimed := d.claim()
	if !claimed {
		return false, false
	}
	defer release()
	refs := make([][][]uint64, len(b.Limbs)) // CPU results of first-use limbs
	d.mu.Lock()
	for i, l := range b.Limbs {
		switch d.verified[l.P.Key()] {
		case -1:
			d.mu.Unlock()
			return false, false
		case 0:
			refs[i] = [][]uint64{}
		}
	}
	d.mu.Unlock()
	for i, l := range b.Limbs {
		if refs[i] == nil {
			continue
		}
		refs[i] = make([][]uint64, len(l.Src))
		for k := range l.Src {
			refs[i][k] = make([]uint64, l.P.N)
			LatticeNTTMode(b.Dir, b.Lazy, l.P, l.Src[k], refs[i][k])
		}
	}
	if err := NTTMulti(d.accel, b); err != nil {
		d.accelStats.fallbacks.Add(1)
		d.log.Warn("gpu: accelerator batch failed; CPU fallback", zap.String("backend", d.accelNm),
			zap.Stringer("shape", b.Shape()), zap.Error(err))
		return false, false
	}
	ok := true
	for i, l := range b.Limbs {
		if refs[i] == nil {
			continue
		}
		good := true
		for k := range refs[i] {
			if !sameOutput(b.Lazy, l.P.Q, refs[i][k], l.Dst[k]) {
				good = false
			}
			copy(l.Dst[k], refs[i][k]) // the CPU result is authoritative on first use
		}
		d.mu.Lock()
		if good {
			d.verified[l.P.Key()] = 1
		} else {
			d.verified[l.P.Key()] = -1
		}
		d.mu.Unlock()
		if !good {
			ok = false
			d.accelStats.fallbacks.Add(1)
			d.log.Error("gpu: accelerator output differs from Lattigo; disabled for this modulus",
				zap.String("backend", d.accelNm), zap.Int("n", l.P.N), zap.Uint64("q", l.P.Q), zap.Stringer("dir", b.Dir))
		}
	}
	if !ok {
		return true, false
	}
	d.accelStats.batches.Add(1)
	d.accelStats.polys.Add(uint64(b.Polys()))
	return true, true
}

// claim takes the accelerator for one routed call. A backend that runs
// calls concurrently (native: a CPU library on the caller's thread) is
// always taken. An exclusive one (one device queue: OpenCL) is taken only
// when no other call holds it: a call that finds it busy is counted as
// shed and reports false, and the caller runs Lattigo's loops on its own
// core instead of waiting. When several members or evaluations share one
// device and the host has cores to spare, waiting for the device made
// the gate slower than no gate (docs/LP-137.md, the H200 committee rows);
// shedding keeps the device busy and the cores too. The bytes are the
// same either way (every route is byte-identical to Lattigo). Options.Queue
// waits instead.
func (d *Dispatcher) claim() (release func(), ok bool) {
	if !d.exclusive || d.queue {
		return func() {}, true
	}
	if !d.device.TryLock() {
		d.accelStats.shed.Add(1)
		d.shed.Add(1)
		return nil, false
	}
	return d.device.Unlock, true
}

// sameOutput compares an accelerator's output with the CPU's: byte equality
// for reduced transforms; for lazy ones, congruence mod q with the
// accelerator's word in [0, 2q) (Lattigo's own lazy bound).
func sameOutput(lazy bool, q uint64, ref, got []uint64) bool {
	if !lazy {
		return slices.Equal(ref, got)
	}
	if len(ref) != len(got) {
		return false
	}
	for i := range ref {
		if got[i] >= 2*q || got[i]%q != ref[i]%q {
			return false
		}
	}
	return true
}

// RouteMulti transforms an explicit multi-modulus batch, routed exactly as
// an engine batch of that shape would be: accelerator iff armed and
// b.Shape().B ≥ the threshold for the shape, else the CPU backend. It
// returns the backend used.
func (d *Dispatcher) RouteMulti(b *Batch) (string, error) {
	if err := CheckMulti(b); err != nil {
		return "", err
	}
	if t := d.thresholdFor(b.Shape()); t > 0 && b.Shape().B >= t {
		if handled, onAccel := d.accelerate(b); handled {
			if onAccel {
				return d.accelNm, nil
			}
			return CPUName, nil
		}
	}
	d.cpuStats.batches.Add(1)
	d.cpuStats.polys.Add(uint64(b.Polys()))
	return CPUName, d.cpu.NTTMulti(b)
}

// RouteBatch is RouteMulti for a batch of one modulus.
func (d *Dispatcher) RouteBatch(dir Direction, p *Params, src, dst [][]uint64) (string, error) {
	if err := CheckBatch(p, src, dst); err != nil {
		return "", err
	}
	return d.RouteMulti(&Batch{Dir: dir, Limbs: []Limb{{P: p, Src: src, Dst: dst}}})
}
