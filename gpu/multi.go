package gpu

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// MaxModuli bounds the moduli of one multi-modulus batch (a key switch of
// the largest preset has fewer than 40 moduli in Q∪P).
const MaxModuli = 256

// MaxBatchPolys bounds the polynomials of one multi-modulus batch (all
// moduli together): the engine's largest batch (digits × moduli of Q∪P, two
// polynomials) is below 4096.
const MaxBatchPolys = 1 << 16

// Limb is the part of a multi-modulus batch for one modulus: B polynomials
// transformed with the constants of P.
type Limb struct {
	P        *Params
	Src, Dst [][]uint64
}

// Batch is one multi-modulus transform: B_i polynomials for each of L moduli
// q_i (the limbs), all of one ring degree N and one direction. A key switch
// hands its whole step (every decomposition digit × every modulus of Q∪P)
// as one Batch, so a backend can keep its buffers and twiddles resident for
// the step instead of paying one launch per modulus.
//
// Lazy says the consumer reduces the outputs itself (see engine.Router): a
// backend may then return any representative congruent mod q_i that is no
// larger than Lattigo's NTTLazy/INTTLazy output; the reduced output in
// [0, q_i) always qualifies. With Lazy false the output is byte-identical to
// SubRing.NTT / SubRing.INTT.
type Batch struct {
	Dir   Direction
	Lazy  bool
	Limbs []Limb
}

// Shape is what the dispatcher and the crossover table route by: ring
// degree, number of moduli, polynomials per modulus (the largest limb) and
// direction.
type Shape struct {
	LogN   int       `json:"log_n"`
	Moduli int       `json:"moduli"`
	B      int       `json:"b"`
	Dir    Direction `json:"dir"`
}

func (s Shape) String() string {
	return fmt.Sprintf("N=2^%d L=%d B=%d %s", s.LogN, s.Moduli, s.B, s.Dir)
}

// Shape returns the routing shape of b (zero for an empty batch).
func (b *Batch) Shape() Shape {
	s := Shape{Moduli: len(b.Limbs), Dir: b.Dir}
	for _, l := range b.Limbs {
		if l.P != nil && s.LogN == 0 {
			s.LogN = l.P.LogN()
		}
		s.B = max(s.B, len(l.Src))
	}
	return s
}

// Polys returns the number of polynomials of b (all limbs).
func (b *Batch) Polys() int {
	n := 0
	for _, l := range b.Limbs {
		n += len(l.Src)
	}
	return n
}

// CheckMulti validates a multi-modulus batch: 1…MaxModuli limbs, each a
// valid batch (CheckBatch) of the same N, at most MaxBatchPolys
// polynomials in all, and no polynomial of one limb sharing memory with a
// polynomial of another limb.
func CheckMulti(b *Batch) error {
	if b == nil || len(b.Limbs) == 0 || len(b.Limbs) > MaxModuli {
		n := 0
		if b != nil {
			n = len(b.Limbs)
		}
		return fmt.Errorf("%w: %d limbs (want 1…%d)", ErrBadBatch, n, MaxModuli)
	}
	if b.Dir != Forward && b.Dir != Inverse {
		return fmt.Errorf("%w: direction %d", ErrBadBatch, b.Dir)
	}
	total := 0
	for i, l := range b.Limbs {
		if err := CheckBatch(l.P, l.Src, l.Dst); err != nil {
			return fmt.Errorf("limb %d: %w", i, err)
		}
		if l.P.N != b.Limbs[0].P.N {
			return fmt.Errorf("%w: limb %d has N=%d, limb 0 N=%d", ErrBadBatch, i, l.P.N, b.Limbs[0].P.N)
		}
		total += len(l.Src)
		if total > MaxBatchPolys {
			return fmt.Errorf("%w: more than %d polynomials", ErrBadBatch, MaxBatchPolys)
		}
	}
	return checkDisjoint(b)
}

