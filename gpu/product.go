package gpu

import (
	"slices"
	"sync/atomic"

	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe/engine"
)

// ProductBackend is a Backend that also runs the BGV evaluator's
// coefficient-wise products (engine.TensorJob, engine.MulAddJob). A call
// reports true when every output word holds the canonical residue, false
// with no error when the backend has no kernel on its current path or for
// a modulus (nothing written), and an error when a job is malformed
// (nothing written).
type ProductBackend interface {
	Backend
	Tensor(jobs []engine.TensorJob) (bool, error)
	MulAdd(jobs []engine.MulAddJob) (bool, error)
}

// ProductSwitch is implemented by a ProductBackend whose products may be
// switched off (OpenCL: Backend.Products); while they are, the dispatcher
// routes none to it — rather than taking the device and computing a
// first-use reference for a call the backend will decline.
type ProductSwitch interface {
	ProductsOn() bool
}

// ProductsOf returns b as a ProductBackend when it is one and its products
// are on (ProductSwitch): the backend the dispatcher and calibrate --verify
// may hand products to.
func ProductsOf(b Backend) (ProductBackend, bool) {
	pb, ok := b.(ProductBackend)
	if !ok {
		return nil, false
	}
	if sw, ok := pb.(ProductSwitch); ok && !sw.ProductsOn() {
		return nil, false
	}
	return pb, true
}

// productRoute decides a product batch over the SubRings sub(0…n−1),
// writing polys polynomials per limb: it routes to the armed accelerator
// iff that is a ProductBackend and the table routes the forward-NTT batch
// of shape (N, the distinct moduli, B = the polynomials written per
// modulus) — the convention of ScaleDiff — and no key of the batch is
// disabled. It returns the backend, the first-use keys (N, q) and which
// of them are still unchecked.
func (d *Dispatcher) productRoute(n, polys int, sub func(i int) *ring.SubRing, verdicts *map[macKey]int8) (ProductBackend, []macKey, []bool, bool) {
	pb, ok := ProductsOf(d.accel) // switched off: no claim, no first-use reference
	if !ok || !d.routing.Load() || n == 0 {
		return nil, nil, nil, false
	}
	mods := map[uint64]struct{}{}
	keys := make([]macKey, n)
	for i := range n {
		s := sub(i)
		if s == nil {
			return nil, nil, nil, false
		}
		mods[s.Modulus] = struct{}{}
		keys[i] = macKey{s.N, s.Modulus}
	}
	shape := Shape{LogN: log2(keys[0].n), Moduli: len(mods), B: polys * n / len(mods), Dir: Forward}
	if t := d.thresholdFor(shape); t == 0 || shape.B < t {
		return nil, nil, nil, false
	}
	first, ok := firstUse(d, verdicts, keys)
	return pb, keys, first, ok
}

// Tensor implements engine.ProductRouter: BGV's tensor product goes to the
// armed accelerator iff it is a ProductBackend and the table routes a
// forward NTT batch over the same moduli with B = 3 (the three output
// polynomials; productRoute); else false and the engine runs Lattigo's loop. The first
// call holding a new (N, q) also computes that limb with Lattigo's
// arithmetic (engine.TensorJob.Finish, on copies taken before the call:
// outputs may alias inputs) and compares; a mismatch disables the tensor
// kernel for that (N, q) and the correct limb is written.
func (d *Dispatcher) Tensor(jobs []engine.TensorJob) bool {
	pb, keys, first, ok := d.productRoute(len(jobs), 3, func(i int) *ring.SubRing { return jobs[i].S }, &d.tensorVerified)
	if !ok {
		return false
	}
	release, ok := d.claim()
	if !ok {
		return false
	}
	defer release()
	refs := make([][3][]uint64, len(jobs))
	for i, j := range jobs {
		if first[i] {
			refs[i] = tensorRef(j)
		}
	}
	ran := runChecked(d, d.tensorVerified, keys, first, "tensor product", func() (bool, error) { return pb.Tensor(jobs) },
		func(i int) bool {
			j := jobs[i]
			g0 := restoreLimb(refs[i][0], j.Out0)
			g1 := restoreLimb(refs[i][1], j.Out1)
			g2 := restoreLimb(refs[i][2], j.Out2)
			return g0 && g1 && g2
		})
	if ran {
		d.tensors.Add(uint64(len(jobs)))
	}
	return ran
}

