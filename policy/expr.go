package policy

import (
	"fmt"
	"strconv"
)

// Expression grammar (precedence low → high):
//
//	expr    = or
//	or      = and { ("||" | "or") and }
//	and     = not { ("&&" | "and") not }
//	not     = ("!" | "not") not | cmp
//	cmp     = sum [ ("==" | "!=" | "<" | "<=" | ">" | ">=") sum | ["not"] "in" set ]
//	sum     = term { ("+" | "-") term }
//	term    = unary { "*" unary }
//	unary   = "-" unary | primary
//	primary = INT | "true" | "false" | IDENT | "(" expr ")" | "if" "(" expr "," expr "," expr ")"
//	set     = IDENT | "{" elem { "," elem } "}"      elem = INT [ ".." INT ]
type node struct {
	op   string // "int", "id", "neg", "not", "+", "-", "*", "==", …, "&&", "||", "in", "notin", "if"
	val  int64
	name string
	set  []int64 // "in"/"notin" with a literal set
	u    uint64  // "uint": a literal above MaxAbs (wide integers only)
	kids []*node
	col  int // 1-based column in the expression string
}

type token struct {
	kind string // "int", "uint", "id", "op", "eof"
	text string
	val  int64
	u    uint64
	col  int
}

type exprParser struct {
	src   string
	toks  []token
	i     int
	nodes int
	depth int
}

type exprErr struct {
	kind error
	col  int
	msg  string
}

func (e *exprErr) Error() string { return e.msg }

func perr(kind error, col int, format string, args ...any) *exprErr {
	return &exprErr{kind: kind, col: col, msg: fmt.Sprintf(format, args...)}
}

func lex(src string) ([]token, error) {
	var out []token
	i := 0
	for i < len(src) {
		c := src[i]
		col := i + 1
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			v, err := strconv.ParseInt(src[i:j], 10, 64)
			if err != nil || v > MaxAbs {
				// Above 2^40: an unsigned 64-bit literal, for wide integers only.
				u, uerr := strconv.ParseUint(src[i:j], 10, 64)
				if uerr != nil {
					return nil, perr(ErrRange, col, "integer %s exceeds 2^64 − 1", src[i:j])
				}
				out = append(out, token{kind: "uint", text: src[i:j], u: u, col: col})
				i = j
				continue
			}
			out = append(out, token{kind: "int", text: src[i:j], val: v, col: col})
			i = j
		case c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			j := i
			for j < len(src) && (src[j] == '_' || (src[j] >= 'a' && src[j] <= 'z') || (src[j] >= 'A' && src[j] <= 'Z') || (src[j] >= '0' && src[j] <= '9')) {
				j++
			}
			out = append(out, token{kind: "id", text: src[i:j], col: col})
			i = j
		default:
			two := ""
			if i+1 < len(src) {
				two = src[i : i+2]
			}
			switch two {
			case "&&", "||", "==", "!=", "<=", ">=", "..":
				out = append(out, token{kind: "op", text: two, col: col})
				i += 2
				continue
			}
			switch c {
			case '+', '-', '*', '<', '>', '!', '(', ')', '{', '}', ',':
				out = append(out, token{kind: "op", text: string(c), col: col})
				i++
			default:
				return nil, perr(ErrSyntax, col, "unexpected character %q", c)
			}
		}
	}
	return append(out, token{kind: "eof", col: len(src) + 1}), nil
}

func parseExpr(src string) (*node, error) {
	if len(src) > MaxExprBytes {
		return nil, perr(ErrSchema, 1, "expression is %d bytes, limit %d", len(src), MaxExprBytes)
	}
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &exprParser{src: src, toks: toks}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != "eof" {
		return nil, perr(ErrSyntax, t.col, "unexpected %q after the expression", t.text)
	}
	return n, nil
}

func (p *exprParser) peek() token { return p.toks[p.i] }

func (p *exprParser) next() token {
	t := p.toks[p.i]
	if t.kind != "eof" {
		p.i++
	}
	return t
}

func (p *exprParser) is(texts ...string) bool {
	t := p.peek()
	if t.kind != "op" && t.kind != "id" {
		return false
	}
	for _, s := range texts {
		if t.text == s {
			return true
		}
	}
	return false
}

func (p *exprParser) mk(op string, col int, kids ...*node) (*node, error) {
	p.nodes++
	if p.nodes > MaxExprNodes {
		return nil, perr(ErrSchema, col, "expression has more than %d nodes", MaxExprNodes)
	}
	return &node{op: op, col: col, kids: kids}, nil
}

func (p *exprParser) enter(col int) error {
	p.depth++
	if p.depth > MaxNestedDepth {
		return perr(ErrSchema, col, "expression nested deeper than %d", MaxNestedDepth)
	}
	return nil
}

func (p *exprParser) binary(ops map[string]string, sub func() (*node, error)) (*node, error) {
	l, err := sub()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		op, ok := ops[t.text]
		if !ok || (t.kind != "op" && t.kind != "id") {
			return l, nil
		}
		p.next()
		r, err := sub()
		if err != nil {
			return nil, err
		}
		if l, err = p.mk(op, t.col, l, r); err != nil {
			return nil, err
		}
	}
}

