// Package crdtbench measures fhe/crdt merges (`fhegate bench crdt`): the
// materialisation of a merge of two 16384-lane states on BGVN14, the on-chain
// metadata merge, writer-ciphertext normalisation, reads, and two baselines —
// a mask select of two packed ciphertexts (ct⊙pt + ct⊙pt, no rescale) and an
// OR union of encrypted bit vectors (a + b − a·b, one ct×ct product). Every
// measured merge is checked by decryption against the plaintext model before
// timing. Timings use the wall clock: this package is never reachable from a
// precompile.
package crdtbench

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/crdt"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
)

// Result is one measured row. Type, Lanes and MergeMS are the fields the
// issue fixes; the rest explain the row.
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
	eng     *crdt.Engine
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

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
		c0, t0 := cpuTime(), time.Now()
		for k := 0; k < inner; k++ {
			if err := f(); err != nil {
				return timing{}, err
			}
		}
		walls[i] = float64(time.Since(t0).Nanoseconds()) / 1e6 / float64(inner)
		cpus[i] = float64((cpuTime() - c0).Nanoseconds()) / 1e6 / float64(inner)
	}
	return timing{wall: medianF(walls), cpu: medianF(cpus)}, nil
}

// Run measures every row on BGVN14 with GOMAXPROCS(1) during timing.
func Run(opts Options, log *zap.Logger) ([]Result, error) {
	if opts.Runs < 1 {
		return nil, fmt.Errorf("crdtbench: runs %d < 1", opts.Runs)
	}
	p, err := fhe.NewParams(fhe.BGVN14)
	if err != nil {
		return nil, err
	}
	type spec struct {
		l         meta.Layout
		populated int  // blocks with an entry
		changed   int  // blocks B is newer on; A is newer on as many others (mixed plan)
		put       bool // B is a single newer entry: the precompile's Put of one write
		note      string
		readKeys  bool
	}
	pid := uint8(fhe.BGVN14)
	counter := meta.Layout{Type: meta.TypeGCounter, Preset: pid, Level: 0, Blocks: 16, Width: 1024}
	specs := []spec{
		{counter, 16, 4, false, "16 replicas × 1024 counters; A newer on 4 replicas, B on 4 others", true},
		{counter, 16, 1, true, "16 replicas × 1024 counters; merge with one replica's new write (Put)", false},
		{meta.Layout{Type: meta.TypePNCounter, Preset: pid, Level: 0, Blocks: 16384, Width: 1}, 16, 4, false, "16384 replica slots × 1 lane, 16 populated; A newer on 4, B on 4", false},
		{meta.Layout{Type: meta.TypeLWW, Preset: pid, Level: 0, Blocks: 1, Width: 16384}, 1, 1, true, "one LWW-Register of 16384 lanes; B's write is newer (result = B's ciphertext)", false},
		{meta.Layout{Type: meta.TypeLWW, Preset: pid, Level: 0, Blocks: 16, Width: 1024}, 16, 4, false, "LWW map: 16 keys × 1024 lanes; A newer on 4 keys, B on 4", false},
		{meta.Layout{Type: meta.TypeSet, Preset: pid, Level: 4, Blocks: 8, Width: 16384}, 8, 2, false, "add-wins set, universe 16384, 8 replicas; A newer on 2, B on 2", false},
	}
	if !opts.Quick {
		specs = append(specs, spec{meta.Layout{Type: meta.TypeGCounter, Preset: pid, Level: 0, Blocks: 128, Width: 128}, 128, 32, false, "128 replicas × 128 counters; A newer on 32, B on 32", false})
	}

	// Keys: relinearisation (set read, OR baseline) and the rotations of the
	// first counter's read.
	log.Info("generating BGVN14 keys")
	keys := fhe.GenKeys(p, nil)
	gal, err := fhe.GenGaloisKeys(keys.Secret, crdt.ReadGaloisElements(p, specs[0].l))
	if err != nil {
		return nil, err
	}
	ev, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: keys.Relin, Galois: gal})
	if err != nil {
		return nil, err
	}
	eng, err := crdt.NewEngine(ev)
	if err != nil {
		return nil, err
	}
	w := &world{p: p, eng: eng, enc: fhe.NewEncryptor(keys.Public), dec: fhe.NewDecryptor(keys.Secret),
		contrib: map[meta.Handle]*fhe.Ciphertext{}, vals: map[meta.Handle][]int64{}, r: rand.New(rand.NewPCG(1, 2))}

	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)

	var out []Result
	for _, sp := range specs {
		l := sp.l
		log.Info("preparing", zap.String("type", l.Type.String()), zap.Uint32("blocks", l.Blocks), zap.Uint32("width", l.Width))
		populated := sp.populated
		a, _ := meta.New(l)
		b, _ := meta.New(l)
		for k := 0; k < populated; k++ {
			blk := uint32(k * (int(l.Blocks) / populated))
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
			e1, d, err := w.write(l, blk, 1, rep, mk())
			if err != nil {
				return nil, err
			}
			_ = d
			if a, err = a.Put(e1); err != nil {
				return nil, err
			}
			if !sp.put {
				if b, err = b.Put(e1); err != nil {
					return nil, err
				}
			}
			if k < sp.changed || (!sp.put && k < 2*sp.changed) {
				e2, d, err := w.write(l, blk, 2, rep, mk())
				if err != nil {
					return nil, err
				}
				_ = d
				dst := &b
				if k >= sp.changed {
					dst = &a
				}
				if *dst, err = (*dst).Put(e2); err != nil {
					return nil, err
				}
			}
		}
		aggA, err := eng.Aggregate(a, w.resolve)
		if err != nil {
			return nil, err
		}
		aggB, err := eng.Aggregate(b, w.resolve)
		if err != nil {
			return nil, err
		}
		ab, bb := a.Encode(), b.Encode()
		merged, plan, err := meta.MergePlan(ab, bb)
		if err != nil {
			return nil, err
		}
		ms, _ := meta.Decode(merged)
		// Check once, by decryption, against the model.
		res, err := eng.Materialise(plan, aggA, aggB, w.resolve)
		if err != nil {
			return nil, err
		}
		if err := w.check(ms, res); err != nil {
			return nil, fmt.Errorf("%v: %w", l.Type, err)
		}
		_, changes := plan.Base()
		runtime.GOMAXPROCS(1)
		metaMS, err := timeIt(opts.Runs, func() error { _, _, err := meta.MergePlan(ab, bb); return err })
		if err != nil {
			return nil, err
		}
		mergeMS, err := timeIt(opts.Runs, func() error { _, err := eng.Materialise(plan, aggA, aggB, w.resolve); return err })
		runtime.GOMAXPROCS(prev)
		if err != nil {
			return nil, err
		}
		ctBytes := res.EncodedSize()
		total := mergeMS.wall + metaMS.wall
		out = append(out, Result{Type: l.Type.String(), Lanes: l.Lanes(), MergeMS: mergeMS.wall, CPUMS: mergeMS.cpu, Case: sp.note,
			Preset: p.Preset.Name, Blocks: int(l.Blocks), Width: int(l.Width), Level: int(l.Level),
			ChangedBlocks: len(changes), MetaMergeMS: metaMS.wall, MergesPerS: 1000 / total, MergesPerSCPU: 1000 / (mergeMS.cpu + metaMS.wall), CtBytes: ctBytes,
			MetaBytes: len(merged), Runs: opts.Runs,
		})
		log.Info("measured", zap.String("type", l.Type.String()), zap.Float64("merge_ms", mergeMS.wall), zap.Float64("cpu_ms", mergeMS.cpu), zap.Float64("meta_ms", metaMS.wall))

		if sp.readKeys {
			runtime.GOMAXPROCS(1)
			readMS, err := timeIt(opts.Runs, func() error { _, err := eng.CounterTotals(l, res); return err })
			runtime.GOMAXPROCS(prev)
			if err != nil {
				return nil, err
			}
			out = append(out, Result{Type: "read-counter-totals", Lanes: l.Lanes(), MergeMS: readMS.wall, CPUMS: readMS.cpu, Case: "InnerSum over 16 replica blocks (3 rotations + row rotation), level 0",
				Preset: p.Preset.Name, Blocks: int(l.Blocks), Width: int(l.Width), Level: 0, Runs: opts.Runs, CtBytes: res.EncodedSize()})
			// Baseline: mask select of the two packed aggregates.
			maskA := make([]bool, p.Slots())
			for _, pk := range plan.Picks {
				if pk.From != meta.SideB {
					for i := pk.Lo; i < pk.Hi; i++ {
						maskA[i] = true
					}
				}
			}
			sel, err := ev.MaskSelect(aggA, aggB, maskA)
			if err != nil {
				return nil, err
			}
			if err := w.check(ms, sel); err != nil {
				return nil, fmt.Errorf("mask select: %w", err)
			}
			runtime.GOMAXPROCS(1)
			selMS, err := timeIt(opts.Runs, func() error { _, err := ev.MaskSelect(aggA, aggB, maskA); return err })
			runtime.GOMAXPROCS(prev)
			if err != nil {
				return nil, err
			}
			out = append(out, Result{Type: "baseline-mask-select", Lanes: l.Lanes(), MergeMS: selMS.wall, CPUMS: selMS.cpu,
				Case:   "A⊙m + B⊙(1−m) of the two packed level-0 aggregates, masks encoded per merge, no rescale (noise ×≈2^24 per merge: chains bounded)",
				Preset: p.Preset.Name, Level: 0, MergesPerS: 1000 / selMS.wall, MergesPerSCPU: 1000 / selMS.cpu, Runs: opts.Runs, CtBytes: sel.EncodedSize()})
		}
	}
	raw, err := w.enc.EncryptIntsAtLevel(make([]int64, 1024), int(counter.Level)+1)
	if err != nil {
		return nil, err
	}
	runtime.GOMAXPROCS(1)
	conT, err := timeIt(opts.Runs, func() error { _, err := eng.Contribution(counter, 0, raw); return err })
	runtime.GOMAXPROCS(prev)
	if err != nil {
		return nil, err
	}
	out = append(out, Result{Type: "contribution", Lanes: p.Slots(), MergeMS: conT.wall, CPUMS: conT.cpu,
		Case:   "normalise one writer ciphertext (committee, once per write, not per merge): drop to level 1, 0/1 mask product, one mod switch",
		Preset: p.Preset.Name, Runs: opts.Runs, CtBytes: raw.EncodedSize()})

	// Noise budget of the mask-select baseline: chain merges until decryption fails.
	for _, level := range []int{0, p.MaxLevel()} {
		n, err := w.maskChain(ev, level, 40)
		if err != nil {
			return nil, err
		}
		out = append(out, Result{Type: "baseline-mask-select-chain", Lanes: p.Slots(), Level: level, MaxChain: n,
			Case:   fmt.Sprintf("chained mask selects (no rescale) from fresh ciphertexts at level %d that still decrypt correctly (cap 40)", level),
			Preset: p.Preset.Name})
		log.Info("mask-select chain", zap.Int("level", level), zap.Int("max_chain", n))
	}

	// Set read and the OR-union baseline.
	var setL meta.Layout
	for _, sp := range specs {
		if sp.l.Type == meta.TypeSet {
			setL = sp.l
		}
	}
	bits := func() []int64 {
		v := make([]int64, p.Slots())
		for i := range v {
			v[i] = w.r.Int64N(2)
		}
		return v
	}
	e1, _, err := w.write(setL, 0, 1, 0, bits())
	if err != nil {
		return nil, err
	}
	agg := w.contrib[e1.Handle]
	runtime.GOMAXPROCS(1)
	memMS, err := timeIt(opts.Runs, func() error { _, err := eng.Membership(setL, agg); return err })
	runtime.GOMAXPROCS(prev)
	if err != nil {
		return nil, err
	}
	out = append(out, Result{Type: "read-set-membership", Lanes: p.Slots(), MergeMS: memMS.wall, CPUMS: memMS.cpu,
		Case: "membership polynomial of degree 8 (8 replicas) at level 4", Preset: p.Preset.Name, Level: 4, Runs: opts.Runs})
	if !opts.Quick {
		x, err := w.enc.EncryptInts(bits())
		if err != nil {
			return nil, err
		}
		y, err := w.enc.EncryptInts(bits())
		if err != nil {
			return nil, err
		}
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
		runtime.GOMAXPROCS(1)
		orMS, err := timeIt(max(1, opts.Runs/2), func() error { _, err := orUnion(); return err })
		runtime.GOMAXPROCS(prev)
		if err != nil {
			return nil, err
		}
		out = append(out, Result{Type: "baseline-or-union", Lanes: p.Slots(), MergeMS: orMS.wall, CPUMS: orMS.cpu,
			Case:   "a + b − a·b of two fresh 16384-bit vectors (one ct×ct product + relinearise + rescale: one level per merge)",
			Preset: p.Preset.Name, Level: p.MaxLevel(), MergesPerS: 1000 / orMS.wall, MergesPerSCPU: 1000 / orMS.cpu, Runs: max(1, opts.Runs/2), CtBytes: x.EncodedSize()})
	}
	return out, nil
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
