// Package crdt measures fhe/crdt merges (`fhegate bench crdt`): the
// materialisation of a merge of two 16384-lane states on BGVN14, the on-chain
// metadata merge, writer-ciphertext normalisation, reads, and two baselines —
// a mask select of two packed ciphertexts (ct⊙pt + ct⊙pt, no rescale) and an
// OR union of encrypted bit vectors (a + b − a·b, one ct×ct product). Every
// measured merge is checked by decryption against the plaintext model before
// timing. Timings use the wall clock: this package is never reachable from a
// precompile. The package under test is imported as fhecrdt: this package's
// name is the bench's.
package crdt

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bench"
	"github.com/fhegate/fhegate/fhe"
	fhecrdt "github.com/fhegate/fhegate/fhe/crdt"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
)

// Result is one measured row: Type, Lanes and MergeMS are what LP-137's CRDT
// table reads; the rest explain the row.
type Result struct {
	Type    string  `json:"type"`
	Lanes   int     `json:"lanes"`
	MergeMS float64 `json:"merge_ms"`
	// CPUMS is the process CPU time per operation (GOMAXPROCS 1): less
	// sensitive than MergeMS to other tenants of a shared machine.
	CPUMS float64 `json:"cpu_ms"`

	Case          string  `json:"case"`
	Preset        string  `json:"preset"`
	Blocks        int     `json:"blocks,omitempty"`
	Width         int     `json:"width,omitempty"`
	Level         int     `json:"level"`
	ChangedBlocks int     `json:"changed_blocks,omitempty"`
	MetaMergeMS   float64 `json:"meta_merge_ms,omitempty"`
	MergesPerS    float64 `json:"merges_per_s,omitempty"`
	// MergesPerSCPU is 1000 / (cpu_ms + meta_merge_ms).
	MergesPerSCPU float64 `json:"merges_per_s_cpu,omitempty"`
	CtBytes       int     `json:"ciphertext_bytes,omitempty"`
	MetaBytes     int     `json:"metadata_bytes,omitempty"`
	Runs          int     `json:"runs"`
	// MaxChain (mask-select chain rows): chained merges that still decrypt
	// correctly.
	MaxChain int    `json:"max_chain,omitempty"`
	Note     string `json:"note,omitempty"`
}

// Options select the measurement size.
type Options struct {
	// Runs is the number of timed repetitions per row (median reported).
	Runs int
	// Quick skips the slow baseline (ct×ct OR union) and the 128-replica row.
	Quick bool
}

type world struct {
	p       *fhe.Params
	eng     *fhecrdt.Engine
	enc     *fhe.Encryptor
	dec     *fhe.Decryptor
	contrib map[meta.Handle]*fhe.Ciphertext
	vals    map[meta.Handle][]int64
	r       *rand.Rand
}

func (w *world) resolve(b uint32, h meta.Handle) (*fhe.Ciphertext, error) {
	c, ok := w.contrib[h]
	if !ok {
		return nil, fmt.Errorf("unknown handle %v", h)
	}
	return c, nil
}

// write encrypts a writer's block, normalises it and returns its entry.
func (w *world) write(l meta.Layout, b uint32, clock uint64, replica uint32, vals []int64) (meta.Entry, time.Duration, error) {
	lo, _ := l.BlockLanes(b)
	full := make([]int64, lo+len(vals))
	copy(full[lo:], vals)
	raw, err := w.enc.EncryptIntsAtLevel(full, int(l.Level)+1) // the smallest writer ciphertext
	if err != nil {
		return meta.Entry{}, 0, err
	}
	h, err := raw.Handle()
	if err != nil {
		return meta.Entry{}, 0, err
	}
	t0 := time.Now()
	c, err := w.eng.Contribution(l, b, raw)
	d := time.Since(t0)
	if err != nil {
		return meta.Entry{}, 0, err
	}
	e := meta.Entry{Block: b, Clock: clock, Replica: replica, Handle: meta.Handle(h)}
	w.contrib[e.Handle] = c
	w.vals[e.Handle] = vals
	return e, d, nil
}

func medianF(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}

// timing is the per-operation median wall-clock and process-CPU time in ms.
type timing struct{ wall, cpu float64 }

