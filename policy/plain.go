package policy

import (
	"fmt"
	"math/big"
)

func (p *Plan) checkBatch(inputs [][]int64) (int, error) {
	if len(inputs) != len(p.Inputs) {
		return 0, fmt.Errorf("%w: %d input vectors, plan %q declares %d", ErrInput, len(inputs), p.Name, len(p.Inputs))
	}
	n := len(inputs[0])
	for j, v := range inputs {
		if len(v) != n {
			return 0, fmt.Errorf("%w: input %q has %d values, input %q has %d", ErrInput, p.Inputs[j].Name, len(v), p.Inputs[0].Name, n)
		}
	}
	if n == 0 || n > p.Slots {
		return 0, fmt.Errorf("%w: %d decisions, want 1..%d (the preset's slots)", ErrInput, n, p.Slots)
	}
	return n, nil
}

// EvalPlain runs the plan on plaintext slots with exactly the arithmetic of
// the encrypted evaluation: every register is an element of Z_t, every
// polynomial is evaluated as compiled. inputs[j][i] is input j of decision i
// (any int64: values are reduced mod t, so out-of-range inputs give what the
// encrypted evaluation gives). It returns the verdict of each decision as the
// centred representative in [−32768, 32768].
func (p *Plan) EvalPlain(inputs [][]int64) ([]int64, error) {
	n, err := p.checkBatch(inputs)
	if err != nil {
		return nil, err
	}
	regs := make([][]uint64, len(p.Ops))
	for r, op := range p.Ops {
		out := make([]uint64, n)
		switch op.Kind {
		case OpInput:
			for i, x := range inputs[op.Input] {
				out[i] = modT(x)
			}
		case OpLinear:
			c := modT(op.Const)
			for i := range out {
				out[i] = c
			}
			for k, a := range op.Args {
				w := modT(op.Weights[k])
				for i := range out {
					out[i] = (out[i] + mulMod(w, regs[a][i])) % PlaintextModulus
				}
			}
		case OpPoly:
			c := make([]uint64, len(op.Coeffs))
			for k, x := range op.Coeffs {
				c[k] = uint64(x)
			}
			for i := range out {
				out[i] = evalPoly(c, regs[op.Args[0]][i])
			}
		case OpRescale:
			copy(out, regs[op.Args[0]])
		case OpMul:
			for i := range out {
				out[i] = mulMod(regs[op.Args[0]][i], regs[op.Args[1]][i])
			}
		default:
			return nil, fmt.Errorf("policy: op %d: unknown kind %v", r, op.Kind)
		}
		regs[r] = out
	}
	res := make([]int64, n)
	for i, x := range regs[p.Result] {
		res[i] = centred(x)
	}
	return res, nil
}

// Approved reports whether a decoded verdict grants: exactly 1. Everything
// else (0, or any other residue an out-of-range input can produce) denies.
func Approved(verdict int64) bool { return verdict == 1 }

// PackInputs turns decisions (decisions[i][j] = input j of decision i) into
// the per-input slot vectors the evaluator expects (slot i of input vector j
// = input j of decision i), checking every value against its declared range.
func (p *Plan) PackInputs(decisions [][]int64) ([][]int64, error) {
	if len(decisions) == 0 || len(decisions) > p.Slots {
		return nil, fmt.Errorf("%w: %d decisions, want 1..%d", ErrInput, len(decisions), p.Slots)
	}
	out := make([][]int64, len(p.Inputs))
	for j := range out {
		out[j] = make([]int64, len(decisions))
	}
	for i, d := range decisions {
		if len(d) != len(p.Inputs) {
			return nil, fmt.Errorf("%w: decision %d has %d values, plan %q declares %d inputs", ErrInput, i, len(d), p.Name, len(p.Inputs))
		}
		for j, x := range d {
			if in := p.Inputs[j]; x < in.Min || x > in.Max {
				return nil, fmt.Errorf("%w: decision %d: input %q = %d outside [%d, %d]", ErrInput, i, in.Name, x, in.Min, in.Max)
			}
			out[j][i] = x
		}
	}
	return out, nil
}

