package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/bench"
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
		t.Skip("BGVN14 key generation and four evaluations: slow")
	}
	install := func(log *zap.Logger) (func(), error) {
		_, stop, err := backends.Install(backends.Config{Log: log, Backend: "cpu", Embedded: configs.CrossoverJSON()})
		return stop, err
	}
	// The same policy gathered (the default) and sequentially: the same
	// transforms, in fewer and larger batches when gathered.
	rows := map[bool]map[string]any{}
	for _, sequential := range []bool{false, true} {
		dir := t.TempDir()
		jsonPath, shapesPath := filepath.Join(dir, "p.json"), filepath.Join(dir, "shapes.json")
		var out bytes.Buffer
		c := Command{JSONPath: jsonPath, Quick: true, Names: []string{"credit_limit"}, Shapes: shapesPath,
			Gate: install, Sequential: sequential, Log: zaptest.NewLogger(t), Out: &out}
		require.NoError(t, c.Run(context.Background()))
		require.Contains(t, out.String(), "pure-Go ms")
		require.Contains(t, out.String(), "transform's batch p50")
		var got []map[string]any
		b, err := os.ReadFile(jsonPath)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &got))
		require.Len(t, got, 1)
		r := got[0]
		require.Equal(t, "cpu", r["backend"])
		require.Equal(t, true, r["verified"])
		require.Equal(t, !sequential, r["gathered"])
		require.Positive(t, r["baseline_go_ms"])
		require.Contains(t, r, "routed_fraction")
		require.Positive(t, r["median_batch"])
		require.Positive(t, r["mean_batch"])
		require.Positive(t, r["transform_median_batch"])
		require.Positive(t, r["engine_transforms"])
		rows[sequential] = r
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
	gat, seq := rows[false], rows[true]
	require.Equal(t, seq["engine_transforms"], gat["engine_transforms"])
	require.Less(t, gat["engine_batches"], seq["engine_batches"])
	require.Greater(t, gat["mean_batch"], seq["mean_batch"])
	require.Greater(t, gat["transform_median_batch"], seq["transform_median_batch"])
}

// TestPrintOneHeader: each table has one header line, the one its rows
// fill (the example-policy table once printed a stale second header).
func TestPrintOneHeader(t *testing.T) {
	rows := []Row{{Policy: "kyc_aml", Preset: "bgv-n14-t65537", Depth: 9, RequestMs: 100, RequestCPUMs: 90,
		DecisionsPerCt: 16384, PerDecisionMs: 0.0061, RequestGas: 10403, Gate: bench.Gate{Backend: "cpu", BaselineGoMs: 120}, BaselineGoCPUMs: 95}}
	for _, tc := range []struct {
		wide       bool
		has, lacks []string
	}{
		{false, []string{"pure-Go cpu ms", "cpu go/routed", "1.20×", "1.06×"}, []string{"gas/request"}},
		{true, []string{"refreshes", "gas/request", "10403"}, []string{"backend", "pure-Go"}},
	} {
		var out bytes.Buffer
		require.NoError(t, Print(&out, rows, tc.wide))
		lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		require.Len(t, lines, 2, "wide=%v:\n%s", tc.wide, out.String())
		require.Contains(t, lines[1], "kyc_aml")
		for _, h := range tc.has {
			require.Contains(t, out.String(), h, "wide=%v", tc.wide)
		}
		for _, h := range tc.lacks {
			require.NotContains(t, out.String(), h, "wide=%v", tc.wide)
		}
	}
}
