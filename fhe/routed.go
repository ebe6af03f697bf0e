package fhe

import (
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/schemes/ckks"
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
type routedBGV struct {
	*bgv.Evaluator
	w   *worker
	rlk *rlwe.RelinearizationKey
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
	if err := r.Evaluator.Mul(op0, ct, opOut); err != nil {
		return err
	}
	return r.w.keySwitcher().Relinearize(opOut, r.rlk, opOut)
}

func (r routedBGV) MulRelinNew(op0 *rlwe.Ciphertext, op1 rlwe.Operand) (*rlwe.Ciphertext, error) {
	ct, ok := tensorable(r.rlk, op0, op1)
	if !ok || r.ScaleInvariant {
		return r.Evaluator.MulRelinNew(op0, op1)
	}
	prod, err := r.Evaluator.MulNew(op0, ct)
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
