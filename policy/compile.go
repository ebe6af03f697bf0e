package policy

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Options select the target of a compilation. The zero value means "auto":
// the smallest public preset whose depth fits, else BGVN14 with refreshes.
type Options struct {
	// Preset forces a preset id (an fhe.PresetID as a plain uint8). With
	// Depth > 0 the target is spelled out for any preset, public or not:
	// Depth (the levels of a fresh ciphertext), Slots and RefreshFloor (the
	// lowest level a collective refresh has room at; 0 allows refreshes at
	// level 0) — policy/eval.CompileOptions derives them from the preset's
	// parameters. With Depth = 0 a public preset takes its row of Presets;
	// a preset that is not one of Presets (e.g. an fhetest insecure preset)
	// needs them.
	Preset       uint8
	Depth        int
	Slots        int
	RefreshFloor int
	// Top is the level the plan's inputs start at, when below Depth (0:
	// Depth): packed batches rescale every refreshed input once, so their
	// plans get Top = Depth − 1 (policy/eval.PackedPlan). The plan's levels
	// between refreshes are Top − RefreshFloor; PresetDepth stays Depth.
	Top int
}

// Compile parses and compiles a policy document for the automatically chosen
// preset (or the one named in the document's "preset" field).
func Compile(doc []byte) (*Plan, error) { return CompileWith(doc, Options{}) }

// CompileWith is Compile with an explicit target.
func CompileWith(doc []byte, opt Options) (*Plan, error) {
	spec, err := ParseSpec(doc)
	if err != nil {
		return nil, err
	}
	return spec.Compile(opt)
}

// value kinds during compilation.
const (
	kConst = iota
	kLin
	kUni
	kWide // a wide unsigned integer: base-16 digits (wide.go)
)

type term struct {
	reg int
	w   int64
}

// lin is c + Σ w·reg over registers (sorted by reg, w ≠ 0).
type lin struct {
	terms []term
	c     int64
}

func (l lin) key() string {
	var b strings.Builder
	for _, t := range l.terms {
		fmt.Fprintf(&b, "%d*r%d+", t.w, t.reg)
	}
	return b.String()
}

// val is a compiled expression.
//   - kConst: a public constant c.
//   - kLin: an affine form over registers (free to evaluate: no level).
//   - kUni: a function of one base affine form, given by its table on the
//     base's value set; materialised as one interpolation polynomial. Every
//     comparison, membership and boolean combination over the same base fuses
//     into one table, so it costs one polynomial.
type val struct {
	isBool bool
	kind   int
	c      int64
	lin    lin
	set    vset // values this expression can take (superset)
	// kUni
	base  lin // no constant; a single-term base is a bare register
	bvals []int64
	table []int64
	// kWide
	w *wide
}

type compiler struct {
	spec   *Spec
	inputs []Input // plan inputs: one per narrow input, one per digit of a wide one
	ops    []Op
	regSet []vset
	noise  []int64 // noise growth factor of each register (1 = fresh or just rescaled)
	// scaleAware (plans over wide integers): registers carry a BGV scale
	// class (class), and a weighted sum over several classes counts
	// ScaleMatchNoise per extra class (see ScaleMatchNoise).
	scaleAware bool
	class      []int
	cse        map[string]int
	env        map[string]*val
	sets       map[string][]int64
	// narrow is the declaration of each one-slot input by its register
	// (what a degree error suggests declaring as a wide integer instead).
	narrow map[int]InputDecl
	field  string
	line   int
	col    int
	maxDeg int
	work   int64 // deterministic work units spent (value-set pairs, table entries, interpolation steps)
}

// MaxCompileWork bounds the work Compile may do on one document, in
// deterministic units (one value-set pair enumerated, one table entry, one
// modular multiply-add of interpolation). It keeps the worst-case compile
// time of an adversarial document (the on-chain registry compiles) to a
// fixed budget: see BenchmarkCompileWorstCase.
const MaxCompileWork = 1 << 23

func (c *compiler) charge(n int64) { c.work += n }

func (c *compiler) overBudget(n *node) error {
	if c.work > MaxCompileWork {
		return c.errNode(ErrSchema, n, "the policy is too complex to compile (more than %d work units); simplify it or narrow the ranges", MaxCompileWork)
	}
	return nil
}

func pairCost(A, B vset) int64 {
	if A.small() && B.small() {
		return min(A.count()*B.count(), maxEnum)
	}
	return 4
}

