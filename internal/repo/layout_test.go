package repo

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// root is the repository root (this package is internal/repo).
const root = "../.."

// packageDirs lists the directories (relative to root, slash-separated) that
// hold Go files, skipping testdata, node_modules and hidden directories; a
// nested module (a directory with its own go.mod) is listed but not entered.
func packageDirs(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			if rel != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					seen[rel] = true
					return filepath.SkipDir
				}
			}
			return nil
		}
		if strings.HasSuffix(rel, ".go") {
			seen[filepath.ToSlash(filepath.Dir(rel))] = true
		}
		return nil
	})
	require.NoError(t, err)
	var out []string
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// mapRow matches a row of the package table: | `path` | layer | what |.
var mapRow = regexp.MustCompile("(?m)^\\| `([a-z0-9_./-]+)` \\| [a-z-]+ \\| .+\\|$")

// TestDesignMapMatchesTree: every Go package directory of the tree has a row
// in docs/design.md's package map, and every row names a directory that
// exists — so the map a newcomer reads first is the tree as it is.
func TestDesignMapMatchesTree(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	require.NoError(t, err)
	mapped := map[string]bool{}
	for _, m := range mapRow.FindAllStringSubmatch(string(doc), -1) {
		require.False(t, mapped[m[1]], "docs/design.md lists %s twice", m[1])
		mapped[m[1]] = true
	}
	require.NotEmpty(t, mapped, "no package table in docs/design.md")
	for _, d := range packageDirs(t) {
		require.True(t, mapped[d], "package %s is missing from docs/design.md's package map", d)
		delete(mapped, d)
	}
	for d := range mapped {
		t.Errorf("docs/design.md maps %s, which is not a Go package directory of the tree", d)
	}
}
