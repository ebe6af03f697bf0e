package policy_test

import (
	"encoding/json"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/examples"
)

var update = flag.Bool("update", false, "rewrite testdata/golden_hashes.json")

func compile(t *testing.T, doc string) *policy.Plan {
	t.Helper()
	p, err := policy.Compile([]byte(doc))
	require.NoError(t, err)
	return p
}

// in-range random batch with the boundaries in the first slots.
func randomBatch(r *rand.Rand, p *policy.Plan, n int) [][]int64 {
	out := make([][]int64, len(p.Inputs))
	for j, in := range p.Inputs {
		v := make([]int64, n)
		for i := range v {
			switch i {
			case 0:
				v[i] = in.Min
			case 1:
				v[i] = in.Max
			default:
				v[i] = in.Min + r.Int64N(in.Max-in.Min+1)
			}
		}
		out[j] = v
	}
	return out
}

func TestExamplesCompile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		preset  uint8
		depth   int
		polys   int
		refresh bool
	}{
		// Plans consume at most Depth − RefreshFloor levels between
		// refreshes (BGVN13: 3, BGVN14: 8).
		{"allowlist", policy.PresetBGVN13, 3, 1, false},
		{"credit_limit", policy.PresetBGVN14, 8, 1, true},
		{"kyc_aml", policy.PresetBGVN14, 8, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := policy.Compile(examples.MustGet(tc.name))
			require.NoError(t, err)
			require.Equal(t, tc.preset, p.Preset)
			require.Equal(t, tc.depth, p.Depth)
			require.Equal(t, tc.polys, p.Counts.Polys)
			require.Equal(t, tc.refresh, p.NeedsRefresh)
			require.Equal(t, 1, p.RefreshFloor)
			require.Zero(t, p.Counts.Rotations)
			require.Empty(t, p.GaloisRotations())
			require.Positive(t, p.Gas())
			// Exhaustive-ish: the compiled plan agrees with the document.
			r := rand.New(rand.NewPCG(3, uint64(p.Depth)))
			in := randomBatch(r, p, p.Slots)
			want, err := p.EvalSpec(in)
			require.NoError(t, err)
			got, err := p.EvalPlain(in)
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}

func TestKYCShape(t *testing.T) {
	t.Parallel()
	p, err := policy.Compile(examples.MustGet("kyc_aml"))
	require.NoError(t, err)
	require.Len(t, p.Inputs, 8)
	require.Equal(t, "age", p.Inputs[0].Name)
	require.Equal(t, 2, p.Counts.CtCt-sumPolyCtCt(p)) // two ANDs
	require.Equal(t, 1, p.Counts.CtPt)                // one noise-reducing rescale of the weighted score
	require.Equal(t, 0, p.InputIndex("age"))
	require.Equal(t, -1, p.InputIndex("nope"))
}

func sumPolyCtCt(p *policy.Plan) int {
	n := 0
	for _, op := range p.Ops {
		if op.Kind == policy.OpPoly {
			n += policy.PolyCtCt(op.Degree())
		}
	}
	return n
}

// TestGoldenHashes pins the plan hash of every example (run with -update to rewrite).
func TestGoldenHashes(t *testing.T) {
	t.Parallel()
	got := map[string]string{}
	for _, name := range examples.Names() {
		p, err := policy.Compile(examples.MustGet(name))
		require.NoError(t, err)
		got[name] = p.HashHex()
	}
	path := "testdata/golden_hashes.json"
	if *update {
		b, err := json.MarshalIndent(got, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var want map[string]string
	require.NoError(t, json.Unmarshal(b, &want))
	require.Equal(t, want, got)
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	doc := examples.MustGet("kyc_aml")
	ref, err := policy.Compile(doc)
	require.NoError(t, err)
	var wg sync.WaitGroup
	res := make([]*policy.Plan, 8)
	for i := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i], _ = policy.Compile(doc)
		}()
	}
	wg.Wait()
	for _, p := range res {
		require.Equal(t, ref.CanonicalBytes(), p.CanonicalBytes())
		require.Equal(t, ref.Hash(), p.Hash())
		require.Equal(t, ref.Gas(), p.Gas())
	}
	// JSON and YAML spellings of the same policy give the same plan.
	y := compile(t, "fhegate_policy: 1\nname: j\ninputs: [{name: x, min: 0, max: 9}]\noutput: {expr: \"x >= 3\"}\n")
	j := compile(t, `{"fhegate_policy": 1, "name": "j", "inputs": [{"name": "x", "range": [0, 9]}], "output": {"type": "bool", "expr": "x >= 3"}}`)
	require.Equal(t, y.Hash(), j.Hash())
	// Descriptions and docs do not change the plan; names and ranges do.
	d := compile(t, "fhegate_policy: 1\nname: j\ndescription: hi\ninputs: [{name: x, min: 0, max: 9, doc: d}]\noutput: {expr: \"x >= 3\"}\n")
	require.Equal(t, y.Hash(), d.Hash())
	r := compile(t, "fhegate_policy: 1\nname: j\ninputs: [{name: x, min: 0, max: 10}]\noutput: {expr: \"x >= 3\"}\n")
	require.NotEqual(t, y.Hash(), r.Hash())
}

