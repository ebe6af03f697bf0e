package gpu_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/gputest"
)

// fake is an accelerator built on the kernel emulator with fault injection.
type fake struct {
	gputest.Emulator
	corruptAll bool
	corruptQ   uint64 // corrupt output only for this modulus
	fail       bool
	mu         sync.Mutex
	sizes      []int
}

func (f *fake) Name() string { return "fake" }

func (f *fake) NTT(dir gpu.Direction, p *gpu.Params, src, dst [][]uint64) error {
	if f.fail {
		return errors.New("injected device error")
	}
	if err := f.Emulator.NTT(dir, p, src, dst); err != nil {
		return err
	}
	if f.corruptAll || f.corruptQ == p.Q {
		dst[0][1] ^= 1
	}
	f.mu.Lock()
	f.sizes = append(f.sizes, len(src))
	f.mu.Unlock()
	return nil
}

// reset forgets the self-test's calls.
func (f *fake) reset() {
	f.mu.Lock()
	f.sizes = nil
	f.mu.Unlock()
}

func (f *fake) batchSizes() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.sizes...)
}

func randPoly(s *ring.SubRing, seed uint64) []uint64 {
	p := make([]uint64, s.N)
	x := seed*0x9e3779b97f4a7c15 + 1
	for i := range p {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		p[i] = x % s.Modulus
	}
	return p
}

func lattigoNTT(s *ring.SubRing, dir gpu.Direction, in []uint64) []uint64 {
	p, err := gpu.ParamsOf(s)
	if err != nil {
		panic(err)
	}
	out := make([]uint64, len(in))
	gpu.LatticeNTT(dir, p, in, out)
	return out
}

func install(t *testing.T, d *gpu.Dispatcher) {
	t.Helper()
	require.NoError(t, d.Install())
	t.Cleanup(d.Uninstall)
}

func stat(d *gpu.Dispatcher, name string) gpu.BackendStats {
	for _, s := range d.Stats() {
		if s.Backend == name {
			return s
		}
	}
	return gpu.BackendStats{}
}

func TestArming(t *testing.T) {
	tab := func(fp gpu.Fingerprint, crossover *int) *gpu.Table {
		return &gpu.Table{Version: 1, Fingerprint: fp, Entries: []gpu.Entry{{LogN: 10, Crossover: crossover}}}
	}
	fakeFP := gpu.FingerprintOf(&fake{})
	for _, tc := range []struct {
		name        string
		accel       gpu.Backend
		table       *gpu.Table
		force       int
		wantArmed   bool
		wantRouting bool
		wantWarn    int
	}{
		{"no accelerator", nil, nil, 0, false, false, 0},
		{"self-test fails", &fake{corruptAll: true}, tab(fakeFP, intp(1)), 0, false, false, 1},
		{"armed, no table", &fake{}, nil, 0, true, false, 0},
		{"armed, foreign table", &fake{}, tab(gpu.Fingerprint{Backend: "fake", Device: "other"}, intp(1)), 0, true, false, 1},
		{"armed, table without crossover", &fake{}, tab(fakeFP, nil), 0, true, false, 0},
		{"armed, table with crossover", &fake{}, tab(fakeFP, intp(4)), 0, true, true, 0},
		{"armed, forced", &fake{}, nil, 1, true, true, 0},
		{"forced but self-test fails", &fake{corruptAll: true}, nil, 1, false, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zap.DebugLevel)
			d := gpu.NewDispatcher(gpu.Options{Log: zap.New(core), Accelerator: tc.accel, Table: tc.table, ForceThreshold: tc.force})
			st := d.Status()
			require.Equal(t, tc.wantArmed, st.Armed, st.Reason)
			require.Equal(t, tc.wantRouting, st.Routing, st.Reason)
			require.NotEmpty(t, st.Reason)
			require.Equal(t, tc.wantWarn, logs.FilterLevelExact(zap.WarnLevel).Len())
		})
	}
}

func TestInstallOwnership(t *testing.T) {
	a := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t)})
	b := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t)})
	require.NoError(t, a.Install())
	require.NoError(t, a.Install(), "idempotent for the owner")
	require.ErrorIs(t, b.Install(), gpu.ErrInstalled)
	b.Uninstall() // not the owner: no-op
	require.Same(t, a, gpu.Installed())
	a.Uninstall()
	require.Nil(t, gpu.Installed())
	require.NoError(t, b.Install())
	b.Uninstall()
}

