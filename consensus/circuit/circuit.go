package circuit

import (
	"context"
	"errors"
	"fmt"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/noise"
)

// RefreshFunc re-encrypts a ciphertext at the top level through the
// committee's collective refresh (same signature as policy/eval.RefreshFunc).
type RefreshFunc func(ctx context.Context, ct *fhe.Ciphertext) (*fhe.Ciphertext, error)

// Circuit evaluates a request deterministically: equal inputs give equal
// result bytes on every member (fhe.Evaluator reads no randomness). The
// verdict is slot 0 of the result; the member masks every other slot away
// before decryption.
type Circuit interface {
	Evaluate(ctx context.Context, ev *fhe.Evaluator, inputs []*fhe.Ciphertext, refresh RefreshFunc) (*fhe.Ciphertext, error)
	// Reference computes the plaintext verdict from the plaintext inputs
	// (slot 0 of each), mod t — used by tests and benchmarks.
	Reference(p *fhe.Params, inputs []int64) uint64
}

// RefreshBounds are the noise bounds a collective refresh is sized from
// (protocol.RefreshRequest.NoiseBits and WorstBits; 0 means the protocol's
// defaults: noise.CiphertextBits, and WorstBits = NoiseBits). NoiseBits bounds
// the part of the input's noise that must stay hidden from the members,
// WorstBits the whole noise, attacker-known parts included; the refresh
// floods with σ = 2^30·2^NoiseBits and needs the input at a level ≥
// noise.RefreshFloorLevel(p, NoiseBits, WorstBits).
type RefreshBounds struct {
	NoiseBits float64
	WorstBits float64
}

// Circuits resolves a policy id to its circuit.
type Circuits interface {
	Lookup(policyID [32]byte) (Circuit, error)
}

// ErrUnknownPolicy is returned for a policy id without a circuit.
var ErrUnknownPolicy = errors.New("consensus: unknown policy")

// Built-in policy ids, for tests and benchmarks (BuiltinCircuits, and
// PolicyCircuits for an id no registered policy has): the first byte
// selects the circuit.
var (
	// PolicyProductSum: verdict = Σ_k in[2k]·in[2k+1] (+ the last input when
	// the count is odd) — one multiplication level; e.g. a KYC check
	// "age_ok·residency_ok + override".
	PolicyProductSum = [32]byte{1}
	// PolicyDeep: verdict = 2·(in0·in1)^(2^k) — squares down to the
	// preset's refresh floor and needs a collective refresh before
	// decryption.
	PolicyDeep = [32]byte{2}
)

// BuiltinCircuits maps the built-in policy ids.
type BuiltinCircuits struct{}

// Lookup implements Circuits.
func (BuiltinCircuits) Lookup(id [32]byte) (Circuit, error) {
	switch id {
	case PolicyProductSum:
		return ProductSum{}, nil
	case PolicyDeep:
		return Deep{}, nil
	}
	return nil, fmt.Errorf("%w %x", ErrUnknownPolicy, id[:4])
}

// ProductSum is PolicyProductSum's circuit.
type ProductSum struct{}

func (ProductSum) Evaluate(_ context.Context, ev *fhe.Evaluator, in []*fhe.Ciphertext, _ RefreshFunc) (*fhe.Ciphertext, error) {
	if len(in) == 0 {
		return nil, errors.New("consensus: product-sum needs inputs")
	}
	var acc *fhe.Ciphertext
	for k := 0; k+1 < len(in); k += 2 {
		prod, err := ev.Mul(in[k], in[k+1])
		if err != nil {
			return nil, err
		}
		if acc == nil {
			acc = prod
		} else if acc, err = ev.Add(acc, prod); err != nil {
			return nil, err
		}
	}
	if len(in)%2 == 1 {
		last := in[len(in)-1]
		if acc == nil {
			return last, nil
		}
		l, err := ev.DropLevels(last, last.Level()-acc.Level())
		if err != nil {
			return nil, err
		}
		return ev.Add(acc, l)
	}
	return acc, nil
}

func (ProductSum) Reference(p *fhe.Params, in []int64) uint64 {
	t := p.PlaintextModulus()
	var acc int64
	for k := 0; k+1 < len(in); k += 2 {
		acc += in[k] * in[k+1]
	}
	if len(in)%2 == 1 {
		acc += in[len(in)-1]
	}
	return mod(acc, t)
}

// Deep is PolicyDeep's circuit.
type Deep struct{}

// deepFloor is the level the deep circuit squares down to: the preset's
// refresh floor (noise.RefreshFloorLevel for fresh-input noise), the
// lowest level at which its refresh has room for the flooding.
func deepFloor(p *fhe.Params) int {
	l, err := noise.RefreshFloorLevel(p, 0, 0)
	if err != nil {
		return 0
	}
	return min(l, p.MaxLevel()-1)
}

// Evaluate squares in0·in1 down to the refresh floor (deepFloor), then
// asks for a refresh.
func (Deep) Evaluate(ctx context.Context, ev *fhe.Evaluator, in []*fhe.Ciphertext, refresh RefreshFunc) (*fhe.Ciphertext, error) {
	if len(in) != 2 {
		return nil, errors.New("consensus: deep circuit needs 2 inputs")
	}
	x, err := ev.Mul(in[0], in[1])
	if err != nil {
		return nil, err
	}
	for floor := deepFloor(ev.Params()); x.Level() > floor; {
		if x, err = ev.Mul(x, x); err != nil {
			return nil, err
		}
	}
	if refresh == nil {
		return x, nil
	}
	if x, err = refresh(ctx, x); err != nil {
		return nil, err
	}
	return ev.Add(x, x) // one more (level-free) step after the refresh
}

// NoPackedForm: the deep circuit squares until its register reaches the
// refresh floor, so its number of squarings depends on its inputs' level,
// which packing lowers by one (the mask's rescale); its Reference assumes
// top-level inputs. It exercises the one-by-one path's refresh, and the
// serve loop never packs it.
func (Deep) NoPackedForm() bool { return true }

// Reference: x = a·b, squared MaxLevel−1−deepFloor times, doubled.
func (Deep) Reference(p *fhe.Params, in []int64) uint64 {
	if len(in) != 2 {
		return 0
	}
	t := p.PlaintextModulus()
	x := mod(in[0]*in[1], t)
	for l := p.MaxLevel() - 1; l > deepFloor(p); l-- {
		x = x * x % t
	}
	return 2 * x % t
}

func mod(x int64, t uint64) uint64 {
	m := x % int64(t)
	if m < 0 {
		m += int64(t)
	}
	return uint64(m)
}