// tensorRef is j's outputs by Lattigo's arithmetic, on copies of its inputs.
func tensorRef(j engine.TensorJob) [3][]uint64 {
	n := j.S.N
	r := j
	r.A0, r.A1, r.B0, r.B1 = slices.Clone(j.A0[:n]), slices.Clone(j.A1[:n]), slices.Clone(j.B0[:n]), slices.Clone(j.B1[:n])
	r.Out0, r.Out1, r.Out2 = make([]uint64, n), make([]uint64, n), make([]uint64, n)
	r.Finish(0)
	return [3][]uint64{r.Out0, r.Out1, r.Out2}
}

// MulAdd implements engine.ProductRouter: BGV's multiply-add by an integer
// goes to the armed accelerator iff it is a ProductBackend and the table
// routes a forward NTT batch over the same moduli with B = the polynomials
// per modulus; else false. First use of an (N, q) is checked against
// engine.MulAddJob.Finish as in Tensor.
func (d *Dispatcher) MulAdd(jobs []engine.MulAddJob) bool {
	return d.limbProduct(len(jobs), func(i int) *ring.SubRing { return jobs[i].S }, func(i int) []uint64 { return jobs[i].Out },
		func(i int) []uint64 {
			r := jobs[i]
			r.A, r.Out = slices.Clone(r.A[:r.S.N]), slices.Clone(r.Out[:r.S.N]) // Out may alias A
			r.Finish(0)
			return r.Out
		}, &d.mulAddVerified, "multiply-add", func(pb ProductBackend) (bool, error) { return pb.MulAdd(jobs) }, &d.mulAdds)
}

// limbProduct routes a product batch of n jobs writing one limb each
// (out(i), over sub(i)): MulAdd's and LinComb's rule. It takes the device
// (claim), computes ref(i) — the CPU's words, from copies — for every
// first use of an (N, q), runs call and checks those (runChecked); count
// adds the limbs run.
func (d *Dispatcher) limbProduct(n int, sub func(i int) *ring.SubRing, out, ref func(i int) []uint64,
	verdicts *map[macKey]int8, what string, call func(ProductBackend) (bool, error), count *atomic.Uint64) bool {
	pb, keys, first, ok := d.productRoute(n, 1, sub, verdicts)
	if !ok {
		return false
	}
	release, ok := d.claim()
	if !ok {
		return false
	}
	defer release()
	refs := make([][]uint64, n)
	for i := range n {
		if first[i] {
			refs[i] = ref(i)
		}
	}
	ran := runChecked(d, *verdicts, keys, first, what, func() (bool, error) { return call(pb) },
		func(i int) bool { return restoreLimb(refs[i], out(i)) })
	if ran {
		count.Add(uint64(n))
	}
	return ran
}

// LinCombBackend is a ProductBackend that also runs linear combinations
// (engine.LinCombJob), with ProductBackend's conventions.
type LinCombBackend interface {
	ProductBackend
	LinComb(jobs []engine.LinCombJob) (bool, error)
}

// LinComb implements engine.LinCombRouter: a baby step's multiply-adds go
// to the armed accelerator as whole linear combinations iff it is a
// LinCombBackend and MulAdd's routing rule holds (productRoute, one
// polynomial per limb); else false, and the engine hands the terms to
// MulAdd one by one. First use of an (N, q) is checked against
// engine.LinCombJob.Finish on a copy of the output (the terms do not alias
// it), as in Tensor.
func (d *Dispatcher) LinComb(jobs []engine.LinCombJob) bool {
	if _, ok := d.accel.(LinCombBackend); !ok {
		return false
	}
	for _, j := range jobs {
		if j.Check() != nil { // the engine's terms run Lattigo's loop, which reports nothing better
			return false
		}
	}
	return d.limbProduct(len(jobs), func(i int) *ring.SubRing { return jobs[i].S }, func(i int) []uint64 { return jobs[i].Out },
		func(i int) []uint64 {
			r := jobs[i]
			r.Out = slices.Clone(r.Out[:r.S.N]) // no term aliases Out (Check)
			r.Finish(0)
			return r.Out
		}, &d.linCombVerified, "linear combination",
		func(pb ProductBackend) (bool, error) { return pb.(LinCombBackend).LinComb(jobs) }, &d.linCombs)
}

var (
	_ engine.ProductRouter = (*Dispatcher)(nil)
	_ engine.LinCombRouter = (*Dispatcher)(nil)
)
