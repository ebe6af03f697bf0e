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
		{"wrong version", `{"version":3,"fingerprint":{},"entries":[]}`, false},
		{"v2 shapes", `{"version":2,"fingerprint":{"backend":"x"},"entries":[{"log_n":13,"moduli":2,"dir":"forward","crossover":4,"ladder":[]},{"log_n":13,"moduli":2,"dir":"inverse","crossover":null,"ladder":[]},{"log_n":13,"moduli":5,"crossover":null,"ladder":[]}]}`, true},
		{"v1 with moduli", `{"version":1,"fingerprint":{"backend":"x"},"entries":[{"log_n":13,"moduli":2,"crossover":null,"ladder":[]}]}`, false},
		{"bad dir", `{"version":2,"fingerprint":{"backend":"x"},"entries":[{"log_n":13,"moduli":2,"dir":"up","crossover":null,"ladder":[]}]}`, false},
		{"shapes not increasing", `{"version":2,"fingerprint":{"backend":"x"},"entries":[{"log_n":13,"moduli":3,"crossover":null,"ladder":[]},{"log_n":13,"moduli":2,"crossover":null,"ladder":[]}]}`, false},
		{"duplicate shape", `{"version":2,"fingerprint":{"backend":"x"},"entries":[{"log_n":13,"moduli":2,"dir":"forward","crossover":null,"ladder":[]},{"log_n":13,"moduli":2,"dir":"forward","crossover":null,"ladder":[]}]}`, false},
		{"moduli out of range", `{"version":2,"fingerprint":{"backend":"x"},"entries":[{"log_n":13,"moduli":100000,"crossover":null,"ladder":[]}]}`, false},
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
		{"within the margin is no win", []gpu.Cell{c(1, 1, 2), c(8, 8, 7), c(64, 64, 62)}, nil},
		{"empty", nil, nil},
		{"fastest calls win, most rounds lose", []gpu.Cell{c(1, 1, 2), {B: 8, CPUNs: 8, AccelNs: 7, Paired: 0.9}}, nil},
		{"both estimators win", []gpu.Cell{c(1, 1, 2), {B: 8, CPUNs: 8, AccelNs: 7, Paired: 1.1}}, intp(8)},
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

// TestTableRoute: the entry that governs a shape is the one of its N and
// direction with the nearest moduli count; version 1 entries match any.
func TestTableRoute(t *testing.T) {
	t.Parallel()
	tab := &gpu.Table{Version: 2, Fingerprint: gpu.Fingerprint{Backend: "x"}, Entries: []gpu.Entry{
		{LogN: 12, Crossover: intp(64)},
		{LogN: 13, Moduli: 2, Dir: "forward", Crossover: intp(4)},
		{LogN: 13, Moduli: 2, Dir: "inverse", Crossover: nil},
		{LogN: 13, Moduli: 8, Crossover: intp(2)},
	}}
	require.NoError(t, tab.Validate())
	for _, tc := range []struct {
		s    gpu.Shape
		b    int
		ok   bool
		name string
	}{
		{gpu.Shape{LogN: 13, Moduli: 2, B: 1, Dir: gpu.Forward}, 4, true, "exact forward"},
		{gpu.Shape{LogN: 13, Moduli: 2, B: 1, Dir: gpu.Inverse}, 0, false, "exact inverse: never"},
		{gpu.Shape{LogN: 13, Moduli: 3, B: 1, Dir: gpu.Forward}, 4, true, "nearest moduli (2)"},
		{gpu.Shape{LogN: 13, Moduli: 6, B: 1, Dir: gpu.Inverse}, 2, true, "nearest moduli (8, any dir)"},
		{gpu.Shape{LogN: 12, Moduli: 9, B: 1, Dir: gpu.Inverse}, 64, true, "v1-style entry matches any"},
		{gpu.Shape{LogN: 14, Moduli: 2, B: 1, Dir: gpu.Forward}, 0, false, "no entry for N"},
	} {
		b, ok := tab.Route(tc.s)
		require.Equal(t, tc.ok, ok, tc.name)
		require.Equal(t, tc.b, b, tc.name)
	}
}