// timeIt runs f in `runs` batches; a batch repeats f until it has taken at
// least 20 ms (the machine is shared and noisy: batches amortise the clock and
// getrusage resolution). The caller sets GOMAXPROCS(1), so process CPU time
// is the single-threaded cost (plus the GC).
func timeIt(runs int, f func() error) (timing, error) {
	if err := f(); err != nil { // warm-up, and the inner count
		return timing{}, err
	}
	inner := 1
	for {
		t0 := time.Now()
		for k := 0; k < inner; k++ {
			if err := f(); err != nil {
				return timing{}, err
			}
		}
		if time.Since(t0) >= 20*time.Millisecond || inner >= 1<<16 {
			break
		}
		inner *= 4
	}
	walls := make([]float64, runs)
	cpus := make([]float64, runs)
	for i := range walls {
		c0, t0 := bench.CPUTime(), time.Now()
		for k := 0; k < inner; k++ {
			if err := f(); err != nil {
				return timing{}, err
			}
		}
		walls[i] = float64(time.Since(t0).Nanoseconds()) / 1e6 / float64(inner)
		cpus[i] = float64((bench.CPUTime() - c0).Nanoseconds()) / 1e6 / float64(inner)
	}
	return timing{wall: medianF(walls), cpu: medianF(cpus)}, nil
}

// Run measures every row on BGVN14 with GOMAXPROCS(1) during timing.
func Run(opts Options, log *zap.Logger) ([]Result, error) {
	if opts.Runs < 1 {
		return nil, fmt.Errorf("crdt: runs %d < 1", opts.Runs)
	}
	p, err := fhe.NewParams(fhe.BGVN14)
	if err != nil {
		return nil, err
	}
	specs := mergeSpecs(opts.Quick)
	b, err := newBench(opts, log, p, specs[0].l)
	if err != nil {
		return nil, err
	}
	defer runtime.GOMAXPROCS(b.prev)

	for _, sp := range specs {
		if err := b.mergeRows(sp); err != nil {
			return nil, err
		}
	}
	if err := b.contributionRow(counterLayout()); err != nil {
		return nil, err
	}
	if err := b.maskChainRows(); err != nil {
		return nil, err
	}
	if err := b.setRows(setLayout(specs)); err != nil {
		return nil, err
	}
	return b.out, nil
}

// mergeSpec is one measured merge: a layout, how many blocks hold an entry
// and how the two states differ.
type mergeSpec struct {
	l         meta.Layout
	populated int  // blocks with an entry
	changed   int  // blocks B is newer on; A is newer on as many others (mixed plan)
	put       bool // B is a single newer entry: the precompile's Put of one write
	note      string
	readKeys  bool // also measure the counter read and the mask-select baseline on this row
}

// counterLayout is the G-Counter of the first merge row, the counter read and
// the contribution row: 16 replicas × 1024 counters at level 0.
func counterLayout() meta.Layout {
	return meta.Layout{Type: meta.TypeGCounter, Preset: uint8(fhe.BGVN14), Level: 0, Blocks: 16, Width: 1024}
}

// mergeSpecs lists the merge rows; the first is on counterLayout and carries
// the read keys. Quick drops the 128-replica row.
func mergeSpecs(quick bool) []mergeSpec {
	pid := uint8(fhe.BGVN14)
	counter := counterLayout()
	specs := []mergeSpec{
		{counter, 16, 4, false, "16 replicas × 1024 counters; A newer on 4 replicas, B on 4 others", true},
		{counter, 16, 1, true, "16 replicas × 1024 counters; merge with one replica's new write (Put)", false},
		{meta.Layout{Type: meta.TypePNCounter, Preset: pid, Level: 0, Blocks: 16384, Width: 1}, 16, 4, false, "16384 replica slots × 1 lane, 16 populated; A newer on 4, B on 4", false},
		{meta.Layout{Type: meta.TypeLWW, Preset: pid, Level: 0, Blocks: 1, Width: 16384}, 1, 1, true, "one LWW-Register of 16384 lanes; B's write is newer (result = B's ciphertext)", false},
		{meta.Layout{Type: meta.TypeLWW, Preset: pid, Level: 0, Blocks: 16, Width: 1024}, 16, 4, false, "LWW map: 16 keys × 1024 lanes; A newer on 4 keys, B on 4", false},
		{meta.Layout{Type: meta.TypeSet, Preset: pid, Level: 4, Blocks: 8, Width: 16384}, 8, 2, false, "add-wins set, universe 16384, 8 replicas; A newer on 2, B on 2", false},
	}
	if !quick {
		specs = append(specs, mergeSpec{meta.Layout{Type: meta.TypeGCounter, Preset: pid, Level: 0, Blocks: 128, Width: 128}, 128, 32, false, "128 replicas × 128 counters; A newer on 32, B on 32", false})
	}
	return specs
}

