//go:build opencl && cgo

package opencl_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu/opencl"
	"github.com/fhegate/fhegate/internal/testseed"
)

// BenchmarkKeySwitchOps times each key-switch loop at BGVN14's top level
// (10 moduli of Q, 2 of P, 5 digits) on the CPU — Lattigo's loops as the
// unrouted engine runs them — and through the OpenCL kernels (one call,
// transfers included; the gadget keys resident after the first call):
//
//	muladd: the multiply-accumulate of both key halves over Q∪P;
//	modup: one decomposition digit's extension (2 moduli → the other 10);
//	scalediff: ModDown's last step, 2 polynomials × 10 limbs.
//
// On a GPU host: ./gpu_opencl.test -test.run '^$' -test.bench KeySwitchOps.
func BenchmarkKeySwitchOps(b *testing.B) {
	p, err := fhe.NewParams(fhe.BGVN14)
	require.NoError(b, err)
	rQ, rP := p.RLWE().RingQ(), p.RLWE().RingP()
	subs := append(slices.Clone(rQ.SubRings), rP.SubRings...)
	n := rQ.N()
	rng := testseed.Rand(b, 2607)
	const digits = 5

	var macs []engine.MulAccJob
	for _, s := range subs {
		j := engine.MulAccJob{S: s, Out0: make([]uint64, n), Out1: make([]uint64, n)}
		for range digits {
			j.K0 = append(j.K0, below(rng, n, s.Modulus))
			j.K1 = append(j.K1, below(rng, n, s.Modulus))
			j.D = append(j.D, below(rng, n, 2*s.Modulus))
		}
		macs = append(macs, j)
	}
	qs, ps := rQ.ModuliChain(), rP.ModuliChain()
	ext := engine.ModUpJob{N: n, C: engine.NewModUpConstants(qs[:2], append(slices.Clone(qs[2:]), ps...))}
	for _, q := range ext.C.SrcQ {
		ext.Src = append(ext.Src, below(rng, n, 2*q))
	}
	for range ext.C.DstQ {
		ext.Dst = append(ext.Dst, make([]uint64, n))
	}
	decomp := ring.NewDecomposer(rQ, rP)
	cxInv := rQ.NewPoly()
	for i := range qs {
		copy(cxInv.Coeffs[i], below(rng, n, 2*qs[i]))
	}
	dQ, dP := rQ.NewPoly(), rP.NewPoly()
	var sds []engine.ScaleDiffJob
	for range 2 {
		for _, s := range rQ.SubRings {
			sds = append(sds, engine.ScaleDiffJob{S: s, X: below(rng, n, 2*s.Modulus), Y: below(rng, n, 2*s.Modulus),
				Out: make([]uint64, n), W: rng.Uint64N(s.Modulus)})
		}
	}

	ocl := open(b).(*opencl.Backend)
	cases := []struct {
		name     string
		cpu, dev func()
	}{
		{"muladd", func() {
			for _, j := range macs {
				for i := range j.D {
					if i == 0 {
						j.S.MulCoeffsMontgomeryLazy(j.K0[i], j.D[i], j.Out0)
						j.S.MulCoeffsMontgomeryLazy(j.K1[i], j.D[i], j.Out1)
					} else {
						j.S.MulCoeffsMontgomeryLazyThenAddLazy(j.K0[i], j.D[i], j.Out0)
						j.S.MulCoeffsMontgomeryLazyThenAddLazy(j.K1[i], j.D[i], j.Out1)
					}
				}
				j.S.Reduce(j.Out0, j.Out0)
				j.S.Reduce(j.Out1, j.Out1)
			}
		}, func() { must(b)(ocl.GadgetMulAcc(macs)) }},
		{"modup", func() { decomp.DecomposeAndSplit(len(qs)-1, len(ps)-1, 2, 0, cxInv, dQ, dP) },
			func() { must(b)(ocl.ModUp([]engine.ModUpJob{ext})) }},
		{"scalediff", func() {
			for _, j := range sds {
				j.S.SubThenMulScalarMontgomeryTwoModulus(j.X, j.Y, j.W, j.Out)
			}
		}, func() { must(b)(ocl.ScaleDiff(sds)) }},
	}
	for _, c := range cases {
		b.Run(c.name+"/cpu", func(b *testing.B) {
			for b.Loop() {
				c.cpu()
			}
		})
		c.dev() // first call: builds the program, uploads the keys
		b.Run(c.name+"/opencl", func(b *testing.B) {
			for b.Loop() {
				c.dev()
			}
		})
	}
}

// must(b)(ok, err) fails b unless a key-switch call ran.
func must(b *testing.B) func(bool, error) {
	return func(ok bool, err error) {
		require.NoError(b, err)
		require.True(b, ok)
	}
}
