package backends_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/backends"
)

func TestProbeAll(t *testing.T) {
	ps := backends.ProbeAll()
	require.Len(t, ps, len(backends.Names))
	require.Equal(t, gpu.CPUName, ps[0].Name)
	require.NoError(t, ps[0].Err)
	for _, p := range ps {
		if p.Backend != nil {
			require.NoError(t, p.Backend.Close())
		}
		if !p.Built {
			require.ErrorIs(t, p.Err, gpu.ErrNotBuilt)
		}
	}
	_, err := backends.Open("cuda")
	require.Error(t, err)
}

func TestNewDispatcherCPUOnly(t *testing.T) {
	d, acc := backends.NewDispatcher(backends.Config{Log: zaptest.NewLogger(t), Backend: gpu.CPUName,
		Embedded: []byte(`{"version":1,"fingerprint":{},"entries":[]}`)})
	require.Nil(t, acc)
	st := d.Status()
	require.False(t, st.Armed)
	require.False(t, st.Routing)
}

func TestInstall(t *testing.T) {
	d, stop, err := backends.Install(backends.Config{Log: zaptest.NewLogger(t), Backend: gpu.CPUName,
		Embedded: []byte(`{"version":1,"fingerprint":{},"entries":[]}`)})
	require.NoError(t, err)
	require.Same(t, d, gpu.Installed())
	_, _, err = backends.Install(backends.Config{Log: zaptest.NewLogger(t), Backend: gpu.CPUName})
	require.ErrorIs(t, err, gpu.ErrInstalled)
	stop()
	require.Nil(t, gpu.Installed())
}