// setLayout is the layout of the set row of specs (the last one when several).
func setLayout(specs []mergeSpec) meta.Layout {
	var setL meta.Layout
	for _, sp := range specs {
		if sp.l.Type == meta.TypeSet {
			setL = sp.l
		}
	}
	return setL
}

// runner holds the keys and the world of one Run and collects its rows.
type runner struct {
	opts Options
	log  *zap.Logger
	p    *fhe.Params
	ev   *fhe.Evaluator
	eng  *fhecrdt.Engine
	w    *world
	prev int // GOMAXPROCS outside timing
	out  []Result
}

// newBench generates the keys: relinearisation (set read, OR baseline) and
// the rotations of the read of readL.
func newBench(opts Options, log *zap.Logger, p *fhe.Params, readL meta.Layout) (*runner, error) {
	log.Info("generating BGVN14 keys")
	keys := fhe.GenKeys(p, nil)
	gal, err := fhe.GenGaloisKeys(keys.Secret, fhecrdt.ReadGaloisElements(p, readL))
	if err != nil {
		return nil, err
	}
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: keys.Relin, Galois: gal})
	if err != nil {
		return nil, err
	}
	eng, err := fhecrdt.NewEngine(ev)
	if err != nil {
		return nil, err
	}
	w := &world{p: p, eng: eng, enc: fhe.NewEncryptor(keys.Public), dec: fhe.NewDecryptor(keys.Secret),
		contrib: map[meta.Handle]*fhe.Ciphertext{}, vals: map[meta.Handle][]int64{}, r: rand.New(rand.NewPCG(1, 2))}
	return &runner{opts: opts, log: log, p: p, ev: ev, eng: eng, w: w, prev: runtime.GOMAXPROCS(0)}, nil
}

// timed is timeIt with GOMAXPROCS(1) for its duration.
func (b *runner) timed(runs int, f func() error) (timing, error) {
	runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(b.prev)
	return timeIt(runs, f)
}

// populate builds the two metadata states of sp: every populated block has a
// first write in A (and in B unless sp.put); B is newer on the first
// sp.changed of them and, for mixed plans, A on as many others.
func (b *runner) populate(sp mergeSpec) (sa, sb *meta.State, err error) {
	l, w := sp.l, b.w
	sa, _ = meta.New(l)
	sb, _ = meta.New(l)
	for k := 0; k < sp.populated; k++ {
		blk := uint32(k * (int(l.Blocks) / sp.populated))
		lo, hi := l.BlockLanes(blk)
		mk := func() []int64 {
			v := make([]int64, hi-lo)
			for i := range v {
				if l.Type == meta.TypeSet {
					v[i] = w.r.Int64N(2)
				} else {
					v[i] = w.r.Int64N(1000)
				}
			}
			return v
		}
		rep := blk
		if l.Type == meta.TypeLWW {
			rep = uint32(k % 3)
		}
		e1, _, err := w.write(l, blk, 1, rep, mk())
		if err != nil {
			return nil, nil, err
		}
		if sa, err = sa.Put(e1); err != nil {
			return nil, nil, err
		}
		if !sp.put {
			if sb, err = sb.Put(e1); err != nil {
				return nil, nil, err
			}
		}
		if k < sp.changed || (!sp.put && k < 2*sp.changed) {
			e2, _, err := w.write(l, blk, 2, rep, mk())
			if err != nil {
				return nil, nil, err
			}
			dst := &sb
			if k >= sp.changed {
				dst = &sa
			}
			if *dst, err = (*dst).Put(e2); err != nil {
				return nil, nil, err
			}
		}
	}
	return sa, sb, nil
}

