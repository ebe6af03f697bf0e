package policy

// Wide unsigned integers (uint8 … uint64) and comparisons over the whole
// range of a slot and beyond. One comparison polynomial tells at most
// 2^Budget values apart and a slot holds integers mod t = 65537, so the
// client encodes a wide input as base-16 digits (each digit one plan input
// "<name>.<i>", all carried in one vector input with one proof), and
// comparison, addition, subtraction inside a comparison, products by a
// constant and membership are built from polynomials of degree ≤ 30 over one
// digit and products (Iliashenko and Zucca, PoPETs 2021(3), Section 4). A
// digit ≥ 16 (the input proof does not bound the range) garbles only its own
// request's verdict. Derivation, costs and the choice of base 16:
// docs/derivations.md, "Wide integers".

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Digits of wide integers.
const (
	DigitBits = 4
	DigitBase = 1 << DigitBits
	// MaxWideDigits bounds the digits of any wide intermediate value
	// (sums and constant multiples grow): 128 bits.
	MaxWideDigits = 32
)

var wideTypes = map[string]int{"uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}

// wide is a wide unsigned integer Σ digits[i]·16^i.
type wide struct {
	digits []*val // little-endian; each a kConst, kLin or kUni value
	// normal: every digit is in [0, 15] (inputs, constants, normalised
	// sums); a sum's digits are in [0, 30] until normalised.
	normal bool
}

// wideBounds checks and completes a wide input's declaration.
func (in *InputDecl) wideBounds(item, maxNode *yaml.Node, haveMin, haveMax bool, field string) error {
	if haveMin && in.Min != 0 {
		return errAt(ErrRange, item.Line, item.Column, field+".min", "a %s input starts at 0 (min %d)", in.Type, in.Min)
	}
	top := uint64(1)<<in.Bits - 1
	if in.Bits == 64 {
		top = ^uint64(0)
	}
	switch {
	case !haveMax:
		in.UMax = top
	case in.UMax == 0 && in.Max < 0:
		return errAt(ErrRange, maxNode.Line, maxNode.Column, field+".max", "a %s input has max ≥ 0 (got %d)", in.Type, in.Max)
	case in.UMax == 0:
		in.UMax = uint64(in.Max)
	}
	if in.UMax > top {
		return errAt(ErrRange, maxNode.Line, maxNode.Column, field+".max", "%d does not fit %s", in.UMax, in.Type)
	}
	in.Min, in.Max = 0, int64(min(in.UMax, uint64(MaxAbs)))
	return nil
}

// WideDigits is the number of base-16 digits of a wide value ≤ umax.
func WideDigits(umax uint64) int {
	return max(1, (bits.Len64(umax)+DigitBits-1)/DigitBits)
}

// SplitDigits writes v as n base-16 digits, least significant first. It
// fails if v does not fit n digits.
func SplitDigits(v uint64, n int) ([]int64, error) {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(v & (DigitBase - 1))
		v >>= DigitBits
	}
	if v != 0 {
		return nil, fmt.Errorf("%w: value needs more than %d base-%d digits", ErrInput, n, DigitBase)
	}
	return out, nil
}

// input appends a plan input and its register.
func (c *compiler) input(in Input) int {
	r := len(c.ops)
	c.ops = append(c.ops, Op{Kind: OpInput, Input: len(c.inputs), Min: in.Min, Max: in.Max})
	c.regSet = append(c.regSet, interval(in.Min, in.Max))
	c.noise = append(c.noise, 1)
	c.class = append(c.class, 0)
	c.inputs = append(c.inputs, in)
	return r
}

// ScaleMatchNoise is the noise factor of adding two BGV ciphertexts of
// different scales. Lattigo's bgv Evaluator.Add multiplies the operands by
// r0, r1 with scale0·r0 = scale1·r1 (mod t), found by a lattice reduction
// that keeps |r0|, |r1| ≈ √t = 2^8 (matchScalesBinary); a chain of such
// additions compounds the factor. Fresh inputs and polynomials of them
// share the scale of the input (EvalPolyInts evaluates at the input's
// scale); every product and rescale has a scale of its own (divided by the
// prime it drops). Plans over wide integers track these classes: their
// digit trees add products of different histories at every level, and a
// five-class sum (2^32) decrypts to garbage at the refresh floor.
const ScaleMatchNoise = 1 << 8

