package fhe

import (
	"fmt"
	"math/big"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/schemes/ckks"

	"github.com/fhegate/fhegate/fhe/engine"
)

// routedBGV and routedCKKS are the scheme evaluators the polynomial
// evaluators (EvalPolyInts, EvalPolyFloats) run on: Lattigo's, except that
// every ciphertext × ciphertext relinearisation — MulRelin, MulRelinNew,
// Relinearize — is the engine's key switch and Rescale is the engine's
// rescale, so the power basis and the giant steps of a polynomial route
// their transforms too. Mul followed by
// the engine's Relinearize gives the bytes of Lattigo's MulRelin (the
// tensor is the same; the relinearisation is byte-identical, see
// fhe/engine's tests and the golden policy results).
//
// Where the installed router is an engine.ProductRouter, BGV's
// ciphertext × ciphertext tensor (Mul, and the tensor of MulRelin) and the
// multiply-add by an integer (MulThenAdd: the polynomial evaluator's baby
// steps) run through the engine too (engine.TensorBGV,
// engine.MulScalarThenAdd), with Lattigo's metadata handling repeated
// here; byte-identical to Lattigo's (fhe/engine's product tests,
// TestEvalPolyEngineMatchesLattigo). Without one they are Lattigo's calls.
type routedBGV struct {
	*bgv.Evaluator
	w   *worker
	rlk *rlwe.RelinearizationKey
	tm  ring.RNSScalar // Lattigo's tMontgomery (engine.TMontgomery)
}

func newRoutedBGV(ev *bgv.Evaluator, w *worker, rlk *rlwe.RelinearizationKey) routedBGV {
	p := ev.GetParameters()
	return routedBGV{Evaluator: ev, w: w, rlk: rlk, tm: engine.TMontgomery(p.RingQ(), p.PlaintextModulus())}
}

// productRouted reports whether the installed router runs BGV's products.
func productRouted() bool {
	_, ok := engine.CurrentRouter().(engine.ProductRouter)
	return ok
}

// Mul is bgv.Evaluator.Mul, with the tensor of two degree-1 ciphertexts
// through the engine where a ProductRouter is installed.
func (r routedBGV) Mul(op0 *rlwe.Ciphertext, op1 rlwe.Operand, opOut *rlwe.Ciphertext) error {
	ct, ok := op1.(*rlwe.Ciphertext)
	if !ok || ct == nil || op0 == nil || opOut == nil || op0.Degree() != 1 || ct.Degree() != 1 || r.ScaleInvariant || !productRouted() {
		return r.Evaluator.Mul(op0, op1, opOut)
	}
	return r.tensor(op0, ct, opOut)
}

// MulNew is bgv.Evaluator.MulNew with Mul's routing.
func (r routedBGV) MulNew(op0 *rlwe.Ciphertext, op1 rlwe.Operand) (*rlwe.Ciphertext, error) {
	ct, ok := op1.(*rlwe.Ciphertext)
	if !ok || ct == nil || op0 == nil || op0.Degree() != 1 || ct.Degree() != 1 || r.ScaleInvariant || !productRouted() {
		return r.Evaluator.MulNew(op0, op1)
	}
	opOut := bgv.NewCiphertext(*r.GetParameters(), 2, min(op0.Level(), ct.Level()))
	return opOut, r.tensor(op0, ct, opOut)
}

// tensor is bgv.Evaluator.Mul for degree-1 ciphertexts (Lattigo's
// InitOutputBinaryOp, Resize and scale, then tensorStandard without
// relinearisation) with the coefficient products of engine.TensorBGV.
func (r routedBGV) tensor(op0, op1, opOut *rlwe.Ciphertext) error {
	_, level, err := r.InitOutputBinaryOp(op0.El(), op1.El(), 2, opOut.El())
	if err != nil {
		return fmt.Errorf("cannot Mul: %w", err)
	}
	opOut.Resize(opOut.Degree(), level)
	level = opOut.Level()
	opOut.Scale = op0.Scale.Mul(op1.Scale)
	a, b := op0.Value[:2], op1.Value[:2] // before Resize: opOut may be op0 or op1
	opOut.Resize(2, level)
	engine.TensorBGV(r.GetParameters().RingQ().AtLevel(level), r.tm, a, b, opOut.Value)
	return nil
}

// MulThenAdd is bgv.Evaluator.MulThenAdd; with an integer operand (int,
// int64, uint64, *big.Int — the polynomial evaluator's coefficients) and a
// ProductRouter installed, Lattigo's integer branch runs with its
// multiply-add through engine.MulScalarThenAdd. Unlike Lattigo's, a
// *big.Int operand is not modified.
func (r routedBGV) MulThenAdd(op0 *rlwe.Ciphertext, op1 rlwe.Operand, opOut *rlwe.Ciphertext) error {
	var c *big.Int
	switch x := op1.(type) {
	case int:
		c = big.NewInt(int64(x))
	case int64:
		c = big.NewInt(x)
	case uint64:
		c = new(big.Int).SetUint64(x)
	case *big.Int:
		if x != nil {
			c = new(big.Int).Set(x)
		}
	}
	if c == nil || op0 == nil || opOut == nil || !productRouted() {
		return r.Evaluator.MulThenAdd(op0, op1, opOut)
	}
	level, err := r.scalarTerm(op0, c, opOut)
	if err != nil {
		return err
	}
	engine.MulScalarThenAdd(r.GetParameters().RingQ().AtLevel(level), op0.Value[:op0.Degree()+1], c, opOut.Value)
	return nil
}

