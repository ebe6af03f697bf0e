package engine_test

import (
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/internal/testseed"
)

// callRecorder runs Lattigo's transforms and records every call it gets.
type callRecorder struct {
	mu    sync.Mutex
	calls []recordedCall
}

type recordedCall struct {
	inverse, lazy bool
	jobs          int
}

func (r *callRecorder) Transform(inverse, lazy bool, jobs []engine.Job) {
	r.mu.Lock()
	r.calls = append(r.calls, recordedCall{inverse, lazy, len(jobs)})
	r.mu.Unlock()
	engine.RunLattigo(inverse, lazy, jobs)
}

// gatherRing is a small NTT-friendly ring of three moduli.
func gatherRing(t *testing.T) *ring.Ring {
	t.Helper()
	g := ring.NewNTTFriendlyPrimesGenerator(40, 1<<11)
	qs, err := g.NextAlternatingPrimes(3)
	require.NoError(t, err)
	r, err := ring.NewRing(1<<10, qs)
	require.NoError(t, err)
	return r
}

// steps is one participant's work: a sequence of batches (one per step,
// every limb of the ring, direction and laziness by step), each transforming
// its own buffers in place.
type steps struct {
	kinds [][2]bool
	polys [][][]uint64 // [step][limb]
}

func newSteps(r *ring.Ring, rng *rand.Rand, kinds [][2]bool) *steps {
	s := &steps{kinds: kinds}
	for range kinds {
		p := make([][]uint64, len(r.SubRings))
		for x, sr := range r.SubRings {
			p[x] = make([]uint64, r.N())
			for i := range p[x] {
				p[x][i] = rng.Uint64N(sr.Modulus)
			}
		}
		s.polys = append(s.polys, p)
	}
	return s
}

func (s *steps) jobs(r *ring.Ring, k int) []engine.Job {
	var jobs []engine.Job
	for x, sr := range r.SubRings {
		jobs = append(jobs, engine.Job{S: sr, Src: s.polys[k][x], Dst: s.polys[k][x]})
	}
	return jobs
}

func (s *steps) clone() *steps {
	c := &steps{kinds: s.kinds}
	for _, p := range s.polys {
		q := make([][]uint64, len(p))
		for x := range p {
			q[x] = slices.Clone(p[x])
		}
		c.polys = append(c.polys, q)
	}
	return c
}

// TestGatherRounds: participants with the same sequence of steps are
// merged into one call per step (per kind), the outputs are exactly
// Lattigo's, and no more than width participants run at once.
func TestGatherRounds(t *testing.T) {
	r := gatherRing(t)
	rng := testseed.Rand(t, 1)
	kinds := [][2]bool{{true, false}, {false, true}, {true, true}, {false, false}}
	const parts = 5
	for _, width := range []int{1, 3} {
		var want, got []*steps
		for range parts {
			s := newSteps(r, rng, kinds)
			want, got = append(want, s), append(got, s.clone())
		}
		for _, s := range want {
			for k, kind := range s.kinds {
				engine.RunLattigo(kind[0], kind[1], s.jobs(r, k))
			}
		}
		rec := &callRecorder{}
		g := engine.NewGather(rec, width)
		var running, most atomic.Int32
		fs := make([]func(), parts)
		for p := range fs {
			fs[p] = func() {
				s := got[p]
				for k, kind := range s.kinds {
					n := running.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					running.Add(-1)
					g.Transform(kind[0], kind[1], s.jobs(r, k))
				}
			}
		}
		g.Run(fs...)
		for p := range want {
			require.Equal(t, want[p].polys, got[p].polys, "participant %d", p)
		}
		require.Len(t, rec.calls, len(kinds), "one call per step")
		for k, c := range rec.calls {
			require.Equal(t, recordedCall{kinds[k][0], kinds[k][1], parts * len(r.SubRings)}, c)
		}
		st := g.Stats()
		require.Equal(t, engine.GatherStats{Rounds: uint64(len(kinds)), Calls: uint64(len(kinds)), Jobs: uint64(len(kinds) * parts * len(r.SubRings))}, st)
		require.LessOrEqual(t, int(most.Load()), width)
	}
}