func TestErrors(t *testing.T) {
	t.Parallel()
	head := "fhegate_policy: 1\nname: p\ninputs:\n  - {name: x, min: 0, max: 15}\n  - {name: y, min: 0, max: 15}\n"
	for _, tc := range []struct {
		name  string
		doc   string
		kind  error
		line  int
		field string
	}{
		{"not yaml", "fhegate_policy: [1\n", policy.ErrSyntax, 0, ""},
		{"not a mapping", "- 1\n", policy.ErrSchema, 1, ""},
		{"missing version", "name: p\ninputs: [{name: x, min: 0, max: 1}]\noutput: {expr: x}\n", policy.ErrSchema, 1, "fhegate_policy"},
		{"wrong version", "fhegate_policy: 2\n", policy.ErrSchema, 1, "fhegate_policy"},
		{"unknown field", head + "outptu: {expr: x}\n", policy.ErrSchema, 6, "outptu"},
		{"duplicate field", head + "name: q\n", policy.ErrSchema, 6, "name"},
		{"missing output", head, policy.ErrSchema, 1, "output"},
		{"no inputs", "fhegate_policy: 1\nname: p\ninputs: []\noutput: {expr: '1'}\n", policy.ErrSchema, 1, "inputs"},
		{"bad name", "fhegate_policy: 1\nname: P Q\n", policy.ErrSchema, 2, "name"},
		{"input without max", "fhegate_policy: 1\nname: p\ninputs:\n  - {name: x, min: 0}\n", policy.ErrSchema, 4, "inputs[0]"},
		{"input min>max", "fhegate_policy: 1\nname: p\ninputs:\n  - {name: x, min: 5, max: 1}\n", policy.ErrRange, 4, "inputs[0]"},
		{"input too wide", "fhegate_policy: 1\nname: p\ninputs:\n  - {name: x, min: 0, max: 70000}\n", policy.ErrRange, 4, "inputs[0]"},
		{"input keyword", "fhegate_policy: 1\nname: p\ninputs:\n  - {name: and, min: 0, max: 1}\n", policy.ErrSchema, 4, "inputs[0].name"},
		{"input string bound", "fhegate_policy: 1\nname: p\ninputs:\n  - {name: x, min: a, max: 1}\n", policy.ErrSchema, 4, "inputs[0].min"},
		{"duplicate input", "fhegate_policy: 1\nname: p\ninputs:\n  - {name: x, min: 0, max: 1}\n  - {name: x, min: 0, max: 1}\noutput: {expr: x}\n", policy.ErrSchema, 5, "inputs[1].name"},
		{"undeclared", head + "output: {expr: \"z >= 1\"}\n", policy.ErrUndeclared, 6, "output.expr"},
		{"undeclared set", head + "output: {expr: \"x in bad\"}\n", policy.ErrUndeclared, 6, "output.expr"},
		{"let before use", head + "let:\n  - {name: a, expr: \"b + 1\"}\n  - {name: b, expr: \"x\"}\noutput: {expr: \"a > 1\"}\n", policy.ErrUndeclared, 7, "let[0].expr"},
		{"syntax", head + "output: {expr: \"x >= \"}\n", policy.ErrSyntax, 6, "output.expr"},
		{"bad char", head + "output: {expr: \"x # 1\"}\n", policy.ErrSyntax, 6, "output.expr"},
		{"int output for bool", head + "output: {expr: \"x + y\"}\n", policy.ErrType, 6, "output.expr"},
		{"and of ints", head + "output: {expr: \"x && y\"}\n", policy.ErrType, 6, "output.expr"},
		{"set as value", head + "constants: {s: [1, 2]}\noutput: {expr: \"s > 1\"}\n", policy.ErrType, 7, "output.expr"},
		{"score out of bounds", head + "output: {type: score, min: 0, max: 10, expr: \"x + y\"}\n", policy.ErrRange, 6, "output"},
		{"score without bounds", head + "output: {type: score, expr: \"x + y\"}\n", policy.ErrSchema, 6, "output"},
		{"too deep", "fhegate_policy: 1\nname: p\ninputs:\n  - {name: x, min: 0, max: 1000}\noutput: {expr: \"x >= 500\"}\n", policy.ErrTooDeep, 5, "output.expr"},
		{"not distinct mod t", "fhegate_policy: 1\nname: p\ninputs:\n  - {name: x, min: 0, max: 30000}\n  - {name: y, min: -30000, max: 0}\noutput: {expr: \"x - 3*y >= 5\"}\n", policy.ErrRange, 6, "output.expr"},
		{"overflow", "fhegate_policy: 1\nname: p\ninputs:\n  - {name: x, min: 0, max: 30000}\noutput: {type: score, min: 0, max: 1, expr: \"x*1099511627776\"}\n", policy.ErrRange, 5, "output.expr"},
		{"unknown preset", head + "preset: bgv-n99\n", policy.ErrSchema, 6, "preset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := policy.Compile([]byte(tc.doc))
			require.Error(t, err)
			require.ErrorIs(t, err, tc.kind, err.Error())
			var pe *policy.Error
			require.True(t, errors.As(err, &pe))
			if tc.line > 0 {
				require.Equal(t, tc.line, pe.Line, err.Error())
			}
			require.Equal(t, tc.field, pe.Field, err.Error())
		})
	}
}

