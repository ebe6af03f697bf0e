package gpu_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu"
)

// productFake is fake with BGV's product kernels computed by the jobs'
// Finish (Lattigo's arithmetic), optionally corrupted.
type productFake struct {
	fake
	corrupt          bool
	tensors, muladds int
}

func (f *productFake) Tensor(jobs []engine.TensorJob) (bool, error) {
	for _, j := range jobs {
		j.Finish(0)
		if f.corrupt {
			j.Out2[5] ^= 1
		}
	}
	f.tensors++
	return true, nil
}

func (f *productFake) MulAdd(jobs []engine.MulAddJob) (bool, error) {
	for _, j := range jobs {
		j.Finish(0)
		if f.corrupt {
			j.Out[1] ^= 1
		}
	}
	f.muladds++
	return true, nil
}

// productJobs returns one tensor job (in place: outputs over the first
// operand) and one multiply-add job per modulus of r, with the expected
// outputs computed by Lattigo's SubRing calls.
func productJobs(r *ring.Ring, seed uint64) ([]engine.TensorJob, [][3][]uint64, []engine.MulAddJob, [][]uint64) {
	var ts []engine.TensorJob
	var tw [][3][]uint64
	var ms []engine.MulAddJob
	var mw [][]uint64
	tm := engine.TMontgomery(r, 65537)
	for i, s := range r.SubRings {
		a0, a1 := randPoly(s, seed+uint64(10*i)), randPoly(s, seed+uint64(10*i+1))
		b0, b1 := randPoly(s, seed+uint64(10*i+2)), randPoly(s, seed+uint64(10*i+3))
		c00, c01 := make([]uint64, s.N), make([]uint64, s.N)
		w := [3][]uint64{make([]uint64, s.N), make([]uint64, s.N), make([]uint64, s.N)}
		s.MulScalarMontgomery(a0, tm[i], c00)
		s.MulScalarMontgomery(a1, tm[i], c01)
		s.MulCoeffsMontgomery(c00, b0, w[0])
		s.MulCoeffsMontgomery(c01, b1, w[2])
		s.MulCoeffsMontgomery(c00, b1, w[1])
		s.MulCoeffsMontgomeryThenAdd(c01, b0, w[1])
		ts = append(ts, engine.TensorJob{S: s, A0: a0, A1: a1, B0: b0, B1: b1, Out0: a0, Out1: a1, Out2: make([]uint64, s.N), TMont: tm[i]})
		tw = append(tw, w)

		x, acc := randPoly(s, seed+uint64(10*i+4)), randPoly(s, seed+uint64(10*i+5))
		wv := (seed*7919 + uint64(i)) % s.Modulus
		want := slices.Clone(acc)
		s.MulScalarMontgomeryThenAdd(x, ring.MForm(wv, s.Modulus, s.BRedConstant), want)
		ms = append(ms, engine.MulAddJob{S: s, A: x, Out: acc, W: wv})
		mw = append(mw, want)
	}
	return ts, tw, ms, mw
}

// TestProductRouting: the dispatcher hands BGV's tensor and multiply-add to
// an armed ProductBackend when it routes; a backend whose first answer
// differs from Lattigo's is caught on first use (the correct words are
// kept) and never asked again for those moduli; a plain backend or a
// CPU-only dispatcher takes neither.
func TestProductRouting(t *testing.T) {
	r := testRing(t, 3)

	for _, corrupt := range []bool{false, true} {
		acc := &productFake{corrupt: corrupt}
		d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: acc, ForceThreshold: 1})
		require.True(t, d.Status().Armed)
		for call := range 2 {
			ts, tw, ms, mw := productJobs(r, uint64(11+call))
			routed := d.Tensor(ts)
			require.Equal(t, !corrupt || call == 0, routed, "corrupt %v call %d", corrupt, call)
			if routed {
				for i, j := range ts {
					require.Equal(t, tw[i][0], j.Out0, "corrupt %v call %d modulus %d", corrupt, call, i)
					require.Equal(t, tw[i][1], j.Out1)
					require.Equal(t, tw[i][2], j.Out2)
				}
			}
			routed = d.MulAdd(ms)
			require.Equal(t, !corrupt || call == 0, routed, "corrupt %v call %d", corrupt, call)
			if routed {
				for i, j := range ms {
					require.Equal(t, mw[i], j.Out, "corrupt %v call %d modulus %d", corrupt, call, i)
				}
			}
		}
		wantCalls := 2
		if corrupt {
			wantCalls = 1
			require.Positive(t, stat(d, "fake").Fallbacks)
		} else {
			rs := d.RouterStats()
			require.EqualValues(t, 2*len(r.SubRings), rs.Tensor)
			require.EqualValues(t, 2*len(r.SubRings), rs.MulAdd)
		}
		require.Equal(t, wantCalls, acc.tensors, "corrupt %v", corrupt)
		require.Equal(t, wantCalls, acc.muladds, "corrupt %v", corrupt)
	}

	ts, _, ms, _ := productJobs(r, 1)
	plain := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: &fake{}, ForceThreshold: 1})
	require.False(t, plain.Tensor(ts))
	require.False(t, plain.MulAdd(ms))
	cpuOnly := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: &productFake{}})
	require.False(t, cpuOnly.Tensor(ts))
	require.False(t, cpuOnly.MulAdd(ms))
	// A ProductBackend whose products are switched off is never asked.
	off := &switchedProducts{}
	offD := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: off, ForceThreshold: 1})
	require.False(t, offD.Tensor(ts))
	require.False(t, offD.MulAdd(ms))
	require.Zero(t, off.tensors+off.muladds)
	off.on = true
	require.True(t, offD.Tensor(ts))
	require.True(t, offD.MulAdd(ms))
}