// TestGatherKinds: a round is one call of one kind, the kind with the most
// jobs; the batches of the other kinds stay parked for the next round.
func TestGatherKinds(t *testing.T) {
	r := gatherRing(t)
	rng := testseed.Rand(t, 2)
	a := newSteps(r, rng, [][2]bool{{true, true}})
	b := newSteps(r, rng, [][2]bool{{false, false}})
	c := newSteps(r, rng, [][2]bool{{false, false}})
	want := []*steps{a.clone(), b.clone(), c.clone()}
	for _, s := range want {
		engine.RunLattigo(s.kinds[0][0], s.kinds[0][1], s.jobs(r, 0))
	}
	rec := &callRecorder{}
	g := engine.NewGather(rec, 1)
	g.Run(
		func() { g.Transform(true, true, a.jobs(r, 0)) },
		func() { g.Transform(false, false, b.jobs(r, 0)) },
		func() { g.Transform(false, false, c.jobs(r, 0)) },
	)
	require.Equal(t, []recordedCall{{false, false, 2 * len(r.SubRings)}, {true, true, len(r.SubRings)}}, rec.calls)
	require.Equal(t, engine.GatherStats{Rounds: 2, Calls: 2, Jobs: uint64(3 * len(r.SubRings))}, g.Stats())
	for i, s := range []*steps{a, b, c} {
		require.Equal(t, want[i].polys, s.polys)
	}
}

// TestGatherFallsIntoStep: two participants that run the same cycle of
// kinds one step apart end up in step — after the first cycle their
// batches share calls — instead of costing a call per kind every round.
func TestGatherFallsIntoStep(t *testing.T) {
	r := gatherRing(t)
	rng := testseed.Rand(t, 6)
	cycle := [][2]bool{{true, false}, {false, false}, {true, true}, {false, true}}
	var kinds [][2]bool
	for range 4 {
		kinds = append(kinds, cycle...)
	}
	lead := newSteps(r, rng, kinds)
	lag := newSteps(r, rng, append([][2]bool{{false, true}}, kinds...)) // one step behind
	lead2 := newSteps(r, rng, kinds)
	rec := &callRecorder{}
	g := engine.NewGather(rec, 1)
	run := func(s *steps) func() {
		return func() {
			for k, kind := range s.kinds {
				g.Transform(kind[0], kind[1], s.jobs(r, k))
			}
		}
	}
	g.Run(run(lead), run(lead2), run(lag))
	// 16 steps of three participants and one extra step: in step they
	// would need 17 calls; one call per kind per round would need ~32.
	require.LessOrEqual(t, len(rec.calls), 17+len(cycle))
	full := 0
	for _, c := range rec.calls {
		if c.jobs == 3*len(r.SubRings) {
			full++
		}
	}
	t.Logf("%d calls, %d of all three participants", len(rec.calls), full)
	require.GreaterOrEqual(t, full, 16-len(cycle), "in step after the first cycle")
}

// TestGatherForkAndEvents: a participant that forks children, and one that
// waits for an event another fires, still merge with the others; the
// outputs are Lattigo's.
func TestGatherForkAndEvents(t *testing.T) {
	r := gatherRing(t)
	rng := testseed.Rand(t, 3)
	kind := [][2]bool{{false, false}}
	var all []*steps
	var want []*steps
	for range 4 {
		s := newSteps(r, rng, kind)
		all, want = append(all, s), append(want, s.clone())
	}
	for _, s := range want {
		engine.RunLattigo(false, false, s.jobs(r, 0))
	}
	rec := &callRecorder{}
	g := engine.NewGather(rec, 1)
	ev := g.NewEvent()
	g.Run(
		func() { // forks two children: their batches join the same round
			g.Fork(
				func() { g.Transform(false, false, all[0].jobs(r, 0)) },
				func() { g.Transform(false, false, all[1].jobs(r, 0)) },
			)
			ev.Fire()
		},
		func() { g.Transform(false, false, all[2].jobs(r, 0)) },
		func() { // waits for the forking participant: a round of its own
			ev.Wait()
			g.Transform(false, false, all[3].jobs(r, 0))
		},
	)
	for i := range want {
		require.Equal(t, want[i].polys, all[i].polys)
	}
	require.Equal(t, []recordedCall{{false, false, 3 * len(r.SubRings)}, {false, false, len(r.SubRings)}}, rec.calls)
}