// scaleClass is the BGV scale class of the register op will be: inputs 0,
// a polynomial its operand's, a sum of one class that class, anything else
// its own register index r.
func (c *compiler) scaleClass(op *Op, r int) int {
	switch op.Kind {
	case OpInput:
		return 0
	case OpPoly:
		return c.class[op.Args[0]]
	case OpLinear:
		if len(op.Args) > 0 && c.classes(op.Args) == 1 {
			return c.class[op.Args[0]]
		}
	}
	return r
}

// classes counts the distinct scale classes of regs.
func (c *compiler) classes(regs []int) int {
	seen := make(map[int]bool, len(regs))
	for _, a := range regs {
		seen[c.class[a]] = true
	}
	return len(seen)
}

// pin materialises v into one register in a plan over wide integers, so
// that a digit tree adds at most two scale classes at a time instead of
// flattening every level into one long mixed-scale sum.
// With rescale, a register whose noise exceeds NoiseBudget is rescaled
// right away (one level), before sums over it compound the noise further.
func (c *compiler) pin(v *val, rescale bool) (*val, error) {
	if !c.scaleAware || v.kind != kLin || len(v.lin.terms) < 2 {
		return v, nil
	}
	r, err := c.register(v.lin, v.set, false)
	if err != nil {
		return nil, err
	}
	if rescale && c.noise[r] > NoiseBudget {
		r = c.emit(Op{Kind: OpRescale, Args: []int{r}, Min: v.set.lo, Max: v.set.hi}, v.set)
	}
	out := *v
	out.lin = lin{terms: []term{{reg: r, w: 1}}}
	return &out, nil
}

// derived reports whether l sums a register that is not an input.
func (c *compiler) derived(l lin) bool {
	for _, t := range l.terms {
		if c.ops[t.reg].Kind != OpInput {
			return true
		}
	}
	return false
}

// pinRescaled materialises v into one register and rescales it (one level).
func (c *compiler) pinRescaled(v *val) (*val, error) {
	r, err := c.register(v.lin, v.set, false)
	if err != nil {
		return nil, err
	}
	r = c.emit(Op{Kind: OpRescale, Args: []int{r}, Min: v.set.lo, Max: v.set.hi}, v.set)
	out := *v
	out.lin = lin{terms: []term{{reg: r, w: 1}}}
	return &out, nil
}

// wideInput declares the digit inputs of a wide input: digit i in [0, 15],
// the top digit in [0, UMax's top digit].
func (c *compiler) wideInput(in InputDecl) (*val, error) {
	n := WideDigits(in.UMax)
	w := &wide{normal: true}
	for i := 0; i < n; i++ {
		hi := int64(DigitBase - 1)
		if i == n-1 {
			hi = int64(in.UMax >> (DigitBits * i))
		}
		r := c.input(Input{Name: in.Name + "." + strconv.Itoa(i), Min: 0, Max: hi, Of: in.Name, Digit: i})
		w.digits = append(w.digits, &val{kind: kLin, lin: lin{terms: []term{{reg: r, w: 1}}}, set: interval(0, hi)})
	}
	return wideVal(w), nil
}

func wideVal(w *wide) *val {
	return &val{kind: kWide, w: w, set: interval(0, MaxAbs)}
}

// wideConst is a constant as digits.
func wideConst(u uint64) *val {
	w := &wide{normal: true}
	for i := 0; i < WideDigits(u); i++ {
		w.digits = append(w.digits, constVal(int64(u>>(DigitBits*i)&(DigitBase-1)), false))
	}
	return wideVal(w)
}

// toWide views an operand of a wide operation as a wide integer: a wide
// value, or a non-negative constant.
func (c *compiler) toWide(n *node, v *val) (*wide, error) {
	switch {
	case v.kind == kWide:
		return v.w, nil
	case v.kind == kConst && v.c >= 0:
		return wideConst(uint64(v.c)).w, nil
	case v.kind == kConst:
		return nil, c.errNode(ErrRange, n, "a wide unsigned integer is compared or combined with a negative constant %d", v.c)
	}
	return nil, c.errNode(ErrType, n, "a wide unsigned integer combines only with constants and other wide integers (a one-slot value in [%d, %d] was given; declare it with a uint type)", v.set.lo, v.set.hi)
}

