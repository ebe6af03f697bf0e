package eval

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/policy"
)

// Errors. Every error Evaluate returns wraps one of these (or fhe.ErrLevel).
var (
	// ErrPreset: the evaluator or a ciphertext belongs to another preset than the plan.
	ErrPreset = errors.New("policy/eval: preset mismatch")
	// ErrArity: the number of input ciphertexts differs from the plan's inputs.
	ErrArity = errors.New("policy/eval: wrong number of inputs")
	// ErrNeedsRefresh: the plan needs a refresh and no Options.Refresh was given.
	ErrNeedsRefresh = errors.New("policy/eval: plan needs a refresh (committee MPC bootstrap)")
	// ErrCiphertext: an input is nil, has the wrong degree, or has too few levels.
	ErrCiphertext = errors.New("policy/eval: bad input ciphertext")
)

// InputError reports a problem with one input ciphertext.
type InputError struct {
	Index int
	Name  string
	Err   error // ErrPreset, ErrCiphertext or fhe.ErrLevel
	Msg   string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("%v: input %d (%q): %s", e.Err, e.Index, e.Name, e.Msg)
}

// Unwrap returns the error kind.
func (e *InputError) Unwrap() error { return e.Err }

// RefreshFunc re-encrypts a ciphertext at the top level without changing its
// slots. The committee implements it with Lattigo's collective bootstrapping
// (multiparty RefreshProtocol); tests with a local secret key decrypt and
// re-encrypt.
type RefreshFunc func(ctx context.Context, ct *fhe.Ciphertext) (*fhe.Ciphertext, error)

// LocalRefresh stands in for the committee's collective refresh where one
// party holds the secret key (benchmarks, tests; never the committee): it
// decrypts with keys and re-encrypts at the top level, once per distinct
// input (memoised by handle), so that evaluations of the same inputs — a
// gathered and a sequential one, a best-of timing and its pure-Go
// baseline — get the same refreshed ciphertexts. Safe for concurrent use.
func LocalRefresh(keys *fhe.KeySet) RefreshFunc {
	var mu sync.Mutex
	done := map[fhe.Handle]*fhe.Ciphertext{}
	enc, dec := fhe.NewEncryptor(keys.Public), fhe.NewDecryptor(keys.Secret)
	return func(_ context.Context, ct *fhe.Ciphertext) (*fhe.Ciphertext, error) {
		h, err := ct.Handle()
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		if out, ok := done[h]; ok {
			return out, nil
		}
		v, err := dec.DecryptInts(ct)
		if err != nil {
			return nil, err
		}
		out, err := enc.EncryptInts(v)
		if err != nil {
			return nil, err
		}
		done[h] = out
		return out, nil
	}
}

// Options tune an evaluation. The zero value evaluates sequentially and
// refuses plans that need a refresh.
type Options struct {
	// Refresh is called on every register the plan marks Refresh.
	Refresh RefreshFunc
	// Parallel is the number of ops evaluated concurrently within one
	// request (independent polynomials), or of requests within a batch.
	// 0 or 1: sequential. The result does not depend on it.
	Parallel int
	// Gather evaluates the plan as a dataflow: every op starts as soon as
	// its operands are ready, as a participant of one engine.Gather, so the
	// engine's transforms of all ops that can proceed together — the key
	// switches and rescales of one depth level of the plan, and the
	// independent products of a polynomial's power basis — reach the
	// installed router (the GPU gate) as one batch per step instead of one
	// key switch's at a time. At most max(Parallel, 1) ops run Go code at
	// once (1: the CPU work of a sequential evaluation, in another order).
	// The result is the same bytes either way (TestGatherByteIdentical).
	Gather bool
	// Router receives the gathered rounds (nil: the router installed in
	// fhe/engine at the time of each round, e.g. the GPU gate's
	// dispatcher). Used only with Gather.
	Router engine.Router
}

// Evaluate evaluates the plan on one set of input ciphertexts (inputs[j] =
// input j of the plan; slot i of every input is decision i) and returns the
// verdict ciphertext (slot i = verdict of decision i). It reads no
// randomness and goes through fhe.Evaluator only, so equal inputs give equal
// bytes on every machine.
func Evaluate(ctx context.Context, plan *policy.Plan, ev *fhe.Evaluator, inputs []*fhe.Ciphertext) (*fhe.Ciphertext, error) {
	return EvaluateWith(ctx, plan, ev, inputs, Options{})
}

