package gpu_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luxfi/lattice/v7/ring"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/kernels"
)

// fake is an accelerator built on the kernel emulator with fault injection.
type fake struct {
	kernels.Emulator
	corruptAll bool
	corruptQ   uint64 // corrupt output only for this modulus
	fail       bool
	gate       chan struct{} // if set, the first call blocks until closed
	once       sync.Once
	mu         sync.Mutex
	sizes      []int
	entered    atomic.Int32
}

func (f *fake) Name() string { return "fake" }

func (f *fake) NTT(dir gpu.Direction, p *gpu.Params, src, dst [][]uint64) error {
	f.entered.Add(1)
	if f.gate != nil {
		f.once.Do(func() { <-f.gate })
	}
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

func TestLoneCallerForcedToAccelerator(t *testing.T) {
	f := &fake{}
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: f, ForceThreshold: 1, Window: time.Hour})
	f.reset()
	install(t, d)
	r := newRing(t, 1<<10, false)
	s := r.SubRings[0]
	in := randPoly(s, 1)
	out := make([]uint64, s.N)
	s.NTT(in, out) // a lone caller: would deadlock with a one-hour window if it waited
	require.Equal(t, lattigoNTT(s, gpu.Forward, in), out)
	back := make([]uint64, s.N)
	s.INTT(out, back)
	require.Equal(t, in, back)
	require.Equal(t, []int{1, 1}, f.batchSizes())
	require.Equal(t, uint64(2), stat(d, "fake").Polys)
}

func TestBelowThresholdStaysOnCPU(t *testing.T) {
	f := &fake{}
	fp := gpu.FingerprintOf(f)
	tab := &gpu.Table{Version: 1, Fingerprint: fp, Entries: []gpu.Entry{{LogN: 10, Crossover: intp(8)}}}
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: f, Table: tab})
	f.reset()
	install(t, d)
	for _, n := range []int{1 << 10, 1 << 11} { // 2^11: no entry → CPU
		s := newRing(t, n, false).SubRings[0]
		in := randPoly(s, 2)
		out := make([]uint64, n)
		s.NTT(in, out)
		require.Equal(t, lattigoNTT(s, gpu.Forward, in), out)
	}
	require.Empty(t, f.batchSizes())
	require.Equal(t, uint64(2), stat(d, gpu.CPUName).Polys)
}

// TestCoalescing: caller 1 occupies the accelerator (blocked inside it);
// callers 2..K arrive meanwhile and form one group, which closes exactly when
// caller 1 leaves (everyone left inside has joined). No timing assumptions:
// the window is an hour.
func TestCoalescing(t *testing.T) {
	const K = 6
	f := &fake{}
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: f, ForceThreshold: 1, Window: time.Hour})
	install(t, d)
	s := newRing(t, 1<<10, false).SubRings[0]
	// Prove the (N, q) on first use before the gated call.
	warm := make([]uint64, s.N)
	s.NTT(randPoly(s, 99), warm)
	f.reset()
	f.entered.Store(0)
	f.gate = make(chan struct{})

	ins := make([][]uint64, K)
	outs := make([][]uint64, K)
	for i := range ins {
		ins[i] = randPoly(s, uint64(i+10))
		outs[i] = make([]uint64, s.N)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.NTT(ins[0], outs[0]) }()
	require.Eventually(t, func() bool { return f.entered.Load() == 1 }, 10*time.Second, time.Millisecond)
	for i := 1; i < K; i++ {
		wg.Add(1)
		go func(i int) { defer wg.Done(); s.NTT(ins[i], outs[i]) }(i)
	}
	require.Eventually(t, func() bool { return d.Pending() == K-1 }, 10*time.Second, time.Millisecond)
	close(f.gate)
	wg.Wait()
	for i := range ins {
		require.Equal(t, lattigoNTT(s, gpu.Forward, ins[i]), outs[i], "caller %d", i)
	}
	require.Equal(t, []int{1, K - 1}, f.batchSizes())
}

func TestFirstUseMismatchDisablesModulus(t *testing.T) {
	r := newRing(t, 1<<10, false)
	s := r.SubRings[0]
	f := &fake{corruptQ: s.Modulus} // passes the self-test (other primes), lies on this one
	core, logs := observer.New(zap.DebugLevel)
	d := gpu.NewDispatcher(gpu.Options{Log: zap.New(core), Accelerator: f, ForceThreshold: 1})
	require.True(t, d.Status().Armed)
	f.reset()
	install(t, d)
	for i := 0; i < 3; i++ {
		in := randPoly(s, uint64(i))
		out := make([]uint64, s.N)
		s.NTT(in, out)
		require.Equal(t, lattigoNTT(s, gpu.Forward, in), out)
	}
	require.Equal(t, []int{1}, f.batchSizes(), "only the first-use probe reaches the device")
	require.Equal(t, uint64(1), stat(d, "fake").Fallbacks)
	require.Equal(t, 1, logs.FilterLevelExact(zap.ErrorLevel).Len())
}

func TestDeviceErrorFallsBack(t *testing.T) {
	f := &fake{}
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: f, ForceThreshold: 1})
	require.True(t, d.Status().Armed)
	f.fail = true
	install(t, d)
	s := newRing(t, 1<<10, false).SubRings[0]
	in := randPoly(s, 5)
	out := make([]uint64, s.N)
	s.NTT(in, out)
	require.Equal(t, lattigoNTT(s, gpu.Forward, in), out)
	require.Equal(t, uint64(1), stat(d, "fake").Fallbacks)
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
	install(t, d)
	for _, r := range []*ring.Ring{newRing(t, 1<<10, true), newRing(t, 8, false)} {
		s := r.SubRings[0]
		in := randPoly(s, 3)
		out := make([]uint64, s.N)
		s.NTT(in, out)
		back := make([]uint64, s.N)
		s.INTT(out, back)
		require.Equal(t, in, back)
	}
	require.Empty(t, f.batchSizes())
}

func TestSubRingStateIsBounded(t *testing.T) {
	f := &fake{}
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: f, ForceThreshold: 1})
	install(t, d)
	for i := 0; i < 1100; i++ {
		s := newRing(t, 16, false).SubRings[0] // a fresh SubRing each time
		in := randPoly(s, uint64(i))
		out := make([]uint64, s.N)
		s.NTT(in, out)
		require.Equal(t, lattigoNTT(s, gpu.Forward, in), out)
	}
	require.LessOrEqual(t, d.KeyCount(), 1024)
}