// constOf returns the value of a non-negative constant (one-slot or wide).
func constOf(v *val) (uint64, bool) {
	switch v.kind {
	case kConst:
		return uint64(v.c), v.c >= 0
	case kWide:
		if len(v.w.digits) > 64/DigitBits {
			return 0, false
		}
		var u uint64
		for i, d := range v.w.digits {
			if d.kind != kConst || d.c < 0 || d.c >= DigitBase {
				return 0, false
			}
			u |= uint64(d.c) << (DigitBits * i)
		}
		return u, true
	}
	return 0, false
}

// wideBinary compiles +, * and comparisons with a wide operand.
func (c *compiler) wideBinary(n *node, x, y *val) (*val, error) {
	switch n.op {
	case "+":
		a, err := c.toWide(n, x)
		if err != nil {
			return nil, err
		}
		b, err := c.toWide(n, y)
		if err != nil {
			return nil, err
		}
		return c.wideAdd(n, a, b)
	case "*":
		k, ok := constOf(x)
		if !ok {
			k, ok = constOf(y)
			x, y = y, x
		}
		if !ok {
			return nil, c.errNode(ErrType, n, "a wide unsigned integer can only be multiplied by a non-negative constant")
		}
		b, err := c.toWide(n, y)
		if err != nil {
			return nil, err
		}
		return c.wideMulConst(n, b, k)
	case "-":
		return nil, c.errNode(ErrType, n, "a wide unsigned integer is subtracted only directly in a comparison (a - b >= c is compiled as a >= b + c, exactly); outside one the difference could go negative")
	}
	a, err := c.toWide(n, x)
	if err != nil {
		return nil, err
	}
	b, err := c.toWide(n, y)
	if err != nil {
		return nil, err
	}
	return c.wideCompare(n, n.op, a, b)
}

// wideSub reports whether the sum n (a chain of + and −) subtracts a term
// that involves a wide value: the case a comparison compiles by moving the
// subtracted terms across (moveSubtrahends).
func (c *compiler) wideSub(n *node) bool {
	switch n.op {
	case "+":
		return c.wideSub(n.kids[0]) || c.wideSub(n.kids[1])
	case "-":
		return c.hasWide(n) || c.wideSub(n.kids[0])
	}
	return false
}

// hasWide reports whether n mentions a wide value (a wide input, constant
// or let, or a literal above MaxAbs).
func (c *compiler) hasWide(n *node) bool {
	switch n.op {
	case "uint":
		return true
	case "id":
		v, ok := c.env[n.name]
		return ok && v.kind == kWide
	}
	for _, k := range n.kids {
		if c.hasWide(k) {
			return true
		}
	}
	return false
}

// moveSubtrahends rewrites the comparison n = (L op R), L and R chains of +
// and −, as (L⁺ + R⁻) op (R⁺ + L⁻): every subtracted term moves to the
// other side, an exact rewrite over the integers (an empty side is 0).
func moveSubtrahends(n *node) *node {
	var left, right []*node
	var terms func(m *node, pos bool, own, other *[]*node)
	terms = func(m *node, pos bool, own, other *[]*node) {
		switch m.op {
		case "+":
			terms(m.kids[0], pos, own, other)
			terms(m.kids[1], pos, own, other)
		case "-":
			terms(m.kids[0], pos, own, other)
			terms(m.kids[1], !pos, own, other)
		default:
			if pos {
				*own = append(*own, m)
			} else {
				*other = append(*other, m)
			}
		}
	}
	terms(n.kids[0], true, &left, &right)
	terms(n.kids[1], true, &right, &left)
	sum := func(ts []*node) *node {
		if len(ts) == 0 {
			return &node{op: "int", col: n.col}
		}
		s := ts[0]
		for _, t := range ts[1:] {
			s = &node{op: "+", kids: []*node{s, t}, col: t.col}
		}
		return s
	}
	return &node{op: n.op, kids: []*node{sum(left), sum(right)}, col: n.col}
}

// lexPair is (L, E) of a run of digits: L = [x < y] and E = [x = y] on it
// (or, for carries, G = carry out and P = propagate).
type lexPair struct{ L, E *val }

// lexCombine is (L_h, E_h) ∘ (L_l, E_l) = (L_h + E_h·L_l, E_h·E_l): the run
// hi (more significant) followed by the run lo.
func (c *compiler) lexCombine(n *node, hi, lo lexPair) (lexPair, error) {
	m, err := c.mul(n, hi.E, lo.L)
	if err != nil {
		return lexPair{}, err
	}
	l, err := c.linear2(n, hi.L, m, 1)
	if err != nil {
		return lexPair{}, err
	}
	if l, err = c.pin(asBool(l), false); err != nil {
		return lexPair{}, err
	}
	e, err := c.mul(n, hi.E, lo.E)
	if err != nil {
		return lexPair{}, err
	}
	return lexPair{L: asBool(l), E: asBool(e)}, nil
}

