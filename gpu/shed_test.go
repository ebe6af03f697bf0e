package gpu_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/gpu"
)

// exclusiveFake is a fake with one device queue (gpu.Exclusive) whose
// calls block, once armed, until the test lets them go.
type exclusiveFake struct {
	fake
	hold    chan struct{} // non-nil: each call announces itself on entered and waits here
	entered chan struct{}
}

func (f *exclusiveFake) Exclusive() bool { return true }

func (f *exclusiveFake) NTT(dir gpu.Direction, p *gpu.Params, src, dst [][]uint64) error {
	if f.hold != nil {
		f.entered <- struct{}{}
		<-f.hold
	}
	return f.fake.NTT(dir, p, src, dst)
}

// TestExclusiveDeviceShedsToCPU: while one batch holds an exclusive
// accelerator, another routed batch runs on the CPU at once (counted as
// shed) instead of waiting, with Lattigo's bytes; with Options.Queue it
// waits for the device. A backend that is not exclusive is never shed
// (TestSingleTransformForcedToAccelerator and the rest).
func TestExclusiveDeviceShedsToCPU(t *testing.T) {
	for _, queue := range []bool{false, true} {
		f := &exclusiveFake{}
		d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t), Accelerator: f, ForceThreshold: 1, Queue: queue})
		require.True(t, d.Status().Armed)
		p, err := gpu.NewParams(1<<10, gpu.SelfTestPrimes()[0])
		require.NoError(t, err)
		batch := func(seed uint64) (src, dst [][]uint64, want []uint64) {
			src, dst = [][]uint64{make([]uint64, p.N)}, [][]uint64{make([]uint64, p.N)}
			for j := range src[0] {
				src[0][j] = (seed*uint64(j) + 3) % p.Q
			}
			dst[0][0] = 0xdeadbeef // poisoned
			want = make([]uint64, p.N)
			gpu.LatticeNTT(gpu.Forward, p, src[0], want)
			return src, dst, want
		}
		f.hold, f.entered = make(chan struct{}), make(chan struct{}, 2)
		first := make(chan string)
		src1, dst1, want1 := batch(5)
		go func() {
			used, err := d.RouteBatch(gpu.Forward, p, src1, dst1)
			require.NoError(t, err)
			first <- used
		}()
		<-f.entered // the first batch holds the device
		src2, dst2, want2 := batch(9)
		second := make(chan string)
		go func() {
			used, err := d.RouteBatch(gpu.Forward, p, src2, dst2)
			require.NoError(t, err)
			second <- used
		}()
		if !queue {
			require.Equal(t, gpu.CPUName, <-second, "a batch that finds the device busy runs on the CPU")
			require.Equal(t, want2, dst2[0])
			require.Equal(t, uint64(1), stat(d, "fake").Shed)
			close(f.hold)
			require.Equal(t, "fake", <-first)
		} else {
			select {
			case <-second:
				t.Fatal("with Queue the second batch must wait for the device")
			case <-time.After(50 * time.Millisecond):
			}
			close(f.hold)
			require.Equal(t, "fake", <-first)
			<-f.entered
			require.Equal(t, "fake", <-second)
			require.Equal(t, want2, dst2[0])
			require.Zero(t, stat(d, "fake").Shed)
		}
		require.Equal(t, want1, dst1[0])
	}
}