// merged is one merge ready to time: both states' encodings and aggregates,
// the merge plan, the merged state and its checked materialisation.
type merged struct {
	ab, bb     []byte
	aggA, aggB *fhe.Ciphertext
	enc        []byte
	plan       *meta.Plan
	state      *meta.State
	res        *fhe.Ciphertext
}

// prepare aggregates both states, plans their merge and checks the
// materialised merge once, by decryption, against the model.
func (b *runner) prepare(sa, sb *meta.State) (*merged, error) {
	m := &merged{}
	var err error
	if m.aggA, err = b.eng.Aggregate(sa, b.w.resolve); err != nil {
		return nil, err
	}
	if m.aggB, err = b.eng.Aggregate(sb, b.w.resolve); err != nil {
		return nil, err
	}
	m.ab, m.bb = sa.Encode(), sb.Encode()
	if m.enc, m.plan, err = meta.MergePlan(m.ab, m.bb); err != nil {
		return nil, err
	}
	m.state, _ = meta.Decode(m.enc)
	if m.res, err = b.eng.Materialise(m.plan, m.aggA, m.aggB, b.w.resolve); err != nil {
		return nil, err
	}
	if err := b.w.check(m.state, m.res); err != nil {
		return nil, fmt.Errorf("%v: %w", sa.Layout.Type, err)
	}
	return m, nil
}

// mergeRows measures the merge of sp (metadata merge and materialisation)
// and, for the read-keys row, the counter read and the mask-select baseline.
func (b *runner) mergeRows(sp mergeSpec) error {
	l := sp.l
	b.log.Info("preparing", zap.String("type", l.Type.String()), zap.Uint32("blocks", l.Blocks), zap.Uint32("width", l.Width))
	sa, sb, err := b.populate(sp)
	if err != nil {
		return err
	}
	m, err := b.prepare(sa, sb)
	if err != nil {
		return err
	}
	_, changes := m.plan.Base()
	var metaMS, mergeMS timing
	runtime.GOMAXPROCS(1)
	metaMS, err = timeIt(b.opts.Runs, func() error { _, _, err := meta.MergePlan(m.ab, m.bb); return err })
	if err != nil {
		return err
	}
	mergeMS, err = timeIt(b.opts.Runs, func() error { _, err := b.eng.Materialise(m.plan, m.aggA, m.aggB, b.w.resolve); return err })
	runtime.GOMAXPROCS(b.prev)
	if err != nil {
		return err
	}
	total := mergeMS.wall + metaMS.wall
	b.out = append(b.out, Result{Type: l.Type.String(), Lanes: l.Lanes(), MergeMS: mergeMS.wall, CPUMS: mergeMS.cpu, Case: sp.note,
		Preset: b.p.Preset.Name, Blocks: int(l.Blocks), Width: int(l.Width), Level: int(l.Level),
		ChangedBlocks: len(changes), MetaMergeMS: metaMS.wall, MergesPerS: 1000 / total, MergesPerSCPU: 1000 / (mergeMS.cpu + metaMS.wall), CtBytes: m.res.EncodedSize(),
		MetaBytes: len(m.enc), Runs: b.opts.Runs,
	})
	b.log.Info("measured", zap.String("type", l.Type.String()), zap.Float64("merge_ms", mergeMS.wall), zap.Float64("cpu_ms", mergeMS.cpu), zap.Float64("meta_ms", metaMS.wall))
	if !sp.readKeys {
		return nil
	}
	if err := b.counterReadRow(l, m.res); err != nil {
		return err
	}
	return b.maskSelectRow(l, m)
}

// counterReadRow measures the counter totals read of the merged counter res.
func (b *runner) counterReadRow(l meta.Layout, res *fhe.Ciphertext) error {
	readMS, err := b.timed(b.opts.Runs, func() error { _, err := b.eng.CounterTotals(l, res); return err })
	if err != nil {
		return err
	}
	b.out = append(b.out, Result{Type: "read-counter-totals", Lanes: l.Lanes(), MergeMS: readMS.wall, CPUMS: readMS.cpu, Case: "InnerSum over 16 replica blocks (3 rotations + row rotation), level 0",
		Preset: b.p.Preset.Name, Blocks: int(l.Blocks), Width: int(l.Width), Level: 0, Runs: b.opts.Runs, CtBytes: res.EncodedSize()})
	return nil
}