// Check validates the evaluator and the inputs against the plan without
// evaluating anything (cheap; callers can run it before charging or queueing).
func Check(plan *policy.Plan, ev *fhe.Evaluator, inputs []*fhe.Ciphertext) error {
	if plan == nil || ev == nil {
		return fmt.Errorf("%w: nil plan or evaluator", ErrArity)
	}
	p := ev.Params()
	if uint8(p.Preset.ID) != plan.Preset {
		return fmt.Errorf("%w: evaluator is %s, plan %q targets preset %d (%s)", ErrPreset, p.Preset.Name, plan.Name, plan.Preset, plan.PresetName)
	}
	if p.Scheme() != fhe.SchemeBGV || p.PlaintextModulus() != policy.PlaintextModulus {
		return fmt.Errorf("%w: %s is not BGV with t = %d", ErrPreset, p.Preset.Name, policy.PlaintextModulus)
	}
	if need := plan.Depth + plan.RefreshFloor; p.MaxLevel() < need {
		return fmt.Errorf("%w: %s has %d levels, plan needs %d (depth %d above refresh floor %d)", ErrPreset, p.Preset.Name, p.MaxLevel(), need, plan.Depth, plan.RefreshFloor)
	}
	if len(inputs) != len(plan.Inputs) {
		return fmt.Errorf("%w: %d ciphertexts, plan %q declares %d inputs", ErrArity, len(inputs), plan.Name, len(plan.Inputs))
	}
	for j, ct := range inputs {
		name := plan.Inputs[j].Name
		switch {
		case ct == nil:
			return &InputError{Index: j, Name: name, Err: ErrCiphertext, Msg: "nil ciphertext"}
		case ct.Params() != p:
			return &InputError{Index: j, Name: name, Err: ErrPreset, Msg: fmt.Sprintf("ciphertext is %s, plan needs %s", ct.Params().Preset.Name, p.Preset.Name)}
		case ct.Degree() != 1:
			return &InputError{Index: j, Name: name, Err: ErrCiphertext, Msg: fmt.Sprintf("degree %d, want 1", ct.Degree())}
		case ct.Level() < plan.Depth+plan.RefreshFloor:
			return &InputError{Index: j, Name: name, Err: fhe.ErrLevel, Msg: fmt.Sprintf("level %d, plan needs %d (depth %d above refresh floor %d)", ct.Level(), plan.Depth+plan.RefreshFloor, plan.Depth, plan.RefreshFloor)}
		}
	}
	return nil
}

// EvaluateWith is Evaluate with options.
func EvaluateWith(ctx context.Context, plan *policy.Plan, ev *fhe.Evaluator, inputs []*fhe.Ciphertext, opt Options) (*fhe.Ciphertext, error) {
	if err := Check(plan, ev, inputs); err != nil {
		return nil, err
	}
	if plan.NeedsRefresh && opt.Refresh == nil {
		return nil, fmt.Errorf("%w: plan %q marks %d registers", ErrNeedsRefresh, plan.Name, plan.Counts.Refreshes)
	}
	r := &run{ctx: ctx, plan: plan, ev: ev, inputs: inputs, opt: opt, regs: make([]*fhe.Ciphertext, len(plan.Ops))}
	if opt.Gather {
		g := engine.NewGather(opt.Router, opt.Parallel)
		if err := gather(g, []*run{r}); err != nil {
			return nil, err
		}
		return r.regs[plan.Result], nil
	}
	if err := r.all(); err != nil {
		return nil, err
	}
	return r.regs[plan.Result], nil
}

// EvaluateBatch evaluates several independent ciphertext sets (each up to
// plan.Slots decisions) with up to opt.Parallel of them at a time; results are
// in the order of sets. Within a set evaluation is sequential.
func EvaluateBatch(ctx context.Context, plan *policy.Plan, ev *fhe.Evaluator, sets [][]*fhe.Ciphertext, opt Options) ([]*fhe.Ciphertext, error) {
	for _, in := range sets {
		if err := Check(plan, ev, in); err != nil {
			return nil, err
		}
	}
	out := make([]*fhe.Ciphertext, len(sets))
	if opt.Gather {
		// One Gather over every set: the transforms of all sets' ready ops
		// go to the router together.
		if plan.NeedsRefresh && opt.Refresh == nil {
			return nil, fmt.Errorf("%w: plan %q marks %d registers", ErrNeedsRefresh, plan.Name, plan.Counts.Refreshes)
		}
		g := engine.NewGather(opt.Router, opt.Parallel)
		runs := make([]*run, len(sets))
		for i, in := range sets {
			runs[i] = &run{ctx: ctx, plan: plan, ev: ev, inputs: in, opt: opt, regs: make([]*fhe.Ciphertext, len(plan.Ops))}
		}
		err := gather(g, runs)
		for i, r := range runs {
			out[i] = r.regs[plan.Result]
		}
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	errs := make([]error, len(sets))
	par := max(opt.Parallel, 1)
	inner := opt
	inner.Parallel = 1
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, in := range sets {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = EvaluateWith(ctx, plan, ev, in, inner)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("policy/eval: set %d: %w", i, err)
		}
	}
	return out, nil
}