// switchedProducts is productFake with a gpu.ProductSwitch.
type switchedProducts struct {
	productFake
	on bool
}

func (s *switchedProducts) ProductsOn() bool { return s.on }

// linCombFake is productFake with linear combinations (Finish), optionally
// corrupted.
type linCombFake struct {
	productFake
	lincombs int
}

func (f *linCombFake) LinComb(jobs []engine.LinCombJob) (bool, error) {
	for _, j := range jobs {
		j.Finish(0)
		if f.corrupt {
			j.Out[2] ^= 1
		}
	}
	f.lincombs++
	return true, nil
}

// linCombJobs returns one three-term linear combination per modulus of r
// and the expected outputs by Lattigo's term-by-term SubRing calls.
func linCombJobs(r *ring.Ring, seed uint64) ([]engine.LinCombJob, [][]uint64) {
	var js []engine.LinCombJob
	var ws [][]uint64
	for i, s := range r.SubRings {
		j := engine.LinCombJob{S: s, Out: randPoly(s, seed+uint64(10*i))}
		want := slices.Clone(j.Out)
		for k := range 3 {
			a, w := randPoly(s, seed+uint64(10*i+1+k)), (seed*7919+uint64(31*i+k))%s.Modulus
			j.A, j.W = append(j.A, a), append(j.W, w)
			s.MulScalarMontgomeryThenAdd(a, ring.MForm(w, s.Modulus, s.BRedConstant), want)
		}
		js, ws = append(js, j), append(ws, want)
	}
	return js, ws
}

// TestLinCombRouting: the dispatcher hands linear combinations to an armed
// LinCombBackend when it routes; a first answer that differs from
// Lattigo's is caught (the correct words kept) and that modulus is not
// asked again; a ProductBackend without the kernel, a CPU-only dispatcher
// and a malformed job are declined (the engine then runs the terms).
func TestLinCombRouting(t *testing.T) {
	r := testRing(t, 3)
	for _, corrupt := range []bool{false, true} {
		acc := &linCombFake{productFake: productFake{corrupt: corrupt}}
		d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: acc, ForceThreshold: 1})
		require.True(t, d.Status().Armed)
		for call := range 2 {
			js, ws := linCombJobs(r, uint64(21+call))
			routed := d.LinComb(js)
			require.Equal(t, !corrupt || call == 0, routed, "corrupt %v call %d", corrupt, call)
			if routed {
				for i, j := range js {
					require.Equal(t, ws[i], j.Out, "corrupt %v call %d modulus %d", corrupt, call, i)
				}
			}
		}
		if corrupt {
			require.Equal(t, 1, acc.lincombs)
			require.Positive(t, stat(d, "fake").Fallbacks)
		} else {
			require.Equal(t, 2, acc.lincombs)
			require.EqualValues(t, 2*len(r.SubRings), d.RouterStats().LinComb)
		}
	}
	js, _ := linCombJobs(r, 1)
	noKernel := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: &productFake{}, ForceThreshold: 1})
	require.False(t, noKernel.LinComb(js))
	cpuOnly := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: &linCombFake{}})
	require.False(t, cpuOnly.LinComb(js))
	acc := &linCombFake{}
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: acc, ForceThreshold: 1})
	bad := slices.Clone(js)
	bad[1].W = bad[1].W[:2]
	require.False(t, d.LinComb(bad))
	require.Zero(t, acc.lincombs)
}
