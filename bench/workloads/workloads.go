package workloads

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/schemes/ckks"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/engine"
)

// Variant selects one of the two implementations of a workload.
type Variant int

// Variants.
const (
	// Baseline is what a first-time Lattigo user writes at the preset:
	// MulRelinNew / MulNew + Rescale and a rotate-and-add loop of RotateNew +
	// AddNew, everything at the level the ciphertext arrives at.
	Baseline Variant = iota
	// Fhegate is the engine's best exact evaluation (see the package doc).
	Fhegate
	// SameLevel is the baseline's plain Lattigo calls run at fhegate's
	// input and output levels (e.g. mul_pipeline: inputs viewed at level 1,
	// MulRelinNew, Rescale → level 0). Baseline/SameLevel is the gain of the
	// level choice alone; SameLevel/Fhegate the gain of fhegate's algorithms
	// (hoisting, lazy relinearisation, batched key switching, reused buffers)
	// at equal levels.
	SameLevel
)

// Variants lists the variants in measurement order.
var Variants = []Variant{Baseline, SameLevel, Fhegate}

func (v Variant) String() string {
	switch v {
	case Baseline:
		return "baseline"
	case Fhegate:
		return "fhegate"
	case SameLevel:
		return "same-level"
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// Names are the workloads, in report order.
var Names = []string{"mul_pipeline", "slot_sum_64", "dot_64", "square", "dense_64x4", "bgv_dot_128"}

// slotRef locates one component of a result: output ciphertext, slot.
type slotRef struct{ ct, slot int }

type impl struct {
	run  func() ([]*rlwe.Ciphertext, error)
	out  []slotRef
	desc string
}

// Case is one workload with fixed inputs (already encrypted) and its
// plaintext reference. Run evaluates a variant — this is exactly the timed
// region; MaxErr decrypts and compares with the reference.
type Case struct {
	Name string
	// Batch is the number of independent workload instances one evaluation
	// computes (1 for the latency cases; >1 for a Packed case).
	Batch int
	env   *Env
	impls [3]*impl
	want  []float64
	exact bool
}

// Env returns the case's environment.
func (c *Case) Env() *Env { return c.env }

// Has reports whether the case implements the variant (packed cases only
// implement Fhegate).
func (c *Case) Has(v Variant) bool { return v >= 0 && int(v) < len(c.impls) && c.impls[v] != nil }

// Timed describes what the variant's timed region contains.
func (c *Case) Timed(v Variant) string {
	if !c.Has(v) {
		return ""
	}
	return c.impls[v].desc
}

// Run evaluates variant v on the case's input ciphertexts. Inputs are never
// modified. The returned ciphertexts may be scratch buffers of the case that
// the next Run of the same variant overwrites.
func (c *Case) Run(v Variant) ([]*rlwe.Ciphertext, error) {
	if !c.Has(v) {
		return nil, fmt.Errorf("workloads: %s has no %v variant", c.Name, v)
	}
	return c.impls[v].run()
}

// Want returns the plaintext reference results.
func (c *Case) Want() []float64 { return c.want }

// Exact reports whether results must match exactly (BGV).
func (c *Case) Exact() bool { return c.exact }

// MaxErr decrypts the outputs of variant v and returns the largest absolute
// difference from the plaintext reference (BGV: after centring mod t).
func (c *Case) MaxErr(v Variant, outs []*rlwe.Ciphertext) (float64, error) {
	if !c.Has(v) {
		return 0, fmt.Errorf("workloads: %s has no %v variant", c.Name, v)
	}
	got, err := c.Results(v, outs)
	if err != nil {
		return 0, err
	}
	maxErr := 0.0
	for i, g := range got {
		maxErr = math.Max(maxErr, math.Abs(g-c.want[i]))
	}
	return maxErr, nil
}

// Results decrypts the outputs of variant v into the result vector.
func (c *Case) Results(v Variant, outs []*rlwe.Ciphertext) ([]float64, error) {
	im := c.impls[v]
	dec := make(map[int][]float64)
	got := make([]float64, len(im.out))
	for i, r := range im.out {
		if r.ct >= len(outs) {
			return nil, fmt.Errorf("workloads: %s/%v: %d outputs, want ≥ %d", c.Name, v, len(outs), r.ct+1)
		}
		d, ok := dec[r.ct]
		if !ok {
			var err error
			if c.exact {
				var ints []int64
				ints, err = c.env.decryptInts(outs[r.ct])
				d = make([]float64, len(ints))
				for j, x := range ints {
					d[j] = float64(x)
				}
			} else {
				d, err = c.env.decryptFloats(outs[r.ct])
			}
			if err != nil {
				return nil, err
			}
			dec[r.ct] = d
		}
		got[i] = d[r.slot]
	}
	return got, nil
}

// New builds the named workload on env with inputs drawn from rng: CKKS
// values uniform in [-1, 1], BGV values in [-15, 15]. With packed, the input
// ciphertexts are filled with as many independent instances as fit and only
// the Fhegate variant is built (for the amortised throughput figure).
func New(name string, env *Env, rng *rand.Rand, packed bool) (*Case, error) {
	wantScheme := fhe.SchemeCKKS
	if name == "bgv_dot_128" {
		wantScheme = fhe.SchemeBGV
	}
	if env.P.Scheme() != wantScheme {
		return nil, fmt.Errorf("workloads: %s needs a %v preset, %s is %v", name, wantScheme, env.P.Preset.Name, env.P.Scheme())
	}
	switch name {
	case "mul_pipeline":
		return newMul(env, rng, false, packed)
	case "square":
		return newMul(env, rng, true, packed)
	case "slot_sum_64":
		return newSlotSum(env, rng, packed)
	case "dot_64":
		return newDot(env, rng, packed)
	case "dense_64x4":
		return newDense(env, rng, packed)
	case "bgv_dot_128":
		return newBGVDot(env, rng, packed)
	}
	return nil, fmt.Errorf("workloads: unknown workload %q", name)
}

func randFloats(rng *rand.Rand, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 2*rng.Float64() - 1
	}
	return out
}

func randInts(rng *rand.Rand, n int, bound int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = rng.Int64N(2*bound+1) - bound
	}
	return out
}