func TestColumnInExpression(t *testing.T) {
	t.Parallel()
	_, err := policy.Compile([]byte("fhegate_policy: 1\nname: p\ninputs: [{name: x, min: 0, max: 3}]\noutput:\n  expr: x >= zz\n"))
	var pe *policy.Error
	require.True(t, errors.As(err, &pe))
	require.Equal(t, 5, pe.Line)
	require.Equal(t, 14, pe.Col) // "  expr: " is 8 columns, zz starts at offset 6 of the expression
}

// TestRefreshPlacement: a plan deeper than every preset gets refresh points
// and still fits the preset between them.
func TestRefreshPlacement(t *testing.T) {
	t.Parallel()
	doc := "fhegate_policy: 1\nname: deep\ninputs:\n  - {name: a, min: 0, max: 255}\n  - {name: b, min: 0, max: 255}\n  - {name: c, min: 0, max: 255}\noutput: {expr: \"a >= 100 && b >= 100 && c >= 100\"}\n"
	p := compile(t, doc)
	require.Equal(t, policy.PresetBGVN14, p.Preset)
	require.Equal(t, 10, p.UnrefreshedDepth)
	require.True(t, p.NeedsRefresh)
	require.LessOrEqual(t, p.Depth, 9-p.RefreshFloor)
	require.Positive(t, p.Counts.Refreshes)
	requireAboveFloor(t, p)
	// Forcing the shallow preset marks more refreshes.
	q, err := policy.CompileWith([]byte("fhegate_policy: 1\nname: q\ninputs: [{name: a, min: 0, max: 7}, {name: b, min: 0, max: 7}]\noutput: {expr: \"a >= 3 && b >= 3\"}\n"), policy.Options{Preset: policy.PresetBGVN13})
	require.NoError(t, err)
	require.Equal(t, 4, q.UnrefreshedDepth)
	require.True(t, q.NeedsRefresh)
	require.Equal(t, 3, q.Depth)
	requireAboveFloor(t, q)
	// A comparison whose polynomial needs more levels than the preset has
	// above its refresh floor does not compile for it (degree 15 needs 4
	// levels, BGVN13 has 3 above level 1).
	_, err = policy.CompileWith([]byte("fhegate_policy: 1\nname: q\ninputs: [{name: a, min: 0, max: 15}]\noutput: {expr: \"a >= 3\"}\n"), policy.Options{Preset: policy.PresetBGVN13})
	require.ErrorIs(t, err, policy.ErrTooDeep)
	// Only the deep operand is refreshed: (a >= 3) is a depth-3 polynomial,
	// c·d a depth-1 product; their product would need depth 4 > 3, and
	// refreshing the polynomial alone brings it to 2.
	m, err := policy.CompileWith([]byte("fhegate_policy: 1\nname: m\ninputs: [{name: a, min: 0, max: 7}, {name: c, min: 0, max: 7}, {name: d, min: 0, max: 7}]\noutput: {type: score, min: 0, max: 49, expr: \"if(a >= 3, c * d, 0)\"}\n"), policy.Options{Preset: policy.PresetBGVN13})
	require.NoError(t, err)
	require.Equal(t, 1, m.Counts.Refreshes)
	for _, op := range m.Ops {
		if op.Refresh {
			require.Equal(t, policy.OpPoly, op.Kind)
		}
	}
	requireAboveFloor(t, m)
}