var (
	orOps  = map[string]string{"||": "||", "or": "||"}
	andOps = map[string]string{"&&": "&&", "and": "&&"}
	sumOps = map[string]string{"+": "+", "-": "-"}
	mulOps = map[string]string{"*": "*"}
	cmpOps = map[string]bool{"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}
)

func (p *exprParser) or() (*node, error)  { return p.binary(orOps, p.and) }
func (p *exprParser) and() (*node, error) { return p.binary(andOps, p.not) }
func (p *exprParser) sum() (*node, error) { return p.binary(sumOps, p.term) }
func (p *exprParser) term() (*node, error) {
	return p.binary(mulOps, p.unary)
}

func (p *exprParser) not() (*node, error) {
	if p.is("!", "not") && !(p.peek().text == "not" && p.toks[p.i+1].text == "in") {
		t := p.next()
		if err := p.enter(t.col); err != nil {
			return nil, err
		}
		x, err := p.not()
		p.depth--
		if err != nil {
			return nil, err
		}
		return p.mk("not", t.col, x)
	}
	return p.cmp()
}

func (p *exprParser) cmp() (*node, error) {
	l, err := p.sum()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if t.kind == "op" && cmpOps[t.text] {
		p.next()
		r, err := p.sum()
		if err != nil {
			return nil, err
		}
		return p.mk(t.text, t.col, l, r)
	}
	op := ""
	if p.is("in") {
		p.next()
		op = "in"
	} else if p.is("not") && p.toks[p.i+1].kind == "id" && p.toks[p.i+1].text == "in" {
		p.next()
		p.next()
		op = "notin"
	}
	if op == "" {
		return l, nil
	}
	n, err := p.mk(op, t.col, l)
	if err != nil {
		return nil, err
	}
	st := p.peek()
	switch {
	case st.kind == "id":
		p.next()
		n.name = st.text
	case st.kind == "op" && st.text == "{":
		p.next()
		n.set = []int64{}
		for {
			a, err := p.setInt()
			if err != nil {
				return nil, err
			}
			b := a
			if p.is("..") {
				p.next()
				if b, err = p.setInt(); err != nil {
					return nil, err
				}
				if b < a {
					return nil, perr(ErrRange, st.col, "set range %d..%d is empty", a, b)
				}
			}
			if int64(len(n.set))+b-a+1 > MaxSetElems {
				return nil, perr(ErrSchema, st.col, "set has more than %d elements", MaxSetElems)
			}
			for v := a; v <= b; v++ {
				n.set = append(n.set, v)
			}
			if p.is(",") {
				p.next()
				continue
			}
			if p.is("}") {
				p.next()
				break
			}
			return nil, perr(ErrSyntax, p.peek().col, "want ',' or '}' in set, got %q", p.peek().text)
		}
	default:
		return nil, perr(ErrSyntax, st.col, "want a set ({…} or a constant name) after in, got %q", st.text)
	}
	return n, nil
}

func (p *exprParser) setInt() (int64, error) {
	neg := false
	if p.is("-") {
		p.next()
		neg = true
	}
	t := p.next()
	if t.kind == "uint" {
		return 0, perr(ErrRange, t.col, "set element %s exceeds 2^40", t.text)
	}
	if t.kind != "int" {
		return 0, perr(ErrSyntax, t.col, "want an integer in set, got %q", t.text)
	}
	if neg {
		return -t.val, nil
	}
	return t.val, nil
}

func (p *exprParser) unary() (*node, error) {
	if p.is("-") {
		t := p.next()
		if err := p.enter(t.col); err != nil {
			return nil, err
		}
		x, err := p.unary()
		p.depth--
		if err != nil {
			return nil, err
		}
		return p.mk("neg", t.col, x)
	}
	return p.primary()
}

func (p *exprParser) primary() (*node, error) {
	t := p.next()
	switch t.kind {
	case "int":
		n, err := p.mk("int", t.col)
		if err != nil {
			return nil, err
		}
		n.val = t.val
		return n, nil
	case "uint":
		n, err := p.mk("uint", t.col)
		if err != nil {
			return nil, err
		}
		n.u = t.u
		return n, nil
	case "id":
		switch t.text {
		case "true", "false":
			n, err := p.mk("bool", t.col)
			if err != nil {
				return nil, err
			}
			if t.text == "true" {
				n.val = 1
			}
			return n, nil
		case "if":
			if !p.is("(") {
				return nil, perr(ErrSyntax, p.peek().col, "want '(' after if")
			}
			p.next()
			if err := p.enter(t.col); err != nil {
				return nil, err
			}
			var args []*node
			for k := 0; k < 3; k++ {
				a, err := p.or()
				if err != nil {
					return nil, err
				}
				args = append(args, a)
				want := ","
				if k == 2 {
					want = ")"
				}
				if !p.is(want) {
					return nil, perr(ErrSyntax, p.peek().col, "if(cond, then, else): want %q, got %q", want, p.peek().text)
				}
				p.next()
			}
			p.depth--
			return p.mk("if", t.col, args...)
		case "and", "or", "not", "in":
			return nil, perr(ErrSyntax, t.col, "unexpected keyword %q", t.text)
		}
		n, err := p.mk("id", t.col)
		if err != nil {
			return nil, err
		}
		n.name = t.text
		return n, nil
	case "op":
		if t.text == "(" {
			if err := p.enter(t.col); err != nil {
				return nil, err
			}
			x, err := p.or()
			if err != nil {
				return nil, err
			}
			p.depth--
			if !p.is(")") {
				return nil, perr(ErrSyntax, p.peek().col, "want ')', got %q", p.peek().text)
			}
			p.next()
			return x, nil
		}
	case "eof":
		return nil, perr(ErrSyntax, t.col, "unexpected end of expression")
	}
	return nil, perr(ErrSyntax, t.col, "unexpected %q", t.text)
}
