package policy

import (
	"math/bits"
	"slices"
)

// Arithmetic constants of the BGV plaintext space every preset uses.
const (
	// PlaintextModulus is t: slots hold integers mod 65537.
	PlaintextModulus = 65537
	// HalfT bounds centred representatives: outputs decode into [−32768, 32768].
	HalfT = 32768
	// maxDomain bounds the value sets the compiler tabulates (fused
	// comparisons, memberships); larger domains cannot be interpolated at a
	// depth any preset offers anyway.
	maxDomain = 4096
	// maxEnum bounds the pairs enumerated when adding/multiplying value sets.
	maxEnum = 1 << 18
)

// vset is a superset of the values an expression can take: an interval,
// optionally refined by a bitset (bit i ⇔ lo+i is possible). All bounds stay
// within ±MaxAbs.
type vset struct {
	lo, hi int64
	bits   []uint64 // nil: every integer of [lo, hi]; only when hi−lo ≤ 65536
}

func interval(lo, hi int64) vset { return vset{lo: lo, hi: hi} }

func single(v int64) vset { return vset{lo: v, hi: v} }

// small reports whether the values are distinct modulo t.
func (s vset) small() bool { return s.hi-s.lo < PlaintextModulus }

func (s vset) has(v int64) bool {
	if v < s.lo || v > s.hi {
		return false
	}
	if s.bits == nil {
		return true
	}
	i := v - s.lo
	return s.bits[i>>6]>>(i&63)&1 == 1
}

func (s vset) count() int64 {
	if s.bits == nil {
		return s.hi - s.lo + 1
	}
	n := 0
	for _, w := range s.bits {
		n += bits.OnesCount64(w)
	}
	return int64(n)
}

// elems lists the values in increasing order (only for small sets).
func (s vset) elems() []int64 {
	out := make([]int64, 0, min(s.count(), maxDomain+1))
	for v := s.lo; v <= s.hi; v++ {
		if s.has(v) {
			out = append(out, v)
		}
	}
	return out
}

// fromValues builds the set of the given values (any order, duplicates allowed).
func fromValues(vals []int64) vset {
	lo, hi := slices.Min(vals), slices.Max(vals)
	if hi-lo > HalfT*2 {
		return interval(lo, hi)
	}
	s := vset{lo: lo, hi: hi, bits: make([]uint64, (hi-lo)/64+1)}
	for _, v := range vals {
		i := v - lo
		s.bits[i>>6] |= 1 << (i & 63)
	}
	if s.count() == hi-lo+1 {
		s.bits = nil
	}
	return s
}

func inRange(v int64) bool { return v >= -MaxAbs && v <= MaxAbs }

// mulChecked multiplies within ±MaxAbs.
func mulChecked(a, b int64) (int64, bool) {
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = uint64(-a)
	}
	if b < 0 {
		ub = uint64(-b)
	}
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 || lo > uint64(MaxAbs) {
		return 0, false
	}
	if (a < 0) != (b < 0) {
		return -int64(lo), true
	}
	return int64(lo), true
}

// combine applies f to every pair (a, b) of A × B when that is cheap, else
// returns the interval spanned by the four corners (f must be monotone in
// each argument on intervals, as + and × are piecewise).
func combine(A, B vset, f func(a, b int64) (int64, bool)) (vset, bool) {
	if A.small() && B.small() && A.count()*B.count() <= maxEnum {
		ea, eb := A.elems(), B.elems()
		vals := make([]int64, 0, len(ea)*len(eb))
		for _, a := range ea {
			for _, b := range eb {
				v, ok := f(a, b)
				if !ok {
					return vset{}, false
				}
				vals = append(vals, v)
			}
		}
		return fromValues(vals), true
	}
	var corners []int64
	for _, a := range []int64{A.lo, A.hi} {
		for _, b := range []int64{B.lo, B.hi} {
			v, ok := f(a, b)
			if !ok {
				return vset{}, false
			}
			corners = append(corners, v)
		}
	}
	return interval(slices.Min(corners), slices.Max(corners)), true
}

func addSets(A, B vset) (vset, bool) {
	return combine(A, B, func(a, b int64) (int64, bool) { v := a + b; return v, inRange(v) })
}

func mulSets(A, B vset) (vset, bool) { return combine(A, B, mulChecked) }

func scaleSet(A vset, w, c int64) (vset, bool) {
	return combine(A, single(w), func(a, b int64) (int64, bool) {
		v, ok := mulChecked(a, b)
		v += c
		return v, ok && inRange(v)
	})
}

// modT reduces v into [0, t).
func modT(v int64) uint64 {
	v %= PlaintextModulus
	if v < 0 {
		v += PlaintextModulus
	}
	return uint64(v)
}

// centred maps x ∈ [0, t) to its representative in [−32768, 32768].
func centred(x uint64) int64 {
	if x > HalfT {
		return int64(x) - PlaintextModulus
	}
	return int64(x)
}

func mulMod(a, b uint64) uint64 { return a * b % PlaintextModulus }

func powMod(a, e uint64) uint64 {
	r := uint64(1)
	for a %= PlaintextModulus; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = mulMod(r, a)
		}
		a = mulMod(a, a)
	}
	return r
}

func invMod(a uint64) uint64 { return powMod(a, PlaintextModulus-2) }

// interpolate returns the monomial coefficients (mod t, low → high, trailing
// zeros trimmed, at least one) of the unique polynomial of degree < len(xs)
// with p(xs[i]) = ys[i] mod t. The xs must be distinct mod t.
func interpolate(xs, ys []int64) []uint64 {
	n := len(xs)
	X := make([]uint64, n)
	for i, x := range xs {
		X[i] = modT(x)
	}
	// M(x) = Π (x − X_i), degree n, coefficients low → high.
	M := make([]uint64, n+1)
	M[0] = 1
	for i := 0; i < n; i++ {
		neg := PlaintextModulus - X[i]
		for k := i + 1; k >= 1; k-- {
			M[k] = (M[k-1] + mulMod(M[k], neg)) % PlaintextModulus
		}
		M[0] = mulMod(M[0], neg)
	}
	out := make([]uint64, n)
	q := make([]uint64, n)
	for i := 0; i < n; i++ {
		y := modT(ys[i])
		if y == 0 {
			continue
		}
		// q = M / (x − X_i) by synthetic division; then q(X_i) = Π_{j≠i}(X_i − X_j).
		q[n-1] = M[n]
		for k := n - 1; k >= 1; k-- {
			q[k-1] = (M[k] + mulMod(q[k], X[i])) % PlaintextModulus
		}
		var qx uint64
		for k := n - 1; k >= 0; k-- {
			qx = (mulMod(qx, X[i]) + q[k]) % PlaintextModulus
		}
		s := mulMod(y, invMod(qx))
		for k := 0; k < n; k++ {
			out[k] = (out[k] + mulMod(s, q[k])) % PlaintextModulus
		}
	}
	for len(out) > 1 && out[len(out)-1] == 0 {
		out = out[:len(out)-1]
	}
	return out
}

// evalPoly evaluates Σ c_k x^k mod t (Horner).
func evalPoly(c []uint64, x uint64) uint64 {
	var r uint64
	for k := len(c) - 1; k >= 0; k-- {
		r = (mulMod(r, x) + c[k]) % PlaintextModulus
	}
	return r
}
