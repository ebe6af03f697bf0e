// Package fhetest holds small, INSECURE parameter presets and helpers for
// fast tests of code built on package fhe. Nothing here may be used outside
// tests: the ring degrees are far below the HomomorphicEncryption.org bounds.
//
// Importing the package registers the presets with package fhe (IDs ≥ 0x80,
// names starting with "Insecure"), so their ciphertexts also go through the
// canonical wire format.
package fhetest

import (
	"fmt"
	"math/rand/v2"

	"github.com/fhegate/fhegate/fhe"
)

// Insecure presets. Same moduli structure as the public presets, small N.
const (
	// InsecureBGVN10 — BGV N=2^10, t=65537, depth 4.
	InsecureBGVN10 fhe.PresetID = 0x81
	// InsecureCKKSN10 — CKKS N=2^10, scale 2^40, depth 3.
	InsecureCKKSN10 fhe.PresetID = 0x82
	// InsecureBGVN10Deep — BGV N=2^10, t=65537, depth 9 (deep policy plans).
	InsecureBGVN10Deep fhe.PresetID = 0x83
	// InsecureBGVN4 — BGV N=2^4, two 30-bit primes: tiny encodings for fuzzing.
	InsecureBGVN4 fhe.PresetID = 0x84
	// InsecureCKKSN4 — CKKS N=2^4, two primes: tiny encodings for fuzzing.
	InsecureCKKSN4 fhe.PresetID = 0x85
)

func init() {
	for _, r := range []struct {
		id     fhe.PresetID
		name   string
		scheme fhe.Scheme
		depth  int
		logQ   []int
		logP   []int
		scale  int
	}{
		{InsecureBGVN10, "InsecureBGVN10", fhe.SchemeBGV, 4, []int{42, 30, 30, 30, 30}, []int{45}, 0},
		{InsecureCKKSN10, "InsecureCKKSN10", fhe.SchemeCKKS, 3, []int{50, 40, 40, 40}, []int{45}, 40},
		{InsecureBGVN10Deep, "InsecureBGVN10Deep", fhe.SchemeBGV, 9, []int{50, 30, 30, 30, 30, 30, 30, 30, 30, 30}, []int{50, 50}, 0},
		{InsecureBGVN4, "InsecureBGVN4", fhe.SchemeBGV, 1, []int{40, 30}, []int{40}, 0},
		{InsecureCKKSN4, "InsecureCKKSN4", fhe.SchemeCKKS, 1, []int{50, 40}, []int{45}, 40},
	} {
		logN := 10
		if r.id == InsecureBGVN4 || r.id == InsecureCKKSN4 {
			logN = 4
		}
		if err := fhe.RegisterTestPreset(r.id, r.name, r.scheme, r.depth, logN, r.logQ, r.logP, r.scale); err != nil {
			panic(err)
		}
	}
}

// Kit bundles single-party keys and the client and evaluator objects built on
// them, for tests.
type Kit struct {
	Params *fhe.Params
	Keys   *fhe.KeySet
	Eval   *fhe.Evaluator
	Enc    *fhe.Encryptor // public-key encryptor
	Sym    *fhe.Encryptor // seeded secret-key encryptor
	Dec    *fhe.Decryptor
}

// NewKit generates keys for the preset with the given rotation steps plus the
// Galois keys for a full-row inner sum of every power-of-two batch.
func NewKit(id fhe.PresetID, rotations ...int) (*Kit, error) {
	p, err := fhe.NewParams(id)
	if err != nil {
		return nil, err
	}
	rows := p.Slots()
	if p.Scheme() == fhe.SchemeBGV {
		rows /= 2
	}
	for k := 1; k < rows; k <<= 1 {
		rotations = append(rotations, k)
	}
	keys := fhe.GenKeys(p, rotations)
	eval, err := fhe.NewEvaluator(p, fhe.EvaluationKeys{Relin: keys.Relin, Galois: keys.Galois})
	if err != nil {
		return nil, err
	}
	sym, err := fhe.NewSymmetricEncryptor(keys.Secret)
	if err != nil {
		return nil, err
	}
	return &Kit{Params: p, Keys: keys, Eval: eval, Enc: fhe.NewEncryptor(keys.Public), Sym: sym, Dec: fhe.NewDecryptor(keys.Secret)}, nil
}

// MustKit is NewKit that panics (tests only).
func MustKit(id fhe.PresetID, rotations ...int) *Kit {
	k, err := NewKit(id, rotations...)
	if err != nil {
		panic(fmt.Sprintf("fhetest: %v", err))
	}
	return k
}

// RandInts returns n values in [-bound, bound] from a seeded generator.
func RandInts(r *rand.Rand, n int, bound int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = r.Int64N(2*bound+1) - bound
	}
	return out
}

// RandFloats returns n values in [-1, 1].
func RandFloats(r *rand.Rand, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 2*r.Float64() - 1
	}
	return out
}