// TestGatherOutside: a Transform or Fork outside any participant goes
// straight through.
func TestGatherOutside(t *testing.T) {
	r := gatherRing(t)
	rng := testseed.Rand(t, 4)
	s := newSteps(r, rng, [][2]bool{{true, false}})
	w := s.clone()
	engine.RunLattigo(true, false, w.jobs(r, 0))
	rec := &callRecorder{}
	g := engine.NewGather(rec, 1)
	ran := 0
	g.Fork(func() { ran++ }, func() { ran++ })
	require.Equal(t, 2, ran)
	g.Transform(true, false, s.jobs(r, 0))
	require.Equal(t, w.polys, s.polys)
	require.Len(t, rec.calls, 1)
	require.Zero(t, g.Stats().Rounds)
}

// TestGatherOutsideWork: a participant waiting on something outside the
// Gather (Outside) does not hold up the others' rounds. Here the outside
// wait ends only after another participant's round has run — a collective
// refresh on one member waits for a step the other member reaches only
// after its own round; without Outside this never finishes.
func TestGatherOutsideWork(t *testing.T) {
	r := gatherRing(t)
	rng := testseed.Rand(t, 6)
	a := newSteps(r, rng, [][2]bool{{false, false}})
	want := a.clone()
	engine.RunLattigo(false, false, want.jobs(r, 0))
	rec := &callRecorder{}
	g := engine.NewGather(rec, 1)
	stepDone := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		g.Run(
			func() { g.Outside(func() { <-stepDone }) },
			func() {
				g.Transform(false, false, a.jobs(r, 0))
				close(stepDone)
			},
		)
	}()
	select {
	case <-finished:
	case <-time.After(30 * time.Second):
		t.Fatal("a participant waiting outside the Gather held up the round")
	}
	require.Equal(t, want.polys, a.polys)
	require.Len(t, rec.calls, 1)
	ran := false
	g.Outside(func() { ran = true }) // no participant live: just runs
	require.True(t, ran)
}

type panicRouter struct{}

func (panicRouter) Transform(bool, bool, []engine.Job) { panic("backend failed") }

// TestGatherPanic: a panic of the next router reaches every participant of
// the round (here re-raised by Run), and a panic in a participant does not
// leave the others hanging.
func TestGatherPanic(t *testing.T) {
	r := gatherRing(t)
	rng := testseed.Rand(t, 5)
	a, b := newSteps(r, rng, [][2]bool{{false, false}}), newSteps(r, rng, [][2]bool{{false, false}})
	g := engine.NewGather(panicRouter{}, 1)
	var seen atomic.Int32
	catch := func(f func()) func() {
		return func() {
			defer func() {
				if recover() != nil {
					seen.Add(1)
				}
			}()
			f()
		}
	}
	g.Run(catch(func() { g.Transform(false, false, a.jobs(r, 0)) }), catch(func() { g.Transform(false, false, b.jobs(r, 0)) }))
	require.Equal(t, int32(2), seen.Load())

	g = engine.NewGather(&callRecorder{}, 1)
	require.PanicsWithValue(t, "participant failed", func() {
		g.Run(func() { panic("participant failed") }, func() { g.Transform(false, false, a.jobs(r, 0)) })
	})
}
