package engine

import (
	"sync"
	"sync/atomic"
)

// Gather is a Router that merges the transform batches of cooperating
// goroutines — its participants — into rounds, so that an accelerator
// behind it sees every independent transform of a step of a computation
// at once instead of one key switch's at a time.
//
// A computation made of independent parts (the ready operations of a
// policy plan, the independent products of a polynomial's power basis)
// runs each part as a participant (Run, Fork, Event). A participant that
// hands the Gather a batch parks; when no participant is left that could
// still add work to the round — every live one is parked in a batch, on
// an Event or on its Fork's children — the round is dispatched: the
// parked batches of one kind (direction, lazy) are concatenated into one
// call of the next router (maybeRound says which kind), and their
// participants resume. Nothing
// waits for a timer or for work outside the Gather: a round is exactly
// the set of transforms the participants can issue before they need one
// of its results.
//
// At most width participants run at a time (a run slot is held between
// batches and released while parked): width 1 evaluates exactly as much
// Go code at once as a sequential evaluation does, only in another order.
//
// Byte-identity: every job of a round is the job its participant formed,
// run by the next router under the Router contract (each Dst is S's
// transform of its Src, or for a lazy job a result the engine's consumers
// reduce to the same bytes), and jobs of different participants never
// share a Dst (each participant has its own key switcher, scratch and
// outputs). So the outputs do not depend on how jobs are grouped into
// rounds (TestGatherByteIdentical; policy/eval's gathered evaluation
// compares ciphertext bytes with the sequential one).
//
// Transform, Fork and Event.Wait must be called only from a participant;
// a Transform while no participant is live (a caller outside the Gather)
// goes straight to the next router. Only Run starts participants from
// outside.
type Gather struct {
	next Router // nil: the installed router at dispatch time

	mu       sync.Mutex
	cond     *sync.Cond
	width    int
	running  int // participants holding a run slot
	runnable int // live participants neither parked in a round, on an Event nor on a Fork
	live     int
	pending  []*gatherReq

	rounds, calls, jobs atomic.Uint64
}

type gatherReq struct {
	inverse, lazy bool
	jobs          []Job
	done          bool
	panicked      any
}

