package gpu_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/gpu"
)

func intp(v int) *int { return &v }

func TestParseTable(t *testing.T) {
	t.Parallel()
	valid := `{"version":1,"fingerprint":{"backend":"opencl","device":"d","driver":"v","host_cpu":"c"},
	  "entries":[{"log_n":10,"crossover":8,"ladder":[{"b":1,"cpu_ns":10,"accel_ns":20,"speedup":0.5},{"b":8,"cpu_ns":80,"accel_ns":40,"speedup":2}]},
	             {"log_n":12,"crossover":null,"ladder":[]}]}`
	for _, tc := range []struct {
		name string
		json string
		ok   bool
	}{
		{"valid", valid, true},
		{"embedded default", string(configs.CrossoverJSON()), true},
		{"wrong version", `{"version":2,"fingerprint":{},"entries":[]}`, false},
		{"unknown field", `{"version":1,"fingerprint":{},"entries":[],"threshold":3}`, false},
		{"not json", `{"version":1,`, false},
		{"trailing data", `{"version":1,"fingerprint":{},"entries":[]} {}`, false},
		{"entries without backend", `{"version":1,"fingerprint":{},"entries":[{"log_n":10,"crossover":null,"ladder":[]}]}`, false},
		{"log_n out of range", `{"version":1,"fingerprint":{"backend":"x"},"entries":[{"log_n":30,"crossover":null,"ladder":[]}]}`, false},
		{"log_n not increasing", `{"version":1,"fingerprint":{"backend":"x"},"entries":[{"log_n":12,"crossover":null,"ladder":[]},{"log_n":11,"crossover":null,"ladder":[]}]}`, false},
		{"zero crossover", `{"version":1,"fingerprint":{"backend":"x"},"entries":[{"log_n":12,"crossover":0,"ladder":[]}]}`, false},
		{"ladder not increasing", `{"version":1,"fingerprint":{"backend":"x"},"entries":[{"log_n":12,"crossover":null,"ladder":[{"b":2,"cpu_ns":1},{"b":2,"cpu_ns":1}]}]}`, false},
		{"negative time", `{"version":1,"fingerprint":{"backend":"x"},"entries":[{"log_n":12,"crossover":null,"ladder":[{"b":2,"cpu_ns":-1}]}]}`, false},
		{"inconsistent speedup", `{"version":1,"fingerprint":{"backend":"x"},"entries":[{"log_n":12,"crossover":null,"ladder":[{"b":2,"cpu_ns":10,"accel_ns":5,"speedup":3}]}]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := gpu.ParseTable([]byte(tc.json))
			if !tc.ok {
				require.ErrorIs(t, err, gpu.ErrTableInvalid)
				return
			}
			require.NoError(t, err)
			out, err := tab.Marshal()
			require.NoError(t, err)
			again, err := gpu.ParseTable(out)
			require.NoError(t, err)
			require.Equal(t, tab, again)
		})
	}
	tab, err := gpu.ParseTable([]byte(valid))
	require.NoError(t, err)
	b, ok := tab.Crossover(1 << 10)
	require.True(t, ok)
	require.Equal(t, 8, b)
	_, ok = tab.Crossover(1 << 12)
	require.False(t, ok)
	_, ok = tab.Crossover(1 << 14)
	require.False(t, ok)
	require.True(t, tab.HasCrossover())
}

func TestDeriveCrossover(t *testing.T) {
	t.Parallel()
	c := func(b int, cpu, acc float64) gpu.Cell { return gpu.Cell{B: b, CPUNs: cpu, AccelNs: acc} }
	for _, tc := range []struct {
		name   string
		ladder []gpu.Cell
		want   *int
	}{
		{"never", []gpu.Cell{c(1, 1, 2), c(8, 8, 9)}, nil},
		{"from 8", []gpu.Cell{c(1, 1, 2), c(8, 8, 7), c(64, 64, 10)}, intp(8)},
		{"dip above breaks chain", []gpu.Cell{c(1, 1, 0.5), c(8, 8, 9), c(64, 64, 10)}, intp(64)},
		{"always", []gpu.Cell{c(1, 2, 1), c(2, 4, 1)}, intp(1)},
		{"unmeasured", []gpu.Cell{c(1, 2, 0)}, nil},
		{"empty", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, gpu.DeriveCrossover(tc.ladder)) })
	}
}

func TestLoadTableWarnsOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	badPath := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(badPath, []byte(`{"version":9}`), 0o600))
	for _, tc := range []struct {
		name    string
		path    string
		embed   []byte
		wantErr error
	}{
		{"embedded default", "", configs.CrossoverJSON(), nil},
		{"missing file", filepath.Join(dir, "nope.json"), nil, gpu.ErrTableMissing},
		{"empty embedded", "", nil, gpu.ErrTableMissing},
		{"invalid file", badPath, nil, gpu.ErrTableInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zap.DebugLevel)
			tab, _, err := gpu.LoadTable(tc.path, tc.embed, zap.New(core))
			if tc.wantErr == nil {
				require.NoError(t, err)
				require.NotNil(t, tab)
				require.Zero(t, logs.Len())
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
			require.Nil(t, tab)
			require.Equal(t, 1, logs.FilterLevelExact(zap.WarnLevel).Len())
		})
	}
}
