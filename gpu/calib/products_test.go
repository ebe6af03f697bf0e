package calib_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/calib"
	"github.com/fhegate/fhegate/gpu/gputest"
)

// productEmulator is the emulator with BGV's products answered by
// Lattigo's arithmetic (the jobs' Finish): a gpu.ProductBackend.
type productEmulator struct {
	gputest.Emulator
	tensors, muladds int
}

func (p *productEmulator) Tensor(jobs []engine.TensorJob) (bool, error) {
	for _, j := range jobs {
		j.Finish(0)
	}
	p.tensors++
	return true, nil
}

func (p *productEmulator) MulAdd(jobs []engine.MulAddJob) (bool, error) {
	for _, j := range jobs {
		j.Finish(0)
	}
	p.muladds++
	return true, nil
}

// TestVerifyProducts: with a ProductBackend accelerator, Verify adds a
// tensor and a multiply-add cell per forward entry, routed to the
// accelerator exactly where the table routes the forward-NTT batch of the
// same moduli; an accelerator without product kernels adds none.
func TestVerifyProducts(t *testing.T) {
	acc := &productEmulator{}
	o := calib.Options{Log: zaptest.NewLogger(t), Accel: acc, K: 1, Budget: 20 * time.Second, MinRound: time.Microsecond,
		Rows:    []calib.Row{{LogN: 10, Moduli: 3, Dir: gpu.Inverse}, {LogN: 10, Moduli: 3, Dir: gpu.Forward}},
		Batches: []int{1, 2}}
	tab, err := calib.Measure(context.Background(), o)
	require.NoError(t, err)
	cells, _, err := calib.Verify(context.Background(), o, tab)
	require.NoError(t, err)
	var products []calib.VerifyCell
	for _, c := range cells {
		if c.Dir == calib.DirTensor || c.Dir == calib.DirMulAdd {
			products = append(products, c)
		}
	}
	require.Len(t, products, 2, "one forward entry: a tensor and a multiply-add cell")
	for _, c := range products {
		require.Equal(t, 3, c.Moduli)
		require.Positive(t, c.CPUNs)
		require.Positive(t, c.RoutedNs)
		require.Positive(t, c.AccelNs)
		thr, ok := tab.Route(gpu.Shape{LogN: c.LogN, Moduli: c.Moduli, B: c.B, Dir: gpu.Forward})
		if ok && c.B >= thr {
			require.Equal(t, acc.Name(), c.Route, "%s", c.Dir)
		} else {
			require.Equal(t, gpu.CPUName, c.Route, "%s", c.Dir)
		}
	}
	require.Positive(t, acc.tensors)
	require.Positive(t, acc.muladds)

	// Without product kernels, with them switched off (OpenCL's default)
	// or declining every call, there is no device time to compare: no
	// product cell, and Verify does not fail for it.
	for name, a := range map[string]gpu.Backend{
		"plain":     gputest.Emulator{},
		"off":       &switchedEmulator{},
		"declining": &decliningEmulator{},
	} {
		o.Accel = a
		cells, ok, err := calib.Verify(context.Background(), o, tab)
		require.NoError(t, err, name)
		for _, c := range cells {
			require.NotContains(t, []string{calib.DirTensor, calib.DirMulAdd}, c.Dir, name)
		}
		_ = ok // the NTT cells' timing is not this test's concern
	}
}

// switchedEmulator is productEmulator with its products switched off.
type switchedEmulator struct{ productEmulator }

func (*switchedEmulator) ProductsOn() bool { return false }

// decliningEmulator has product kernels that decline every call.
type decliningEmulator struct{ gputest.Emulator }

func (*decliningEmulator) Tensor([]engine.TensorJob) (bool, error) { return false, nil }
func (*decliningEmulator) MulAdd([]engine.MulAddJob) (bool, error) { return false, nil }