var (
	constMu sync.Mutex
	consts  = map[[2]int64][]int64{}
)

// ones returns the all-ones slot vector of the evaluator's preset.
func (r *run) ones() []int64 { return r.constVec(1) }

// constVec returns the slot vector with c in every slot (shared, read-only).
func (r *run) constVec(c int64) []int64 {
	n := r.ev.Params().Slots()
	key := [2]int64{int64(n), c}
	constMu.Lock()
	defer constMu.Unlock()
	if v, ok := consts[key]; ok {
		return v
	}
	v := make([]int64, n)
	for i := range v {
		v[i] = c
	}
	if len(consts) > 1024 {
		clear(consts)
	}
	consts[key] = v
	return v
}

// mulSmall returns w·t (w ≥ 1) by doubling and adding. It avoids
// fhe.Evaluator.MulConst, whose BGV result loses a rescaled ciphertext's
// scale (reported to the fhe owner); the noise grows by w either way, and w
// is at most 32768 (15 doublings).
func (r *run) mulSmall(t *fhe.Ciphertext, w int64) (*fhe.Ciphertext, error) {
	if w == 1 {
		return t, nil
	}
	var acc *fhe.Ciphertext
	pow := t
	for ; w > 0; w >>= 1 {
		var err error
		if w&1 == 1 {
			if acc == nil {
				acc = pow
			} else if acc, err = r.ev.Add(acc, pow); err != nil {
				return nil, err
			}
		}
		if w > 1 {
			if pow, err = r.ev.Add(pow, pow); err != nil {
				return nil, err
			}
		}
	}
	return acc, nil
}

type run struct {
	ctx    context.Context
	plan   *policy.Plan
	ev     *fhe.Evaluator
	inputs []*fhe.Ciphertext
	opt    Options
	regs   []*fhe.Ciphertext
	// g is the Gather of a gathered evaluation (nil: sequential); a
	// refresh runs outside it (Gather.Outside).
	g *engine.Gather
}

