package policy

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"

	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
)

// Public presets, mirroring fhe.BGVN13 and fhe.BGVN14 (policy/eval's tests
// check the ids, depths and slot counts against package fhe).
const (
	PresetBGVN13 uint8 = 1
	PresetBGVN14 uint8 = 2
)

// PresetInfo describes a target preset.
type PresetInfo struct {
	ID    uint8
	Name  string
	Depth int // levels of a fresh ciphertext
	Slots int // SIMD slots: decisions per ciphertext set
	// RefreshFloor is the lowest level at which the committee's collective
	// refresh of a plan register has room for its flooding
	// (noise.RefreshFloorLevel for the default noise bound
	// B_ct = 2^16: a refresh floods with σ = 2^30·B_ct, and
	// t·(B_ct + 8σ) must stay below Q_ℓ/4). Every register of a plan stays at
	// level ≥ RefreshFloor, so at most Depth − RefreshFloor levels are
	// consumed between refreshes (see Plan.Budget). policy has no
	// parameters; policy/eval.CompileOptions derives the same row from
	// them (TestCompileOptionsMatchPresets).
	RefreshFloor int
}

// Presets lists the public BGV presets a plan can target, shallowest first.
// Their RefreshFloor is 1: Q_0 (a 44- or 50-bit prime) cannot hold a
// 2^46 flooding times t = 2^16, Q_0·q_1 (76 or 84 bits) can.
var Presets = []PresetInfo{
	{ID: PresetBGVN13, Name: "bgv-n13-t65537", Depth: 4, Slots: 8192, RefreshFloor: 1},
	{ID: PresetBGVN14, Name: "bgv-n14-t65537", Depth: 9, Slots: 16384, RefreshFloor: 1},
}

// Budget is the number of levels a plan may consume between two refreshes
// (or from the fresh inputs to the first refresh, or to the result):
// Depth − RefreshFloor.
func (pi PresetInfo) Budget() int { return pi.Depth - pi.RefreshFloor }

func presetByName(name string) (PresetInfo, bool) {
	for _, p := range Presets {
		if p.Name == name {
			return p, true
		}
	}
	return PresetInfo{}, false
}

func presetByID(id uint8) (PresetInfo, bool) {
	for _, p := range Presets {
		if p.ID == id {
			return p, true
		}
	}
	return PresetInfo{}, false
}

// target is the preset a plan is compiled for; top (≤ Depth) is the level
// its inputs start at.
type target struct {
	PresetInfo
	top  int
	auto bool
}

// budget is the number of levels a plan may consume between two refreshes:
// top − RefreshFloor (PresetInfo.Budget when the inputs are fresh).
func (t target) budget() int { return t.top - t.RefreshFloor }

func (s *Spec) target(opt Options) (target, error) {
	deepest := Presets[len(Presets)-1]
	switch {
	case opt.Preset != 0 && opt.Depth == 0 && opt.Top == 0:
		if p, ok := presetByID(opt.Preset); ok {
			return target{PresetInfo: p, top: p.Depth}, nil
		}
		return target{}, errAt(ErrSchema, 0, 0, "preset", "preset %d is not public: Options.Depth (1..30) and Options.Slots are required", opt.Preset)
	case opt.Preset != 0:
		if opt.Depth < 1 || opt.Depth > 30 || opt.Slots < 1 {
			return target{}, errAt(ErrSchema, 0, 0, "preset", "preset %d: Options.Depth %d outside 1..30 or Options.Slots %d < 1", opt.Preset, opt.Depth, opt.Slots)
		}
		top := opt.Depth
		if opt.Top != 0 {
			top = opt.Top
		}
		if top < 1 || top > opt.Depth {
			return target{}, errAt(ErrSchema, 0, 0, "preset", "Options.Top %d outside 1..%d (Options.Depth)", opt.Top, opt.Depth)
		}
		if opt.RefreshFloor < 0 || opt.RefreshFloor >= top {
			return target{}, errAt(ErrSchema, 0, 0, "preset", "Options.RefreshFloor %d outside 0..%d (the inputs' level − 1)", opt.RefreshFloor, top-1)
		}
		name := fmt.Sprintf("preset-%d", opt.Preset)
		if p, ok := presetByID(opt.Preset); ok {
			name = p.Name
		}
		return target{PresetInfo: PresetInfo{ID: opt.Preset, Name: name, Depth: opt.Depth, Slots: opt.Slots, RefreshFloor: opt.RefreshFloor}, top: top}, nil
	case s.Preset != "" && s.Preset != "auto":
		p, _ := presetByName(s.Preset)
		return target{PresetInfo: p, top: p.Depth}, nil
	}
	return target{PresetInfo: deepest, top: deepest.Depth, auto: true}, nil
}

