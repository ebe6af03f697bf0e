package precompiles

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// parseDir parses the non-test Go files of dir.
func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	fset := token.NewFileSet()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []*ast.File
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, 0)
		require.NoError(t, err)
		out = append(out, f)
	}
	return out
}

// exported lists the package-level exported names of files.
func exported(files []*ast.File) map[string]bool {
	names := map[string]bool{}
	for _, f := range files {
		for n, o := range f.Scope.Objects {
			if ast.IsExported(n) && o != nil {
				names[n] = true
			}
		}
	}
	return names
}

// TestLuxEVMAdapterAPI: the Lux adapter (precompiles/host/luxevm, a nested
// module) only uses names that package precompiles and the adapter core
// (precompiles/host/adapter) export, and keeps no state of its own: it is a
// shim over the core, as the subnet-evm adapter is. CI compiles and tests it
// against the stand-ins of Lux's API (.ci/luxevm-standin.sh); this is the part
// `go test ./...` of the main module can check without them. Defects guarded:
// the adapter rotting silently against a core that moved on, and drifting
// from the subnet-evm adapter (its own copy of the call path, a package-level
// atomic for the chain id).
func TestLuxEVMAdapterAPI(t *testing.T) {
	lux := parseDir(t, "host/luxevm")
	require.NotEmpty(t, lux)
	pkgs := map[string]map[string]bool{
		"precompiles": exported(parseDir(t, ".")),
		"adapter":     exported(parseDir(t, "host/adapter")),
	}
	used := map[string]bool{}
	for _, f := range lux {
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			require.NotEqual(t, "sync/atomic", p, "luxevm keeps its state in the adapter core (adapter.Host), not in package atomics")
		}
		ast.Inspect(f, func(n ast.Node) bool {
			se, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := se.X.(*ast.Ident)
			if !ok {
				return true
			}
			if names, ok := pkgs[x.Name]; ok {
				used[x.Name+"."+se.Sel.Name] = true
				require.True(t, names[se.Sel.Name], "luxevm uses %s.%s, which package %s does not export", x.Name, se.Sel.Name, x.Name)
			}
			return true
		})
	}
	for _, name := range []string{"adapter.MustNewHost", "adapter.Run", "adapter.Configure", "adapter.Module", "adapter.Verdict"} {
		require.True(t, used[name], "luxevm must go through %s", name)
	}
	_, err := os.Stat("../.ci/luxevm-standin.sh")
	require.NoError(t, err, "the CI step that compiles luxevm against the stand-ins")
}