// all evaluates every op. With Parallel > 1 the ops are grouped in waves (an
// op's wave is one more than its latest operand's) and each wave runs
// concurrently; every op is deterministic, so the result is the same.
func (r *run) all() error {
	ops := r.plan.Ops
	if r.opt.Parallel <= 1 {
		for i := range ops {
			if err := r.one(i); err != nil {
				return err
			}
		}
		return nil
	}
	wave := make([]int, len(ops))
	var waves [][]int
	for i, op := range ops {
		for _, a := range op.Args {
			wave[i] = max(wave[i], wave[a]+1)
		}
		for len(waves) <= wave[i] {
			waves = append(waves, nil)
		}
		waves[wave[i]] = append(waves[wave[i]], i)
	}
	sem := make(chan struct{}, r.opt.Parallel)
	for _, w := range waves {
		errs := make([]error, len(w))
		var wg sync.WaitGroup
		for k, i := range w {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				errs[k] = r.one(i)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	return nil
}

// errOperand marks an op skipped because one of its operands failed.
var errOperand = errors.New("policy/eval: operand failed")

// gather evaluates every op of runs as a participant of g (each run on its
// own view of the evaluator routed to g): an op waits for its operands'
// events, evaluates, and fires its own. The error is the first failing
// op's, in run and op order (as the sequential evaluation reports it).
func gather(g *engine.Gather, runs []*run) error {
	var fs []func()
	errs := make([][]error, len(runs))
	for k, r := range runs {
		r.ev = r.ev.WithRouter(g)
		r.g = g
		ops := r.plan.Ops
		done := make([]*engine.Event, len(ops))
		for i := range ops {
			done[i] = g.NewEvent()
		}
		errs[k] = make([]error, len(ops))
		for i := range ops {
			fs = append(fs, func() {
				defer done[i].Fire()
				for _, a := range ops[i].Args {
					done[a].Wait()
					if errs[k][a] != nil {
						errs[k][i] = errOperand
						return
					}
				}
				errs[k][i] = r.one(i)
			})
		}
	}
	g.Run(fs...)
	for k := range runs {
		for _, err := range errs[k] {
			if err != nil && !errors.Is(err, errOperand) {
				if len(runs) > 1 {
					return fmt.Errorf("policy/eval: set %d: %w", k, err)
				}
				return err
			}
		}
	}
	return nil
}

func (r *run) one(i int) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	op := &r.plan.Ops[i]
	ct, err := r.compute(op)
	if err != nil {
		return fmt.Errorf("policy/eval: plan %q op %d (%v): %w", r.plan.Name, i, op.Kind, err)
	}
	if op.Refresh {
		// Check guarantees it (inputs at level ≥ Depth + RefreshFloor, at
		// most Depth levels per segment); a refresh below the floor would
		// have no room for its flooding.
		if ct.Level() < r.plan.RefreshFloor {
			return fmt.Errorf("policy/eval: plan %q op %d: refresh at level %d, below the refresh floor %d", r.plan.Name, i, ct.Level(), r.plan.RefreshFloor)
		}
		refresh := func() { ct, err = r.opt.Refresh(r.ctx, ct) }
		if r.g != nil {
			// a collective refresh waits on other machines: the rest of
			// the plan's rounds go out meanwhile (Gather.Outside).
			r.g.Outside(refresh)
		} else {
			refresh()
		}
		if err != nil {
			return fmt.Errorf("policy/eval: refresh of op %d: %w", i, err)
		}
	}
	r.regs[i] = ct
	return nil
}

func (r *run) compute(op *policy.Op) (*fhe.Ciphertext, error) {
	ev := r.ev
	switch op.Kind {
	case policy.OpInput:
		return r.inputs[op.Input], nil
	case policy.OpLinear:
		var acc *fhe.Ciphertext
		for k, a := range op.Args {
			t, w := r.regs[a], op.Weights[k]
			neg := w < 0
			if neg {
				w = -w
			}
			var err error
			if t, err = r.mulSmall(t, w); err != nil {
				return nil, err
			}
			switch {
			case acc == nil && neg:
				acc, err = ev.Neg(t)
			case acc == nil:
				acc = t
			case neg:
				acc, err = ev.Sub(acc, t)
			default:
				acc, err = ev.Add(acc, t)
			}
			if err != nil {
				return nil, err
			}
		}
		if acc == nil { // a constant verdict: (x − x) + c
			var err error
			if acc, err = ev.Sub(r.inputs[0], r.inputs[0]); err != nil {
				return nil, err
			}
		}
		if op.Const != 0 {
			return ev.AddInts(acc, r.constVec(op.Const))
		}
		if len(op.Args) > 0 && acc == r.regs[op.Args[0]] { // a bare copy (the verdict is an input)
			return acc.Copy(), nil
		}
		return acc, nil
	case policy.OpPoly:
		return ev.EvalPolyInts(r.regs[op.Args[0]], op.Coeffs)
	case policy.OpMul:
		return ev.Mul(r.regs[op.Args[0]], r.regs[op.Args[1]])
	case policy.OpRescale:
		return ev.MulInts(r.regs[op.Args[0]], r.ones())
	}
	return nil, fmt.Errorf("unknown op kind %v", op.Kind)
}

// EncryptDecisions packs decisions (decisions[i][j] = input j of decision i,
// at most plan.Slots of them, each within its declared range) and encrypts
// one ciphertext per input.
func EncryptDecisions(enc *fhe.Encryptor, plan *policy.Plan, decisions [][]int64) ([]*fhe.Ciphertext, error) {
	packed, err := plan.PackInputs(decisions)
	if err != nil {
		return nil, err
	}
	return EncryptSlots(enc, packed)
}

// EncryptSlots encrypts per-input slot vectors without range checks (for
// tests of out-of-range behaviour and for callers that already packed).
func EncryptSlots(enc *fhe.Encryptor, slots [][]int64) ([]*fhe.Ciphertext, error) {
	out := make([]*fhe.Ciphertext, len(slots))
	for j, v := range slots {
		ct, err := enc.EncryptInts(v)
		if err != nil {
			return nil, fmt.Errorf("policy/eval: encrypt input %d: %w", j, err)
		}
		out[j] = ct
	}
	return out, nil
}

// DecryptVerdicts decrypts the first n verdicts (centred in [−32768, 32768]).
func DecryptVerdicts(dec *fhe.Decryptor, ct *fhe.Ciphertext, n int) ([]int64, error) {
	v, err := dec.DecryptInts(ct)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > len(v) {
		return nil, fmt.Errorf("policy/eval: %d verdicts requested, ciphertext has %d slots", n, len(v))
	}
	return v[:n], nil
}

// OptionsFor returns the compile options that target the given parameters
// with refresh floor 0: plans for single-key tests, whose "refresh" is a
// decryption and re-encryption that needs no room for a flooding. The
// committee's plans take CompileOptions (the preset's refresh floor).
func OptionsFor(p *fhe.Params) policy.Options {
	return policy.Options{Preset: uint8(p.Preset.ID), Depth: p.MaxLevel(), Slots: p.Slots()}
}
