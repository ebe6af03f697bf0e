package policy_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/policy"
)

// wideCase is a policy over wide inputs and a reference written directly in
// Go (not through the compiler or EvalSpec).
type wideCase struct {
	name   string
	inputs string // the inputs: block
	consts string
	expr   string
	ref    func(v []uint64) bool
	// maxDepth: the unrefreshed depth the plan must not exceed (0: any).
	maxDepth int
}

func wideDoc(c wideCase) string {
	doc := "fhegate_policy: 1\nname: " + c.name + "\ninputs:\n" + c.inputs
	if c.consts != "" {
		doc += "constants:\n" + c.consts
	}
	return doc + "output: {expr: \"" + c.expr + "\"}\n"
}

const e18 = uint64(1_000_000_000_000_000_000)

var wideCases = []wideCase{
	{name: "u8-ge", inputs: "  - {name: x, type: uint8}\n", expr: "x >= 200",
		ref: func(v []uint64) bool { return v[0] >= 200 }, maxDepth: 5},
	{name: "u16-lt", inputs: "  - {name: x, type: uint16}\n", expr: "x < 40000",
		ref: func(v []uint64) bool { return v[0] < 40000 }, maxDepth: 6},
	{name: "u16-xy", inputs: "  - {name: x, type: uint16}\n  - {name: y, type: uint16}\n", expr: "x <= y",
		ref: func(v []uint64) bool { return v[0] <= v[1] }, maxDepth: 8},
	{name: "u16-eq", inputs: "  - {name: x, type: uint16}\n  - {name: y, type: uint16}\n", expr: "x == y || x == 7",
		ref: func(v []uint64) bool { return v[0] == v[1] || v[0] == 7 }},
	{name: "u32-gt", inputs: "  - {name: x, type: uint32}\n", expr: "x > 3000000000",
		ref: func(v []uint64) bool { return v[0] > 3_000_000_000 }, maxDepth: 7},
	{name: "u32-ne", inputs: "  - {name: x, type: uint32}\n  - {name: y, type: uint32}\n", expr: "x != y",
		ref: func(v []uint64) bool { return v[0] != v[1] }},
	{name: "u64-ge", inputs: "  - {name: x, type: uint64}\n", consts: "  one_token: 1000000000000000000\n", expr: "x >= one_token",
		ref: func(v []uint64) bool { return v[0] >= e18 }, maxDepth: 9},
	{name: "u64-xy", inputs: "  - {name: x, type: uint64}\n  - {name: y, type: uint64}\n", expr: "x > y",
		ref: func(v []uint64) bool { return v[0] > v[1] }},
	{name: "u32-max", inputs: "  - {name: x, type: uint32, max: 1000000}\n", expr: "x <= 999999 && x >= 1000",
		ref: func(v []uint64) bool { return v[0] <= 999_999 && v[0] >= 1000 }},
	{name: "add-const", inputs: "  - {name: x, type: uint16}\n  - {name: y, type: uint16}\n", expr: "x + 1000 > y",
		ref: func(v []uint64) bool { return v[0]+1000 > v[1] }},
	{name: "add-xy", inputs: "  - {name: x, type: uint32}\n  - {name: y, type: uint32}\n  - {name: z, type: uint32}\n", expr: "x + y >= z",
		ref: func(v []uint64) bool { return v[0]+v[1] >= v[2] }},
	{name: "u64-sum", inputs: "  - {name: x, type: uint64}\n  - {name: y, type: uint64}\n", expr: "x + y > 18446744073709551615",
		ref: func(v []uint64) bool { s := v[0] + v[1]; return s < v[0] }}, // the sum is exact: > 2^64 − 1 iff it carries out
	{name: "mul-const", inputs: "  - {name: debt, type: uint32, max: 100000}\n  - {name: income, type: uint32, max: 1000000}\n", expr: "debt * 100 <= income * 43",
		ref: func(v []uint64) bool { return v[0]*100 <= v[1]*43 }},
	{name: "member", inputs: "  - {name: x, type: uint16}\n", consts: "  s: [0, 1, 255, 256, 4096, 40000, 65535]\n", expr: "x in s",
		ref: func(v []uint64) bool {
			switch v[0] {
			case 0, 1, 255, 256, 4096, 40000, 65535:
				return true
			}
			return false
		}},
	{name: "member-not", inputs: "  - {name: x, type: uint16, max: 1000}\n", expr: "x not in {3, 500..510, 999}",
		ref: func(v []uint64) bool { return !(v[0] == 3 || v[0] == 999 || (v[0] >= 500 && v[0] <= 510)) }},
	{name: "sub-xy", inputs: "  - {name: x, type: uint32}\n  - {name: y, type: uint32}\n", expr: "x - y > 0",
		ref: func(v []uint64) bool { return v[0] > v[1] }},
	{name: "sub-chain", inputs: "  - {name: income, type: uint32, max: 1000000}\n  - {name: debt, type: uint32, max: 1000000}\n  - {name: rent, type: uint16}\n",
		expr: "income - debt - rent >= 1000", ref: func(v []uint64) bool { return int64(v[0])-int64(v[1])-int64(v[2]) >= 1000 }},
	{name: "sub-right", inputs: "  - {name: x, type: uint16}\n  - {name: y, type: uint16}\n", expr: "x + 7 < y - 500",
		ref: func(v []uint64) bool { return int64(v[0])+7 < int64(v[1])-500 }},
	{name: "sub-eq", inputs: "  - {name: x, type: uint16}\n  - {name: y, type: uint16}\n", expr: "x - y == 7 || y - x == 65535",
		ref: func(v []uint64) bool { return int64(v[0])-int64(v[1]) == 7 || int64(v[1])-int64(v[0]) == 65535 }},
	{name: "mixed", inputs: "  - {name: age, min: 0, max: 127}\n  - {name: bal, type: uint64}\n", expr: "age >= 18 && bal >= 5000000000",
		ref: func(v []uint64) bool { return v[0] >= 18 && v[1] >= 5_000_000_000 }},
}