// asBool marks a value known to be 0 or 1 as a boolean.
func asBool(v *val) *val {
	b := *v
	b.isBool = true
	if b.kind != kConst {
		b.set = interval(0, 1)
	}
	return &b
}

// digit returns digit i of w (constant 0 beyond its length).
func (w *wide) digit(i int) *val {
	if i < len(w.digits) {
		return w.digits[i]
	}
	return constVal(0, false)
}

// wideCompare compiles x op y lexicographically over the digits.
func (c *compiler) wideCompare(n *node, op string, x, y *wide) (*val, error) {
	var err error
	if x, err = c.normalize(n, x); err != nil {
		return nil, err
	}
	if y, err = c.normalize(n, y); err != nil {
		return nil, err
	}
	nd := max(len(x.digits), len(y.digits))
	// Most significant first.
	pairs := make([]lexPair, 0, nd)
	for i := nd - 1; i >= 0; i-- {
		d, err := c.linear2(n, x.digit(i), y.digit(i), -1)
		if err != nil {
			return nil, err
		}
		lt, err := c.apply(n, d, func(v int64) int64 { return b2i(v < 0) }, true)
		if err != nil {
			return nil, err
		}
		eq, err := c.apply(n, d, func(v int64) int64 { return b2i(v == 0) }, true)
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, lexPair{L: lt, E: eq})
	}
	for len(pairs) > 1 {
		next := make([]lexPair, 0, (len(pairs)+1)/2)
		for k := 0; k+1 < len(pairs); k += 2 {
			p, err := c.lexCombine(n, pairs[k], pairs[k+1])
			if err != nil {
				return nil, err
			}
			next = append(next, p)
		}
		if len(pairs)%2 == 1 {
			next = append(next, pairs[len(pairs)-1])
		}
		pairs = next
	}
	L, E := pairs[0].L, pairs[0].E
	var out *val
	switch op {
	case "<":
		out = L
	case "==":
		out = E
	case "<=":
		out, err = c.linear2(n, L, E, 1)
	case ">":
		if out, err = c.linear2(n, L, E, 1); err == nil {
			out, err = c.affine(n, out, -1, 1, true)
		}
	case ">=":
		out, err = c.affine(n, L, -1, 1, true)
	case "!=":
		out, err = c.affine(n, E, -1, 1, true)
	default:
		return nil, c.errNode(ErrSyntax, n, "unknown comparison %q", op)
	}
	if err != nil {
		return nil, err
	}
	return asBool(out), nil
}

// wideAdd returns x + y with unnormalised digit sums (normalize carries).
func (c *compiler) wideAdd(n *node, x, y *wide) (*val, error) {
	var err error
	if x, err = c.normalize(n, x); err != nil {
		return nil, err
	}
	if y, err = c.normalize(n, y); err != nil {
		return nil, err
	}
	nd := max(len(x.digits), len(y.digits))
	if nd+1 > MaxWideDigits {
		return nil, c.errNode(ErrRange, n, "the sum needs more than %d base-%d digits (%d bits)", MaxWideDigits, DigitBase, MaxWideDigits*DigitBits)
	}
	w := &wide{}
	for i := 0; i < nd; i++ {
		s, err := c.linear2(n, x.digit(i), y.digit(i), 1)
		if err != nil {
			return nil, err
		}
		w.digits = append(w.digits, s)
	}
	w.normal = true
	for _, d := range w.digits {
		if d.set.lo < 0 || d.set.hi >= DigitBase {
			w.normal = false
		}
	}
	return wideVal(w), nil
}