// checkDisjoint rejects a batch where two different jobs (limb, poly) share
// memory (same first word): the result would depend on the order a backend
// runs them in. Src and Dst of the same job may alias exactly (in place).
func checkDisjoint(b *Batch) error {
	seen := make(map[uintptr]struct{}, 2*b.Polys())
	for _, l := range b.Limbs {
		for k := range l.Src {
			s, d := addr(l.Src[k]), addr(l.Dst[k])
			if s != d {
				if _, dup := seen[s]; dup {
					return fmt.Errorf("%w: polynomial memory shared by two jobs", ErrBadBatch)
				}
				seen[s] = struct{}{}
			}
			if _, dup := seen[d]; dup {
				return fmt.Errorf("%w: polynomial memory shared by two jobs", ErrBadBatch)
			}
			seen[d] = struct{}{}
		}
	}
	return nil
}

func addr(p []uint64) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(p))) }

// MultiBackend is a Backend with a native multi-modulus entry point.
//
// NTTMulti transforms every limb of b. On error src is unmodified and dst
// holds unspecified values (a caller that falls back recomputes dst from
// src). Implementations are safe for concurrent use.
type MultiBackend interface {
	Backend
	NTTMulti(b *Batch) error
}

// NTTMulti runs b on be: through be's own NTTMulti if it has one, else
// through the generic adapter, which calls be.NTT once per modulus and
// stages in-place limbs through scratch buffers so that src survives a
// failure half-way. Either way b is validated first (CheckMulti).
func NTTMulti(be Backend, b *Batch) error {
	if err := CheckMulti(b); err != nil {
		return err
	}
	if m, ok := be.(MultiBackend); ok {
		return m.NTTMulti(b)
	}
	return adaptMulti(be, b)
}

// adaptMulti is the generic adapter: one NTT call per limb.
func adaptMulti(be Backend, b *Batch) error {
	type staged struct {
		limb int
		tmp  [][]uint64
	}
	var pending []staged
	for i, l := range b.Limbs {
		dst := l.Dst
		if aliased(l) {
			dst = make([][]uint64, len(l.Src))
			for k := range dst {
				dst[k] = make([]uint64, l.P.N)
			}
			pending = append(pending, staged{limb: i, tmp: dst})
		}
		if err := be.NTT(b.Dir, l.P, l.Src, dst); err != nil {
			return fmt.Errorf("limb %d: %w", i, err)
		}
	}
	for _, s := range pending {
		for k, d := range b.Limbs[s.limb].Dst {
			copy(d, s.tmp[k])
		}
	}
	return nil
}

// aliased reports whether some Dst of l shares memory with its Src.
func aliased(l Limb) bool {
	for k := range l.Src {
		if addr(l.Src[k]) == addr(l.Dst[k]) {
			return true
		}
	}
	return false
}

// job is one (limb, polynomial) of a batch.
type job struct{ limb, poly int }

// jobsOf flattens b into its jobs, limb-major.
func jobsOf(b *Batch) []job {
	out := make([]job, 0, b.Polys())
	for i, l := range b.Limbs {
		for k := range l.Src {
			out = append(out, job{i, k})
		}
	}
	return out
}

// ParallelJobs runs f on every (limb, poly) of b on up to workers
// goroutines (0: GOMAXPROCS). Backends whose per-polynomial transform cannot
// fail use it to spread a whole multi-modulus batch over the cores at once.
func ParallelJobs(b *Batch, workers int, f func(limb, poly int)) {
	js := jobsOf(b)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(js))
	if workers <= 1 {
		for _, j := range js {
			f(j.limb, j.poly)
		}
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(js); i += workers {
				f(js[i].limb, js[i].poly)
			}
		}()
	}
	wg.Wait()
}

// NTTAsMulti is Backend.NTT for a MultiBackend: the batch is checked, then
// run as a one-modulus NTTMulti.
func NTTAsMulti(b MultiBackend, dir Direction, p *Params, src, dst [][]uint64) error {
	if err := CheckBatch(p, src, dst); err != nil {
		return err
	}
	return b.NTTMulti(&Batch{Dir: dir, Limbs: []Limb{{P: p, Src: src, Dst: dst}}})
}
