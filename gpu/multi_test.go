package gpu_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/gputest"
)

// singleOnly hides a backend's NTTMulti so gpu.NTTMulti takes the generic
// adapter.
type singleOnly struct{ gpu.Backend }

func TestCPUMultiConformance(t *testing.T) {
	t.Parallel()
	gputest.RunMulti(t, gpu.NewCPU())
	gputest.RunMultiErrors(t, gpu.NewCPU())
}

func TestAdapterMultiConformance(t *testing.T) {
	t.Parallel()
	gputest.RunMulti(t, singleOnly{gpu.NewCPU()})
	gputest.RunMultiErrors(t, singleOnly{gpu.NewCPU()})
}

// failingAfter runs the first n NTT calls on the CPU, then fails.
type failingAfter struct {
	gpu.Backend
	n int
}

func (f *failingAfter) NTT(dir gpu.Direction, p *gpu.Params, src, dst [][]uint64) error {
	if f.n == 0 {
		return errors.New("device lost")
	}
	f.n--
	return f.Backend.NTT(dir, p, src, dst)
}

// TestAdapterKeepsSrcOnFailure: a device that fails half-way through an
// in-place batch must leave every source intact, so that the dispatcher's
// CPU fallback recomputes from the true inputs.
//
// Attack: a flaky or hostile accelerator fails after it has written some
// limbs, trying to make the fallback transform garbage into a result.
func TestAdapterKeepsSrcOnFailure(t *testing.T) {
	t.Parallel()
	ps := gpu.SelfTestPrimes()
	var b gpu.Batch
	var want [][]uint64
	for _, q := range ps[:3] {
		p, err := gpu.NewParams(1<<10, q)
		require.NoError(t, err)
		poly := make([]uint64, p.N)
		for j := range poly {
			poly[j] = uint64(j) % q
		}
		want = append(want, append([]uint64(nil), poly...))
		b.Limbs = append(b.Limbs, gpu.Limb{P: p, Src: [][]uint64{poly}, Dst: [][]uint64{poly}})
	}
	require.Error(t, gpu.NTTMulti(&failingAfter{Backend: gpu.NewCPU(), n: 2}, &b))
	for i, l := range b.Limbs {
		require.Equal(t, want[i], l.Src[0], "limb %d", i)
	}
}

func TestBatchShape(t *testing.T) {
	t.Parallel()
	ps := gpu.SelfTestPrimes()
	p, err := gpu.NewParams(1<<12, ps[1])
	require.NoError(t, err)
	two, one := make([][]uint64, 2), make([][]uint64, 1)
	b := gpu.Batch{Dir: gpu.Inverse, Limbs: []gpu.Limb{{P: p, Src: two, Dst: two}, {P: p, Src: one, Dst: one}}}
	require.Equal(t, gpu.Shape{LogN: 12, Moduli: 2, B: 2, Dir: gpu.Inverse}, b.Shape())
	require.Equal(t, 3, b.Polys())
}