// requireAboveFloor checks that every register of p stays at level ≥ the
// refresh floor when the inputs (and every refresh output) are at the top
// level, so that every refresh — at a refresh point or of the result before
// the mask — takes a ciphertext at level ≥ the floor.
func requireAboveFloor(t *testing.T, p *policy.Plan) {
	t.Helper()
	for i, op := range p.Ops {
		require.GreaterOrEqual(t, p.PresetDepth-op.Depth, p.RefreshFloor, "register %d", i)
	}
}

// TestShippedPlansAboveFloor: every shipped example (deep ones included),
// compiled for every public preset it fits, keeps every register — hence
// every refresh input — at level ≥ the preset's refresh floor.
func TestShippedPlansAboveFloor(t *testing.T) {
	t.Parallel()
	for _, name := range examples.AllNames() {
		for _, opt := range []policy.Options{{}, {Preset: policy.PresetBGVN13}, {Preset: policy.PresetBGVN14}} {
			p, err := policy.CompileWith(examples.MustGet(name), opt)
			if opt.Preset == policy.PresetBGVN13 && errors.Is(err, policy.ErrTooDeep) {
				continue
			}
			require.NoError(t, err, name)
			require.Equal(t, 1, p.RefreshFloor, name)
			requireAboveFloor(t, p)
		}
	}
}