// EvalSpec evaluates the policy document itself over the integers (the
// specification the plan is compiled from), for in-range inputs only. Tests
// use it as the oracle for the compiler: EvalSpec = EvalPlain on declared
// ranges.
func (p *Plan) EvalSpec(inputs [][]int64) ([]int64, error) {
	n, err := p.checkBatch(inputs)
	if err != nil {
		return nil, err
	}
	s := p.spec
	lets := make([]*node, len(s.Lets))
	for i, l := range s.Lets {
		if lets[i], err = parseExpr(l.Expr); err != nil {
			return nil, err
		}
	}
	out, err := parseExpr(s.Output.Expr)
	if err != nil {
		return nil, err
	}
	sets := map[string]map[int64]bool{}
	consts := map[string]*big.Int{}
	for _, k := range s.Constants {
		switch {
		case k.Set != nil:
			m := map[int64]bool{}
			for _, v := range k.Set {
				m[v] = true
			}
			sets[k.Name] = m
		case k.Big:
			consts[k.Name] = new(big.Int).SetUint64(k.U)
		default:
			consts[k.Name] = big.NewInt(k.Value)
		}
	}
	res := make([]int64, n)
	for i := 0; i < n; i++ {
		env := map[string]*big.Int{}
		for k, v := range consts {
			env[k] = v
		}
		for j, in := range p.Inputs {
			x := inputs[j][i]
			if x < in.Min || x > in.Max {
				return nil, fmt.Errorf("%w: decision %d: input %q = %d outside [%d, %d]", ErrInput, i, in.Name, x, in.Min, in.Max)
			}
			if in.Of == "" {
				env[in.Name] = big.NewInt(x)
				continue
			}
			// A digit of a wide input: x·16^Digit adds to its value.
			v, ok := env[in.Of]
			if !ok {
				v = new(big.Int)
				env[in.Of] = v
			}
			v.Add(v, new(big.Int).Lsh(big.NewInt(x), uint(DigitBits*in.Digit)))
		}
		for k, l := range lets {
			env[s.Lets[k].Name] = specEval(l, env, sets)
		}
		res[i] = specEval(out, env, sets).Int64()
	}
	return res, nil
}

// specEval evaluates a node over the integers (math/big: wide values and
// their sums and multiples exceed int64).
func specEval(n *node, env map[string]*big.Int, sets map[string]map[int64]bool) *big.Int {
	ev := func(k int) *big.Int { return specEval(n.kids[k], env, sets) }
	cmp := func() int { return ev(0).Cmp(ev(1)) }
	bi := func(b bool) *big.Int { return big.NewInt(b2i(b)) }
	truth := func(k int) bool { return ev(k).Sign() != 0 }
	switch n.op {
	case "int", "bool":
		return big.NewInt(n.val)
	case "uint":
		return new(big.Int).SetUint64(n.u)
	case "id":
		return env[n.name]
	case "neg":
		return new(big.Int).Neg(ev(0))
	case "not":
		return new(big.Int).Sub(big.NewInt(1), ev(0))
	case "+":
		return new(big.Int).Add(ev(0), ev(1))
	case "-":
		return new(big.Int).Sub(ev(0), ev(1))
	case "*":
		return new(big.Int).Mul(ev(0), ev(1))
	case "==":
		return bi(cmp() == 0)
	case "!=":
		return bi(cmp() != 0)
	case "<":
		return bi(cmp() < 0)
	case "<=":
		return bi(cmp() <= 0)
	case ">":
		return bi(cmp() > 0)
	case ">=":
		return bi(cmp() >= 0)
	case "&&":
		return bi(truth(0) && truth(1))
	case "||":
		return bi(truth(0) || truth(1))
	case "in", "notin":
		x := ev(0)
		member := false
		if x.IsInt64() {
			if n.set != nil {
				for _, s := range n.set {
					member = member || s == x.Int64()
				}
			} else {
				member = sets[n.name][x.Int64()]
			}
		}
		return bi(member == (n.op == "in"))
	case "if":
		if truth(0) {
			return ev(1)
		}
		return ev(2)
	}
	panic("policy: unknown node " + n.op) // unreachable: Compile accepted the tree
}