// OpKind is the kind of a plan instruction.
type OpKind uint8

// Plan instructions. Every op defines one register (its index in Plan.Ops).
const (
	// OpInput: register = encrypted input Op.Input (ops 0..len(Inputs)−1, in order).
	OpInput OpKind = 1
	// OpLinear: register = Const + Σ Weights[i]·reg[Args[i]] (mod t). No level.
	OpLinear OpKind = 2
	// OpPoly: register = Σ Coeffs[k]·reg[Args[0]]^k (mod t), by baby-step
	// giant-step; ⌈log2(deg+1)⌉ levels.
	OpPoly OpKind = 3
	// OpMul: register = reg[Args[0]] ⊙ reg[Args[1]] (relinearise, rescale). One level.
	OpMul OpKind = 4
	// OpRescale: register = reg[Args[0]], multiplied by the all-ones
	// plaintext and rescaled. One level; it divides the noise by the dropped
	// prime. The compiler inserts it where a weighted sum has grown the noise
	// beyond NoiseBudget before a polynomial or product (see doc.go).
	OpRescale OpKind = 5
)

// NoiseBudget is the largest noise growth (Σ|weight| over a weighted sum of
// fresh or rescaled ciphertexts) the presets tolerate in front of a
// polynomial or a product. Measured: ×8 decrypts correctly at every degree up
// to 511 on BGVN14 and InsecureBGVN10Deep, ×16 fails at degree ≥ 185
// (policy/eval TestNoiseBudget, TestNoiseBudgetIsNeeded).
const NoiseBudget = 8