// Fusion: predicates on one base cost one polynomial.
func TestFusion(t *testing.T) {
	t.Parallel()
	p := compile(t, "fhegate_policy: 1\nname: f\ninputs: [{name: x, min: 0, max: 63}]\noutput: {expr: \"(x >= 18 && x <= 40) || x in {50, 60} || !(x != 7)\"}\n")
	require.Equal(t, 1, p.Counts.Polys)
	require.Equal(t, 6, p.Depth)
	// Constant predicates fold away: the verdict is the constant 1.
	c := compile(t, "fhegate_policy: 1\nname: c\ninputs: [{name: x, min: 0, max: 63}]\noutput: {expr: \"x >= 0 || x < 5\"}\n")
	require.Zero(t, c.Counts.Polys)
	require.Zero(t, c.Depth)
	v, err := c.EvalPlain([][]int64{{0, 63}})
	require.NoError(t, err)
	require.Equal(t, []int64{1, 1}, v)
}

// TestOutOfRangePlain: outside the declared range the verdict is the plan's
// value over Z_t — deterministic, but not necessarily 0/1.
func TestOutOfRangePlain(t *testing.T) {
	t.Parallel()
	p := compile(t, "fhegate_policy: 1\nname: o\ninputs: [{name: x, min: 0, max: 15}]\noutput: {expr: \"x >= 8\"}\n")
	var xs []int64
	for x := int64(-50); x < 200; x++ {
		xs = append(xs, x)
	}
	v, err := p.EvalPlain([][]int64{xs})
	require.NoError(t, err)
	nonBool := 0
	for i, x := range xs {
		if x >= 0 && x <= 15 {
			require.Equal(t, map[bool]int64{true: 1, false: 0}[x >= 8], v[i])
		} else if v[i] != 0 && v[i] != 1 {
			nonBool++
		}
		require.LessOrEqual(t, v[i], int64(policy.HalfT))
		require.GreaterOrEqual(t, v[i], int64(-policy.HalfT))
	}
	require.Positive(t, nonBool, "out-of-range inputs are documented to give non-boolean residues")
	_, err = p.EvalSpec([][]int64{{16}})
	require.ErrorIs(t, err, policy.ErrInput)
	_, err = p.PackInputs([][]int64{{16}})
	require.ErrorIs(t, err, policy.ErrInput)
	require.False(t, policy.Approved(v[0]+2))
}

func TestPlainInputErrors(t *testing.T) {
	t.Parallel()
	p := compile(t, "fhegate_policy: 1\nname: o\ninputs: [{name: x, min: 0, max: 15}, {name: y, min: 0, max: 15}]\noutput: {expr: \"x >= y\"}\n")
	for _, in := range [][][]int64{nil, {{1}}, {{1, 2}, {1}}, {{}, {}}} {
		_, err := p.EvalPlain(in)
		require.ErrorIs(t, err, policy.ErrInput)
	}
	packed, err := p.PackInputs([][]int64{{1, 2}, {3, 4}, {15, 0}})
	require.NoError(t, err)
	require.Equal(t, [][]int64{{1, 3, 15}, {2, 4, 0}}, packed)
	_, err = p.PackInputs([][]int64{{1}})
	require.ErrorIs(t, err, policy.ErrInput)
}

func TestCostTable(t *testing.T) {
	t.Parallel()
	c := policy.Costs()
	require.NotEmpty(t, c.Command)
	require.Len(t, c.Presets, len(policy.Presets))
	for i, pi := range policy.Presets {
		require.Equal(t, pi.ID, c.Presets[i].Preset)
		require.Len(t, c.Presets[i].PolyUS, pi.Depth)
	}
	// Gas grows with the work.
	small := compile(t, "fhegate_policy: 1\nname: s\npreset: bgv-n14-t65537\ninputs: [{name: x, min: 0, max: 15}]\noutput: {expr: \"x >= 3\"}\n")
	big := compile(t, "fhegate_policy: 1\nname: s\ninputs: [{name: x, min: 0, max: 255}]\noutput: {expr: \"x >= 3\"}\n")
	require.Less(t, small.Gas(), big.Gas())
	require.Equal(t, uint64((small.EstimatedNanos()+999)/1000)*policy.GasPerMicrosecond, small.Gas())
}

