package gpu

import (
	"slices"

	"go.uber.org/zap"

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

// productShape is the forward-NTT shape whose routing decides a product
// batch: N, the distinct moduli and B = the polynomials per modulus that
// the batch writes — the same convention as ScaleDiff.
func productShape(n int, moduli map[uint64]struct{}, perModulus int) Shape {
	return Shape{LogN: log2(n), Moduli: len(moduli), B: perModulus, Dir: Forward}
}

// productRouted reports whether d routes a product batch of shape s to a
// ProductBackend, and returns it.
func (d *Dispatcher) productRouted(s Shape) (ProductBackend, bool) {
	pb, ok := d.accel.(ProductBackend)
	if !ok || !d.routing.Load() {
		return nil, false
	}
	if t := d.thresholdFor(s); t == 0 || s.B < t {
		return nil, false
	}
	return pb, true
}

// Tensor implements engine.ProductRouter: BGV's tensor product goes to the
// armed accelerator iff it is a ProductBackend and the table routes a
// forward NTT batch over the same moduli with B = 3 (the three output
// polynomials); else false and the engine runs Lattigo's loop. The first
// call holding a new (N, q) also computes that limb with Lattigo's
// arithmetic (engine.TensorJob.Finish, on copies taken before the call:
// outputs may alias inputs) and compares; a mismatch disables the tensor
// kernel for that (N, q) and the correct limb is written.
func (d *Dispatcher) Tensor(jobs []engine.TensorJob) bool {
	if len(jobs) == 0 || slices.ContainsFunc(jobs, func(j engine.TensorJob) bool { return j.S == nil }) {
		return false
	}
	mods := map[uint64]struct{}{}
	keys := make([]macKey, len(jobs))
	for i, j := range jobs {
		mods[j.S.Modulus] = struct{}{}
		keys[i] = macKey{j.S.N, j.S.Modulus}
	}
	pb, ok := d.productRouted(productShape(jobs[0].S.N, mods, 3*len(jobs)/len(mods)))
	if !ok {
		return false
	}
	first, ok := firstUse(d, &d.tensorVerified, keys)
	if !ok {
		return false
	}
	refs := make([][3][]uint64, len(jobs))
	for i, j := range jobs {
		if first[i] {
			refs[i] = tensorRef(j)
		}
	}
	done, err := pb.Tensor(jobs)
	if err != nil {
		d.accelStats.fallbacks.Add(1)
		d.log.Warn("gpu: accelerator tensor product failed; CPU fallback", zap.String("backend", d.accelNm), zap.Error(err))
		return false
	}
	if !done {
		return false
	}
	for i, j := range jobs {
		if !first[i] {
			continue
		}
		n := j.S.N
		good := slices.Equal(refs[i][0], j.Out0[:n]) && slices.Equal(refs[i][1], j.Out1[:n]) && slices.Equal(refs[i][2], j.Out2[:n])
		copy(j.Out0, refs[i][0])
		copy(j.Out1, refs[i][1])
		copy(j.Out2, refs[i][2])
		settle(d, d.tensorVerified, keys[i], good)
		if !good {
			d.accelStats.fallbacks.Add(1)
			d.log.Error("gpu: accelerator tensor product differs from Lattigo; disabled for this modulus",
				zap.String("backend", d.accelNm), zap.Int("n", n), zap.Uint64("q", j.S.Modulus))
		}
	}
	d.tensors.Add(uint64(len(jobs)))
	return true
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
	if len(jobs) == 0 || slices.ContainsFunc(jobs, func(j engine.MulAddJob) bool { return j.S == nil }) {
		return false
	}
	mods := map[uint64]struct{}{}
	keys := make([]macKey, len(jobs))
	for i, j := range jobs {
		mods[j.S.Modulus] = struct{}{}
		keys[i] = macKey{j.S.N, j.S.Modulus}
	}
	pb, ok := d.productRouted(productShape(jobs[0].S.N, mods, len(jobs)/len(mods)))
	if !ok {
		return false
	}
	first, ok := firstUse(d, &d.mulAddVerified, keys)
	if !ok {
		return false
	}
	refs := make([][]uint64, len(jobs))
	for i, j := range jobs {
		if first[i] {
			r := j
			r.A, r.Out = slices.Clone(j.A[:j.S.N]), slices.Clone(j.Out[:j.S.N])
			r.Finish(0)
			refs[i] = r.Out
		}
	}
	done, err := pb.MulAdd(jobs)
	if err != nil {
		d.accelStats.fallbacks.Add(1)
		d.log.Warn("gpu: accelerator multiply-add failed; CPU fallback", zap.String("backend", d.accelNm), zap.Error(err))
		return false
	}
	if !done {
		return false
	}
	for i, j := range jobs {
		if refs[i] == nil {
			continue
		}
		good := slices.Equal(refs[i], j.Out[:j.S.N])
		copy(j.Out, refs[i])
		settle(d, d.mulAddVerified, keys[i], good)
		if !good {
			d.accelStats.fallbacks.Add(1)
			d.log.Error("gpu: accelerator multiply-add differs from Lattigo; disabled for this modulus",
				zap.String("backend", d.accelNm), zap.Int("n", j.S.N), zap.Uint64("q", j.S.Modulus))
		}
	}
	d.mulAdds.Add(uint64(len(jobs)))
	return true
}

var _ engine.ProductRouter = (*Dispatcher)(nil)