// NewGather returns a Gather that hands its rounds to next (nil: the
// installed router at the time of each round, or Lattigo's transforms
// when none is installed), with up to width participants running at once
// (width < 1: 1).
func NewGather(next Router, width int) *Gather {
	g := &Gather{next: next, width: max(width, 1)}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// target is the router a round goes to.
func (g *Gather) target() Router {
	if g.next != nil {
		return g.next
	}
	return CurrentRouter()
}

// GatherStats count a Gather's rounds: Calls is the number of calls of the
// next router (one per round), Jobs the per-limb transforms they held.
type GatherStats struct {
	Rounds, Calls, Jobs uint64
}

// Stats returns the counters so far.
func (g *Gather) Stats() GatherStats {
	return GatherStats{Rounds: g.rounds.Load(), Calls: g.calls.Load(), Jobs: g.jobs.Load()}
}

// acquire takes a run slot (g.mu held).
func (g *Gather) acquire() {
	for g.running >= g.width {
		g.cond.Wait()
	}
	g.running++
}

// release gives the run slot back (g.mu held).
func (g *Gather) release() {
	g.running--
	g.cond.Broadcast()
}

// park marks the calling participant as not runnable (g.mu held) and runs
// the round if it was the last one that could add to it.
func (g *Gather) park() {
	g.release()
	g.runnable--
	g.maybeRound()
}

// maybeRound dispatches pending batches once no participant can add to
// them (g.mu held; released while the next router runs).
//
// A round is one call: the pending batches of one kind (direction,
// laziness), the kind with the most jobs (the earliest batch's on a tie).
// Batches of other kinds stay parked for the next round. Participants one
// step apart (one started its key switch a step later than the others)
// would otherwise cost a call of each kind every round; parking the
// smaller kind lets the lagging participant fall into step with the
// others within one key switch, after which their batches go out together.
func (g *Gather) maybeRound() {
	for g.runnable == 0 && len(g.pending) > 0 {
		round, rest := pickKind(g.pending)
		g.pending = rest
		g.mu.Unlock()
		g.dispatch(round)
		g.mu.Lock()
		for _, q := range round {
			q.done = true
		}
		g.runnable += len(round)
		g.cond.Broadcast()
	}
}

func kindOf(q *gatherReq) int {
	k := 0
	if q.inverse {
		k |= 1
	}
	if q.lazy {
		k |= 2
	}
	return k
}

// pickKind splits pending into the batches of the kind with the most jobs
// (ties: the kind of the earliest batch) and the rest, both in arrival
// order.
func pickKind(pending []*gatherReq) (round, rest []*gatherReq) {
	var jobs [4]int
	for _, q := range pending {
		jobs[kindOf(q)] += len(q.jobs)
	}
	best := kindOf(pending[0])
	for k, n := range jobs {
		if n > jobs[best] {
			best = k
		}
	}
	for _, q := range pending {
		if kindOf(q) == best {
			round = append(round, q)
		} else {
			rest = append(rest, q)
		}
	}
	return round, rest
}

// dispatch runs one round as one call of the next router. A panic of the
// next router is handed to every participant of the round.
func (g *Gather) dispatch(round []*gatherReq) {
	g.rounds.Add(1)
	g.calls.Add(1)
	var jobs []Job
	for _, q := range round {
		jobs = append(jobs, q.jobs...)
	}
	g.jobs.Add(uint64(len(jobs)))
	defer func() {
		if p := recover(); p != nil {
			for _, q := range round {
				q.panicked = p
			}
		}
	}()
	transform(g.target(), round[0].inverse, round[0].lazy, jobs)
}

// Transform implements Router: the batch joins the current round and the
// call returns once the round has run.
func (g *Gather) Transform(inverse, lazy bool, jobs []Job) {
	if len(jobs) == 0 {
		return
	}
	g.mu.Lock()
	if g.live == 0 {
		g.mu.Unlock()
		transform(g.target(), inverse, lazy, jobs)
		return
	}
	q := &gatherReq{inverse: inverse, lazy: lazy, jobs: jobs}
	g.pending = append(g.pending, q)
	g.park()
	for !q.done {
		g.cond.Wait()
	}
	g.acquire()
	g.mu.Unlock()
	if q.panicked != nil {
		panic(q.panicked)
	}
}

// join is the completion of a group of participants started together.
type join struct {
	left     int
	parent   bool // a participant waits for the group (Fork): runnable again when it completes
	panicked any
}

// start launches fs as participants of j (g.mu held).
func (g *Gather) start(j *join, fs []func()) {
	g.live += len(fs)
	g.runnable += len(fs)
	for _, f := range fs {
		go g.participant(j, f)
	}
}

func (g *Gather) participant(j *join, f func()) {
	g.mu.Lock()
	g.acquire()
	g.mu.Unlock()
	var panicked any
	func() {
		defer func() { panicked = recover() }()
		f()
	}()
	g.mu.Lock()
	g.release()
	g.live--
	g.runnable--
	if panicked != nil && j.panicked == nil {
		j.panicked = panicked
	}
	if j.left--; j.left == 0 && j.parent {
		g.runnable++ // the forking participant
	}
	g.maybeRound()
	g.cond.Broadcast()
	g.mu.Unlock()
}

// Run runs fs as participants and returns when all of them (and every
// participant they forked) have finished. The caller must not be a
// participant of g. A panic in one of fs is re-raised here once all have
// finished.
func (g *Gather) Run(fs ...func()) {
	if len(fs) == 0 {
		return
	}
	j := &join{left: len(fs)}
	g.mu.Lock()
	g.start(j, fs)
	for j.left > 0 {
		g.cond.Wait()
	}
	g.mu.Unlock()
	if j.panicked != nil {
		panic(j.panicked)
	}
}

// Fork runs fs as participants while the calling participant waits for
// them, and returns when all have finished (a panic in one of them is
// re-raised in the caller). Called from outside any participant (no
// participant live), it runs fs one after the other.
func (g *Gather) Fork(fs ...func()) {
	if len(fs) == 0 {
		return
	}
	g.mu.Lock()
	if g.live == 0 {
		g.mu.Unlock()
		for _, f := range fs {
			f()
		}
		return
	}
	j := &join{left: len(fs), parent: true}
	g.start(j, fs)
	g.park()
	for j.left > 0 {
		g.cond.Wait()
	}
	g.acquire()
	g.mu.Unlock()
	if j.panicked != nil {
		panic(j.panicked)
	}
}

// Event is a one-shot signal between participants of a Gather: a
// participant waiting for one counts as parked, so the rounds it cannot
// contribute to are not held up by it.
type Event struct {
	g       *Gather
	fired   bool
	waiters int
}

// NewEvent returns an unfired event of g.
func (g *Gather) NewEvent() *Event { return &Event{g: g} }

// Fire marks e fired and wakes its waiters. Firing twice is a no-op.
func (e *Event) Fire() {
	g := e.g
	g.mu.Lock()
	if !e.fired {
		e.fired = true
		g.runnable += e.waiters
		e.waiters = 0
		g.cond.Broadcast()
	}
	g.mu.Unlock()
}

// Wait parks the calling participant until e is fired.
func (e *Event) Wait() {
	g := e.g
	g.mu.Lock()
	if e.fired {
		g.mu.Unlock()
		return
	}
	e.waiters++
	g.park()
	for !e.fired {
		g.cond.Wait()
	}
	g.acquire()
	g.mu.Unlock()
}

// Outside runs f as work outside the Gather — a wait on the network, a
// collective protocol with other machines — while the calling participant
// counts as parked: it gives its run slot back and the rounds of the other
// participants go out without waiting for f. f must not call Transform,
// Fork or Event.Wait of g. Called from outside any participant it just
// runs f.
//
// Without it a participant in such a wait holds up every round, and two
// machines that evaluate the same plan in different orders can each wait
// for a step the other cannot reach until its own round goes out.
func (g *Gather) Outside(f func()) {
	g.mu.Lock()
	if g.live == 0 {
		g.mu.Unlock()
		f()
		return
	}
	g.park()
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.runnable++
		g.acquire()
		g.mu.Unlock()
	}()
	f()
}