// Compile compiles a parsed spec.
func (s *Spec) Compile(opt Options) (*Plan, error) {
	target, err := s.target(opt)
	if err != nil {
		return nil, err
	}
	c := &compiler{spec: s, cse: map[string]int{}, env: map[string]*val{}, sets: map[string][]int64{}, maxDeg: 1<<target.budget() - 1}
	for _, in := range s.Inputs {
		c.scaleAware = c.scaleAware || in.Wide()
	}
	declared := map[string]string{}
	declare := func(name, what string, line int, field string) error {
		if prev, dup := declared[name]; dup {
			return errAt(ErrSchema, line, 0, field, "%q already declared as %s", name, prev)
		}
		declared[name] = what
		return nil
	}
	for i, in := range s.Inputs {
		if err := declare(in.Name, "an input", in.line, fmt.Sprintf("inputs[%d].name", i)); err != nil {
			return nil, err
		}
		if in.Wide() {
			v, err := c.wideInput(in)
			if err != nil {
				return nil, err
			}
			c.env[in.Name] = v
			continue
		}
		r := c.input(Input{Name: in.Name, Min: in.Min, Max: in.Max})
		if c.narrow == nil {
			c.narrow = map[int]InputDecl{}
		}
		c.narrow[r] = in
		c.env[in.Name] = &val{kind: kLin, lin: lin{terms: []term{{reg: r, w: 1}}}, set: c.regSet[r]}
	}
	if len(c.inputs) > MaxInputs {
		return nil, errAt(ErrSchema, 0, 0, "inputs", "the inputs take %d slots (wide integers take one per base-%d digit), limit %d", len(c.inputs), DigitBase, MaxInputs)
	}
	for _, k := range s.Constants {
		if err := declare(k.Name, "a constant", k.line, "constants."+k.Name); err != nil {
			return nil, err
		}
		switch {
		case k.Set != nil:
			c.sets[k.Name] = k.Set
		case k.Big:
			c.env[k.Name] = wideConst(k.U)
		default:
			c.env[k.Name] = constVal(k.Value, false)
		}
	}
	for i, l := range s.Lets {
		field := fmt.Sprintf("let[%d].expr", i)
		if err := declare(l.Name, "a let", l.line, fmt.Sprintf("let[%d].name", i)); err != nil {
			return nil, err
		}
		v, err := c.compileSource(l.Expr, field, l.line, l.col)
		if err != nil {
			return nil, err
		}
		c.env[l.Name] = v
	}
	o := s.Output
	out, err := c.compileSource(o.Expr, "output.expr", o.line, o.col)
	if err != nil {
		return nil, err
	}
	if o.Type == "bool" && !out.isBool {
		return nil, errAt(ErrType, o.line, o.col, "output.expr", "output type bool, but the expression is an integer (compare it, e.g. score >= 10)")
	}
	lo, hi := int64(0), int64(1)
	if o.Type == "score" {
		lo, hi = o.Min, o.Max
	}
	if out.set.lo < lo || out.set.hi > hi {
		return nil, errAt(ErrRange, o.line, o.col, "output", "the expression ranges over [%d, %d], outside the declared [%d, %d]", out.set.lo, out.set.hi, lo, hi)
	}
	l, err := c.materialize(out)
	if err != nil {
		return nil, err
	}
	result, err := c.register(l, out.set, true)
	if err != nil {
		return nil, err
	}
	return c.finish(target, result, lo, hi)
}

func constVal(v int64, isBool bool) *val {
	return &val{kind: kConst, c: v, isBool: isBool, set: single(v), lin: lin{c: v}}
}

func (c *compiler) compileSource(src, field string, line, col int) (*val, error) {
	c.field, c.line, c.col = field, line, col
	n, err := parseExpr(src)
	if err != nil {
		var pe *exprErr
		if errors.As(err, &pe) {
			return nil, c.errAtCol(pe.kind, pe.col, "%s", pe.msg)
		}
		return nil, err
	}
	return c.expr(n)
}

func (c *compiler) errAtCol(kind error, col int, format string, args ...any) *Error {
	e := errAt(kind, c.line, 0, c.field, format, args...)
	if c.col > 0 && col > 0 {
		e.Col = c.col + col - 1
	}
	return e
}

func (c *compiler) errNode(kind error, n *node, format string, args ...any) *Error {
	return c.errAtCol(kind, n.col, format, args...)
}

