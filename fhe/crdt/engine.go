package crdt

import (
	"errors"
	"fmt"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
)

// Errors.
var (
	// ErrEmpty: the state has no entries, so there is no aggregate ciphertext
	// (its value is the all-zero vector; nothing to decrypt).
	ErrEmpty = errors.New("crdt: empty state")
	// ErrLayout: the layout does not fit the evaluator's preset.
	ErrLayout = errors.New("crdt: layout does not fit the preset")
	// ErrInput: a writer's ciphertext is not a fresh top-level BGV encryption.
	ErrInput = errors.New("crdt: bad input ciphertext")
	// ErrMissing: a handle the plan references cannot be resolved.
	ErrMissing = errors.New("crdt: missing contribution")
	// ErrType: the read does not apply to the layout's type.
	ErrType = errors.New("crdt: wrong CRDT type for this read")
)

// Resolver returns the normalised contribution (see Engine.Contribution) of the
// ciphertext named h that was written for block b.
type Resolver func(b uint32, h meta.Handle) (*fhe.Ciphertext, error)

// Engine applies metadata merges to ciphertexts. It is safe for concurrent
// use (the evaluator is) and deterministic.
type Engine struct {
	eval      *fhe.Evaluator
	p         *fhe.Params
	readLevel int // reads drop their result to this level (0: ready for decryption at level 0)
}

// WithReadLevel returns an engine whose reads leave their result at level
// `level` (or where it is, if lower) instead of dropping it to level 0: the
// committee refreshes a read result collectively before its threshold
// decryption, and a refresh needs a level with room for its flooding
// (noise.RefreshFloorLevel).
func (e *Engine) WithReadLevel(level int) *Engine {
	c := *e
	c.readLevel = max(level, 0)
	return &c
}

// NewEngine returns an engine on a BGV evaluator.
func NewEngine(eval *fhe.Evaluator) (*Engine, error) {
	if eval == nil {
		return nil, errors.New("crdt: nil evaluator")
	}
	if eval.Params().Scheme() != fhe.SchemeBGV {
		return nil, fmt.Errorf("crdt: %w: CRDT lanes are BGV", ErrLayout)
	}
	return &Engine{eval: eval, p: eval.Params()}, nil
}

// Evaluator returns the engine's evaluator.
func (e *Engine) Evaluator() *fhe.Evaluator { return e.eval }

// CheckLayout verifies a layout against the engine's preset: same preset, the
// lanes fit the slots, the contribution level leaves one level for the
// normalising mod switch, sets keep enough levels for the membership
// polynomial, counter widths are powers of two (InnerSum batches).
func (e *Engine) CheckLayout(l meta.Layout) error {
	if err := l.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrLayout, err)
	}
	if fhe.PresetID(l.Preset) != e.p.Preset.ID {
		return fmt.Errorf("%w: preset %d, engine is %s (%d)", ErrLayout, l.Preset, e.p.Preset.Name, e.p.Preset.ID)
	}
	if l.Lanes() > e.p.Slots() {
		return fmt.Errorf("%w: %d lanes > %d slots", ErrLayout, l.Lanes(), e.p.Slots())
	}
	if int(l.Level) >= e.p.MaxLevel() {
		return fmt.Errorf("%w: level %d, need < %d", ErrLayout, l.Level, e.p.MaxLevel())
	}
	switch l.Type {
	case meta.TypeGCounter, meta.TypePNCounter:
		if l.Width&(l.Width-1) != 0 {
			return fmt.Errorf("%w: counter width %d is not a power of two", ErrLayout, l.Width)
		}
	case meta.TypeSet:
		if need := fhe.PolyDepth(int(l.Blocks)); int(l.Level) < need {
			return fmt.Errorf("%w: set of %d replicas needs level ≥ %d for membership, layout has %d", ErrLayout, l.Blocks, need, l.Level)
		}
	}
	return nil
}

