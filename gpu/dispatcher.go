package gpu

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luxfi/lattice/v7/ring"
	"go.uber.org/zap"
)

// Default coalescing parameters.
const (
	// DefaultWindow bounds how long a batch leader waits for concurrent
	// callers to join. Only callers that found other NTTs in flight on the
	// same SubRing ever wait; a lone caller never does.
	DefaultWindow = 200 * time.Microsecond
	// DefaultMaxBatch closes a batch early.
	DefaultMaxBatch = 2048
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
	// Window and MaxBatch tune coalescing (0: defaults).
	Window   time.Duration
	MaxBatch int
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
}

// Dispatcher routes Lattigo's SubRing NTTs: see the package documentation.
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
	window   time.Duration
	maxBatch int

	routing atomic.Bool // armed && some N has a threshold

	mu       sync.Mutex
	keys     map[subKey]*keyState
	verified map[Key]int8 // 0 unknown, 1 proved on first use, -1 mismatch (CPU forever)

	cpuStats, accelStats counters
}

type subKey struct {
	s   *ring.SubRing
	dir Direction
}

type keyState struct {
	dir       Direction
	params    *Params
	threshold int // 0: never accelerate
	active    int // callers inside the dispatcher for this key
	open      *group
}

type call struct{ src, dst []uint64 }

type group struct {
	calls    []call
	isClosed bool
	closed   chan struct{} // closed when no more members may join
	done     chan struct{} // closed when handled is final
	handled  bool          // true: dst written; false: each member runs Lattigo itself
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
		window:   o.Window,
		maxBatch: o.MaxBatch,
		keys:     map[subKey]*keyState{},
		verified: map[Key]int8{},
	}
	if d.log == nil {
		d.log = zap.NewNop()
	}
	if d.window <= 0 {
		d.window = DefaultWindow
	}
	if d.maxBatch <= 0 {
		d.maxBatch = DefaultMaxBatch
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
		TableSource: d.tableSrc, Table: d.rawTable, ForceThreshold: d.force, Stats: d.Stats(),
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

// Pending returns how many callers are waiting in open (not yet closed)
// batches; for tests and diagnostics.
func (d *Dispatcher) Pending() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, ks := range d.keys {
		if ks.open != nil {
			n += len(ks.open.calls)
		}
	}
	return n
}

// ----- the process-global ring hook ------------------------------------------

var (
	hookOnce  sync.Once
	installMu sync.Mutex
	current   atomic.Pointer[Dispatcher]
)

// ErrInstalled is returned by Install when another dispatcher owns the hook.
var ErrInstalled = errors.New("gpu: another dispatcher is installed")

// Install makes d the process's NTT dispatcher. Lattigo's hook is a
// process-global, set once (the first Install) to a trampoline that reads
// the current dispatcher atomically, so Install/Uninstall are race-free with
// concurrent NTTs afterwards; call the first Install before NTT work starts.
// Exactly one dispatcher may be installed; its owner must Uninstall it.
func (d *Dispatcher) Install() error {
	installMu.Lock()
	defer installMu.Unlock()
	if cur := current.Load(); cur != nil {
		if cur == d {
			return nil
		}
		return ErrInstalled
	}
	hookOnce.Do(func() { ring.SetGPUDispatchers(hookForward, hookInverse) })
	current.Store(d)
	return nil
}

// Uninstall removes d if it is installed (else it is a no-op). Afterwards
// every NTT runs Lattigo's Go path; the trampoline costs one atomic load.
func (d *Dispatcher) Uninstall() {
	installMu.Lock()
	defer installMu.Unlock()
	if current.Load() == d {
		current.Store(nil)
	}
}

// Installed returns the installed dispatcher, or nil.
func Installed() *Dispatcher { return current.Load() }

func hookForward(s *ring.SubRing, src, dst []uint64) bool {
	if d := current.Load(); d != nil {
		return d.handle(Forward, s, src, dst)
	}
	return false
}

func hookInverse(s *ring.SubRing, src, dst []uint64) bool {
	if d := current.Load(); d != nil {
		return d.handle(Inverse, s, src, dst)
	}
	return false
}

// ----- coalescing --------------------------------------------------------------