// wideValues draws a decision for plan: per declared input a uniform value,
// or (one in four) a boundary-ish value: 0, the max, or near the constants.
func wideValues(r *rand.Rand, decl []policy.Declared, near []uint64) []uint64 {
	out := make([]uint64, len(decl))
	for k, d := range decl {
		umax := d.UMax
		if d.Type == "" {
			umax = uint64(d.Max)
		}
		switch r.IntN(6) {
		case 0:
			out[k] = 0
		case 1:
			out[k] = umax
		case 2:
			if len(near) > 0 {
				out[k] = min(umax, near[r.IntN(len(near))]+uint64(r.IntN(3))-1)
				continue
			}
			fallthrough
		case 3:
			if k > 0 && r.IntN(2) == 0 {
				out[k] = min(umax, out[k-1]) // equal neighbours
				continue
			}
			fallthrough
		default:
			if umax == ^uint64(0) {
				out[k] = r.Uint64()
			} else {
				out[k] = r.Uint64N(umax + 1)
			}
		}
	}
	return out
}

func TestWideAgainstReference(t *testing.T) {
	t.Parallel()
	near := []uint64{200, 40000, 3_000_000_000, e18, 1000, 999_999, 5_000_000_000, 7, 65535, 256}
	for _, c := range wideCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			plan, err := policy.Compile([]byte(wideDoc(c)))
			require.NoError(t, err)
			if c.maxDepth > 0 {
				require.LessOrEqual(t, plan.UnrefreshedDepth, c.maxDepth, "planned depth")
			}
			decl := plan.Declared()
			r := rand.New(rand.NewPCG(7, uint64(len(c.name))))
			const n = 400
			rows := make([][]int64, n)
			want := make([]int64, n)
			for i := range rows {
				v := wideValues(r, decl, near)
				strs := make([]string, len(v))
				for k, x := range v {
					strs[k] = strconv.FormatUint(x, 10)
				}
				rows[i], err = plan.DecisionRow(strs)
				require.NoError(t, err)
				if c.ref(v) {
					want[i] = 1
				}
			}
			cols, err := plan.PackInputs(rows)
			require.NoError(t, err)
			got, err := plan.EvalPlain(cols)
			require.NoError(t, err)
			require.Equal(t, want, got, "plan vs Go reference")
			spec, err := plan.EvalSpec(cols)
			require.NoError(t, err)
			require.Equal(t, want, spec, "document interpreter vs Go reference")
		})
	}
}

func TestWideInputs(t *testing.T) {
	t.Parallel()
	plan, err := policy.Compile([]byte(wideDoc(wideCase{name: "w", inputs: "  - {name: a, min: 0, max: 9}\n  - {name: inc, type: uint32, max: 1000000}\n  - {name: bal, type: uint64}\n",
		expr: "a > 3 && inc > 5 && bal > 5"})))
	require.NoError(t, err)
	// 1,000,000 = 0xF4240: five digits, the top one in [0, 15]; uint64: 16.
	require.Len(t, plan.Inputs, 1+5+16)
	require.Equal(t, "inc.0", plan.Inputs[1].Name)
	require.Equal(t, "inc", plan.Inputs[1].Of)
	require.Equal(t, "bal.15", plan.Inputs[21].Name)
	decl := plan.Declared()
	require.Equal(t, []policy.Declared{
		{Name: "a", Min: 0, Max: 9, First: 0, Digits: 1},
		{Name: "inc", Type: "uint32", Max: 1000000, UMax: 1000000, First: 1, Digits: 5},
		{Name: "bal", Type: "uint64", Max: policy.MaxAbs, UMax: ^uint64(0), First: 6, Digits: 16},
	}, decl)
	row, err := plan.DecisionRow([]string{"4", "1000000", "18446744073709551615"})
	require.NoError(t, err)
	require.Equal(t, []int64{4, 0, 4, 2, 4, 15}, row[:6])
	back, err := plan.DeclaredValues(row)
	require.NoError(t, err)
	require.Equal(t, []string{"4", "1000000", "18446744073709551615"}, back)
	_, err = plan.DecisionRow([]string{"4", "1000001", "1"})
	require.ErrorIs(t, err, policy.ErrInput)
	_, err = plan.DecisionRow([]string{"10", "1", "1"})
	require.ErrorIs(t, err, policy.ErrInput)
	_, err = plan.DecisionRow([]string{"1", "1"})
	require.ErrorIs(t, err, policy.ErrInput)

	d, err := policy.SplitDigits(0xabc, 3)
	require.NoError(t, err)
	require.Equal(t, []int64{0xc, 0xb, 0xa}, d)
	_, err = policy.SplitDigits(0x1abc, 3)
	require.ErrorIs(t, err, policy.ErrInput)
}

