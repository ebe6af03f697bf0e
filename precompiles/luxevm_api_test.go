package precompiles

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
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

// methodArity maps the methods declared on type recv (pointer or value) to
// their (params, results) counts.
func methodArity(files []*ast.File, recv string) map[string][2]int {
	out := map[string][2]int{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
				continue
			}
			rt := fd.Recv.List[0].Type
			if s, ok := rt.(*ast.StarExpr); ok {
				rt = s.X
			}
			if id, ok := rt.(*ast.Ident); ok && id.Name == recv {
				out[fd.Name.Name] = [2]int{fieldCount(fd.Type.Params), fieldCount(fd.Type.Results)}
			}
		}
	}
	return out
}

// interfaceArity maps the methods of interface type name to their arities.
func interfaceArity(files []*ast.File, name string) map[string][2]int {
	out := map[string][2]int{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != name {
				return true
			}
			it, ok := ts.Type.(*ast.InterfaceType)
			if !ok {
				return false
			}
			for _, m := range it.Methods.List {
				ft, ok := m.Type.(*ast.FuncType)
				if !ok {
					continue
				}
				for _, id := range m.Names {
					out[id.Name] = [2]int{fieldCount(ft.Params), fieldCount(ft.Results)}
				}
			}
			return false
		})
	}
	return out
}

func fieldCount(fl *ast.FieldList) int {
	if fl == nil {
		return 0
	}
	n := 0
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			n++
		} else {
			n += len(f.Names)
		}
	}
	return n
}

// TestLuxEVMAdapterAPI: the Lux adapter (precompiles/host/luxevm, a nested
// module CI cannot build: its luxfi dependencies cannot be downloaded) only
// uses names that exist in package precompiles and precompiles/corebackends,
// and its env and store types have every method of precompiles.Env and
// precompiles.StateStore with the same arity. Defect guarded: the adapter
// rotting silently (it called SetBackends(nil, nil), which now fails, and so
// would have panicked at init on every Lux validator). Full type-checking
// needs the luxfi modules; this is the part the main module can check.
func TestLuxEVMAdapterAPI(t *testing.T) {
	lux := parseDir(t, "host/luxevm")
	require.NotEmpty(t, lux)
	pkgs := map[string]map[string]bool{
		"precompiles":  exported(parseDir(t, ".")),
		"corebackends": exported(parseDir(t, "corebackends")),
	}
	used := map[string]bool{}
	for _, f := range lux {
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
	require.True(t, used["corebackends.Policy"] && used["corebackends.CRDTMeta"], "luxevm must install the real backends")
	require.True(t, used["precompiles.NewSuite"])

	core := parseDir(t, ".")
	for recv, iface := range map[string]string{"env": "Env", "store": "StateStore"} {
		want := interfaceArity(core, iface)
		require.NotEmpty(t, want, iface)
		have := methodArity(lux, recv)
		for m, a := range want {
			got, ok := have[m]
			require.True(t, ok, "luxevm %s lacks precompiles.%s method %s", recv, iface, m)
			require.Equal(t, a, got, "luxevm %s.%s: arity differs from precompiles.%s", recv, m, iface)
		}
	}

	// the methods the adapter calls on core values exist (compile-time check)
	var s *Suite
	_ = func() {
		c := s.Contracts()[0]
		_ = c.Name()
		_, _, _ = c.Run(Env(nil), nil, 0)
		var r *RevertError
		_ = r.Reason
		_ = ConfigureVerdict(StateStore(nil), Address{}, &CommitteeConfig{Epoch: 0, Threshold: 0, PubKeys: nil, PoPs: nil})
	}
}