// transform hands d one engine batch: the NTT (or INTT) of every poly in
// place, on SubRing s.
func transform(d *gpu.Dispatcher, s *ring.SubRing, inverse, lazy bool, polys ...[]uint64) {
	jobs := make([]engine.Job, len(polys))
	for i, p := range polys {
		jobs[i] = engine.Job{S: s, Src: p, Dst: p}
	}
	d.Transform(inverse, lazy, jobs)
}

func TestSingleTransformForcedToAccelerator(t *testing.T) {
	f := &fake{}
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: f, ForceThreshold: 1})
	f.reset()
	s := newRing(t, 1<<10, false).SubRings[0]
	in := randPoly(s, 1)
	x := append([]uint64(nil), in...)
	transform(d, s, false, false, x) // a lone batch of one runs at once: nothing to wait for
	require.Equal(t, lattigoNTT(s, gpu.Forward, in), x)
	transform(d, s, true, false, x)
	require.Equal(t, in, x)
	require.Equal(t, []int{1, 1}, f.batchSizes())
	require.Equal(t, uint64(2), stat(d, "fake").Polys)
	rs := d.RouterStats()
	require.Equal(t, gpu.RouterStats{Batches: 2, Transforms: 2, Routed: 2, MedianBatch: 1, P95Batch: 1, TransformMedianBatch: 1}, rs)
}

func TestBelowThresholdStaysOnCPU(t *testing.T) {
	f := &fake{}
	fp := gpu.FingerprintOf(f)
	tab := &gpu.Table{Version: 1, Fingerprint: fp, Entries: []gpu.Entry{{LogN: 10, Crossover: intp(8)}}}
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: f, Table: tab})
	f.reset()
	for _, n := range []int{1 << 10, 1 << 11} { // 2^11: no entry → CPU
		s := newRing(t, n, false).SubRings[0]
		in := randPoly(s, 2)
		x := append([]uint64(nil), in...)
		transform(d, s, false, false, x)
		require.Equal(t, lattigoNTT(s, gpu.Forward, in), x)
	}
	require.Empty(t, f.batchSizes())
	require.Equal(t, uint64(2), stat(d, gpu.CPUName).Polys)
	require.Zero(t, d.RouterStats().Routed)
}

// twoModuliJobs builds one engine batch over two moduli of N=2^10: three
// polynomials on the first, two on the second, interleaved, and Lattigo's
// forward NTT of each.
func twoModuliJobs(t *testing.T) ([]engine.Job, [][]uint64) {
	primes := gpu.SelfTestPrimes()
	r, err := ring.NewRing(1<<10, primes[:2])
	require.NoError(t, err)
	s0, s1 := r.SubRings[0], r.SubRings[1]
	var jobs []engine.Job
	var want [][]uint64
	for i := 0; i < 5; i++ {
		s := s0
		if i%2 == 1 {
			s = s1
		}
		x := randPoly(s, uint64(40+i))
		want = append(want, lattigoNTT(s, gpu.Forward, x))
		jobs = append(jobs, engine.Job{S: s, Src: x, Dst: x})
	}
	return jobs, want
}

