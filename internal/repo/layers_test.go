package repo

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// layerRank orders docs/design.md's layer column from the bottom up. A package
// may import packages of its own layer or of a lower one, never of a higher
// one. cli, test and measure sit on top and may import anything.
var layerRank = map[string]int{
	"base":      0,
	"generated": 0,
	"seam":      1, // fhe/engine: the routing seam every transform goes through
	"fhe":       2, // the Lattigo wrapper and what sits directly on it
	"gpu":       3, // the GPU gate: implements the seam, knows nothing of policies
	"fhe-app":   4,
	"chain":     5,
	"committee": 6,
	"client":    7,
	"cli":       8,
	"test":      8,
	"measure":   8, // bench/: drives whole committees and chains, imported by the CLI and e2e only
}

// knownUpward lists upward imports the tree tolerates, each with the reason
// it has not been moved yet. The test fails on any other upward import and
// on an entry here that no longer exists. It is empty: keep it so.
var knownUpward = map[string]string{}

// designLayers reads docs/design.md's package table: directory → layer.
func designLayers(t *testing.T) map[string]string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	require.NoError(t, err)
	out := map[string]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		m := mapRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		cells := strings.Split(line, "|")
		require.GreaterOrEqual(t, len(cells), 4, "malformed row %q", line)
		layer := strings.TrimSpace(cells[2])
		_, ok := layerRank[layer]
		require.True(t, ok, "docs/design.md: %s has layer %q, which is not one of the ranked layers", m[1], layer)
		out[m[1]] = layer
	}
	require.NotEmpty(t, out)
	return out
}

// TestLayersNeverImportUp: for every package of the module, `go list` gives
// its (non-test) imports; an import of a package in a higher layer of
// docs/design.md's table fails the test unless knownUpward names it.
func TestLayersNeverImportUp(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs go list over the whole module")
	}
	layers := designLayers(t)
	const module = "github.com/fhegate/fhegate/"
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", errText(err))
	seen := map[string]bool{}
	var upward []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		from := strings.TrimPrefix(fields[0], module)
		fromLayer, ok := layers[from]
		require.True(t, ok, "package %s has no row in docs/design.md", from)
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			to := strings.TrimPrefix(imp, module)
			toLayer, ok := layers[to]
			require.True(t, ok, "package %s (imported by %s) has no row in docs/design.md", to, from)
			if layerRank[toLayer] <= layerRank[fromLayer] {
				continue
			}
			edge := from + " -> " + to
			seen[edge] = true
			if _, known := knownUpward[edge]; !known {
				upward = append(upward, edge+" ("+fromLayer+" imports "+toLayer+")")
			}
		}
	}
	sort.Strings(upward)
	require.Empty(t, upward, "imports that go up docs/design.md's layers")
	for edge := range knownUpward {
		require.True(t, seen[edge], "knownUpward lists %s, which no longer exists: delete the entry", edge)
	}
}

func errText(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	if err != nil {
		return err.Error()
	}
	return ""
}