// TestSchemaFile: schema.json parses and names exactly the fields ParseSpec accepts.
func TestSchemaFile(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("schema.json")
	require.NoError(t, err)
	var s struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(b, &s))
	require.ElementsMatch(t, []string{"fhegate_policy", "name", "inputs", "output"}, s.Required)
	var fields []string
	for k := range s.Properties {
		fields = append(fields, k)
	}
	require.ElementsMatch(t, []string{"fhegate_policy", "name", "description", "preset", "inputs", "constants", "let", "output"}, fields)
	// Every example, converted to JSON, compiles to the same plan (JSON is accepted as YAML).
	for _, name := range examples.Names() {
		var doc any
		require.NoError(t, yaml.Unmarshal(examples.MustGet(name), &doc))
		j, err := json.Marshal(doc)
		require.NoError(t, err)
		a, err := policy.Compile(j)
		require.NoError(t, err)
		y, err := policy.Compile(examples.MustGet(name))
		require.NoError(t, err)
		require.Equal(t, y.Hash(), a.Hash(), name)
	}
}

// TestTooDeepNamesTheWideForm: a comparison or membership over a one-slot
// input whose range needs a polynomial deeper than every preset names the
// wide-integer declaration to write instead (the smallest uintN that holds
// max), and that declaration compiles; an input with negative values, or a
// base that is not one input, gets no such suggestion.
func TestTooDeepNamesTheWideForm(t *testing.T) {
	doc := func(inputs, expr string) []byte {
		return []byte("fhegate_policy: 1\nname: p\ninputs: " + inputs + "\noutput: {expr: \"" + expr + "\"}\n")
	}
	for _, tc := range []struct {
		name, inputs, expr string
		hint               string // "" = no suggestion
	}{
		{"uint16", "[{name: x, min: 0, max: 1000}]", "x >= 77", "{name: x, type: uint16, max: 1000}"},
		{"uint16, membership", "[{name: id, min: 10, max: 4000}]", "id in {11, 500, 3999}", "{name: id, type: uint16, max: 4000}"},
		{"negative values", "[{name: x, min: -500, max: 500}]", "x >= 77", ""},
		{"sum of inputs", "[{name: x, min: 0, max: 600}, {name: y, min: 0, max: 600}]", "x + y >= 77", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := policy.Compile(doc(tc.inputs, tc.expr))
			require.ErrorIs(t, err, policy.ErrTooDeep)
			requireWideHint(t, doc, tc.expr, err, tc.hint)
		})
	}
	// A range too wide for one slot at all says the same.
	for _, tc := range []struct {
		name, inputs, hint string
	}{
		{"more than t−1 steps", "[{name: x, min: 0, max: 70000}]", "{name: x, type: uint32, max: 70000}"},
		{"beyond ±t/2", "[{name: x, min: 40000, max: 40010}]", "{name: x, type: uint16, max: 40010}"},
		{"negative", "[{name: x, min: -40000, max: 40000}]", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := policy.Compile(doc(tc.inputs, "x >= 40005"))
			require.ErrorIs(t, err, policy.ErrRange)
			requireWideHint(t, doc, "x >= 40005", err, tc.hint)
		})
	}
}

// requireWideHint: err suggests hint, a wide declaration that compiles with
// expr; or, with hint "", suggests nothing.
func requireWideHint(t *testing.T, doc func(inputs, expr string) []byte, expr string, err error, hint string) {
	t.Helper()
	if hint == "" {
		require.NotContains(t, err.Error(), "wide unsigned integer instead")
		return
	}
	require.ErrorContains(t, err, "declare it as a wide unsigned integer instead: "+hint)
	start := strings.Index(err.Error(), "{name: ")
	typed := err.Error()[start : start+strings.Index(err.Error()[start:], "}")+1]
	require.Equal(t, hint, typed)
	p, err := policy.Compile(doc("["+typed+"]", expr))
	require.NoError(t, err, "the suggested declaration %s compiles", typed)
	require.Len(t, p.Declared(), 1)
	require.NotEmpty(t, p.Declared()[0].Type)
}
