//go:build opencl && cgo

package gpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/opencl"
)

// corruptCL is the OpenCL backend with one output word of every key-switch
// call flipped after the kernels ran: what a miscompiling driver would
// hand the dispatcher.
type corruptCL struct{ *opencl.Backend }

func (c corruptCL) GadgetMulAcc(jobs []engine.MulAccJob) (bool, error) {
	ok, err := c.Backend.GadgetMulAcc(jobs)
	if ok {
		jobs[0].Out1[3] ^= 1
	}
	return ok, err
}

func (c corruptCL) ModUp(jobs []engine.ModUpJob) (bool, error) {
	ok, err := c.Backend.ModUp(jobs)
	if ok {
		jobs[0].Dst[0][0] ^= 1
	}
	return ok, err
}

func (c corruptCL) ScaleDiff(jobs []engine.ScaleDiffJob) (bool, error) {
	ok, err := c.Backend.ScaleDiff(jobs)
	if ok {
		jobs[0].Out[2] ^= 1
	}
	return ok, err
}

// TestOpenCLKeySwitchRouting: the dispatcher hands the key switch's
// multiply-accumulate, basis extension and scale-difference to the OpenCL
// backend when it routes, and its first-use verification covers it: with
// the real kernels every routed output equals the Go models and the
// kernels run on every call; with a corrupted result the first call keeps
// the CPU's answer (multiply-accumulate, scale-difference) or reports false
// (extension), and the kernels are never asked again for those moduli.
func TestOpenCLKeySwitchRouting(t *testing.T) {
	r := testRing(t, 4)
	b, err := opencl.New()
	require.NoError(t, err, "the opencl tag needs an OpenCL device (CI: PoCL)")
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	ocl := b.(*opencl.Backend)

	for _, corrupt := range []bool{false, true} {
		var acc gpu.Backend = ocl
		if corrupt {
			acc = corruptCL{ocl}
		}
		mac0, modUp0, sd0 := ocl.KeySwitchCounts()
		d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: acc, ForceThreshold: 1})
		require.True(t, d.Status().Armed)
		for call := range 3 {
			keySwitchCall(t, d, r, 17+uint64(call), 2, corrupt, call)
		}
		mac, modUp, sd := ocl.KeySwitchCounts()
		calls := uint64(3)
		if corrupt {
			calls = 1
			require.Positive(t, stat(d, opencl.Name).Fallbacks)
		} else {
			rs := d.RouterStats()
			require.EqualValues(t, 3*len(r.SubRings), rs.MulAcc)
			require.EqualValues(t, 3, rs.ModUp)
			require.EqualValues(t, 3, rs.ScaleDiff)
		}
		require.Equal(t, calls*uint64(len(r.SubRings)), mac-mac0, "corrupt %v: kernel runs", corrupt)
		require.Equal(t, calls, modUp-modUp0, "corrupt %v", corrupt)
		require.Equal(t, calls, sd-sd0, "corrupt %v", corrupt)
	}
}