// expr compiles n: it dispatches on the operator to the helpers below, each
// of which compiles its operands left to right.
func (c *compiler) expr(n *node) (*val, error) {
	if err := c.overBudget(n); err != nil {
		return nil, err
	}
	switch n.op {
	case "int":
		return constVal(n.val, false), nil
	case "uint":
		return wideConst(n.u), nil
	case "bool":
		return constVal(n.val, true), nil
	case "id":
		return c.ident(n)
	case "neg", "not":
		return c.unary(n)
	case "+", "-", "*", "==", "!=", "<", "<=", ">", ">=":
		return c.binary(n)
	case "in", "notin":
		return c.membership(n)
	case "&&", "||":
		return c.logical(n)
	case "if":
		return c.ifExpr(n)
	}
	return nil, c.errNode(ErrSyntax, n, "unknown operator %q", n.op)
}

// ident resolves a name to an input, constant or earlier let.
func (c *compiler) ident(n *node) (*val, error) {
	if v, ok := c.env[n.name]; ok {
		return v, nil
	}
	if _, ok := c.sets[n.name]; ok {
		return nil, c.errNode(ErrType, n, "%q is a set; use it with in", n.name)
	}
	return nil, c.errNode(ErrUndeclared, n, "%q is not a declared input, constant or earlier let", n.name)
}

// unary compiles -x (an integer) and !x (a boolean) as affine maps.
func (c *compiler) unary(n *node) (*val, error) {
	if n.op == "not" {
		x, err := c.boolOperand(n.kids[0])
		if err != nil {
			return nil, err
		}
		return c.affine(n, x, -1, 1, true)
	}
	x, err := c.expr(n.kids[0])
	if err != nil {
		return nil, err
	}
	if x.kind == kWide {
		return nil, c.errNode(ErrType, n, "a wide unsigned integer cannot be negated")
	}
	return c.affine(n, x, -1, 0, false)
}

// binary compiles arithmetic and comparisons. Booleans are promoted to the
// integers 0/1 in arithmetic.
func (c *compiler) binary(n *node) (*val, error) {
	if _, cmp := cmpSign[n.op]; cmp && (c.wideSub(n.kids[0]) || c.wideSub(n.kids[1])) {
		n = moveSubtrahends(n) // wide.go: a − b op c ⇔ a op b + c, exactly
	}
	x, err := c.expr(n.kids[0])
	if err != nil {
		return nil, err
	}
	y, err := c.expr(n.kids[1])
	if err != nil {
		return nil, err
	}
	if x.kind == kWide || y.kind == kWide {
		return c.wideBinary(n, x, y)
	}
	switch n.op {
	case "+":
		return c.linear2(n, x, y, 1)
	case "-":
		return c.linear2(n, x, y, -1)
	case "*":
		return c.mul(n, x, y)
	}
	// a op b is (a − b) op 0, tabulated over the value set of a − b.
	d, err := c.linear2(n, x, y, -1)
	if err != nil {
		return nil, err
	}
	sign := cmpSign[n.op]
	return c.apply(n, d, func(v int64) int64 { return b2i(sign(v)) }, true)
}

// membership compiles x in S and x notin S, for a literal set or a declared
// set constant, as a table over x's value set.
func (c *compiler) membership(n *node) (*val, error) {
	x, err := c.expr(n.kids[0])
	if err != nil {
		return nil, err
	}
	set := n.set
	if x.kind == kWide && set == nil {
		set = c.sets[n.name]
	}
	if x.kind == kWide && set != nil {
		return c.wideMember(n, x, set, n.op == "in")
	}
	if set == nil {
		s, ok := c.sets[n.name]
		if !ok {
			if _, isVal := c.env[n.name]; isVal {
				return nil, c.errNode(ErrType, n, "%q is not a set constant", n.name)
			}
			return nil, c.errNode(ErrUndeclared, n, "set %q is not declared under constants", n.name)
		}
		set = s
	}
	member := map[int64]bool{}
	for _, s := range set {
		member[s] = true
	}
	want := n.op == "in"
	return c.apply(n, x, func(v int64) int64 { return b2i(member[v] == want) }, true)
}