// maskSelectRow is the baseline: a mask select of the two packed aggregates
// of m, checked against the model before timing.
func (b *runner) maskSelectRow(l meta.Layout, m *merged) error {
	maskA := make([]bool, b.p.Slots())
	for _, pk := range m.plan.Picks {
		if pk.From != meta.SideB {
			for i := pk.Lo; i < pk.Hi; i++ {
				maskA[i] = true
			}
		}
	}
	sel, err := b.ev.MaskSelect(m.aggA, m.aggB, maskA)
	if err != nil {
		return err
	}
	if err := b.w.check(m.state, sel); err != nil {
		return fmt.Errorf("mask select: %w", err)
	}
	selMS, err := b.timed(b.opts.Runs, func() error { _, err := b.ev.MaskSelect(m.aggA, m.aggB, maskA); return err })
	if err != nil {
		return err
	}
	b.out = append(b.out, Result{Type: "baseline-mask-select", Lanes: l.Lanes(), MergeMS: selMS.wall, CPUMS: selMS.cpu,
		Case:   "A⊙m + B⊙(1−m) of the two packed level-0 aggregates, masks encoded per merge, no rescale (noise ×≈2^24 per merge: chains bounded)",
		Preset: b.p.Preset.Name, Level: 0, MergesPerS: 1000 / selMS.wall, MergesPerSCPU: 1000 / selMS.cpu, Runs: b.opts.Runs, CtBytes: sel.EncodedSize()})
	return nil
}

// contributionRow measures the normalisation of one writer ciphertext of
// the counter layout.
func (b *runner) contributionRow(counter meta.Layout) error {
	raw, err := b.w.enc.EncryptIntsAtLevel(make([]int64, 1024), int(counter.Level)+1)
	if err != nil {
		return err
	}
	conT, err := b.timed(b.opts.Runs, func() error { _, err := b.eng.Contribution(counter, 0, raw); return err })
	if err != nil {
		return err
	}
	b.out = append(b.out, Result{Type: "contribution", Lanes: b.p.Slots(), MergeMS: conT.wall, CPUMS: conT.cpu,
		Case:   "normalise one writer ciphertext (committee, once per write, not per merge): drop to level 1, 0/1 mask product, one mod switch",
		Preset: b.p.Preset.Name, Runs: b.opts.Runs, CtBytes: raw.EncodedSize()})
	return nil
}

// maskChainRows is the noise budget of the mask-select baseline: chain
// merges until decryption fails, from level 0 and from the top level.
func (b *runner) maskChainRows() error {
	for _, level := range []int{0, b.p.MaxLevel()} {
		n, err := b.w.maskChain(b.ev, level, 40)
		if err != nil {
			return err
		}
		b.out = append(b.out, Result{Type: "baseline-mask-select-chain", Lanes: b.p.Slots(), Level: level, MaxChain: n,
			Case:   fmt.Sprintf("chained mask selects (no rescale) from fresh ciphertexts at level %d that still decrypt correctly (cap 40)", level),
			Preset: b.p.Preset.Name})
		b.log.Info("mask-select chain", zap.Int("level", level), zap.Int("max_chain", n))
	}
	return nil
}

// randomBits is one random 0/1 value per slot.
func (b *runner) randomBits() []int64 {
	v := make([]int64, b.p.Slots())
	for i := range v {
		v[i] = b.w.r.Int64N(2)
	}
	return v
}

// setRows measures the set membership read and, unless Quick, the OR-union
// baseline.
func (b *runner) setRows(setL meta.Layout) error {
	e1, _, err := b.w.write(setL, 0, 1, 0, b.randomBits())
	if err != nil {
		return err
	}
	agg := b.w.contrib[e1.Handle]
	memMS, err := b.timed(b.opts.Runs, func() error { _, err := b.eng.Membership(setL, agg); return err })
	if err != nil {
		return err
	}
	b.out = append(b.out, Result{Type: "read-set-membership", Lanes: b.p.Slots(), MergeMS: memMS.wall, CPUMS: memMS.cpu,
		Case: "membership polynomial of degree 8 (8 replicas) at level 4", Preset: b.p.Preset.Name, Level: 4, Runs: b.opts.Runs})
	if b.opts.Quick {
		return nil
	}
	return b.orUnionRow()
}