// ---------------------------------------------------------------------------
// Shared fhegate kernels.

// mulLow holds the scratch buffers of ckksMulLow.
type mulLow struct {
	t1  *rlwe.Ciphertext // degree 1, level 1
	t2  *rlwe.Ciphertext // degree 2, level 1
	t2r *rlwe.Ciphertext // degree 2, level 0
	ks  *engine.KeySwitcher
}

func newMulLow(p ckks.Parameters) *mulLow {
	return &mulLow{t1: ckks.NewCiphertext(p, 1, 1), t2: ckks.NewCiphertext(p, 2, 1), t2r: ckks.NewCiphertext(p, 2, 0)}
}

// ckksMulLow computes a⊙b into out (degree 1, level 0). Both operands are
// viewed at level 1 (a free truncation: the product is final, so one level is
// all it needs) and tensored there (two primes instead of four).
//
// relinFirst=false: the degree-2 product is rescaled first (three
// polynomials, one prime each) and relinearised at level 0, where the key
// switch has a single digit over one Q and one P prime — the cheapest order,
// but the key-switch noise is then not divided by q_1 (error ≈ 1e-6 instead
// of 1e-8 on [-1,1] inputs; fine for one product, too much to sum 64 of).
// relinFirst=true: relinearise at level 1, then rescale (the noise of the key
// switch is divided by q_1).
func ckksMulLow(ev *ckks.Evaluator, b *mulLow, x, y, out *rlwe.Ciphertext, relinFirst bool) error {
	if x.Level() < 1 || y.Level() < 1 {
		return fhe.ErrLevel
	}
	xv := atLevel(x, 1)
	yv := xv // keep pointer equality: Lattigo's squaring path
	if y != x {
		yv = atLevel(y, 1)
	}
	// Relinearisation is fhegate's engine key switch (byte-identical to
	// Lattigo's MulRelin / Relinearize, transforms batched and routed).
	rlk, err := ev.CheckAndGetRelinearizationKey()
	if err != nil {
		return err
	}
	if b.ks == nil {
		b.ks = engine.NewKeySwitcher(*ev.GetRLWEParameters(), ev.Evaluator)
	}
	if err := ev.Mul(xv, yv, b.t2); err != nil {
		return err
	}
	if relinFirst {
		if err := b.ks.Relinearize(b.t2, rlk, b.t1); err != nil {
			return err
		}
		return ev.Rescale(b.t1, out)
	}
	if err := ev.Rescale(b.t2, b.t2r); err != nil {
		return err
	}
	return b.ks.Relinearize(b.t2r, rlk, out)
}