// logical compiles a chain of && or || over its flattened boolean operands.
func (c *compiler) logical(n *node) (*val, error) {
	var leaves []*node
	flatten(n, n.op, &leaves)
	vals := make([]*val, len(leaves))
	for i, l := range leaves {
		v, err := c.boolOperand(l)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return c.logic(n, n.op == "&&", vals)
}

// ifExpr compiles if(cond, then, else); both branches have one type.
func (c *compiler) ifExpr(n *node) (*val, error) {
	cond, err := c.boolOperand(n.kids[0])
	if err != nil {
		return nil, err
	}
	a, err := c.expr(n.kids[1])
	if err != nil {
		return nil, err
	}
	b, err := c.expr(n.kids[2])
	if err != nil {
		return nil, err
	}
	if a.isBool != b.isBool {
		return nil, c.errNode(ErrType, n, "if(cond, then, else): then and else must both be booleans or both integers")
	}
	return c.ifThenElse(n, cond, a, b)
}

// cmpSign maps a comparison to its predicate on the difference of the operands.
var cmpSign = map[string]func(int64) bool{
	"==": func(v int64) bool { return v == 0 },
	"!=": func(v int64) bool { return v != 0 },
	"<":  func(v int64) bool { return v < 0 },
	"<=": func(v int64) bool { return v <= 0 },
	">":  func(v int64) bool { return v > 0 },
	">=": func(v int64) bool { return v >= 0 },
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func flatten(n *node, op string, out *[]*node) {
	if n.op == op {
		for _, k := range n.kids {
			flatten(k, op, out)
		}
		return
	}
	*out = append(*out, n)
}

func (c *compiler) boolOperand(n *node) (*val, error) {
	v, err := c.expr(n)
	if err != nil {
		return nil, err
	}
	if v.kind == kWide {
		return nil, c.errNode(ErrType, n, "a boolean is required here (a wide unsigned integer was given; compare it first)")
	}
	if !v.isBool {
		// An integer known to be 0 or 1 (e.g. an input declared 0..1) is a boolean.
		if v.set.lo < 0 || v.set.hi > 1 {
			return nil, c.errNode(ErrType, n, "a boolean is required here (an integer in [%d, %d] was given; compare it first)", v.set.lo, v.set.hi)
		}
		b := *v
		b.isBool = true
		return &b, nil
	}
	return v, nil
}

// uniView presents v as a table over a base, if it is a function of one base
// affine form with a tabulable domain. Constants report ok with an empty base.
func (c *compiler) uniView(v *val) (base lin, bvals, table []int64, ok bool) {
	switch v.kind {
	case kUni:
		return v.base, v.bvals, v.table, true
	case kLin:
		var dom vset
		var w, k int64 = 1, v.lin.c
		if len(v.lin.terms) == 1 {
			t := v.lin.terms[0]
			base = lin{terms: []term{{reg: t.reg, w: 1}}}
			dom, w = c.regSet[t.reg], t.w
		} else {
			base = lin{terms: v.lin.terms}
			var ok bool
			if dom, ok = scaleSet(v.set, 1, -k); !ok {
				return lin{}, nil, nil, false
			}
		}
		if !dom.small() || dom.count() > maxDomain {
			return lin{}, nil, nil, false
		}
		bvals = dom.elems()
		c.charge(int64(len(bvals)))
		table = make([]int64, len(bvals))
		for i, x := range bvals {
			table[i] = w*x + k // |w|,|x|,|k| bounded: the lin's own set is within ±MaxAbs
		}
		return base, bvals, table, true
	}
	return lin{}, nil, nil, false
}

func sameBase(a, b lin) bool { return a.key() == b.key() }

func (c *compiler) mkUni(n *node, base lin, bvals, table []int64, isBool bool) (*val, error) {
	for _, y := range table {
		if !inRange(y) {
			return nil, c.errNode(ErrRange, n, "an intermediate value exceeds ±2^40")
		}
	}
	c.charge(int64(len(table)))
	v := &val{kind: kUni, isBool: isBool, base: base, bvals: bvals, table: table, set: fromValues(table)}
	// A constant table is a constant.
	if v.set.lo == v.set.hi {
		return constVal(v.set.lo, isBool), nil
	}
	return v, nil
}

// apply builds f(x) as a fused table over x's base.
func (c *compiler) apply(n *node, x *val, f func(int64) int64, isBool bool) (*val, error) {
	if x.kind == kConst {
		return constVal(f(x.c), isBool), nil
	}
	base, bvals, table, ok := c.uniView(x)
	if !ok {
		return nil, c.domainErr(n, x)
	}
	out := make([]int64, len(table))
	for i, y := range table {
		out[i] = f(y)
	}
	return c.mkUni(n, base, bvals, out, isBool)
}

func (c *compiler) domainErr(n *node, x *val) error {
	if !x.set.small() {
		return c.errNode(ErrRange, n, "the operand ranges over [%d, %d]: more than t = 65537 values, so a polynomial mod t cannot tell them apart; narrow the input ranges", x.set.lo, x.set.hi)
	}
	return c.errNode(ErrTooDeep, n, "the operand takes up to %d distinct values in [%d, %d]: the comparison polynomial would exceed degree %d (depth %d); narrow the input ranges", x.set.count(), x.set.lo, x.set.hi, c.maxDeg, depthOf(c.maxDeg))
}

// binop combines two values with a slot-wise integer function: fused into a
// table when both are functions of one base, else via the fallback.
func (c *compiler) fuse(n *node, x, y *val, f func(a, b int64) int64, isBool bool) (*val, bool, error) {
	if x.kind == kConst && y.kind == kConst {
		return constVal(f(x.c, y.c), isBool), true, nil
	}
	if x.kind == kConst {
		v, err := c.apply(n, y, func(b int64) int64 { return f(x.c, b) }, isBool)
		return v, err == nil, ignoreDomain(err)
	}
	if y.kind == kConst {
		v, err := c.apply(n, x, func(a int64) int64 { return f(a, y.c) }, isBool)
		return v, err == nil, ignoreDomain(err)
	}
	bx, vx, tx, okx := c.uniView(x)
	by, _, ty, oky := c.uniView(y)
	if !okx || !oky || !sameBase(bx, by) {
		return nil, false, nil
	}
	out := make([]int64, len(tx))
	for i := range tx {
		out[i] = f(tx[i], ty[i])
	}
	v, err := c.mkUni(n, bx, vx, out, isBool)
	return v, err == nil, err
}

func ignoreDomain(err error) error {
	if errors.Is(err, ErrTooDeep) || errors.Is(err, ErrRange) {
		return nil
	}
	return err
}

// affine returns w·x + k.
func (c *compiler) affine(n *node, x *val, w, k int64, isBool bool) (*val, error) {
	switch x.kind {
	case kConst:
		return constVal(w*x.c+k, isBool), nil
	case kUni:
		return c.apply(n, x, func(a int64) int64 { return w*a + k }, isBool)
	}
	c.charge(pairCost(x.set, single(w)))
	set, ok := scaleSet(x.set, w, k)
	if !ok {
		return nil, c.errNode(ErrRange, n, "an intermediate value exceeds ±2^40")
	}
	out := lin{c: w*x.lin.c + k}
	for _, t := range x.lin.terms {
		out.terms = append(out.terms, term{reg: t.reg, w: t.w * w})
	}
	return &val{kind: kLin, isBool: isBool, lin: out, set: set}, nil
}

// linear2 returns x + w·y (w = ±1).
func (c *compiler) linear2(n *node, x, y *val, w int64) (*val, error) {
	if x.kind == kUni || y.kind == kUni {
		// Fuse into the table when both are functions of one base.
		if v, ok, err := c.fuse(n, x, y, func(a, b int64) int64 { return a + w*b }, false); err != nil || ok {
			return v, err
		}
	}
	lx, err := c.materialize(x)
	if err != nil {
		return nil, err
	}
	ly, err := c.materialize(y)
	if err != nil {
		return nil, err
	}
	c.charge(pairCost(y.set, single(w)) + pairCost(x.set, y.set))
	sy, ok := scaleSet(y.set, w, 0)
	if !ok {
		return nil, c.errNode(ErrRange, n, "an intermediate value exceeds ±2^40")
	}
	set, ok := addSets(x.set, sy)
	if !ok {
		return nil, c.errNode(ErrRange, n, "an intermediate value exceeds ±2^40")
	}
	l := addLin(lx, ly, w)
	if len(l.terms) == 0 {
		return constVal(l.c, false), nil
	}
	return &val{kind: kLin, lin: l, set: set}, nil
}

func addLin(a, b lin, w int64) lin {
	out := lin{c: a.c + w*b.c}
	i, j := 0, 0
	for i < len(a.terms) || j < len(b.terms) {
		switch {
		case j == len(b.terms) || (i < len(a.terms) && a.terms[i].reg < b.terms[j].reg):
			out.terms = append(out.terms, a.terms[i])
			i++
		case i == len(a.terms) || b.terms[j].reg < a.terms[i].reg:
			out.terms = append(out.terms, term{reg: b.terms[j].reg, w: w * b.terms[j].w})
			j++
		default:
			if s := a.terms[i].w + w*b.terms[j].w; s != 0 {
				out.terms = append(out.terms, term{reg: a.terms[i].reg, w: s})
			}
			i++
			j++
		}
	}
	return out
}

func (c *compiler) mul(n *node, x, y *val) (*val, error) {
	if x.kind == kConst {
		return c.affine(n, y, x.c, 0, false)
	}
	if y.kind == kConst {
		return c.affine(n, x, y.c, 0, false)
	}
	if v, ok, err := c.fuse(n, x, y, func(a, b int64) int64 { return a * b }, false); err != nil || ok {
		return v, err
	}
	c.charge(pairCost(x.set, y.set))
	set, ok := mulSets(x.set, y.set)
	if !ok {
		return nil, c.errNode(ErrRange, n, "a product exceeds ±2^40")
	}
	r, err := c.product(n, []*val{x, y}, set)
	if err != nil {
		return nil, err
	}
	return &val{kind: kLin, lin: lin{terms: []term{{reg: r, w: 1}}}, set: set}, nil
}

// logic builds an n-ary AND (and=true) or OR of booleans. Operands that are
// functions of the same base fuse into one table; the rest are multiplied in
// a depth-balanced tree (shallowest first), OR via De Morgan: 1 − Π(1 − b).
func (c *compiler) logic(n *node, and bool, vals []*val) (*val, error) {
	f := func(a, b int64) int64 { return a * b }
	if !and {
		f = func(a, b int64) int64 { return a | b }
	}
	var groups []*val
	for _, v := range vals {
		if v.kind == kConst {
			if (v.c == 0) == and { // false in AND, true in OR decides
				return constVal(v.c, true), nil
			}
			continue
		}
		merged := false
		for i, g := range groups {
			if fv, ok, err := c.fuse(n, g, v, f, true); err != nil {
				return nil, err
			} else if ok && fv.kind == kUni {
				groups[i], merged = fv, true
				break
			} else if ok && fv.kind == kConst {
				if (fv.c == 0) == and {
					return fv, nil
				}
				groups = slices.Delete(groups, i, i+1)
				merged = true
				break
			}
		}
		if !merged {
			groups = append(groups, v)
		}
	}
	switch len(groups) {
	case 0:
		return constVal(b2i(and), true), nil
	case 1:
		return groups[0], nil
	}
	ops := groups
	if !and {
		ops = make([]*val, len(groups))
		for i, g := range groups {
			neg, err := c.affine(n, g, -1, 1, true)
			if err != nil {
				return nil, err
			}
			ops[i] = neg
		}
	}
	r, err := c.product(n, ops, interval(0, 1))
	if err != nil {
		return nil, err
	}
	out := &val{kind: kLin, isBool: true, lin: lin{terms: []term{{reg: r, w: 1}}}, set: interval(0, 1)}
	if !and {
		return c.affine(n, out, -1, 1, true)
	}
	return out, nil
}

func (c *compiler) ifThenElse(n *node, cond, a, b *val) (*val, error) {
	f3 := func(x, y, z int64) int64 {
		if x != 0 {
			return y
		}
		return z
	}
	if cond.kind == kConst {
		if cond.c != 0 {
			return a, nil
		}
		return b, nil
	}
	// Fused when all three are functions of one base.
	bc, vc, tc, okc := c.uniView(cond)
	ba, _, ta, oka := c.uniView(a)
	bb, _, tb, okb := c.uniView(b)
	constA, constB := a.kind == kConst, b.kind == kConst
	if okc && (constA || (oka && sameBase(bc, ba))) && (constB || (okb && sameBase(bc, bb))) {
		out := make([]int64, len(tc))
		for i := range tc {
			y, z := a.c, b.c
			if !constA {
				y = ta[i]
			}
			if !constB {
				z = tb[i]
			}
			out[i] = f3(tc[i], y, z)
		}
		return c.mkUni(n, bc, vc, out, a.isBool)
	}
	// b + cond·(a − b)
	d, err := c.linear2(n, a, b, -1)
	if err != nil {
		return nil, err
	}
	prod, err := c.mul(n, cond, d)
	if err != nil {
		return nil, err
	}
	v, err := c.linear2(n, prod, b, 1)
	if err != nil {
		return nil, err
	}
	// The true range is within the union of a's and b's.
	v.set = interval(min(a.set.lo, b.set.lo), max(a.set.hi, b.set.hi))
	v.isBool = a.isBool
	return v, nil
}

// wideHint is the end of a degree error over a table whose base is one
// declared one-slot input with no negative values: the wide-integer
// declaration to write instead (WideDecl). Empty for any other base.
func (c *compiler) wideHint(v *val) string {
	if len(v.base.terms) != 1 || v.base.terms[0].w != 1 {
		return ""
	}
	in, ok := c.narrow[v.base.terms[0].reg]
	if !ok {
		return ""
	}
	return wideHint(in)
}

// wideHint is the suggestion an error about a one-slot input's range ends
// with: "; if x is only compared, … {name: x, type: uint16, max: 1000} …",
// or "" where the input takes negative values (WideDecl).
func wideHint(in InputDecl) string {
	decl := WideDecl(in)
	if decl == "" {
		return ""
	}
	return fmt.Sprintf("; if %s is only compared, added, multiplied by a constant or tested with in, declare it as a wide unsigned integer instead: %s (compared digit by digit, base %d, no polynomial over its whole range; its values are then encrypted as one vector input)",
		in.Name, decl, DigitBase)
}

// WideDecl is the wide-integer declaration of a one-slot input with no
// negative values, "{name: x, type: uintN, max: M}" with the smallest uintN
// that holds its max: the typed form an author writes where a comparison
// over the input's whole range needs a polynomial deeper than every preset
// (a wide integer is compared digit by digit, wide.go). Empty where Min is
// negative (a wide integer is unsigned).
func WideDecl(in InputDecl) string {
	if in.Min < 0 || in.Max < 0 {
		return ""
	}
	typ := "uint64"
	for _, bits := range []int{8, 16, 32} {
		if uint64(in.Max) < uint64(1)<<bits {
			typ = fmt.Sprintf("uint%d", bits)
			break
		}
	}
	return fmt.Sprintf("{name: %s, type: %s, max: %d}", in.Name, typ, in.Max)
}

// materialize turns a value into an affine form over registers, emitting a
// polynomial for a fused table.
func (c *compiler) materialize(v *val) (lin, error) {
	switch v.kind {
	case kConst:
		return lin{c: v.c}, nil
	case kLin:
		return v.lin, nil
	case kWide:
		return lin{}, c.errAtCol(ErrType, 0, "a wide unsigned integer can only be compared, added, multiplied by a constant or tested with in; it cannot be used as a one-slot value")
	}
	// Base register.
	var breg int
	if len(v.base.terms) == 1 && v.base.terms[0].w == 1 {
		breg = v.base.terms[0].reg
	} else {
		var err error
		if breg, err = c.register(v.base, fromValues(v.bvals), false); err != nil {
			return lin{}, err
		}
	}
	// Interpolate on at most maxDeg+1 points, then check the rest: a table
	// of higher degree is rejected without an O(|D|²) interpolation.
	k := min(len(v.bvals), c.maxDeg+1)
	c.charge(4*int64(k)*int64(k) + int64(len(v.bvals)-k)*int64(k))
	if c.work > MaxCompileWork {
		return lin{}, c.errAtCol(ErrSchema, 0, "the policy is too complex to compile (more than %d work units); simplify it or narrow the ranges", MaxCompileWork)
	}
	coeffs := interpolate(v.bvals[:k], v.table[:k])
	for i := k; i < len(v.bvals); i++ {
		if evalPoly(coeffs, modT(v.bvals[i])) != modT(v.table[i]) {
			return lin{}, c.errAtCol(ErrTooDeep, 0, "a comparison/membership over %d values in [%d, %d] needs a polynomial of degree > %d; the deepest target allows degree %d (depth %d)%s", len(v.bvals), v.bvals[0], v.bvals[len(v.bvals)-1], c.maxDeg, c.maxDeg, depthOf(c.maxDeg), c.wideHint(v))
		}
	}
	deg := len(coeffs) - 1
	if deg <= 1 {
		l := lin{c: centred(coeffs[0])}
		if deg == 1 {
			l.terms = []term{{reg: breg, w: centred(coeffs[1])}}
		}
		return l, nil
	}
	if deg > c.maxDeg {
		return lin{}, c.errAtCol(ErrTooDeep, 0, "a comparison/membership over %d values in [%d, %d] needs a degree-%d polynomial (depth %d); the deepest target allows degree %d (depth %d)%s", len(v.bvals), v.bvals[0], v.bvals[len(v.bvals)-1], deg, depthOf(deg), c.maxDeg, depthOf(c.maxDeg), c.wideHint(v))
	}
	op := Op{Kind: OpPoly, Args: []int{breg}, Coeffs: make([]int64, len(coeffs)), Min: v.set.lo, Max: v.set.hi}
	for i, x := range coeffs {
		op.Coeffs[i] = int64(x)
	}
	r := c.emit(op, v.set)
	return lin{terms: []term{{reg: r, w: 1}}}, nil
}

// register returns a register holding l, emitting a linear op if needed.
func (c *compiler) register(l lin, set vset, force bool) (int, error) {
	if !force && len(l.terms) == 1 && l.terms[0].w == 1 && l.c == 0 {
		return l.terms[0].reg, nil
	}
	if force && len(l.terms) == 1 && l.terms[0].w == 1 && l.c == 0 && c.ops[l.terms[0].reg].Kind != OpInput {
		return l.terms[0].reg, nil
	}
	op := Op{Kind: OpLinear, Const: centred(modT(l.c)), Min: set.lo, Max: set.hi}
	for _, t := range l.terms {
		w := centred(modT(t.w))
		if w == 0 {
			continue
		}
		op.Args = append(op.Args, t.reg)
		op.Weights = append(op.Weights, w)
	}
	return c.emit(op, set), nil
}

// product multiplies the values in a depth-balanced tree and returns the register.
func (c *compiler) product(n *node, vals []*val, set vset) (int, error) {
	regs := make([]int, len(vals))
	for i, v := range vals {
		l, err := c.materialize(v)
		if err != nil {
			return 0, err
		}
		if regs[i], err = c.register(l, v.set, false); err != nil {
			return 0, err
		}
	}
	for len(regs) > 1 {
		// Multiply the two shallowest (stable: earliest first on ties).
		slices.SortStableFunc(regs, func(a, b int) int { return c.depth(a) - c.depth(b) })
		a, b := regs[0], regs[1]
		r := c.emit(Op{Kind: OpMul, Args: []int{min(a, b), max(a, b)}, Min: set.lo, Max: set.hi}, set)
		regs = append([]int{r}, regs[2:]...)
	}
	return regs[0], nil
}

// depth of a register ignoring refreshes (used while compiling).
func (c *compiler) depth(r int) int { return c.ops[r].Depth }

func (c *compiler) emit(op Op, set vset) int {
	noise := int64(1)
	switch op.Kind {
	case OpLinear:
		noise = 0
		for k, a := range op.Args {
			w := op.Weights[k]
			if w < 0 {
				w = -w
			}
			noise = min(noise+w*c.noise[a], MaxAbs)
		}
		noise = max(noise, 1)
	case OpPoly, OpMul:
		// Reduce the noise of operands that a weighted sum has grown.
		args := make([]int, len(op.Args))
		for i, a := range op.Args {
			args[i] = a
			if c.noise[a] > NoiseBudget {
				args[i] = c.emit(Op{Kind: OpRescale, Args: []int{a}, Min: c.ops[a].Min, Max: c.ops[a].Max}, c.regSet[a])
			}
		}
		if op.Kind == OpMul && args[0] > args[1] {
			args[0], args[1] = args[1], args[0]
		}
		op.Args = args
	}
	class := c.scaleClass(&op, len(c.ops))
	if op.Kind == OpLinear && c.scaleAware {
		for k := c.classes(op.Args); k > 1; k-- {
			noise = min(noise*ScaleMatchNoise, MaxAbs)
		}
	}
	switch op.Kind {
	case OpLinear:
		for _, a := range op.Args {
			op.Depth = max(op.Depth, c.ops[a].Depth)
		}
	case OpPoly:
		op.Depth = c.ops[op.Args[0]].Depth + depthOf(len(op.Coeffs)-1)
	case OpMul:
		op.Depth = max(c.ops[op.Args[0]].Depth, c.ops[op.Args[1]].Depth) + 1
	case OpRescale:
		op.Depth = c.ops[op.Args[0]].Depth + 1
	}
	key := op.key()
	if r, ok := c.cse[key]; ok {
		return r
	}
	c.ops = append(c.ops, op)
	c.regSet = append(c.regSet, set)
	c.noise = append(c.noise, noise)
	c.class = append(c.class, class)
	r := len(c.ops) - 1
	c.cse[key] = r
	return r
}

func (op *Op) key() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(op.Kind)))
	for i, a := range op.Args {
		b.WriteString(",r" + strconv.Itoa(a))
		if op.Weights != nil {
			b.WriteString("*" + strconv.FormatInt(op.Weights[i], 10))
		}
	}
	b.WriteString("|" + strconv.FormatInt(op.Const, 10) + "|")
	for _, x := range op.Coeffs {
		b.WriteString(strconv.FormatInt(x, 16) + ",")
	}
	return b.String()
}

// depthOf is the multiplicative depth of a degree-d polynomial evaluated by
// baby-step giant-step: ⌈log2(d+1)⌉ (0 for d ≤ 1).
func depthOf(d int) int {
	k := 0
	for (1 << k) < d+1 {
		k++
	}
	return k
}
