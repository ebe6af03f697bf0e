package gpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/gputest"
)

func TestCPUConformance(t *testing.T) {
	t.Parallel()
	gputest.Run(t, gpu.NewCPU())
}

func TestCPUErrors(t *testing.T) {
	t.Parallel()
	gputest.RunErrors(t, gpu.NewCPU())
}

func TestCPUSelfTest(t *testing.T) {
	t.Parallel()
	require.NoError(t, gpu.SelfTest(gpu.NewCPU(), 1))
}

func TestParamsOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		n       int
		conj    bool
		wantErr error
	}{
		{"standard 2^10", 1 << 10, false, nil},
		{"standard 2^16", 1 << 16, false, nil},
		{"below MinN", 8, false, gpu.ErrUnsupported},
		{"conjugate invariant", 1 << 10, true, gpu.ErrUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRing(t, tc.n, tc.conj)
			p, err := gpu.ParamsOf(r.SubRings[0])
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.n, p.N)
		})
	}
}