// scalarTerm is the metadata step of Lattigo's MulThenAdd with an integer
// c, before its arithmetic: InitOutputUnaryOp, opOut resized to op0's
// degree, c scaled by op0.Scale/opOut.Scale mod t and centred (c is
// modified). It returns the level the limbs are multiplied at.
func (r routedBGV) scalarTerm(op0 *rlwe.Ciphertext, c *big.Int, opOut *rlwe.Ciphertext) (int, error) {
	_, level, err := r.InitOutputUnaryOp(op0.El(), opOut.El())
	if err != nil {
		return 0, fmt.Errorf("cannot MulThenAdd: %w", err)
	}
	opOut.Resize(op0.Degree(), opOut.Level())
	params := r.GetParameters()
	s := params.RingT().SubRings[0]
	if op0.Scale.Cmp(opOut.Scale) != 0 { // c *= op0.Scale / opOut.Scale (mod t)
		ratio := ring.ModExp(op0.Scale.Uint64(), s.Modulus-2, s.Modulus)
		ratio = ring.BRed(ratio, opOut.Scale.Uint64(), s.Modulus, s.BRedConstant)
		c.Mul(c, new(big.Int).SetUint64(ratio))
	}
	tBig := params.RingT().ModulusAtLevel[0]
	c.Mod(c, tBig)
	if c.Cmp(new(big.Int).Rsh(tBig, 1)) == 1 { // centred, as Lattigo
		c.Sub(c, tBig)
	}
	return level, nil
}

type routedCKKS struct {
	*ckks.Evaluator
	w   *worker
	rlk *rlwe.RelinearizationKey
}

// tensorable reports whether op0 × op1 is a ciphertext product the engine
// relinearises (else the call goes to Lattigo unchanged).
func tensorable(rlk *rlwe.RelinearizationKey, op0 *rlwe.Ciphertext, op1 rlwe.Operand) (*rlwe.Ciphertext, bool) {
	ct, ok := op1.(*rlwe.Ciphertext)
	return ct, ok && rlk != nil && op0 != nil && ct != nil && op0.Degree() == 1 && ct.Degree() == 1
}

func (r routedBGV) MulRelin(op0 *rlwe.Ciphertext, op1 rlwe.Operand, opOut *rlwe.Ciphertext) error {
	ct, ok := tensorable(r.rlk, op0, op1)
	if !ok || r.ScaleInvariant {
		return r.Evaluator.MulRelin(op0, op1, opOut)
	}
	if err := r.Mul(op0, ct, opOut); err != nil {
		return err
	}
	return r.w.keySwitcher().Relinearize(opOut, r.rlk, opOut)
}

func (r routedBGV) MulRelinNew(op0 *rlwe.Ciphertext, op1 rlwe.Operand) (*rlwe.Ciphertext, error) {
	ct, ok := tensorable(r.rlk, op0, op1)
	if !ok || r.ScaleInvariant {
		return r.Evaluator.MulRelinNew(op0, op1)
	}
	prod, err := r.MulNew(op0, ct)
	if err != nil {
		return nil, err
	}
	return prod, r.w.keySwitcher().Relinearize(prod, r.rlk, prod)
}

func (r routedBGV) Rescale(op0, op1 *rlwe.Ciphertext) error { return r.w.rescaleInto(op0, op1) }

func (r routedCKKS) Rescale(op0, op1 *rlwe.Ciphertext) error { return r.w.rescaleInto(op0, op1) }

func (r routedBGV) Relinearize(op0, op1 *rlwe.Ciphertext) error {
	if r.rlk == nil {
		return r.Evaluator.Relinearize(op0, op1)
	}
	return r.w.keySwitcher().Relinearize(op0, r.rlk, op1)
}

func (r routedCKKS) MulRelin(op0 *rlwe.Ciphertext, op1 rlwe.Operand, opOut *rlwe.Ciphertext) error {
	ct, ok := tensorable(r.rlk, op0, op1)
	if !ok {
		return r.Evaluator.MulRelin(op0, op1, opOut)
	}
	if err := r.Evaluator.Mul(op0, ct, opOut); err != nil {
		return err
	}
	return r.w.keySwitcher().Relinearize(opOut, r.rlk, opOut)
}

func (r routedCKKS) MulRelinNew(op0 *rlwe.Ciphertext, op1 rlwe.Operand) (*rlwe.Ciphertext, error) {
	ct, ok := tensorable(r.rlk, op0, op1)
	if !ok {
		return r.Evaluator.MulRelinNew(op0, op1)
	}
	prod, err := r.Evaluator.MulNew(op0, ct)
	if err != nil {
		return nil, err
	}
	return prod, r.w.keySwitcher().Relinearize(prod, r.rlk, prod)
}

func (r routedCKKS) Relinearize(op0, op1 *rlwe.Ciphertext) error {
	if r.rlk == nil {
		return r.Evaluator.Relinearize(op0, op1)
	}
	return r.w.keySwitcher().Relinearize(op0, r.rlk, op1)
}