// Contribution normalises the ciphertext a writer submitted for block b: it
// keeps only the block's lanes (a 0/1 plaintext mask, so a writer can never
// touch another block's lanes), and switches to the layout's level with one
// modulus switch (dropping the other primes first so the product is cheap).
// The raw ciphertext must be a fresh BGV encryption (scale 1) at any level
// above the layout's (writers should encrypt at Level+1: the smallest
// ciphertext). Every contribution of a layout then has the same level and
// scale (q_{Level+1}⁻¹ mod t), so sums of contributions are exact and
// order-independent.
func (e *Engine) Contribution(l meta.Layout, b uint32, raw *fhe.Ciphertext) (*fhe.Ciphertext, error) {
	if err := e.CheckLayout(l); err != nil {
		return nil, err
	}
	if b >= l.Blocks {
		return nil, fmt.Errorf("%w: block %d ≥ %d", ErrLayout, b, l.Blocks)
	}
	if raw == nil || raw.Params() != e.p {
		return nil, fmt.Errorf("%w: nil or other preset", ErrInput)
	}
	if raw.Level() <= int(l.Level) || raw.Degree() != 1 || raw.ScaleModT() != 1 {
		return nil, fmt.Errorf("%w: level %d degree %d scale %d, want level > %d, degree 1, scale 1", ErrInput, raw.Level(), raw.Degree(), raw.ScaleModT(), l.Level)
	}
	ct, err := e.eval.DropLevels(raw, raw.Level()-int(l.Level)-1)
	if err != nil {
		return nil, err
	}
	lo, hi := l.BlockLanes(b)
	mask := make([]int64, hi)
	for i := lo; i < hi; i++ {
		mask[i] = 1
	}
	return e.eval.MulInts(ct, mask)
}

// Aggregate materialises a state's aggregate ciphertext from scratch: the sum
// of its entries' contributions. Lane i holds the value of the block owning it
// (counters, LWW) or Σ_r m_r[i] (set).
func (e *Engine) Aggregate(s *meta.State, get Resolver) (*fhe.Ciphertext, error) {
	if s == nil {
		return nil, ErrEmpty
	}
	if err := e.CheckLayout(s.Layout); err != nil {
		return nil, err
	}
	if len(s.Entries) == 0 {
		return nil, ErrEmpty
	}
	plus := make([]*fhe.Ciphertext, len(s.Entries))
	for i, en := range s.Entries {
		c, err := resolve(get, en.Block, en.Handle)
		if err != nil {
			return nil, err
		}
		plus[i] = c
	}
	return e.eval.LinearSum(plus, nil)
}

func resolve(get Resolver, b uint32, h meta.Handle) (*fhe.Ciphertext, error) {
	if get == nil {
		return nil, fmt.Errorf("%w: no resolver", ErrMissing)
	}
	c, err := get(b, h)
	if err != nil {
		return nil, fmt.Errorf("%w: block %d %v: %v", ErrMissing, b, h, err)
	}
	if c == nil {
		return nil, fmt.Errorf("%w: block %d %v", ErrMissing, b, h)
	}
	return c, nil
}

// Materialise applies a merge plan to the inputs' aggregates (nil for an empty
// input): it starts from the aggregate of the side needing fewer changes and,
// for every block the other side wins, adds the winner's contribution and
// subtracts the loser's. Additions only — no multiplication, no rescale — and
// exact, so the result equals Aggregate(merged state) bit for bit.
func (e *Engine) Materialise(plan *meta.Plan, aggA, aggB *fhe.Ciphertext, get Resolver) (*fhe.Ciphertext, error) {
	if plan == nil {
		return nil, errors.New("crdt: nil plan")
	}
	if err := e.CheckLayout(plan.Layout); err != nil {
		return nil, err
	}
	if len(plan.Picks) == 0 {
		return nil, ErrEmpty
	}
	base, changes := plan.Base()
	baseAgg, otherAgg := aggA, aggB
	if base == meta.SideB {
		baseAgg, otherAgg = aggB, aggA
	}
	baseHas := false
	for _, pk := range plan.Picks {
		if pk.From == base || pk.From == meta.SideBoth || pk.HasLoser {
			baseHas = true
			break
		}
	}
	switch {
	case baseHas && baseAgg == nil:
		return nil, fmt.Errorf("%w: the %v side is not empty but its aggregate is nil", ErrMissing, base)
	case !baseHas && otherAgg != nil:
		return otherAgg.Copy(), nil // the base side is empty: the result is the other side
	case len(changes) == 0:
		return baseAgg.Copy(), nil
	}
	if !baseHas {
		baseAgg = nil
	}
	plus := make([]*fhe.Ciphertext, 0, len(changes)+1)
	minus := make([]*fhe.Ciphertext, 0, len(changes))
	if baseAgg != nil {
		plus = append(plus, baseAgg)
	}
	for _, pk := range changes {
		w, err := resolve(get, pk.Block, pk.Winner)
		if err != nil {
			return nil, err
		}
		plus = append(plus, w)
		if pk.HasLoser {
			l, err := resolve(get, pk.Block, pk.Loser)
			if err != nil {
				return nil, err
			}
			minus = append(minus, l)
		}
	}
	return e.eval.LinearSum(plus, minus)
}