// TestBatchRoutedByShape: one engine batch over two moduli is one
// multi-modulus batch of shape (N=2^10, L=2, B=3): routed whole when B
// reaches the crossover of that shape (the fake has no NTTMulti, so the
// generic adapter calls it once per modulus), left whole on the CPU when not.
func TestBatchRoutedByShape(t *testing.T) {
	for _, tc := range []struct {
		name      string
		entries   []gpu.Entry
		wantSizes []int
		routed    uint64
	}{
		{"v1 entry, B=3 ≥ 3", []gpu.Entry{{LogN: 10, Crossover: intp(3)}}, []int{3, 2}, 5},
		{"v1 entry, B=3 < 4", []gpu.Entry{{LogN: 10, Crossover: intp(4)}}, nil, 0},
		{"shape entry for L=2 forward", []gpu.Entry{{LogN: 10, Moduli: 2, Dir: "forward", Crossover: intp(2)}}, []int{3, 2}, 5},
		{"shape entry for inverse only", []gpu.Entry{{LogN: 10, Moduli: 2, Dir: "inverse", Crossover: intp(1)}}, nil, 0},
		{"nearest moduli (3) says never", []gpu.Entry{{LogN: 10, Moduli: 3}, {LogN: 10, Moduli: 4, Crossover: intp(1)}}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{}
			tab := &gpu.Table{Version: 2, Fingerprint: gpu.FingerprintOf(f), Entries: tc.entries}
			require.NoError(t, tab.Validate())
			d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: f, Table: tab})
			f.reset()
			jobs, want := twoModuliJobs(t)
			d.Transform(false, true, jobs) // lazy: outputs are only defined mod q
			for i := range jobs {
				q := jobs[i].S.Modulus
				for k, v := range jobs[i].Dst {
					require.Equal(t, want[i][k], v%q, "job %d coefficient %d", i, k)
				}
			}
			require.Equal(t, tc.wantSizes, f.batchSizes())
			rs := d.RouterStats()
			require.Equal(t, uint64(5), rs.Transforms)
			require.Equal(t, tc.routed, rs.Routed)
			require.Equal(t, 5, rs.MedianBatch)
			shapes, other := d.Shapes()
			require.Zero(t, other)
			require.Equal(t, []gpu.ShapeCount{{Shape: gpu.Shape{LogN: 10, Moduli: 2, B: 3, Dir: gpu.Forward}, Batches: 1}}, shapes)
		})
	}
}

// TestLazyOnCPUIsLattigoLazy: with nothing armed, a lazy batch runs
// SubRing.NTTLazy, byte for byte.
func TestLazyOnCPUIsLattigoLazy(t *testing.T) {
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t)})
	s := newRing(t, 1<<10, false).SubRings[0]
	in := randPoly(s, 8)
	want := make([]uint64, s.N)
	s.NTTLazy(in, want)
	x := append([]uint64(nil), in...)
	transform(d, s, false, true, x)
	require.Equal(t, want, x)
}

func TestFirstUseMismatchDisablesModulus(t *testing.T) {
	r := newRing(t, 1<<10, false)
	s := r.SubRings[0]
	f := &fake{corruptQ: s.Modulus} // passes the self-test (other primes), lies on this one
	core, logs := observer.New(zap.DebugLevel)
	d := gpu.NewDispatcher(gpu.Options{Log: zap.New(core), Accelerator: f, ForceThreshold: 1})
	require.True(t, d.Status().Armed)
	f.reset()
	for i := 0; i < 3; i++ {
		in := randPoly(s, uint64(i))
		x := append([]uint64(nil), in...)
		transform(d, s, false, false, x)
		require.Equal(t, lattigoNTT(s, gpu.Forward, in), x)
	}
	require.Equal(t, []int{1}, f.batchSizes(), "only the first-use probe reaches the device")
	require.Equal(t, uint64(1), stat(d, "fake").Fallbacks)
	require.Equal(t, 1, logs.FilterLevelExact(zap.ErrorLevel).Len())
	require.Zero(t, d.RouterStats().Routed)
}

func TestDeviceErrorFallsBack(t *testing.T) {
	f := &fake{}
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: f, ForceThreshold: 1})
	require.True(t, d.Status().Armed)
	f.fail = true
	s := newRing(t, 1<<10, false).SubRings[0]
	in := randPoly(s, 5)
	x := append([]uint64(nil), in...)
	transform(d, s, false, false, x)
	require.Equal(t, lattigoNTT(s, gpu.Forward, in), x)
	require.Equal(t, uint64(1), stat(d, "fake").Fallbacks)
}

// TestInstallSetsEngineRouter: Install makes the dispatcher the engine's
// router, Uninstall gives the engine back its own transforms.
func TestInstallSetsEngineRouter(t *testing.T) {
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t)})
	require.Nil(t, engine.CurrentRouter())
	install(t, d)
	require.Same(t, d, engine.CurrentRouter())
	d.Uninstall()
	require.Nil(t, engine.CurrentRouter())
}