// orUnionRow is the baseline: a + b − a·b of two fresh encrypted bit vectors.
func (b *runner) orUnionRow() error {
	x, err := b.w.enc.EncryptInts(b.randomBits())
	if err != nil {
		return err
	}
	y, err := b.w.enc.EncryptInts(b.randomBits())
	if err != nil {
		return err
	}
	ev := b.ev
	orUnion := func() (*fhe.Ciphertext, error) {
		s, err := ev.Add(x, y)
		if err != nil {
			return nil, err
		}
		m, err := ev.Mul(x, y)
		if err != nil {
			return nil, err
		}
		s, err = ev.DropLevels(s, 1)
		if err != nil {
			return nil, err
		}
		return ev.Sub(s, m)
	}
	runs := max(1, b.opts.Runs/2)
	orMS, err := b.timed(runs, func() error { _, err := orUnion(); return err })
	if err != nil {
		return err
	}
	b.out = append(b.out, Result{Type: "baseline-or-union", Lanes: b.p.Slots(), MergeMS: orMS.wall, CPUMS: orMS.cpu,
		Case:   "a + b − a·b of two fresh 16384-bit vectors (one ct×ct product + relinearise + rescale: one level per merge)",
		Preset: b.p.Preset.Name, Level: b.p.MaxLevel(), MergesPerS: 1000 / orMS.wall, MergesPerSCPU: 1000 / orMS.cpu, Runs: runs, CtBytes: x.EncodedSize()})
	return nil
}

// maskChain merges a fresh ciphertext into an accumulator with MaskSelect
// (random half/half masks) until the decryption differs from the model.
func (w *world) maskChain(ev *fhe.Evaluator, level, limit int) (int, error) {
	fresh := func() (*fhe.Ciphertext, []int64, error) {
		v := make([]int64, w.p.Slots())
		for i := range v {
			v[i] = w.r.Int64N(1000)
		}
		c, err := w.enc.EncryptInts(v)
		if err != nil {
			return nil, nil, err
		}
		if level == c.Level() {
			return c, v, nil
		}
		// as Contribution does: drop to level+1, then one mod switch (noise
		// at the mod-switch floor)
		if c, err = ev.DropLevels(c, c.Level()-level-1); err != nil {
			return nil, nil, err
		}
		ones := make([]int64, w.p.Slots())
		for i := range ones {
			ones[i] = 1
		}
		c, err = ev.MulInts(c, ones)
		return c, v, err
	}
	acc, model, err := fresh()
	if err != nil {
		return 0, err
	}
	for k := 1; k <= limit; k++ {
		other, ov, err := fresh()
		if err != nil {
			return 0, err
		}
		mask := make([]bool, w.p.Slots())
		for i := range mask {
			mask[i] = w.r.IntN(2) == 0
			if !mask[i] {
				model[i] = ov[i]
			}
		}
		if acc, err = ev.MaskSelect(acc, other, mask); err != nil {
			return 0, err
		}
		got, err := w.dec.DecryptInts(acc)
		if err != nil {
			return 0, err
		}
		for i := range got {
			if got[i] != model[i] {
				return k - 1, nil
			}
		}
	}
	return limit, nil
}

// check decrypts the materialised aggregate and compares it lane by lane with
// the plaintext model of the merged state.
func (w *world) check(s *meta.State, agg *fhe.Ciphertext) error {
	got, err := w.dec.DecryptInts(agg)
	if err != nil {
		return err
	}
	want := make([]int64, w.p.Slots())
	for _, e := range s.Entries {
		lo, _ := s.Layout.BlockLanes(e.Block)
		for i, v := range w.vals[e.Handle] {
			want[lo+i] += v
		}
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("lane %d: decrypted %d, model %d", i, got[i], want[i])
		}
	}
	return nil
}
