package workloads

import (
	"fmt"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
	"github.com/tuneinsight/lattigo/v6/schemes/ckks"

	"github.com/fhegate/fhegate/fhe"
)

// Rotations returns the rotation key set the workloads need on p: the
// powers of two below the largest reduction (64 slots for CKKS, 128 for BGV)
// for the baseline's rotate-and-add tree, and the baby-step/giant-step steps
// of fhe.SumSlotsRotations for fhegate's hoisted sums. Both variants get the
// same key set.
func Rotations(p *fhe.Params) []int {
	n := 64
	if p.Scheme() == fhe.SchemeBGV {
		n = 128
	}
	seen := map[int]bool{}
	var out []int
	for k := 1; k < n; k <<= 1 {
		seen[k] = true
		out = append(out, k)
	}
	for _, k := range fhe.SumSlotsRotations(n) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// Env is the single-party key material and the Lattigo objects for one
// preset. Key generation and encryption read crypto/rand; evaluation does not.
// An Env is not safe for concurrent use (its evaluators keep scratch buffers).
type Env struct {
	P    *fhe.Params
	Keys *fhe.KeySet
	Enc  *fhe.Encryptor // public-key encryption, top level
	Dec  *fhe.Decryptor

	CKKS    *ckks.Evaluator
	CKKSEnc *ckks.Encoder
	BGV     *bgv.Evaluator
	BGVEnc  *bgv.Encoder
}

// NewEnv generates keys (secret, public, relinearisation, the Rotations key
// set) for a preset and builds the evaluators.
func NewEnv(id fhe.PresetID) (*Env, error) {
	p, err := fhe.NewParams(id)
	if err != nil {
		return nil, err
	}
	keys := fhe.GenKeys(p, Rotations(p))
	evk := rlwe.NewMemEvaluationKeySet(keys.Relin.Lattigo(), keys.Galois.Lattigo()...)
	e := &Env{P: p, Keys: keys, Enc: fhe.NewEncryptor(keys.Public), Dec: fhe.NewDecryptor(keys.Secret)}
	switch p.Scheme() {
	case fhe.SchemeCKKS:
		e.CKKS = ckks.NewEvaluator(p.CKKS(), evk)
		e.CKKSEnc = ckks.NewEncoder(p.CKKS())
	case fhe.SchemeBGV:
		e.BGV = bgv.NewEvaluator(p.BGV(), evk)
		e.BGVEnc = bgv.NewEncoder(p.BGV())
	default:
		return nil, fmt.Errorf("workloads: unsupported scheme %v", p.Scheme())
	}
	return e, nil
}

// encryptFloats encrypts a slot vector (CKKS, top level).
func (e *Env) encryptFloats(v []float64) (*rlwe.Ciphertext, error) {
	ct, err := e.Enc.EncryptFloats(v)
	if err != nil {
		return nil, err
	}
	return ct.Lattigo(), nil
}

// encryptInts encrypts a slot vector (BGV, top level).
func (e *Env) encryptInts(v []int64) (*rlwe.Ciphertext, error) {
	ct, err := e.Enc.EncryptInts(v)
	if err != nil {
		return nil, err
	}
	return ct.Lattigo(), nil
}

// ptFloats encodes a CKKS plaintext at a level and scale.
func (e *Env) ptFloats(v []float64, level int, scale rlwe.Scale) (*rlwe.Plaintext, error) {
	vals := make([]float64, e.P.Slots())
	copy(vals, v)
	pt := ckks.NewPlaintext(e.P.CKKS(), level)
	pt.Scale = scale
	if err := e.CKKSEnc.Encode(vals, pt); err != nil {
		return nil, fmt.Errorf("workloads: encode: %w", err)
	}
	return pt, nil
}

// ptInts encodes a BGV plaintext at a level (default scale).
func (e *Env) ptInts(v []int64, level int) (*rlwe.Plaintext, error) {
	t := int64(e.P.PlaintextModulus())
	vals := make([]uint64, e.P.Slots())
	for i, x := range v {
		x %= t
		if x < 0 {
			x += t
		}
		vals[i] = uint64(x)
	}
	pt := bgv.NewPlaintext(e.P.BGV(), level)
	if err := e.BGVEnc.Encode(vals, pt); err != nil {
		return nil, fmt.Errorf("workloads: encode: %w", err)
	}
	return pt, nil
}

// decryptFloats decrypts a CKKS ciphertext (real parts of every slot).
func (e *Env) decryptFloats(ct *rlwe.Ciphertext) ([]float64, error) {
	w, err := fhe.WrapCiphertext(e.P, ct)
	if err != nil {
		return nil, err
	}
	return e.Dec.DecryptFloats(w)
}

// decryptInts decrypts a BGV ciphertext to centred integers.
func (e *Env) decryptInts(ct *rlwe.Ciphertext) ([]int64, error) {
	w, err := fhe.WrapCiphertext(e.P, ct)
	if err != nil {
		return nil, err
	}
	return e.Dec.DecryptInts(w)
}

// atLevel returns a read-only view of ct truncated to level l: the first l+1
// RNS rows of each polynomial, shared with ct (no copy, no arithmetic). This
// is "dropping levels" without touching the input: the caps are clipped so
// that nothing appended to the view can reach ct's rows.
func atLevel(ct *rlwe.Ciphertext, l int) *rlwe.Ciphertext {
	if l >= ct.Level() {
		return ct
	}
	md := *ct.MetaData
	v := make([]ring.Poly, len(ct.Value))
	for i := range ct.Value {
		v[i] = ring.Poly{Coeffs: ct.Value[i].Coeffs[: l+1 : l+1]}
	}
	return &rlwe.Ciphertext{Element: rlwe.Element[ring.Poly]{Value: v, MetaData: &md}}
}