// handle is the ring hook: true means dst holds the result; false means the
// caller runs Lattigo's Go NTT (the CPU route).
func (d *Dispatcher) handle(dir Direction, s *ring.SubRing, src, dst []uint64) bool {
	if !d.routing.Load() || s == nil || len(src) != s.N || len(dst) != s.N {
		d.cpuStats.batches.Add(1)
		d.cpuStats.polys.Add(1)
		return false
	}
	d.mu.Lock()
	k := subKey{s, dir}
	ks := d.keys[k]
	if ks == nil {
		if len(d.keys) >= maxKeys {
			d.pruneLocked()
		}
		ks = &keyState{dir: dir}
		if p, err := ParamsOf(s); err == nil {
			ks.params = p
			ks.threshold = d.threshold(p.N)
		}
		d.keys[k] = ks
	}
	if ks.threshold == 0 || d.verified[ks.params.Key()] < 0 {
		d.mu.Unlock()
		d.cpuStats.batches.Add(1)
		d.cpuStats.polys.Add(1)
		return false
	}
	ks.active++
	me := call{src, dst}
	if g := ks.open; g != nil { // join the batch being formed
		g.calls = append(g.calls, me)
		if len(g.calls) >= d.maxBatch || len(g.calls) == ks.active {
			closeGroup(ks, g)
		}
		d.mu.Unlock()
		<-g.done
		d.leave(ks)
		return g.handled
	}
	g := &group{calls: []call{me}, closed: make(chan struct{}), done: make(chan struct{})}
	if ks.active == 1 || ks.active < ks.threshold {
		// A lone caller (or too few callers in flight to ever reach the
		// threshold) never waits.
		g.isClosed = true
		d.mu.Unlock()
	} else {
		ks.open = g
		d.mu.Unlock()
		t := time.NewTimer(d.window)
		select {
		case <-g.closed:
		case <-t.C:
		}
		t.Stop()
		d.mu.Lock()
		if !g.isClosed {
			closeGroup(ks, g)
		}
		d.mu.Unlock()
	}
	g.handled = d.runGroup(ks, g)
	close(g.done)
	d.leave(ks)
	return g.handled
}

// maxKeys bounds the per-SubRing state: rings that come and go (temporary
// rings built by callers) must not pin memory forever.
const maxKeys = 1024

// pruneLocked forgets idle SubRings; their state is rebuilt on next use.
func (d *Dispatcher) pruneLocked() {
	for k, ks := range d.keys {
		if ks.active == 0 && ks.open == nil {
			delete(d.keys, k)
		}
	}
}

func closeGroup(ks *keyState, g *group) {
	g.isClosed = true
	if ks.open == g {
		ks.open = nil
	}
	close(g.closed)
}

func (d *Dispatcher) leave(ks *keyState) {
	d.mu.Lock()
	ks.active--
	if g := ks.open; g != nil && len(g.calls) >= ks.active {
		closeGroup(ks, g) // everyone still inside has joined: no one left to wait for
	}
	d.mu.Unlock()
}

func (d *Dispatcher) runGroup(ks *keyState, g *group) bool {
	src := make([][]uint64, len(g.calls))
	dst := make([][]uint64, len(g.calls))
	for i, c := range g.calls {
		src[i], dst[i] = c.src, c.dst
	}
	if len(src) < ks.threshold {
		d.cpuStats.batches.Add(1)
		d.cpuStats.polys.Add(uint64(len(src)))
		return false
	}
	return d.accelerate(ks.dir, ks.params, src, dst)
}

// accelerate runs one batch on the armed accelerator. The first batch of
// every (N, q) is also computed on the CPU and compared; a mismatch turns the
// accelerator off for that (N, q) for the life of the dispatcher. It returns
// false, with dst untouched, when the caller must compute on the CPU.
func (d *Dispatcher) accelerate(dir Direction, p *Params, src, dst [][]uint64) bool {
	d.mu.Lock()
	state := d.verified[p.Key()]
	d.mu.Unlock()
	if state < 0 {
		return false
	}
	var ref [][]uint64
	if state == 0 {
		ref = make([][]uint64, len(src))
		for i := range ref {
			ref[i] = make([]uint64, p.N)
		}
		if err := d.cpu.NTT(dir, p, src, ref); err != nil {
			return false
		}
	}
	if err := d.accel.NTT(dir, p, src, dst); err != nil {
		d.accelStats.fallbacks.Add(1)
		d.log.Warn("gpu: accelerator batch failed; CPU fallback", zap.String("backend", d.accelNm),
			zap.Int("n", p.N), zap.Int("batch", len(src)), zap.Error(err))
		return false
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
			return true
		}
	}
	d.accelStats.batches.Add(1)
	d.accelStats.polys.Add(uint64(len(src)))
	return true
}

// RouteBatch transforms an explicit batch, routed exactly as a coalesced
// batch of the same size would be: accelerator iff armed and
// len(src) ≥ threshold(N), else the CPU backend. It returns the backend used.
func (d *Dispatcher) RouteBatch(dir Direction, p *Params, src, dst [][]uint64) (string, error) {
	if err := CheckBatch(p, src, dst); err != nil {
		return "", err
	}
	if t := d.threshold(p.N); t > 0 && len(src) >= t {
		if d.accelerate(dir, p, src, dst) {
			return d.accelNm, nil
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