// rotSumCKKS replaces acc by Σ_{k<n} rot(acc, k) with the log2(n)-step
// rotate-and-add tree, rotating into tmp (same level as acc). If src is not
// nil the first step reads src instead of acc (saving a copy).
func rotSumCKKS(ev *ckks.Evaluator, src, acc, tmp *rlwe.Ciphertext, n int) error {
	for k := 1; k < n; k <<= 1 {
		in := acc
		if k == 1 && src != nil {
			in = src
		}
		if err := ev.Rotate(in, k, tmp); err != nil {
			return err
		}
		if err := ev.Add(in, tmp, acc); err != nil {
			return err
		}
	}
	return nil
}

// rotSumNaiveCKKS is the baseline tree: RotateNew + AddNew at the input level.
func rotSumNaiveCKKS(ev *ckks.Evaluator, ct *rlwe.Ciphertext, n int) (*rlwe.Ciphertext, error) {
	acc := ct
	for k := 1; k < n; k <<= 1 {
		r, err := ev.RotateNew(acc, k)
		if err != nil {
			return nil, err
		}
		if acc, err = ev.AddNew(acc, r); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// ---------------------------------------------------------------------------
// mul_pipeline and square.

func newMul(env *Env, rng *rand.Rand, square, packed bool) (*Case, error) {
	if packed {
		return nil, errors.New("workloads: mul_pipeline/square already use every slot; no packed case")
	}
	p := env.P
	n := p.Slots()
	av, bv := randFloats(rng, n), randFloats(rng, n)
	if square {
		bv = av
	}
	a, err := env.encryptFloats(av)
	if err != nil {
		return nil, err
	}
	b := a
	if !square {
		if b, err = env.encryptFloats(bv); err != nil {
			return nil, err
		}
	}
	want := make([]float64, n)
	out := make([]slotRef, n)
	for i := range want {
		want[i] = av[i] * bv[i]
		out[i] = slotRef{0, i}
	}
	name, what := "mul_pipeline", "a⊙b"
	if square {
		name, what = "square", "x⊙x"
	}
	ev := env.CKKS
	cp := p.CKKS()
	ml := newMulLow(cp)
	res := ckks.NewCiphertext(cp, 1, 0)
	c := &Case{Name: name, Batch: 1, env: env, want: want}
	c.impls[Baseline] = &impl{
		desc: what + ": MulRelinNew at the input level (3), then Rescale → level 2",
		out:  out,
		run: func() ([]*rlwe.Ciphertext, error) {
			ct, err := ev.MulRelinNew(a, b)
			if err != nil {
				return nil, err
			}
			if err := ev.Rescale(ct, ct); err != nil {
				return nil, err
			}
			return []*rlwe.Ciphertext{ct}, nil
		},
	}
	c.impls[SameLevel] = &impl{
		desc: what + ": plain Lattigo at fhegate's levels: inputs viewed at level 1, MulRelinNew, Rescale → level 0",
		out:  out,
		run: func() ([]*rlwe.Ciphertext, error) {
			a1 := atLevel(a, 1)
			b1 := a1 // keep pointer equality: Lattigo's squaring path
			if b != a {
				b1 = atLevel(b, 1)
			}
			ct, err := ev.MulRelinNew(a1, b1)
			if err != nil {
				return nil, err
			}
			if err := ev.Rescale(ct, ct); err != nil {
				return nil, err
			}
			return []*rlwe.Ciphertext{ct}, nil
		},
	}
	c.impls[Fhegate] = &impl{
		desc: what + ": view inputs at level 1, tensor (degree 2), rescale the degree-2 ciphertext, relinearise at level 0 → level 0 (final); output buffer reused",
		out:  out,
		run: func() ([]*rlwe.Ciphertext, error) {
			if err := ckksMulLow(ev, ml, a, b, res, false); err != nil {
				return nil, err
			}
			return []*rlwe.Ciphertext{res}, nil
		},
	}
	return c, nil
}

// ---------------------------------------------------------------------------
// slot_sum_64.

func newSlotSum(env *Env, rng *rand.Rand, packed bool) (*Case, error) {
	const width = 64
	p := env.P
	batch := 1
	if packed {
		batch = p.Slots() / width
	}
	xv := randFloats(rng, batch*width)
	x, err := env.encryptFloats(xv)
	if err != nil {
		return nil, err
	}
	want := make([]float64, batch)
	out := make([]slotRef, batch)
	for j := range batch {
		for i := range width {
			want[j] += xv[j*width+i]
		}
		out[j] = slotRef{0, j * width}
	}
	ev := env.CKKS
	cp := p.CKKS()
	acc := ckks.NewCiphertext(cp, 1, 0)
	tmp := ckks.NewCiphertext(cp, 1, 0)
	scr := fhe.NewRotationScratch(p.RLWE())
	c := &Case{Name: "slot_sum_64", Batch: batch, env: env, want: want}
	if !packed {
		c.impls[Baseline] = &impl{
			desc: "6 × (RotateNew by 1,2,…,32 + AddNew) at the input level (3)",
			out:  out,
			run: func() ([]*rlwe.Ciphertext, error) {
				ct, err := rotSumNaiveCKKS(ev, x, width)
				return []*rlwe.Ciphertext{ct}, err
			},
		}
		c.impls[SameLevel] = &impl{
			desc: "plain Lattigo at fhegate's level: input viewed at level 0, 6 × (RotateNew + AddNew) there",
			out:  out,
			run: func() ([]*rlwe.Ciphertext, error) {
				ct, err := rotSumNaiveCKKS(ev, atLevel(x, 0), width)
				return []*rlwe.Ciphertext{ct}, err
			},
		}
	}
	c.impls[Fhegate] = &impl{
		desc: "view input at level 0 (the sum needs no level), hoisted baby-step/giant-step sum there (8·8: 14 hoisted rotations, 2 decompositions, 2 ModDowns), reused buffers",
		out:  out,
		run: func() ([]*rlwe.Ciphertext, error) {
			if err := fhe.SumSlotsLattigo(p, ev.Evaluator, atLevel(x, 0), width, acc, tmp, scr); err != nil {
				return nil, err
			}
			return []*rlwe.Ciphertext{acc}, nil
		},
	}
	return c, nil
}

// ---------------------------------------------------------------------------
// dot_64.

func newDot(env *Env, rng *rand.Rand, packed bool) (*Case, error) {
	const width = 64
	p := env.P
	batch := 1
	if packed {
		batch = p.Slots() / width
	}
	av, bv := randFloats(rng, batch*width), randFloats(rng, batch*width)
	a, err := env.encryptFloats(av)
	if err != nil {
		return nil, err
	}
	b, err := env.encryptFloats(bv)
	if err != nil {
		return nil, err
	}
	want := make([]float64, batch)
	out := make([]slotRef, batch)
	for j := range batch {
		for i := range width {
			want[j] += av[j*width+i] * bv[j*width+i]
		}
		out[j] = slotRef{0, j * width}
	}
	ev := env.CKKS
	cp := p.CKKS()
	ml := newMulLow(cp)
	prod := ckks.NewCiphertext(cp, 1, 0)
	acc := ckks.NewCiphertext(cp, 1, 0)
	tmp := ckks.NewCiphertext(cp, 1, 0)
	scr := fhe.NewRotationScratch(p.RLWE())
	c := &Case{Name: "dot_64", Batch: batch, env: env, want: want}
	if !packed {
		c.impls[Baseline] = &impl{
			desc: "MulRelinNew + Rescale (level 3 → 2), then 6 × (RotateNew + AddNew) at level 2",
			out:  out,
			run: func() ([]*rlwe.Ciphertext, error) {
				ct, err := ev.MulRelinNew(a, b)
				if err != nil {
					return nil, err
				}
				if err := ev.Rescale(ct, ct); err != nil {
					return nil, err
				}
				ct, err = rotSumNaiveCKKS(ev, ct, width)
				return []*rlwe.Ciphertext{ct}, err
			},
		}
		c.impls[SameLevel] = &impl{
			desc: "plain Lattigo at fhegate's levels: inputs viewed at level 1, MulRelinNew + Rescale → level 0, 6 × (RotateNew + AddNew) at level 0",
			out:  out,
			run: func() ([]*rlwe.Ciphertext, error) {
				ct, err := ev.MulRelinNew(atLevel(a, 1), atLevel(b, 1))
				if err != nil {
					return nil, err
				}
				if err := ev.Rescale(ct, ct); err != nil {
					return nil, err
				}
				ct, err = rotSumNaiveCKKS(ev, ct, width)
				return []*rlwe.Ciphertext{ct}, err
			},
		}
	}
	c.impls[Fhegate] = &impl{
		desc: "inputs viewed at level 1: tensor + relinearise there, rescale → level 0, hoisted baby-step/giant-step sum (8·8) at level 0, reused buffers",
		out:  out,
		run: func() ([]*rlwe.Ciphertext, error) {
			if err := ckksMulLow(ev, ml, a, b, prod, true); err != nil {
				return nil, err
			}
			if err := fhe.SumSlotsLattigo(p, ev.Evaluator, prod, width, acc, tmp, scr); err != nil {
				return nil, err
			}
			return []*rlwe.Ciphertext{acc}, nil
		},
	}
	return c, nil
}

// ---------------------------------------------------------------------------
// dense_64x4.

// newDense builds y = W·x + b for W ∈ [-1,1]^{4×64}, b ∈ [-1,1]^4 and an
// encrypted x ∈ [-1,1]^64 that the client encodes tiled (x_i in every slot
// ≡ i mod 64) — the same ciphertext for both variants; the baseline does not
// need the tiling, fhegate uses it to place the four rows side by side.
func newDense(env *Env, rng *rand.Rand, packed bool) (*Case, error) {
	slots := env.P.Slots()
	if slots < denseBlock {
		return nil, fmt.Errorf("workloads: dense_64x4 needs ≥ %d slots", denseBlock)
	}
	batch := 1
	if packed {
		batch = slots / denseBlock
	}
	d := drawDense(rng, batch)
	x, err := env.encryptFloats(d.tiled(slots, packed))
	if err != nil {
		return nil, err
	}
	c := &Case{Name: "dense_64x4", Batch: batch, env: env, want: d.want()}
	if !packed {
		if c.impls[Baseline], err = denseBaseline(env, x, d, false); err != nil {
			return nil, err
		}
		if c.impls[SameLevel], err = denseBaseline(env, x, d, true); err != nil {
			return nil, err
		}
	}
	if c.impls[Fhegate], err = denseFhegate(env, x, d); err != nil {
		return nil, err
	}
	return c, nil
}

// The dense_64x4 shape: 64 inputs, 4 outputs, 256 slots per instance.
const (
	denseIn    = 64
	denseOuts  = 4
	denseBlock = denseIn * denseOuts
)

// denseData is the plaintext of dense_64x4: batch input vectors, the weights
// and the bias.
type denseData struct {
	batch int
	xs    [][]float64 // batch × denseIn
	w     [][]float64 // denseOuts × denseIn
	bias  []float64   // denseOuts
}

// drawDense draws the inputs, then the weights, then the bias.
func drawDense(rng *rand.Rand, batch int) *denseData {
	d := &denseData{batch: batch, xs: make([][]float64, batch), w: make([][]float64, denseOuts)}
	for m := range d.xs {
		d.xs[m] = randFloats(rng, denseIn)
	}
	for j := range d.w {
		d.w[j] = randFloats(rng, denseIn)
	}
	d.bias = randFloats(rng, denseOuts)
	return d
}

// tiled is the input encoding: unpacked, x tiled over all slots; packed,
// instance m tiled over its block of 256 slots.
func (d *denseData) tiled(slots int, packed bool) []float64 {
	xv := make([]float64, slots)
	for s := range xv {
		m := s / denseBlock
		if !packed {
			m = 0
		}
		if m < d.batch {
			xv[s] = d.xs[m][s%denseIn]
		}
	}
	return xv
}

// want is the plaintext reference: y_j of instance m at m·4 + j.
func (d *denseData) want() []float64 {
	want := make([]float64, d.batch*denseOuts)
	for m := range d.batch {
		for j := range denseOuts {
			y := d.bias[j]
			for i := range denseIn {
				y += d.w[j][i] * d.xs[m][i]
			}
			want[m*denseOuts+j] = y
		}
	}
	return want
}

// denseBaseline is the unpacked baseline. Setup (not timed): one plaintext
// per row at the top level and default scale. With sameLevel, x is viewed
// at level 1 (fhegate's input level) and the rows are encoded there, so the
// products rescale to level 0 as fhegate's does.
func denseBaseline(env *Env, x *rlwe.Ciphertext, d *denseData, sameLevel bool) (*impl, error) {
	ev := env.CKKS
	top := env.P.MaxLevel()
	desc := "per output j: MulNew(x, W_j) + Rescale (level 3 → 2), 6 × (RotateNew + AddNew), AddNew(b_j); 4 output ciphertexts, y_j in slot 0"
	if sameLevel {
		if top < 1 {
			return nil, fhe.ErrLevel
		}
		top, x = 1, atLevel(x, 1)
		desc = "plain Lattigo at fhegate's levels: x viewed at level 1, per output j: MulNew(x, W_j) + Rescale → level 0, 6 × (RotateNew + AddNew), AddNew(b_j); 4 output ciphertexts"
	}
	rows := make([]*rlwe.Plaintext, denseOuts)
	for j := range denseOuts {
		var err error
		if rows[j], err = env.ptFloats(d.w[j], top, env.P.CKKS().DefaultScale()); err != nil {
			return nil, err
		}
	}
	bout := make([]slotRef, denseOuts)
	for j := range bout {
		bout[j] = slotRef{j, 0}
	}
	return &impl{
		desc: desc,
		out:  bout,
		run: func() ([]*rlwe.Ciphertext, error) {
			res := make([]*rlwe.Ciphertext, denseOuts)
			for j := range denseOuts {
				ct, err := ev.MulNew(x, rows[j])
				if err != nil {
					return nil, err
				}
				if err := ev.Rescale(ct, ct); err != nil {
					return nil, err
				}
				if ct, err = rotSumNaiveCKKS(ev, ct, denseIn); err != nil {
					return nil, err
				}
				if res[j], err = ev.AddNew(ct, d.bias[j]); err != nil {
					return nil, err
				}
			}
			return res, nil
		},
	}, nil
}

// denseFhegate is fhegate's variant. Setup (not timed): the four rows side
// by side in one plaintext at level 1 with scale q_1 (so the rescaled
// product keeps x's scale exactly), the bias at the block heads at level 0.
func denseFhegate(env *Env, x *rlwe.Ciphertext, d *denseData) (*impl, error) {
	p := env.P
	ev := env.CKKS
	cp := p.CKKS()
	if p.MaxLevel() < 1 {
		return nil, fhe.ErrLevel
	}
	slots := p.Slots()
	wcat := make([]float64, slots)
	bv := make([]float64, slots)
	fout := make([]slotRef, d.batch*denseOuts)
	for m := range d.batch {
		for j := range denseOuts {
			copy(wcat[m*denseBlock+j*denseIn:], d.w[j])
			bv[m*denseBlock+j*denseIn] = d.bias[j]
			fout[m*denseOuts+j] = slotRef{0, m*denseBlock + j*denseIn}
		}
	}
	wpt, err := env.ptFloats(wcat, 1, rlwe.NewScale(p.Q()[1]))
	if err != nil {
		return nil, err
	}
	bpt, err := env.ptFloats(bv, 0, x.Scale)
	if err != nil {
		return nil, err
	}
	t1 := ckks.NewCiphertext(cp, 1, 1)
	prod := ckks.NewCiphertext(cp, 1, 0)
	acc := ckks.NewCiphertext(cp, 1, 0)
	tmp := ckks.NewCiphertext(cp, 1, 0)
	scr := fhe.NewRotationScratch(p.RLWE())
	return &impl{
		desc: "x viewed at level 1 × one plaintext holding the 4 rows side by side, rescale → level 0, hoisted baby-step/giant-step sum of each 64-block (8·8) at level 0, + bias plaintext; 1 output ciphertext, y_j in slot 64j",
		out:  fout,
		run: func() ([]*rlwe.Ciphertext, error) {
			if err := ev.Mul(atLevel(x, 1), wpt, t1); err != nil {
				return nil, err
			}
			if err := ev.Rescale(t1, prod); err != nil {
				return nil, err
			}
			if err := fhe.SumSlotsLattigo(p, ev.Evaluator, prod, denseIn, acc, tmp, scr); err != nil {
				return nil, err
			}
			if err := ev.Add(acc, bpt, acc); err != nil {
				return nil, err
			}
			return []*rlwe.Ciphertext{acc}, nil
		},
	}, nil
}

// ---------------------------------------------------------------------------
// bgv_dot_128.

// newBGVDot builds the dot product of an encrypted query q ∈ [-15,15]^128
// with a plaintext weight vector w (tiled over the batch when packed).
func newBGVDot(env *Env, rng *rand.Rand, packed bool) (*Case, error) {
	p := env.P
	batch := 1
	if packed {
		batch = p.Slots() / bgvDotWidth // both rows
	}
	qv := randInts(rng, batch*bgvDotWidth, 15)
	w := randInts(rng, bgvDotWidth, 15)
	wv := make([]int64, batch*bgvDotWidth)
	for i := range wv {
		wv[i] = w[i%bgvDotWidth]
	}
	q, err := env.encryptInts(qv)
	if err != nil {
		return nil, err
	}
	want := make([]float64, batch)
	out := make([]slotRef, batch)
	for j := range batch {
		var s int64
		for i := range bgvDotWidth {
			s += qv[j*bgvDotWidth+i] * w[i]
		}
		want[j] = float64(s)
		out[j] = slotRef{0, j * bgvDotWidth}
	}
	c := &Case{Name: "bgv_dot_128", Batch: batch, env: env, want: want, exact: true}
	if !packed {
		if c.impls[Baseline], err = bgvDotBaseline(env, q, wv, out); err != nil {
			return nil, err
		}
		if c.impls[SameLevel], err = bgvDotSameLevel(env, q, wv, out); err != nil {
			return nil, err
		}
	}
	if c.impls[Fhegate], err = bgvDotFhegate(env, q, wv, out); err != nil {
		return nil, err
	}
	return c, nil
}

// bgvDotWidth is the length of one bgv_dot_128 dot product.
const bgvDotWidth = 128

// plainRotateSum is the baseline's plain Lattigo slot sum over a
// bgvDotWidth window: log2(bgvDotWidth) × (RotateColumnsNew + AddNew).
func plainRotateSum(ev *bgv.Evaluator, acc *rlwe.Ciphertext) ([]*rlwe.Ciphertext, error) {
	for k := 1; k < bgvDotWidth; k <<= 1 {
		r, err := ev.RotateColumnsNew(acc, k)
		if err != nil {
			return nil, err
		}
		if acc, err = ev.AddNew(acc, r); err != nil {
			return nil, err
		}
	}
	return []*rlwe.Ciphertext{acc}, nil
}

// bgvDotBaseline multiplies at the input level and sums with rotations there.
func bgvDotBaseline(env *Env, q *rlwe.Ciphertext, wv []int64, out []slotRef) (*impl, error) {
	ev := env.BGV
	wtop, err := env.ptInts(wv, env.P.MaxLevel())
	if err != nil {
		return nil, err
	}
	return &impl{
		desc: "MulNew(q, w) at the input level (4), then 7 × (RotateColumnsNew by 1,…,64 + AddNew) at level 4",
		out:  out,
		run: func() ([]*rlwe.Ciphertext, error) {
			acc, err := ev.MulNew(q, wtop)
			if err != nil {
				return nil, err
			}
			return plainRotateSum(ev, acc)
		},
	}, nil
}

// bgvDotSameLevel is the baseline's plain Lattigo calls at fhegate's
// levels: q viewed at level 1 × w, Rescale (modulus switch) to level 0, then
// the RotateColumnsNew + AddNew tree there.
func bgvDotSameLevel(env *Env, q *rlwe.Ciphertext, wv []int64, out []slotRef) (*impl, error) {
	ev := env.BGV
	if env.P.MaxLevel() < 1 {
		return nil, fhe.ErrLevel
	}
	w1, err := env.ptInts(wv, 1)
	if err != nil {
		return nil, err
	}
	return &impl{
		desc: "plain Lattigo at fhegate's levels: q viewed at level 1, MulNew(q, w), Rescale → level 0, 7 × (RotateColumnsNew + AddNew) at level 0",
		out:  out,
		run: func() ([]*rlwe.Ciphertext, error) {
			acc, err := ev.MulNew(atLevel(q, 1), w1)
			if err != nil {
				return nil, err
			}
			if err := ev.Rescale(acc, acc); err != nil {
				return nil, err
			}
			return plainRotateSum(ev, acc)
		},
	}, nil
}

// bgvDotFhegate multiplies at level 1, switches to level 0 and sums there
// with hoisted rotations into reused buffers.
func bgvDotFhegate(env *Env, q *rlwe.Ciphertext, wv []int64, out []slotRef) (*impl, error) {
	p := env.P
	ev := env.BGV
	bp := p.BGV()
	if p.MaxLevel() < 1 {
		return nil, fhe.ErrLevel
	}
	w1, err := env.ptInts(wv, 1)
	if err != nil {
		return nil, err
	}
	t1 := bgv.NewCiphertext(bp, 1, 1)
	prod := bgv.NewCiphertext(bp, 1, 0)
	acc := bgv.NewCiphertext(bp, 1, 0)
	tmp := bgv.NewCiphertext(bp, 1, 0)
	scr := fhe.NewRotationScratch(p.RLWE())
	return &impl{
		desc: "q viewed at level 1 × w (plaintext at level 1), modulus-switch to level 0 (divides the noise by q_1), hoisted baby-step/giant-step sum (8·16) at level 0, reused buffers",
		out:  out,
		run: func() ([]*rlwe.Ciphertext, error) {
			if err := ev.Mul(atLevel(q, 1), w1, t1); err != nil {
				return nil, err
			}
			if err := ev.Rescale(t1, prod); err != nil {
				return nil, err
			}
			if err := fhe.SumSlotsLattigo(p, ev.Evaluator, prod, bgvDotWidth, acc, tmp, scr); err != nil {
				return nil, err
			}
			return []*rlwe.Ciphertext{acc}, nil
		},
	}, nil
}