func (k OpKind) String() string {
	switch k {
	case OpInput:
		return "input"
	case OpLinear:
		return "linear"
	case OpPoly:
		return "poly"
	case OpMul:
		return "mul"
	case OpRescale:
		return "rescale"
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// Op is one plan instruction.
type Op struct {
	Kind    OpKind
	Input   int     // OpInput: index into Plan.Inputs
	Args    []int   // operand registers (all < this op's index)
	Weights []int64 // OpLinear: one per Arg, centred mod t, non-zero
	Const   int64   // OpLinear: centred mod t
	Coeffs  []int64 // OpPoly: monomial coefficients in [0, t), low → high; degree ≥ 2
	// Depth is the number of levels consumed when this register is ready,
	// counted from the latest refresh (or from the fresh inputs).
	Depth int
	// Refresh: the evaluator must refresh this register (MPC bootstrap by the
	// committee) right after computing it, before any use.
	Refresh bool
	// Min, Max bound the register's value on declared-range inputs.
	Min, Max int64
}

// Degree of an OpPoly.
func (op *Op) Degree() int { return len(op.Coeffs) - 1 }

// Input is an encrypted input of the plan: a declared one-slot input, or one
// base-16 digit of a declared wide integer (named "<name>.<digit>", digit 0
// least significant; Of names the wide input, Digit is the digit's index).
// Of and Digit follow from Name, so CanonicalBytes does not repeat them.
type Input struct {
	Name     string
	Min, Max int64
	Of       string `json:",omitempty"`
	Digit    int    `json:",omitempty"`
}

// Output describes the verdict register.
type Output struct {
	Type     string // "bool" or "score"
	Min, Max int64
}

// Counts are the plan's operation counts (per ciphertext set, i.e. per batch
// of up to Slots decisions).
type Counts struct {
	CtCt          int // ct×ct multiplications (relinearise + rescale), incl. the estimate inside polynomials
	CtConst       int // ct×constant multiplications (scalar, no level), incl. polynomial baby steps
	CtPt          int // ct×plaintext-vector multiplications (the noise-reducing rescales)
	Adds          int // ct±ct and ct±constant additions outside polynomials
	Rotations     int // slot rotations (none: slot i of every input is decision i)
	Polys         int // polynomial evaluations
	PolyDegrees   int // sum of their degrees
	MaxPolyDegree int
	Refreshes     int // MPC refreshes the committee must run
}

// Plan is a compiled policy.
type Plan struct {
	Name        string
	Preset      uint8 // fhe.PresetID
	PresetName  string
	PresetDepth int
	Slots       int
	// Depth is the largest number of levels consumed between refreshes; the
	// inputs must be at level ≥ Depth + RefreshFloor.
	Depth int
	// RefreshFloor is the target's PresetInfo.RefreshFloor: every register
	// stays at level ≥ RefreshFloor (Depth ≤ PresetDepth − RefreshFloor), so
	// every refresh — at a refresh point, or of the result before the mask —
	// takes a ciphertext with room for its flooding. It is a property of the
	// preset (not part of CanonicalBytes; the ops' Depth and Refresh are).
	RefreshFloor int
	// UnrefreshedDepth is the depth the plan would have without refreshes.
	UnrefreshedDepth int
	NeedsRefresh     bool
	Inputs           []Input
	Output           Output
	Ops              []Op
	Result           int // register of the verdict
	Counts           Counts

	spec  *Spec
	canon []byte
	hash  [32]byte
}

func (c *compiler) finish(t target, result int, lo, hi int64) (*Plan, error) {
	// Dead-code elimination (inputs are always kept), renumbering in order.
	live := make([]bool, len(c.ops))
	live[result] = true
	for r := len(c.ops) - 1; r >= 0; r-- {
		if c.ops[r].Kind == OpInput {
			live[r] = true
		}
		if live[r] {
			for _, a := range c.ops[r].Args {
				live[a] = true
			}
		}
	}
	remap := make([]int, len(c.ops))
	var ops []Op
	for r, op := range c.ops {
		if !live[r] {
			continue
		}
		args := make([]int, len(op.Args))
		for i, a := range op.Args {
			args[i] = remap[a]
		}
		op.Args = args
		remap[r] = len(ops)
		ops = append(ops, op)
	}
	p := &Plan{Name: c.spec.Name, Ops: ops, Result: remap[result], spec: c.spec,
		Output: Output{Type: c.spec.Output.Type, Min: lo, Max: hi}}
	p.Inputs = c.inputs
	p.UnrefreshedDepth = depthPass(p.Ops, 1<<30)
	if t.auto {
		for _, pi := range Presets {
			t.PresetInfo, t.top = pi, pi.Depth
			if p.UnrefreshedDepth <= pi.Budget() {
				break
			}
		}
	}
	p.Preset, p.PresetName, p.PresetDepth, p.Slots, p.RefreshFloor = t.ID, t.Name, t.Depth, t.Slots, t.RefreshFloor
	// Every segment between refreshes gets Depth − RefreshFloor levels, so no
	// register (the result included) drops below the refresh floor: the
	// simplest rule under which every refresh point and the committee's
	// final refresh before the mask have room for the flooding.
	p.Depth = depthPass(p.Ops, t.budget())
	if p.Depth > t.budget() {
		return nil, errAt(ErrTooDeep, c.spec.Output.line, 0, "output", "depth %d exceeds %s's %d levels above its refresh floor (level %d) even with refreshes", p.Depth, t.Name, t.budget(), t.RefreshFloor)
	}
	for i := range p.Ops {
		if p.Ops[i].Refresh {
			p.NeedsRefresh = true
		}
	}
	p.Counts = countOps(p.Ops)
	p.canon = p.encode()
	p.hash = keccak(p.canon)
	return p, nil
}

// depthPass assigns Op.Depth and Op.Refresh for a budget of maxDepth levels
// and returns the plan depth. A refresh resets a register to depth 0; it is
// placed on the operands of the first op that would exceed the budget,
// deepest first, until the op fits.
func depthPass(ops []Op, maxDepth int) int {
	eff := func(r int) int {
		if ops[r].Refresh {
			return 0
		}
		return ops[r].Depth
	}
	opDepth := func(op *Op) int {
		d := 0
		for _, a := range op.Args {
			d = max(d, eff(a))
		}
		switch op.Kind {
		case OpPoly:
			d += depthOf(op.Degree())
		case OpMul, OpRescale:
			d++
		}
		return d
	}
	for i := range ops {
		ops[i].Refresh = false
	}
	plan := 0
	for i := range ops {
		op := &ops[i]
		d := opDepth(op)
		// Refresh the deepest operands first, one at a time, until the op
		// fits (a shallow operand beside a deep one is left alone).
		for d > maxDepth {
			deepest := -1
			for _, a := range op.Args {
				if eff(a) > 0 && (deepest < 0 || eff(a) > eff(deepest)) {
					deepest = a
				}
			}
			if deepest < 0 {
				break
			}
			ops[deepest].Refresh = true
			d = opDepth(op)
		}
		op.Depth = d
		plan = max(plan, d)
	}
	return plan
}

// PolyCtCt estimates the ct×ct multiplications Lattigo's baby-step giant-step
// evaluator spends on a degree-d polynomial: the power-of-two powers, the
// remaining baby-step powers below 2^split, and one product per giant-step
// combination.
func PolyCtCt(d int) int {
	if d < 2 {
		return 0
	}
	logDeg := 0
	for (1 << logDeg) <= d {
		logDeg++
	}
	logSplit := logDeg >> 1
	a := (1 << logSplit) + (1 << (logDeg - logSplit)) + logDeg - logSplit - 3
	b := (1 << (logSplit + 1)) + (1 << (logDeg - logSplit - 1)) + logDeg - logSplit - 4
	if a > b {
		logSplit++
	}
	powers := logDeg - 1 // x^2, x^4, …, x^(2^(logDeg−1))
	if logSplit >= 2 {
		powers += (1 << logSplit) - logSplit - 1 // x^3 … x^(2^split − 1) without powers of two
	}
	giant := (d+1+(1<<logSplit)-1)>>logSplit - 1
	return powers + giant
}

func countOps(ops []Op) Counts {
	var c Counts
	for _, op := range ops {
		switch op.Kind {
		case OpLinear:
			for _, w := range op.Weights {
				if w != 1 && w != -1 {
					c.CtConst++
				}
			}
			c.Adds += len(op.Args) - 1
			if op.Const != 0 || len(op.Args) == 0 {
				c.Adds++
			}
		case OpPoly:
			d := op.Degree()
			c.Polys++
			c.PolyDegrees += d
			c.MaxPolyDegree = max(c.MaxPolyDegree, d)
			c.CtCt += PolyCtCt(d)
			c.CtConst += d
		case OpMul:
			c.CtCt++
		case OpRescale:
			c.CtPt++
		}
		if op.Refresh {
			c.Refreshes++
		}
	}
	return c
}

// planMagic starts the canonical plan bytes.
const planMagic = "FHEGATE/POLICY/PLAN/v1\x00"

func (p *Plan) encode() []byte {
	b := []byte(planMagic)
	u8 := func(v int) { b = append(b, byte(v)) }
	u32 := func(v int) { b = binary.BigEndian.AppendUint32(b, uint32(v)) }
	i64 := func(v int64) { b = binary.BigEndian.AppendUint64(b, uint64(v)) }
	str := func(s string) { u32(len(s)); b = append(b, s...) }
	u8(int(p.Preset))
	u8(p.PresetDepth)
	u32(p.Slots)
	str(p.Name)
	u32(len(p.Inputs))
	for _, in := range p.Inputs {
		str(in.Name)
		i64(in.Min)
		i64(in.Max)
	}
	str(p.Output.Type)
	i64(p.Output.Min)
	i64(p.Output.Max)
	u32(len(p.Ops))
	for _, op := range p.Ops {
		u8(int(op.Kind))
		u8(boolByte(op.Refresh))
		u8(op.Depth)
		u32(op.Input)
		i64(op.Min)
		i64(op.Max)
		u32(len(op.Args))
		for _, a := range op.Args {
			u32(a)
		}
		u32(len(op.Weights))
		for _, w := range op.Weights {
			i64(w)
		}
		i64(op.Const)
		u32(len(op.Coeffs))
		for _, x := range op.Coeffs {
			u32(int(x))
		}
	}
	u32(p.Result)
	return b
}

func boolByte(b bool) int {
	if b {
		return 1
	}
	return 0
}

func keccak(b []byte) [32]byte { return keccakpkg.Sum(b) }

// CanonicalBytes is the deterministic encoding of the plan (what Hash hashes).
func (p *Plan) CanonicalBytes() []byte { return append([]byte(nil), p.canon...) }

// Hash is keccak256(CanonicalBytes()): the same policy document compiled for
// the same target gives the same hash on every machine.
func (p *Plan) Hash() [32]byte { return p.hash }

// HashHex is Hash as 0x-prefixed hex.
func (p *Plan) HashHex() string { return "0x" + hex.EncodeToString(p.hash[:]) }

// GaloisRotations lists the rotation steps whose Galois keys the plan needs.
// Plans are slot-wise (slot i of every input is decision i), so the list is
// empty; it exists so that callers generate keys from the plan, not by hand.
func (p *Plan) GaloisRotations() []int { return nil }

// Spec returns the parsed document the plan was compiled from.
func (p *Plan) Spec() *Spec { return p.spec }

// InputIndex returns the position of a named input, or −1.
func (p *Plan) InputIndex(name string) int {
	for i, in := range p.Inputs {
		if in.Name == name {
			return i
		}
	}
	return -1
}
