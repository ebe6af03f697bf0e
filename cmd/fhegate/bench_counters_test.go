package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

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

// TestGateStage: a committee stage's rows carry the backend in force and
// the engine counters of that stage only; with nothing routed the stage's
// own time is its pure-Go baseline.
func TestGateStage(t *testing.T) {
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t)})
	require.NoError(t, d.Install())
	defer d.Uninstall()
	engineBatch(t) // before the stage: not counted
	rows, err := gateStage(func() ([]committeeRow, error) {
		engineBatch(t)
		return []committeeRow{{Stage: stageBatch, Ms: 12.5}}, nil
	})
	require.NoError(t, err)
	require.Len(t, rows, 1)
	g := rows[0].gateCounters
	require.Equal(t, gpu.CPUName, g.Backend)
	require.Equal(t, uint64(2), g.Transforms)
	require.Equal(t, uint64(1), g.Batches)
	require.Zero(t, g.RoutedFraction)
	require.Equal(t, 2, g.MedianBatch)
	require.Equal(t, 12.5, g.BaselineGoMs)
}

// TestWithPureGo: inside withPureGo the engine has no router (every
// transform is Lattigo's Go NTT and nothing is counted); the router in
// force is back afterwards.
func TestWithPureGo(t *testing.T) {
	d := gpu.NewDispatcher(gpu.Options{Log: zaptest.NewLogger(t)})
	require.NoError(t, d.Install())
	defer d.Uninstall()
	require.NoError(t, withPureGo(func() error {
		require.Nil(t, engine.CurrentRouter())
		engineBatch(t)
		return nil
	}))
	require.Same(t, d, engine.CurrentRouter())
	require.Zero(t, d.RouterStats().Transforms)
	require.Equal(t, "none", gateBackend(nil))
}

// TestBenchPolicyGateColumns: `bench policy --json` rows carry the backend
// in force, the pure-Go baseline of the same run, the routed fraction and
// the batch sizes; --shapes writes the engine's batch shapes.
func TestBenchPolicyGateColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("BGVN14 key generation and two evaluations: slow")
	}
	dir := t.TempDir()
	jsonPath, shapesPath := filepath.Join(dir, "p.json"), filepath.Join(dir, "shapes.json")
	root, _ := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"bench", "policy", "--quick", "--policy", "credit_limit", "--json", jsonPath, "--shapes", shapesPath})
	require.NoError(t, root.Execute())
	require.Contains(t, out.String(), "pure-Go ms")
	var rows []map[string]any
	b, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rows))
	require.Len(t, rows, 1)
	r := rows[0]
	require.Equal(t, "cpu", r["backend"])
	require.Positive(t, r["baseline_go_ms"])
	require.Contains(t, r, "routed_fraction")
	require.Positive(t, r["median_batch"])
	require.Positive(t, r["engine_transforms"])
	var shapes []gpu.ShapeCount
	b, err = os.ReadFile(shapesPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &shapes))
	require.NotEmpty(t, shapes)
	for _, s := range shapes {
		require.Equal(t, 14, s.LogN, "BGVN14")
		require.Positive(t, s.Moduli)
	}
}
