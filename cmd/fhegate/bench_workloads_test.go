package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bench/workloads"
)

// TestBenchWorkloadsCommand runs two workloads once at the real presets and
// checks the JSON shape. Key generation at N=2^13 takes seconds: skipped
// under -short.
func TestBenchWorkloadsCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("real presets: slow")
	}
	path := filepath.Join(t.TempDir(), "w.json")
	root, _ := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"bench", "workloads", "--only", "square,bgv_dot_128", "--runs", "1", "--json", path})
	require.NoError(t, root.Execute())
	require.Contains(t, out.String(), "square")
	require.Contains(t, out.String(), "H33 Graviton4")

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var raw []map[string]any
	require.NoError(t, json.Unmarshal(b, &raw))
	require.Len(t, raw, 2)
	for _, r := range raw {
		for _, k := range []string{"name", "params", "baseline_ms", "fhegate_ms", "max_err", "threads",
			"same_level_ms", "backend", "baseline_go_ms", "routed_fraction", "median_batch", "p95_batch"} {
			require.Contains(t, r, k)
		}
	}
	var rs []workloads.Result
	require.NoError(t, json.Unmarshal(b, &rs))
	require.Equal(t, "square", rs[0].Name)
	require.Equal(t, "bgv_dot_128", rs[1].Name)
	require.Equal(t, 1, rs[0].Threads)
	require.LessOrEqual(t, rs[0].MaxErr, 1e-5)
	require.Zero(t, rs[1].MaxErr)
	require.Positive(t, rs[1].Batch)
	for _, r := range raw {
		require.Positive(t, r["same_level_ms"])
		require.Positive(t, r["baseline_go_ms"])
		require.Equal(t, "cpu", r["backend"], "the embedded table routes nothing")
	}
}

func TestBenchWorkloadsRejects(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "workloads", "--runs", "0"},
		{"bench", "workloads", "--bgv-preset", "ckks-n13-s40"},
		{"bench", "workloads", "--bgv-preset", "nope"},
	} {
		root, _ := newRootCmd()
		root.SetOut(&bytes.Buffer{})
		root.SetArgs(args)
		require.Error(t, root.Execute(), "%v", args)
	}
}
