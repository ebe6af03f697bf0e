package repo

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fileMapRow matches a row of a package doc's file map, "//<tab>name.go
// what it holds", and packageMapRow a row of its package list,
// "//<tab>name/ what it is".
var (
	fileMapRow    = regexp.MustCompile(`(?m)^//\t([a-z0-9_]+\.go)\s`)
	packageMapRow = regexp.MustCompile(`(?m)^//\t([a-z0-9_]+)/\s`)
)

// TestConsensusDocMapsTheTree: consensus/doc.go names every non-test file
// of package consensus and every package under consensus/, and nothing
// else, so a newcomer's map of the committee stays the tree's.
func TestConsensusDocMapsTheTree(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(root, "consensus")
	doc, err := os.ReadFile(filepath.Join(dir, "doc.go"))
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files, pkgs []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir() && hasGoFiles(t, filepath.Join(dir, name)):
			pkgs = append(pkgs, name)
		case !e.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go"):
			files = append(files, name)
		}
	}
	require.Equal(t, files, mapped(fileMapRow, doc), "consensus/doc.go's file map")
	require.Equal(t, pkgs, mapped(packageMapRow, doc), "consensus/doc.go's package list")
}

func mapped(row *regexp.Regexp, doc []byte) []string {
	var out []string
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

func hasGoFiles(t *testing.T, dir string) bool {
	t.Helper()
	ms, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	return len(ms) > 0
}
