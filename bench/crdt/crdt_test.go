package crdt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/internal/usage"
)

// TestPrint: shapes, rates against Lux fheCRDT and the chain length appear
// only where a row has them.
func TestPrint(t *testing.T) {
	var out bytes.Buffer
	Print(&out, []Result{
		{Type: "lww-register", Lanes: 16384, Blocks: 64, Width: 256, Level: 2, ChangedBlocks: 3, MergeMS: 1.5, MergesPerS: 640},
		{Type: "baseline-mask-select-chain", Lanes: 16384, MaxChain: 12},
	})
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	require.Len(t, lines, 3)
	require.Contains(t, lines[0], "vs Lux fheCRDT")
	require.Contains(t, lines[1], "64×256")
	require.Contains(t, lines[1], "≥640×")
	require.NotContains(t, lines[1], "12")
	require.Regexp(t, `\s12$`, lines[2])
	require.Contains(t, lines[2], " - ")
}

// TestCommandRejectsRuns: no runs is a usage error, before any key is
// generated.
func TestCommandRejectsRuns(t *testing.T) {
	var out bytes.Buffer
	err := Command{Runs: 0, Log: zaptest.NewLogger(t), Stdout: &out, Stderr: &out}.Run()
	require.True(t, usage.Is(err), "%v", err)
	_, err = Run(Options{Runs: 0}, zaptest.NewLogger(t))
	require.ErrorContains(t, err, "runs 0")
}
