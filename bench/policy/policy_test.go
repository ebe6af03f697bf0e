package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/backends"
	policylang "github.com/fhegate/fhegate/policy"
)

// TestWideSpecsCompile: every --wide spec is a valid policy document named
// as its row, and listConstant cuts a flow sequence over several lines.
func TestWideSpecsCompile(t *testing.T) {
	specs, err := wideSpecs()
	require.NoError(t, err)
	require.Len(t, specs, 9)
	for _, s := range specs {
		p, err := policylang.Compile(s.doc)
		require.NoError(t, err, s.name)
		require.Equal(t, s.name, p.Name)
	}
	list, err := listConstant([]byte("a: 1\n  listed: [1, 2,\n  3]\nb: 2\n"))
	require.NoError(t, err)
	require.Equal(t, "[1, 2,\n  3]", list)
}

// TestListConstantRejects: a document without the constant, or with an
// unterminated one, is an error, not a panic.
func TestListConstantRejects(t *testing.T) {
	for _, doc := range []string{"", "listed: 3", "listed: [1, 2"} {
		_, err := listConstant([]byte(doc))
		require.Error(t, err, doc)
	}
}

// TestCommandGateColumns: `bench policy --json` rows carry the backend in
// force, the pure-Go baseline of the same run, the routed fraction and the
// batch sizes; --shapes writes the engine's batch shapes; every verdict was
// checked against the plaintext reference.
func TestCommandGateColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("BGVN14 key generation and two evaluations: slow")
	}
	dir := t.TempDir()
	jsonPath, shapesPath := filepath.Join(dir, "p.json"), filepath.Join(dir, "shapes.json")
	var out bytes.Buffer
	install := func(log *zap.Logger) (func(), error) {
		_, stop, err := backends.Install(backends.Config{Log: log, Backend: "cpu", Embedded: configs.CrossoverJSON()})
		return stop, err
	}
	c := Command{JSONPath: jsonPath, Quick: true, Names: []string{"credit_limit"}, Shapes: shapesPath,
		Gate: install, Log: zaptest.NewLogger(t), Out: &out}
	require.NoError(t, c.Run(context.Background()))
	require.Contains(t, out.String(), "pure-Go ms")
	var rows []map[string]any
	b, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rows))
	require.Len(t, rows, 1)
	r := rows[0]
	require.Equal(t, "cpu", r["backend"])
	require.Equal(t, true, r["verified"])
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
