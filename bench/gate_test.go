package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/ring"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu"
)

// engineBatch hands the installed router one batch of two transforms over
// two moduli, as the engine does.
func engineBatch(t *testing.T) {
	t.Helper()
	r, err := ring.NewRing(1<<10, gpu.SelfTestPrimes()[:2])
	require.NoError(t, err)
	jobs := []engine.Job{
		{S: r.SubRings[0], Src: make([]uint64, r.N()), Dst: make([]uint64, r.N())},
		{S: r.SubRings[1], Src: make([]uint64, r.N()), Dst: make([]uint64, r.N())},
	}
	if rt := engine.CurrentRouter(); rt != nil {
		rt.Transform(false, false, jobs)
		return
	}
	engine.RunLattigo(false, false, jobs)
}

// TestGateOf: the counters are those of f's work alone (a batch handed to
// the router before is not counted), under the backend in force.
func TestGateOf(t *testing.T) {
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t)})
	require.NoError(t, d.Install())
	defer d.Uninstall()
	engineBatch(t) // before: not counted
	g, err := GateOf(func() error {
		engineBatch(t)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, gpu.CPUName, g.Backend)
	require.Equal(t, uint64(2), g.Transforms)
	require.Equal(t, uint64(1), g.Batches)
	require.Zero(t, g.RoutedFraction)
	require.Equal(t, 2, g.MedianBatch)
	require.Zero(t, g.BaselineGoMs, "the caller fills the pure-Go baseline")
}

// TestWithPureGo: inside WithPureGo the engine has no router (every
// transform is Lattigo's Go NTT and nothing is counted); the router in
// force is back afterwards.
func TestWithPureGo(t *testing.T) {
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t)})
	require.NoError(t, d.Install())
	defer d.Uninstall()
	require.NoError(t, WithPureGo(func() error {
		require.Nil(t, engine.CurrentRouter())
		engineBatch(t)
		return nil
	}))
	require.Same(t, d, engine.CurrentRouter())
	require.Zero(t, d.RouterStats().Transforms)
	require.Equal(t, "none", GateBackend(nil))
}

// TestMedianDuration: odd counts take the middle, even counts the mean of
// the middle two; empty is zero.
func TestMedianDuration(t *testing.T) {
	for _, tc := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{5}, 5},
		{[]time.Duration{9, 1, 5}, 5},
		{[]time.Duration{4, 1, 3, 2}, 2},
	} {
		require.Equal(t, tc.want, MedianDuration(tc.in))
	}
}

// TestWriteJSONAndTableOut: "-" writes indented JSON to stdout (and the
// table goes to stderr), a path writes the file.
func TestWriteJSONAndTableOut(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Same(t, &stderr, TableOut(&stdout, &stderr, "-"))
	require.Same(t, &stdout, TableOut(&stdout, &stderr, "x.json"))
	require.NoError(t, WriteJSON(&stdout, "-", []int{1, 2}))
	require.Equal(t, "[\n  1,\n  2\n]\n", stdout.String())
	path := filepath.Join(t.TempDir(), "r.json")
	require.NoError(t, WriteJSON(&stdout, path, map[string]int{"a": 1}))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "{\n  \"a\": 1\n}\n", string(b))
	require.Error(t, WriteJSON(&stdout, filepath.Join(path, "no", "dir"), 1))
}

// TestCPUTimeAdvances: burning CPU moves the process CPU clock forward.
func TestCPUTimeAdvances(t *testing.T) {
	c0, ok := ProcessCPU()
	if !ok {
		t.Skip("no getrusage on this platform")
	}
	for CPUTime() <= c0 { // getrusage ticks in steps; spin until the next one
	}
	require.Greater(t, CPUTime(), c0)
}

// TestReport: the table goes to stdout, or to stderr when the JSON does;
// no JSON path writes no JSON.
func TestReport(t *testing.T) {
	print := func(w io.Writer) { fmt.Fprintln(w, "table") }
	var stdout, stderr bytes.Buffer
	require.NoError(t, Report(&stdout, &stderr, "", nil, "x", []int{1}, print))
	require.Equal(t, "table\n", stdout.String())
	require.Zero(t, stderr.Len())
	stdout.Reset()
	require.NoError(t, Report(&stdout, &stderr, "-", zaptest.NewLogger(t), "x", []int{1}, print))
	require.Equal(t, "[\n  1\n]\n", stdout.String())
	require.Equal(t, "table\n", stderr.String())
}

// TestInstallStart: a nil Install installs nothing and stops cleanly.
func TestInstallStart(t *testing.T) {
	var in Install
	stop, err := in.Start(zaptest.NewLogger(t))
	require.NoError(t, err)
	stop()
	require.Nil(t, gpu.Installed())
}
