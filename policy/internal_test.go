package policy

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestInterpolate(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 3, 17, 128, 300} {
		xs := make([]int64, n)
		ys := make([]int64, n)
		seen := map[int64]bool{}
		for i := range xs {
			for {
				xs[i] = r.Int64N(2*HalfT) - HalfT
				if !seen[xs[i]] {
					seen[xs[i]] = true
					break
				}
			}
			ys[i] = r.Int64N(PlaintextModulus)
		}
		c := interpolate(xs, ys)
		require.LessOrEqual(t, len(c), n)
		for i := range xs {
			require.Equal(t, modT(ys[i]), evalPoly(c, modT(xs[i])))
		}
	}
	// A step function over 0..127 has degree ≤ 127; a line has degree 1.
	xs := make([]int64, 128)
	step := make([]int64, 128)
	line := make([]int64, 128)
	for i := range xs {
		xs[i] = int64(i)
		step[i] = b2i(i >= 18)
		line[i] = 3*int64(i) - 5
	}
	require.LessOrEqual(t, len(interpolate(xs, step)), 128)
	require.Equal(t, []uint64{modT(-5), 3}, interpolate(xs, line))
}

func TestVset(t *testing.T) {
	t.Parallel()
	a := interval(0, 3)
	b := fromValues([]int64{0, 10})
	s, ok := addSets(a, b)
	require.True(t, ok)
	require.Equal(t, []int64{0, 1, 2, 3, 10, 11, 12, 13}, s.elems())
	m, ok := mulSets(interval(-2, 2), interval(-2, 2))
	require.True(t, ok)
	require.Equal(t, []int64{-4, -2, -1, 0, 1, 2, 4}, m.elems())
	w, ok := scaleSet(interval(0, 3), -2, 1)
	require.True(t, ok)
	require.Equal(t, []int64{-5, -3, -1, 1}, w.elems())
	_, ok = mulSets(single(MaxAbs), single(2))
	require.False(t, ok)
	big, ok := addSets(interval(0, 60000), interval(0, 60000))
	require.True(t, ok)
	require.False(t, big.small())
	require.Equal(t, int64(-1), centred(PlaintextModulus-1))
	require.Equal(t, int64(HalfT), centred(HalfT))
	require.Equal(t, uint64(1), mulMod(invMod(12345), 12345))
}

func TestParseExpr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ src, want string }{
		{"1 + 2 * 3", "(+ 1 (* 2 3))"},
		{"a - b - c", "(- (- a b) c)"},
		{"-a * b", "(* (neg a) b)"},
		{"a >= 1 && b < 2 || c", "(|| (&& (>= a 1) (< b 2)) c)"},
		{"a and not b or c", "(|| (&& a (not b)) c)"},
		{"!a == 1", "(not (== a 1))"},
		{"x not in {1, 3..5}", "(notin x {1 3 4 5})"},
		{"x in s", "(in x s)"},
		{"if(a, b, c + 1)", "(if a b (+ c 1))"},
		{"true || false", "(|| true false)"},
	} {
		n, err := parseExpr(tc.src)
		require.NoError(t, err, tc.src)
		require.Equal(t, tc.want, show(n), tc.src)
	}
	for _, bad := range []string{"", "1 +", "(a", "a b", "x in", "x in {1,", "x in {3..1}", "if(a, b)", "a # b", "99999999999999999999", "and"} {
		_, err := parseExpr(bad)
		require.Error(t, err, bad)
	}
}

func show(n *node) string {
	switch n.op {
	case "int":
		return itoa(n.val)
	case "bool":
		if n.val == 1 {
			return "true"
		}
		return "false"
	case "id":
		return n.name
	}
	s := "(" + n.op
	for _, k := range n.kids {
		s += " " + show(k)
	}
	if n.op == "in" || n.op == "notin" {
		if n.set != nil {
			s += " {"
			for i, v := range n.set {
				if i > 0 {
					s += " "
				}
				s += itoa(v)
			}
			s += "}"
		} else {
			s += " " + n.name
		}
	}
	return s + ")"
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// PolyCtCt stays close to the Paterson–Stockmeyer bound √(2d) + log2 d.
func TestPolyCtCt(t *testing.T) {
	t.Parallel()
	require.Zero(t, PolyCtCt(1))
	prev := 0
	for d := 2; d <= 511; d++ {
		c := PolyCtCt(d)
		require.GreaterOrEqual(t, c, prev-2, "degree %d", d)
		require.LessOrEqual(t, c, 3*depthOf(d)+2*isqrt(d)+4, "degree %d", d)
		prev = c
	}
}

func isqrt(d int) int {
	r := 0
	for (r+1)*(r+1) <= d {
		r++
	}
	return r
}