// normalize propagates the carries of a digit-sum vector (digits in
// [0, 30]) by carry look-ahead; the result has one more digit.
func (c *compiler) normalize(n *node, w *wide) (*wide, error) {
	if w.normal {
		return w, nil
	}
	nd := len(w.digits)
	gp := make([]lexPair, nd)
	digits := slices.Clone(w.digits)
	for i, s := range digits {
		if s.set.lo < 0 || s.set.hi > 2*(DigitBase-1) {
			return nil, c.errNode(ErrRange, n, "internal: digit sum in [%d, %d]", s.set.lo, s.set.hi)
		}
		// A sum of computed digits (constant multiples' low and high
		// digits, normalised digits) is rescaled once before its carry
		// polynomials: behind a refresh those digits carry the refresh's
		// noise, which every polynomial on them would pass on to its own
		// refresh points (the committee's noise model counts it).
		if s.kind == kLin && c.derived(s.lin) {
			var err error
			if s, err = c.pinRescaled(s); err != nil {
				return nil, err
			}
			digits[i] = s
		}
		g, err := c.apply(n, s, func(v int64) int64 { return b2i(v >= DigitBase) }, true)
		if err != nil {
			return nil, err
		}
		p, err := c.apply(n, s, func(v int64) int64 { return b2i(v == DigitBase-1) }, true)
		if err != nil {
			return nil, err
		}
		gp[i] = lexPair{L: g, E: p}
	}
	// pre[i] = (G, P) over digits [0, i]: G is the carry out of digit i.
	pre, err := c.prefix(n, gp)
	if err != nil {
		return nil, err
	}
	out := &wide{normal: true}
	carryIn := constVal(0, true)
	for i, s := range digits {
		carryOut := pre[i].L
		if carryOut.kind == kLin && c.derived(carryOut.lin) {
			// The digit below weighs the carry by 16: rescaled first, so
			// that a carry behind a refresh does not bring 16× the
			// refresh's noise into the digit's own refresh point.
			if carryOut, err = c.pinRescaled(carryOut); err != nil {
				return nil, err
			}
		}
		d, err := c.linear2(n, s, carryIn, 1)
		if err != nil {
			return nil, err
		}
		sc, err := c.affine(n, carryOut, DigitBase, 0, false)
		if err != nil {
			return nil, err
		}
		if d, err = c.linear2(n, d, sc, -1); err != nil {
			return nil, err
		}
		// The digit is in [0, 15] (interval analysis, which forgets that
		// the carry out is 1 only when s + carry in ≥ 16, cannot see it).
		if d.kind != kConst {
			dd := *d
			dd.set = interval(0, DigitBase-1)
			if d, err = c.pin(&dd, true); err != nil {
				return nil, err
			}
		}
		out.digits = append(out.digits, d)
		carryIn = carryOut
	}
	out.digits = append(out.digits, carryIn)
	return out, nil
}