func TestRouteBatch(t *testing.T) {
	f := &fake{}
	fp := gpu.FingerprintOf(f)
	tab := &gpu.Table{Version: 1, Fingerprint: fp, Entries: []gpu.Entry{{LogN: 10, Crossover: intp(4)}}}
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: f, Table: tab})
	p, err := gpu.NewParams(1<<10, gpu.SelfTestPrimes()[0])
	require.NoError(t, err)
	for _, tc := range []struct {
		b    int
		want string
	}{{1, gpu.CPUName}, {3, gpu.CPUName}, {4, "fake"}, {9, "fake"}} {
		src := make([][]uint64, tc.b)
		dst := make([][]uint64, tc.b)
		for i := range src {
			src[i] = make([]uint64, p.N)
			for j := range src[i] {
				src[i][j] = uint64(i*j+7) % p.Q
			}
			dst[i] = make([]uint64, p.N)
		}
		used, err := d.RouteBatch(gpu.Inverse, p, src, dst)
		require.NoError(t, err)
		require.Equal(t, tc.want, used, "B=%d", tc.b)
		want := make([]uint64, p.N)
		for i := range src {
			gpu.LatticeNTT(gpu.Inverse, p, src[i], want)
			require.Equal(t, want, dst[i])
		}
	}
}

func TestConjugateInvariantAndSmallRingsUntouched(t *testing.T) {
	f := &fake{}
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: f, ForceThreshold: 1})
	f.reset()
	for _, r := range []*ring.Ring{newRing(t, 1<<10, true), newRing(t, 8, false)} {
		s := r.SubRings[0]
		in := randPoly(s, 3)
		x := append([]uint64(nil), in...)
		transform(d, s, false, false, x)
		transform(d, s, true, false, x)
		require.Equal(t, in, x)
	}
	require.Empty(t, f.batchSizes())
}

func TestSubRingStateIsBounded(t *testing.T) {
	f := &fake{}
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: f, ForceThreshold: 1})
	for i := 0; i < 1100; i++ {
		s := newRing(t, 16, false).SubRings[0] // a fresh SubRing each time
		in := randPoly(s, uint64(i))
		x := append([]uint64(nil), in...)
		transform(d, s, false, false, x)
		require.Equal(t, lattigoNTT(s, gpu.Forward, in), x)
	}
	require.LessOrEqual(t, d.KeyCount(), 1024)
}

func TestResetRouterStats(t *testing.T) {
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t)})
	s := newRing(t, 1<<10, false).SubRings[0]
	transform(d, s, false, false, randPoly(s, 1), randPoly(s, 2))
	require.Equal(t, gpu.RouterStats{Batches: 1, Transforms: 2, MedianBatch: 2, P95Batch: 2, TransformMedianBatch: 2}, d.RouterStats())
	d.ResetRouterStats()
	require.Equal(t, gpu.RouterStats{}, d.RouterStats())

	// Three batches of 1 and one of 10: the median call holds 1 transform,
	// the median transform travels in the batch of 10.
	for range 3 {
		transform(d, s, false, false, randPoly(s, 3))
	}
	polys := make([][]uint64, 10)
	for i := range polys {
		polys[i] = randPoly(s, uint64(10+i))
	}
	transform(d, s, false, false, polys...)
	st := d.RouterStats()
	require.Equal(t, 1, st.MedianBatch)
	require.Equal(t, 10, st.TransformMedianBatch)
}

// TestShapesCountedWithoutRouting: a CPU-only dispatcher still counts the
// engine's shapes (what calibrate must measure), through the allocation-free
// path, with the same shape the routing path would compute.
func TestShapesCountedWithoutRouting(t *testing.T) {
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t)})
	jobs, want := twoModuliJobs(t)
	d.Transform(false, false, jobs)
	for i := range jobs {
		require.Equal(t, want[i], jobs[i].Dst)
	}
	shapes, other := d.Shapes()
	require.Zero(t, other)
	require.Equal(t, []gpu.ShapeCount{{Shape: gpu.Shape{LogN: 10, Moduli: 2, B: 3, Dir: gpu.Forward}, Batches: 1}}, shapes)
	d.ResetShapes()
	shapes, _ = d.Shapes()
	require.Empty(t, shapes)
}
