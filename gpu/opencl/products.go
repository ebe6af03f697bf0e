//go:build opencl && cgo

package opencl

import (
	"fmt"

	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu"
)

// BGV's coefficient-wise products on the device (gpu.LinCombBackend): a
// baby step's linear combination (and a multiply-add, its one-term case)
// and the tensor of a ciphertext product, each call one launch over every
// job, inputs staged and outputs read back through the key switch's pinned
// buffers (ksRun). The kernels (keyswitch.cl: fg_pr_lincomb, fg_pr_tensor)
// run Lattigo's own per-word sequence — MRed, CRed, in the jobs' Finish
// order — so the bytes are Lattigo's for every input word: there is no
// bound to check and no word is left to the CPU.
//
// They are off unless Backend.Products is set (New: FHEGATE_OPENCL_PRODUCTS=1):
// copying a memory-bound step's operands over PCIe may cost more than the
// step on the CPU, and no GPU has measured them yet.

// productRing reports whether the kernels take a job's ring: q odd and
// below MaxKeySwitchModulus, N > 0 and, when n > 0, the call's N (else the
// call is declined).
func productRing(s *ring.SubRing, n int) bool {
	return s != nil && oddBelow(s.Modulus) && s.N > 0 && (n == 0 || s.N == n)
}

// LinComb implements gpu.LinCombBackend: every job in one launch. It
// reports false, writing nothing, when products are off, a modulus is
// outside the kernel's range or the jobs differ in N; a malformed job
// (engine.LinCombJob.Check) is an error.
func (b *Backend) LinComb(jobs []engine.LinCombJob) (bool, error) {
	for _, j := range jobs {
		if err := j.Check(); err != nil {
			return false, fmt.Errorf("opencl: %w", err)
		}
	}
	return b.linComb("linear combination", jobs)
}

// MulAdd implements gpu.ProductBackend: each job is a one-term linear
// combination (its Out may alias its A, which LinCombJob.Check refuses:
// both are staged before the launch, so the kernel never sees the alias).
func (b *Backend) MulAdd(jobs []engine.MulAddJob) (bool, error) {
	lc := make([]engine.LinCombJob, len(jobs))
	for i, j := range jobs {
		if j.S == nil || len(j.A) < j.S.N || len(j.Out) < j.S.N || j.S.N == 0 || j.W >= j.S.Modulus {
			return false, fmt.Errorf("opencl: multiply-add: malformed job %d", i)
		}
		lc[i] = engine.LinCombJob{S: j.S, A: [][]uint64{j.A}, W: []uint64{j.W}, Out: j.Out}
	}
	return b.linComb("multiply-add", lc)
}

// linComb runs checked jobs in one launch of fg_pr_lincomb (LinComb's
// conventions; an Out aliasing a term is allowed: every operand is staged
// before the launch).
func (b *Backend) linComb(what string, jobs []engine.LinCombJob) (bool, error) {
	if !b.Products || len(jobs) == 0 {
		return false, nil
	}
	n, in, meta := 0, 0, 1+5*len(jobs)
	for _, j := range jobs {
		if !productRing(j.S, n) {
			return false, nil
		}
		n = j.S.N
		in += (1 + len(j.A)) * n
		meta += len(j.A)
	}
	return b.ksRun(ksCall{
		what: what, kernel: ksLinComb, in: in, out: len(jobs) * n, meta: meta,
		n: n, jobs: len(jobs), counter: &b.ks.linCombs,
		fill: func(buf, meta []uint64) int {
			off, wAt := 0, 1+5*len(jobs)
			for i, j := range jobs {
				s := j.S
				copy(meta[1+5*i:], []uint64{s.Modulus, s.MRedConstant, uint64(len(j.A)), uint64(off), uint64(wAt)})
				off += copy(buf[off:], j.Out[:n])
				for k, a := range j.A {
					off += copy(buf[off:], a[:n])
					meta[wAt+k] = ring.MForm(j.W[k], s.Modulus, s.BRedConstant)
				}
				wAt += len(j.A)
			}
			return off
		},
	}, func(out []uint64) {
		for i, j := range jobs {
			copy(j.Out[:n], out[i*n:])
		}
	})
}

// Tensor implements gpu.ProductBackend: every job in one launch (outputs
// may alias inputs: the inputs are staged before the launch).
func (b *Backend) Tensor(jobs []engine.TensorJob) (bool, error) {
	for i, j := range jobs {
		if j.S == nil || j.S.N == 0 {
			return false, fmt.Errorf("opencl: tensor: job %d has no ring", i)
		}
		for _, l := range [][]uint64{j.A0, j.A1, j.B0, j.B1, j.Out0, j.Out1, j.Out2} {
			if len(l) < j.S.N {
				return false, fmt.Errorf("opencl: tensor: job %d: a limb of %d words, N = %d", i, len(l), j.S.N)
			}
		}
	}
	if !b.Products || len(jobs) == 0 {
		return false, nil
	}
	n := 0
	for _, j := range jobs {
		if !productRing(j.S, n) || j.TMont >= j.S.Modulus {
			return false, nil
		}
		n = j.S.N
	}
	return b.ksRun(ksCall{
		what: "tensor", kernel: ksTensor, in: 4 * len(jobs) * n, out: 3 * len(jobs) * n, meta: 1 + 4*len(jobs),
		n: n, jobs: len(jobs), counter: &b.ks.tensors,
		fill: func(buf, meta []uint64) int {
			off := 0
			for i, j := range jobs {
				s := j.S
				copy(meta[1+4*i:], []uint64{s.Modulus, s.MRedConstant, j.TMont, uint64(off)})
				for _, l := range [][]uint64{j.A0, j.A1, j.B0, j.B1} {
					off += copy(buf[off:], l[:n])
				}
			}
			return off
		},
	}, func(out []uint64) {
		for i, j := range jobs {
			copy(j.Out0[:n], out[3*i*n:])
			copy(j.Out1[:n], out[3*i*n+n:])
			copy(j.Out2[:n], out[3*i*n+2*n:])
		}
	})
}

// ProductsOn implements gpu.ProductSwitch: Backend.Products.
func (b *Backend) ProductsOn() bool { return b.Products }

// ProductCounts returns how many limbs of linear combinations (multiply-adds
// included) and tensors the device ran since the backend was opened.
func (b *Backend) ProductCounts() (linComb, tensor uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ks.linCombs, b.ks.tensors
}

var (
	_ gpu.LinCombBackend = (*Backend)(nil)
	_ gpu.ProductSwitch  = (*Backend)(nil)
)