// TestWideErrors: what wide integers refuse, with the error kind.
func TestWideErrors(t *testing.T) {
	t.Parallel()
	u := "  - {name: x, type: uint32}\n  - {name: y, type: uint32}\n  - {name: n, min: 0, max: 10}\n"
	for _, tc := range []struct {
		inputs, expr string
		kind         error
	}{
		{u, "(x - y) * 2 > 0", policy.ErrType},
		{u, "x - n > 0", policy.ErrType},
		{"  - {name: x, type: uint32}\n  - {name: y, type: uint32}\nlet:\n  - {name: d, expr: \"x - y\"}\n", "d > 0", policy.ErrType},
		{u, "x > n", policy.ErrType},
		{u, "x > -1", policy.ErrRange},
		{u, "x * y > 3", policy.ErrType},
		{u, "-x > 3", policy.ErrType},
		{u, "x && n > 1", policy.ErrType},
		{u, "x in {1, 2}", policy.ErrTooDeep},
		{u, "n > 100000000000000", policy.ErrType},
		{"  - {name: x, type: uint64, max: 18446744073709551615}\n", "x * 18446744073709551615 * 18446744073709551615 > 1", policy.ErrRange},
		{"  - {name: x, type: int32}\n", "x > 1", policy.ErrSchema},
		{"  - {name: x, type: uint8, max: 256}\n", "x > 1", policy.ErrRange},
		{"  - {name: x, type: uint8, min: 1}\n", "x > 1", policy.ErrRange},
		{"  - {name: x, min: 0, max: 100000000000000}\n", "x > 1", policy.ErrRange},
	} {
		_, err := policy.Compile([]byte(wideDoc(wideCase{name: "e", inputs: tc.inputs, expr: tc.expr})))
		require.ErrorIs(t, err, tc.kind, "%s: %s", tc.inputs, tc.expr)
	}
	// Too many digits for one request: 5 uint64 inputs = 80 digits > 64.
	in := ""
	for i := 0; i < 5; i++ {
		in += fmt.Sprintf("  - {name: x%d, type: uint64}\n", i)
	}
	_, err := policy.Compile([]byte(wideDoc(wideCase{name: "e", inputs: in, expr: "x0 > 1"})))
	require.ErrorIs(t, err, policy.ErrSchema)
}

// TestLargeList: membership in 1,000 16-bit codes compiles to a bounded
// plan (eight chunk polynomials, products, 16 squarings) and matches a map
// lookup on every list entry and on random codes.
func TestLargeList(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 13))
	list := map[uint64]bool{}
	set := ""
	for len(list) < 1000 {
		v := r.Uint64N(65536)
		if !list[v] {
			list[v] = true
			if set != "" {
				set += ", "
			}
			set += strconv.FormatUint(v, 10)
		}
	}
	doc := "fhegate_policy: 1\nname: list\ninputs:\n  - {name: code, type: uint16}\nconstants:\n  sanctioned: [" + set + "]\noutput: {expr: \"code not in sanctioned\"}\n"
	plan, err := policy.Compile([]byte(doc))
	require.NoError(t, err)
	require.Equal(t, 8, plan.Counts.Polys)
	require.LessOrEqual(t, plan.Counts.MaxPolyDegree, 127)
	require.True(t, plan.NeedsRefresh)
	var codes []uint64
	for v := range list {
		codes = append(codes, v)
	}
	for i := 0; i < 3000; i++ {
		codes = append(codes, r.Uint64N(65536))
	}
	rows := make([][]int64, len(codes))
	want := make([]int64, len(codes))
	for i, v := range codes {
		rows[i], err = plan.DecisionRow([]string{strconv.FormatUint(v, 10)})
		require.NoError(t, err)
		want[i] = b2i(!list[v])
	}
	cols, err := plan.PackInputs(rows)
	require.NoError(t, err)
	got, err := plan.EvalPlain(cols)
	require.NoError(t, err)
	require.Equal(t, want, got)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
