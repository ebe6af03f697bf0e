package crdt

import (
	"fmt"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
)

// counterSum returns the InnerSum shape (batch, n) that adds the Blocks
// replica blocks of a counter: n is Blocks rounded up to a power of two (the
// padding lanes are zero because contributions are masked to their block).
func counterSum(l meta.Layout) (batch, n int) {
	n = 1
	for n < int(l.Blocks) {
		n <<= 1
	}
	return int(l.Width), n
}

// setSum returns the InnerSum shape that adds the universe's lanes.
func setSum(l meta.Layout) (batch, n int) {
	n = 1
	for n < int(l.Width) {
		n <<= 1
	}
	return 1, n
}

// ReadGaloisElements lists the Galois elements the reads of a layout need
// (the committee's rotation keys must cover them): for counters the sum over
// replica blocks, for sets the cardinality sum. Sums over all N slots also
// need BGV's row rotation.
func ReadGaloisElements(p *fhe.Params, l meta.Layout) []uint64 {
	switch l.Type {
	case meta.TypeGCounter, meta.TypePNCounter:
		b, n := counterSum(l)
		if n == 1 {
			return nil
		}
		return p.GaloisElementsForInnerSum(b, n)
	case meta.TypeSet:
		b, n := setSum(l)
		if n == 1 {
			return nil
		}
		return p.GaloisElementsForInnerSum(b, n)
	}
	return nil
}

func (e *Engine) checkRead(l meta.Layout, agg *fhe.Ciphertext, types ...meta.Type) error {
	if err := e.CheckLayout(l); err != nil {
		return err
	}
	ok := false
	for _, t := range types {
		ok = ok || l.Type == t
	}
	if !ok {
		return fmt.Errorf("%w: %v", ErrType, l.Type)
	}
	if agg == nil {
		return ErrEmpty
	}
	if agg.Params() != e.p || agg.Level() != int(l.Level) {
		return fmt.Errorf("%w: aggregate at level %d of %s, layout level %d", ErrInput, agg.Level(), agg.Params().Preset.Name, l.Level)
	}
	return nil
}

// CounterTotals reads a G- or PN-Counter: slot j (j < Width) of the result
// holds Σ_r block_r[j] mod t (centre it for a PN-Counter). The result is at
// level 0, ready for threshold decryption; other slots hold partial sums and
// must be ignored by the decryptor. An empty state reads as 0 without a
// ciphertext (ErrEmpty).
func (e *Engine) CounterTotals(l meta.Layout, agg *fhe.Ciphertext) (*fhe.Ciphertext, error) {
	if err := e.checkRead(l, agg, meta.TypeGCounter, meta.TypePNCounter); err != nil {
		return nil, err
	}
	batch, n := counterSum(l)
	out := agg
	if n > 1 {
		var err error
		if out, err = e.eval.InnerSum(agg, batch, n); err != nil {
			return nil, err
		}
	}
	return e.toLevel0(out)
}

// Register reads an LWW state: the aggregate itself (lanes of key k hold the
// winning write of k), at level 0.
func (e *Engine) Register(l meta.Layout, agg *fhe.Ciphertext) (*fhe.Ciphertext, error) {
	if err := e.checkRead(l, agg, meta.TypeLWW); err != nil {
		return nil, err
	}
	return e.toLevel0(agg)
}

// Membership reads a set: lane i of the result is 1 if some replica's current
// vector holds element i, else 0, computed as p(Σ_r m_r[i]) with the
// degree-R polynomial p(x) = 1 − Π_{k=1..R} (1 − x/k) mod t (p(0) = 0,
// p(1..R) = 1) in ⌈log2(R+1)⌉ levels. Result at level 0.
func (e *Engine) Membership(l meta.Layout, agg *fhe.Ciphertext) (*fhe.Ciphertext, error) {
	if err := e.checkRead(l, agg, meta.TypeSet); err != nil {
		return nil, err
	}
	coeffs := membershipPoly(int(l.Blocks), e.p.PlaintextModulus())
	m, err := e.eval.EvalPolyInts(agg, coeffs)
	if err != nil {
		return nil, err
	}
	return e.toLevel0(m)
}

// Cardinality reads a set's size: slot 0 of the result holds |S| (every slot
// does, within the first row).
func (e *Engine) Cardinality(l meta.Layout, agg *fhe.Ciphertext) (*fhe.Ciphertext, error) {
	m, err := e.Membership(l, agg)
	if err != nil {
		return nil, err
	}
	batch, n := setSum(l)
	if n == 1 {
		return m, nil
	}
	return e.eval.InnerSum(m, batch, n)
}

// toLevel0 drops a read's result to level 0, or to the engine's read level
// (WithReadLevel) if it is above it.
func (e *Engine) toLevel0(c *fhe.Ciphertext) (*fhe.Ciphertext, error) {
	if c.Level() <= e.readLevel {
		return c, nil
	}
	return e.eval.DropLevels(c, c.Level()-e.readLevel)
}

// membershipPoly returns the coefficients (mod t, ascending) of
// p(x) = 1 − Π_{k=1..r} (1 − k⁻¹·x).
func membershipPoly(r int, t uint64) []int64 {
	prod := []uint64{1}
	for k := 1; k <= r; k++ {
		inv := powMod(uint64(k)%t, t-2, t)
		c := (t - inv) % t // −k⁻¹
		next := make([]uint64, len(prod)+1)
		for i, a := range prod {
			next[i] = (next[i] + a) % t
			next[i+1] = (next[i+1] + a*c) % t
		}
		prod = next
	}
	out := make([]int64, len(prod))
	for i, a := range prod {
		out[i] = int64((t - a) % t)
	}
	out[0] = int64((1 + uint64(out[0])) % t)
	return out
}

func powMod(b, e, m uint64) uint64 {
	r := uint64(1)
	b %= m
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = r * b % m
		}
		b = b * b % m
	}
	return r
}
