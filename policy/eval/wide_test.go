package eval_test

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/policy"
	"github.com/fhegate/fhegate/policy/eval"
)

// TestWideEncrypted: wide-integer comparisons, sums, constant multiples and
// a 1,000-entry list, evaluated homomorphically (insecure N=2^10 ring with
// BGVN14's depth and refresh floor 1, the test key's refresh standing in
// for the committee's), decrypt to a reference written directly in Go.
func TestWideEncrypted(t *testing.T) {
	t.Parallel()
	k := kit(t, fhetest.InsecureBGVN10Deep)
	opt := deep
	opt.RefreshFloor = 1
	r := rand.New(rand.NewPCG(5, 8))
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
	const e18 = uint64(1_000_000_000_000_000_000)
	for _, tc := range []struct {
		name, inputs, consts, expr string
		ref                        func(v []uint64) bool
	}{
		{"u16", "  - {name: x, type: uint16}\n  - {name: y, type: uint16}\n", "", "x < y || x == 40000",
			func(v []uint64) bool { return v[0] < v[1] || v[0] == 40000 }},
		{"u64", "  - {name: bal, type: uint64}\n", "  one: 1000000000000000000\n", "bal >= one",
			func(v []uint64) bool { return v[0] >= e18 }},
		{"dti", "  - {name: debt, type: uint32, max: 100000}\n  - {name: income, type: uint32, max: 1000000}\n", "", "debt * 100 <= income * 43 && income + debt >= 50000",
			func(v []uint64) bool { return v[0]*100 <= v[1]*43 && v[1]+v[0] >= 50000 }},
		{"list", "  - {name: code, type: uint16}\n", "  s: [" + set + "]\n", "code not in s",
			func(v []uint64) bool { return !list[v[0]] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := "fhegate_policy: 1\nname: " + tc.name + "\ninputs:\n" + tc.inputs
			if tc.consts != "" {
				doc += "constants:\n" + tc.consts
			}
			doc += "output: {expr: \"" + tc.expr + "\"}\n"
			plan, err := policy.CompileWith([]byte(doc), opt)
			require.NoError(t, err)
			decl := plan.Declared()
			const n = 48
			rows := make([][]int64, n)
			want := make([]int64, n)
			codes := make([]uint64, 0, len(list))
			for v := range list {
				codes = append(codes, v)
			}
			for i := range rows {
				v := make([]uint64, len(decl))
				s := make([]string, len(decl))
				for j, d := range decl {
					switch {
					case tc.name == "list" && i%2 == 0:
						v[j] = codes[r.IntN(len(codes))]
					case i%7 == 0:
						v[j] = d.UMax
					case d.UMax == ^uint64(0):
						v[j] = r.Uint64N(2 * e18)
					default:
						v[j] = r.Uint64N(d.UMax + 1)
					}
					s[j] = strconv.FormatUint(v[j], 10)
				}
				rows[i], err = plan.DecisionRow(s)
				require.NoError(t, err)
				if tc.ref(v) {
					want[i] = 1
				}
			}
			cols, err := plan.PackInputs(rows)
			require.NoError(t, err)
			refresh, levels := recordingRefresh(k)
			got := encrypted(t, plan, k, cols, eval.Options{Refresh: refresh})
			require.Equal(t, want, got)
			require.Len(t, levels(), plan.Counts.Refreshes)
			for _, l := range levels() {
				require.GreaterOrEqual(t, l, 1)
			}
		})
	}
}

// TestWideDigitOutOfRange: a client that encrypts a "digit" ≥ 16 (the input
// proof proves knowledge of the plaintext, not its range) changes only its
// own slot: every other decision packed beside it still decrypts to its
// Go reference, and its own verdict is the plan over Z_t (EvalPlain).
func TestWideDigitOutOfRange(t *testing.T) {
	t.Parallel()
	k := kit(t, fhetest.InsecureBGVN10Deep)
	opt := deep
	opt.RefreshFloor = 1
	doc := "fhegate_policy: 1\nname: oor\ninputs:\n  - {name: bal, type: uint32}\noutput: {expr: \"bal >= 3000000000\"}\n"
	plan, err := policy.CompileWith([]byte(doc), opt)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(9, 9))
	const n = 32
	vals := make([]uint64, n)
	rows := make([][]int64, n)
	for i := range rows {
		vals[i] = r.Uint64N(1 << 32)
		rows[i], err = plan.DecisionRow([]string{strconv.FormatUint(vals[i], 10)})
		require.NoError(t, err)
	}
	cols, err := plan.PackInputs(rows)
	require.NoError(t, err)
	for _, bad := range []int64{16, 300, 65536} {
		cols[len(cols)-1][0] = bad // decision 0's top digit, out of range
		refresh, _ := recordingRefresh(k)
		got := encrypted(t, plan, k, cols, eval.Options{Refresh: refresh})
		plain, err := plan.EvalPlain(cols)
		require.NoError(t, err)
		require.Equal(t, plain[0], got[0], "the crafted decision gets the plan over Z_t")
		for i := 1; i < n; i++ {
			want := int64(0)
			if vals[i] >= 3_000_000_000 {
				want = 1
			}
			require.Equal(t, want, got[i], "decision %d beside a crafted digit %d", i, bad)
		}
	}
}
