package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/native"
)

func runGPUCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root, _ := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs(append([]string{"--log-level", "error"}, args...))
	err := root.Execute()
	return out.String(), err
}

func TestCalibrateCPUOnlyAndVerify(t *testing.T) {
	dir := t.TempDir()
	out, err := runGPUCLI(t, "calibrate", "--backend", "cpu", "--quick", "--budget", "3s", "--k", "1", "--out", dir, "--plot", "svg")
	require.NoError(t, err, out)
	require.Contains(t, out, "nothing to calibrate against")
	data, err := os.ReadFile(filepath.Join(dir, "crossover.json"))
	require.NoError(t, err)
	tab, err := gpu.ParseTable(data)
	require.NoError(t, err)
	require.False(t, tab.HasCrossover())
	require.Equal(t, gpu.CPUName, tab.Fingerprint.Backend)
	require.NotEmpty(t, tab.Entries)
	st, err := os.Stat(filepath.Join(dir, "crossover.svg"))
	require.NoError(t, err)
	require.Positive(t, st.Size())

	report := filepath.Join(dir, "verify.json")
	out, err = runGPUCLI(t, "calibrate", "--verify", "--k", "1", "--out", dir, "--report", report)
	// Routing is CPU at every cell, so routed and cpu run the same code; the
	// verdict itself is a timing comparison and not asserted here.
	var rep struct {
		OK    bool `json:"ok"`
		Cells []struct {
			Route string `json:"route"`
		} `json:"cells"`
	}
	b, rerr := os.ReadFile(report)
	require.NoError(t, rerr, out)
	require.NoError(t, json.Unmarshal(b, &rep))
	require.NotEmpty(t, rep.Cells)
	for _, c := range rep.Cells {
		require.Equal(t, gpu.CPUName, c.Route)
	}
	require.Equal(t, rep.OK, err == nil)

	_, err = runGPUCLI(t, "calibrate", "--verify", "--table", filepath.Join(dir, "missing.json"))
	require.Error(t, err)
}

func TestGPUInfoJSON(t *testing.T) {
	out, err := runGPUCLI(t, "gpu", "info", "--json", "--backend", "cpu")
	require.NoError(t, err)
	var v struct {
		Backends []struct {
			Backend  string `json:"backend"`
			Built    bool   `json:"built"`
			SelfTest string `json:"self_test"`
		} `json:"backends"`
		Dispatcher gpu.Status `json:"dispatcher"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	require.Equal(t, "cpu", v.Backends[0].Backend)
	require.Contains(t, v.Backends[0].SelfTest, "pass")
	require.False(t, v.Dispatcher.Routing)
	require.NotEmpty(t, v.Dispatcher.Reason)
}

// TestGPUInfoKernels: `gpu info` says what the accelerator runs besides the
// NTT, in text and JSON; the CPU-only dispatcher has none.
func TestGPUInfoKernels(t *testing.T) {
	out, err := runGPUCLI(t, "gpu", "info", "--json", "--backend", "cpu")
	require.NoError(t, err)
	var v struct {
		Kernels []string `json:"accelerator_kernels"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	require.Empty(t, v.Kernels)
	if _, err := native.New(); err != nil {
		t.Skipf("native backend not built: %v", err)
	}
	out, err = runGPUCLI(t, "gpu", "info", "--backend", "native")
	require.NoError(t, err)
	require.Contains(t, out, "accelerator kernels: NTT; key switch")
	require.Contains(t, out, "BGV products (tensor, multiply-add, baby-step linear combinations)")
}