// prefix returns, for every i, the combination of gp[i] ∘ … ∘ gp[0]
// (Sklansky's parallel prefix: ⌈log2 n⌉ product levels).
func (c *compiler) prefix(n *node, gp []lexPair) ([]lexPair, error) {
	if len(gp) == 1 {
		return gp, nil
	}
	mid := len(gp) / 2
	lo, err := c.prefix(n, gp[:mid])
	if err != nil {
		return nil, err
	}
	hi, err := c.prefix(n, gp[mid:])
	if err != nil {
		return nil, err
	}
	last := lo[len(lo)-1]
	out := slices.Clone(lo)
	for _, h := range hi {
		p, err := c.lexCombine(n, h, last)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// shift multiplies w by 16^k.
func (w *wide) shift(k int) *wide {
	out := &wide{normal: w.normal}
	for i := 0; i < k; i++ {
		out.digits = append(out.digits, constVal(0, false))
	}
	out.digits = append(out.digits, w.digits...)
	return out
}

// wideMulConst returns k·x as a sum of shifted nibble products.
func (c *compiler) wideMulConst(n *node, x *wide, k uint64) (*val, error) {
	x, err := c.normalize(n, x)
	if err != nil {
		return nil, err
	}
	if len(x.digits)+WideDigits(k) > MaxWideDigits {
		return nil, c.errNode(ErrRange, n, "the product needs more than %d base-%d digits (%d bits)", MaxWideDigits, DigitBase, MaxWideDigits*DigitBits)
	}
	var acc *wide
	for j := 0; k>>(DigitBits*j) != 0; j++ {
		kj := int64(k >> (DigitBits * j) & (DigitBase - 1))
		if kj == 0 {
			continue
		}
		var part *wide
		if kj == 1 {
			part = x
		} else {
			lo, hi := &wide{normal: true}, &wide{normal: true}
			for _, d := range x.digits {
				l, err := c.apply(n, d, func(v int64) int64 { return (kj * v) % DigitBase }, false)
				if err != nil {
					return nil, err
				}
				h, err := c.apply(n, d, func(v int64) int64 { return (kj * v) / DigitBase }, false)
				if err != nil {
					return nil, err
				}
				lo.digits = append(lo.digits, l)
				hi.digits = append(hi.digits, h)
			}
			s, err := c.wideAdd(n, lo, hi.shift(1))
			if err != nil {
				return nil, err
			}
			part = s.w
		}
		part = part.shift(j)
		if acc == nil {
			acc = part
			continue
		}
		s, err := c.wideAdd(n, acc, part)
		if err != nil {
			return nil, err
		}
		acc = s.w
	}
	if acc == nil {
		return constVal(0, false), nil
	}
	return wideVal(acc), nil
}

// wideMember compiles x ∈ S (want) or x ∉ S for a wide x of at most 16 bits
// (see the package comment: vanishing polynomial in chunks, then Fermat).
func (c *compiler) wideMember(n *node, xv *val, set []int64, want bool) (*val, error) {
	x, err := c.normalize(n, xv.w)
	if err != nil {
		return nil, err
	}
	// Drop constant-zero top digits.
	nd := len(x.digits)
	for nd > 1 && x.digits[nd-1].kind == kConst && x.digits[nd-1].c == 0 {
		nd--
	}
	if nd > 16/DigitBits {
		return nil, c.errNode(ErrTooDeep, n, "membership of a wide integer needs at most 16 bits (it has %d base-%d digits); compare it instead", nd, DigitBase)
	}
	// v = Σ x_i·16^i and its largest value.
	var l lin
	var hi int64
	for i := 0; i < nd; i++ {
		d := x.digits[i]
		dl, err := c.materialize(d)
		if err != nil {
			return nil, err
		}
		l = addLin(l, lin{c: dl.c << (DigitBits * i), terms: scaleTerms(dl.terms, 1<<(DigitBits*i))}, 1)
		hi += d.set.hi << (DigitBits * i)
	}
	seen := map[int64]bool{}
	var roots []int64
	for _, s := range set {
		if s >= 0 && s <= hi && !seen[s] {
			seen[s] = true
			roots = append(roots, s)
		}
	}
	slices.Sort(roots)
	c.charge(int64(len(set)))
	if len(roots) == 0 {
		return constVal(b2i(!want), true), nil
	}
	if len(l.terms) == 0 {
		return constVal(b2i(seen[l.c] == want), true), nil
	}
	vreg, err := c.register(l, interval(0, hi), false)
	if err != nil {
		return nil, err
	}
	// Chunks of the vanishing polynomial, each of degree ≤ 2^(Budget−1) − 1
	// (127 on BGVN14): v's rescale (its weights multiply the digits' noise
	// by up to 4369) and a chunk then fit one budget, so v is never a
	// refresh point, and every chunk starts from a rescaled, low-noise v.
	full := interval(-HalfT, HalfT)
	chunk := max(1, (c.maxDeg+1)/2-1)
	var chunks []*val
	for k := 0; k < len(roots); k += chunk {
		rs := roots[k:min(k+chunk, len(roots))]
		c.charge(int64(len(rs)) * int64(len(rs)))
		if err := c.overBudget(n); err != nil {
			return nil, err
		}
		coeffs := []uint64{1}
		for _, s := range rs { // multiply by (X − s)
			next := make([]uint64, len(coeffs)+1)
			neg := modT(-s)
			for i, a := range coeffs {
				next[i+1] = (next[i+1] + a) % PlaintextModulus
				next[i] = (next[i] + mulMod(a, neg)) % PlaintextModulus
			}
			coeffs = next
		}
		op := Op{Kind: OpPoly, Args: []int{vreg}, Coeffs: make([]int64, len(coeffs)), Min: full.lo, Max: full.hi}
		for i, a := range coeffs {
			op.Coeffs[i] = int64(a)
		}
		var r int
		if len(coeffs) == 2 { // degree 1: v − s, no polynomial
			if r, err = c.register(lin{c: centred(coeffs[0]), terms: []term{{reg: vreg, w: 1}}}, full, true); err != nil {
				return nil, err
			}
		} else {
			r = c.emit(op, full)
		}
		chunks = append(chunks, &val{kind: kLin, lin: lin{terms: []term{{reg: r, w: 1}}}, set: full})
	}
	z := chunks[0].lin.terms[0].reg
	if len(chunks) > 1 {
		if z, err = c.product(n, chunks, full); err != nil {
			return nil, err
		}
	}
	// z^(t−1) = z^65536: 16 squarings.
	for i := 0; i < bits.Len64(PlaintextModulus-1)-1; i++ {
		z = c.emit(Op{Kind: OpMul, Args: []int{z, z}, Min: full.lo, Max: full.hi}, full)
	}
	notIn := &val{kind: kLin, isBool: true, lin: lin{terms: []term{{reg: z, w: 1}}}, set: interval(0, 1)}
	if !want {
		return notIn, nil
	}
	return c.affine(n, notIn, -1, 1, true)
}

func scaleTerms(ts []term, w int64) []term {
	out := make([]term, len(ts))
	for i, t := range ts {
		out[i] = term{reg: t.reg, w: t.w * w}
	}
	return out
}

// Declared is a policy input as the document declares it: a one-slot
// integer, or a wide unsigned integer carried as Digits plan inputs
// starting at First.
type Declared struct {
	Name     string
	Type     string // "" (one slot) or uint8 … uint64
	Min, Max int64  // one-slot inputs
	UMax     uint64 // wide inputs
	First    int    // index of its (first) plan input
	Digits   int    // plan inputs it takes (1 for a one-slot input)
}

// Declared lists the document's inputs in order, with their plan inputs.
func (p *Plan) Declared() []Declared {
	var out []Declared
	for j := 0; j < len(p.Inputs); {
		in := p.Inputs[j]
		if in.Of == "" {
			out = append(out, Declared{Name: in.Name, Min: in.Min, Max: in.Max, First: j, Digits: 1})
			j++
			continue
		}
		d := Declared{Name: in.Of, First: j}
		for j < len(p.Inputs) && p.Inputs[j].Of == in.Of {
			j++
			d.Digits++
		}
		if p.spec != nil {
			for _, s := range p.spec.Inputs {
				if s.Name == d.Name {
					d.Type, d.UMax = s.Type, s.UMax
				}
			}
		}
		d.Max = int64(min(d.UMax, uint64(MaxAbs)))
		out = append(out, d)
	}
	return out
}

// DecisionRow turns one decision given per declared input (decimal
// strings, in declaration order) into the plan's input row: a one-slot
// input as is, a wide input split into its base-16 digits. Values outside
// the declared range are refused.
func (p *Plan) DecisionRow(values []string) ([]int64, error) {
	decl := p.Declared()
	if len(values) != len(decl) {
		return nil, fmt.Errorf("%w: %d values, policy %q declares %d inputs", ErrInput, len(values), p.Name, len(decl))
	}
	row := make([]int64, len(p.Inputs))
	for k, d := range decl {
		s := strings.TrimSpace(values[k])
		if d.Type == "" {
			x, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrInput, d.Name, err)
			}
			if x < d.Min || x > d.Max {
				return nil, fmt.Errorf("%w: %s = %d outside [%d, %d]", ErrInput, d.Name, x, d.Min, d.Max)
			}
			row[d.First] = x
			continue
		}
		u, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrInput, d.Name, err)
		}
		if u > d.UMax {
			return nil, fmt.Errorf("%w: %s = %d above its max %d", ErrInput, d.Name, u, d.UMax)
		}
		digits, err := SplitDigits(u, d.Digits)
		if err != nil {
			return nil, err
		}
		copy(row[d.First:], digits)
	}
	return row, nil
}

// DeclaredValues is DecisionRow's inverse: the declared inputs' values of
// one plan input row, wide ones recombined from their digits (as decimal
// strings: a uint64 exceeds int64).
func (p *Plan) DeclaredValues(row []int64) ([]string, error) {
	if len(row) != len(p.Inputs) {
		return nil, fmt.Errorf("%w: %d values, plan %q has %d inputs", ErrInput, len(row), p.Name, len(p.Inputs))
	}
	var out []string
	for _, d := range p.Declared() {
		if d.Type == "" {
			out = append(out, strconv.FormatInt(row[d.First], 10))
			continue
		}
		var v uint64
		for i := d.Digits - 1; i >= 0; i-- {
			x := row[d.First+i]
			if x < 0 || x >= DigitBase {
				return nil, fmt.Errorf("%w: %s digit %d = %d outside [0, %d]", ErrInput, d.Name, i, x, DigitBase-1)
			}
			v = v<<DigitBits | uint64(x)
		}
		out = append(out, strconv.FormatUint(v, 10))
	}
	return out, nil
}
