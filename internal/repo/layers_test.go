package repo

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// layerRow matches a row of docs/design.md's layer table: | layer | rank | what |.
var layerRow = regexp.MustCompile(`^\| ([a-z-]+) \| ([0-9]+) \| .+\|$`)

// layerRanks reads docs/design.md's layer table: layer → rank. A package may
// import packages of its own layer or of a lower-ranked one, never of a
// higher-ranked one.
func layerRanks(t *testing.T, doc string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, line := range strings.Split(doc, "\n") {
		m := layerRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rank, err := strconv.Atoi(m[2])
		require.NoError(t, err)
		require.NotContains(t, out, m[1], "docs/design.md ranks layer %s twice", m[1])
		out[m[1]] = rank
	}
	require.NotEmpty(t, out, "no layer table in docs/design.md")
	return out
}

// knownUpward lists upward imports the tree tolerates, each with the reason
// it has not been moved yet. The test fails on any other upward import and
// on an entry here that no longer exists. It is empty: keep it so.
var knownUpward = map[string]string{}

// designLayers reads docs/design.md's tables: directory → layer, and
// layer → rank.
func designLayers(t *testing.T) (map[string]string, map[string]int) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	require.NoError(t, err)
	doc := string(raw)
	layerRank := layerRanks(t, doc)
	out := map[string]string{}
	for _, line := range strings.Split(doc, "\n") {
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
	return out, layerRank
}

// layerTags are the build tags the layer check lists the module under: the
// default build, and the tags that add packages' files (the OpenCL backend
// and its suites, the end-to-end run).
var layerTags = []string{"", "opencl", "e2e"}

// TestLayersNeverImportUp: for every package of the module, under every
// tag set of layerTags, `go list` gives its imports and its tests' (in-package
// and external); an import of a package in a higher layer of
// docs/design.md's tables fails the test unless knownUpward names it.
func TestLayersNeverImportUp(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs go list over the whole module")
	}
	layers, layerRank := designLayers(t)
	const module = "github.com/fhegate/fhegate/"
	seen := map[string]bool{}
	upward := map[string]bool{}
	for _, tags := range layerTags {
		cmd := exec.Command("go", "list", "-tags", tags, "-f",
			"{{.ImportPath}} {{join .Imports \" \"}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "./...")
		cmd.Dir = root
		out, err := cmd.Output()
		require.NoError(t, err, "go list -tags %q: %s", tags, errText(err))
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
					upward[edge+" ("+fromLayer+" imports "+toLayer+")"] = true
				}
			}
		}
	}
	var list []string
	for e := range upward {
		list = append(list, e)
	}
	sort.Strings(list)
	require.Empty(t, list, "imports that go up docs/design.md's layers (code or tests)")
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
