package fhe

// Vector inputs (docs/LP-137.md "one ciphertext per request"): a
// request's K attributes in ONE ciphertext instead of K.
//
// Client layout. With stride K' = the smallest power of two ≥ K, the client
// encrypts the periodic slot vector
//
//	v[i] = a_{i mod K'}  for i mod K' < K,  0 otherwise      (VectorInts)
//
// so every aligned block of K' slots holds the K attributes in order,
// wherever the committee places the request.
//
// Committee layout (VectorLayout). A packed batch of B vector requests uses
// A = ⌈B·K'/S⌉ accumulators (S = Slots()); request r goes to accumulator
// r mod A, block b = ⌊r/A⌋, whose slots b·K' … b·K'+K−1 keep its attributes
// (the packer multiplies its ciphertext by the 0/1 block mask M_{b·K'}, so
// whatever it holds elsewhere is multiplied by zero). Consecutive requests
// share a block mask (r = A·b + a), so each mask is built once per A
// requests. A slot transform applied during the collective refresh of the
// accumulators (protocol.RefreshTransform) then un-interleaves them into the
// K attribute ciphertexts the policy circuit takes, request r in slot r of
// each (Unpack): out_k[r] = in_{r mod A}[⌊r/A⌋·K' + k]. Each member masks one
// ciphertext per request instead of K, and a request carries one handle and
// one proof.

import "fmt"

// MaxVectorWidth bounds the attributes of one vector input.
const MaxVectorWidth = 64

// VectorStride is the block stride K' of k attributes: the smallest power of
// two ≥ k.
func VectorStride(k int) int {
	s := 1
	for s < k {
		s <<= 1
	}
	return s
}

// VectorInts is the slot vector a client encrypts for the attribute values
// of one vector input (see "Client layout" above).
func (p *Params) VectorInts(values []int64) ([]int64, error) {
	k := len(values)
	if k < 1 || k > MaxVectorWidth {
		return nil, fmt.Errorf("fhe: vector input of %d attributes (1 … %d)", k, MaxVectorWidth)
	}
	stride := VectorStride(k)
	out := make([]int64, p.Slots())
	for i := range out {
		if j := i % stride; j < k {
			out[i] = values[j]
		}
	}
	return out, nil
}

// VectorLayout places a packed batch of vector requests (see "Committee
// layout" above).
type VectorLayout struct {
	K        int // attributes per request
	Stride   int // K' = VectorStride(K)
	Accs     int // A: accumulators (packed ciphertexts before the transform)
	Requests int // B
	Slots    int // S
}

// NewVectorLayout returns the layout of requests vector requests of k
// attributes on p.
func NewVectorLayout(p *Params, k, requests int) (VectorLayout, error) {
	if k < 1 || k > MaxVectorWidth {
		return VectorLayout{}, fmt.Errorf("fhe: vector input of %d attributes (1 … %d)", k, MaxVectorWidth)
	}
	s := p.Slots()
	if requests < 1 || requests > s {
		return VectorLayout{}, fmt.Errorf("fhe: vector batch of %d requests (1 … %d)", requests, s)
	}
	stride := VectorStride(k)
	if stride > s/2 {
		return VectorLayout{}, fmt.Errorf("fhe: vector stride %d does not fit a slot row of %d", stride, s/2)
	}
	return VectorLayout{K: k, Stride: stride, Accs: (requests*stride + s - 1) / s, Requests: requests, Slots: s}, nil
}

// Place returns request r's accumulator and the first slot of its block.
func (l VectorLayout) Place(r int) (acc, slot int) {
	return r % l.Accs, (r / l.Accs) * l.Stride
}

// Unpack writes the attribute vectors out[k][r] = in[r mod A][⌊r/A⌋·K' + k]
// for every request r < B and zero elsewhere: in holds the A accumulators'
// slot vectors, out the K outputs' (each Slots long). It is linear (a slot
// selection), as a masked transform must be.
func (l VectorLayout) Unpack(in, out [][]uint64) error {
	if len(in) != l.Accs || len(out) != l.K {
		return fmt.Errorf("fhe: vector unpack of %d accumulators into %d outputs, layout %d → %d", len(in), len(out), l.Accs, l.K)
	}
	for _, v := range in {
		if len(v) != l.Slots {
			return fmt.Errorf("fhe: vector unpack: accumulator of %d slots, want %d", len(v), l.Slots)
		}
	}
	for k, o := range out {
		if len(o) != l.Slots {
			return fmt.Errorf("fhe: vector unpack: output of %d slots, want %d", len(o), l.Slots)
		}
		clear(o)
		for r := 0; r < l.Requests; r++ {
			a, s := l.Place(r)
			o[r] = in[a][s+k]
		}
	}
	return nil
}

// UnpackAdjoint is Unpack's adjoint (its transpose, a scatter): it writes
// in[r mod A][⌊r/A⌋·K' + k] = out[k][r] for every request r < B and
// attribute k, and zero elsewhere, so that ⟨ρ, Unpack(x)⟩ = ⟨UnpackAdjoint(ρ),
// x⟩ mod t for all slot vectors (the verified refresh transform checks its
// masks with it).
func (l VectorLayout) UnpackAdjoint(out, in [][]uint64) error {
	if len(in) != l.Accs || len(out) != l.K {
		return fmt.Errorf("fhe: vector unpack adjoint of %d outputs into %d accumulators, layout %d → %d", len(out), len(in), l.Accs, l.K)
	}
	for _, v := range out {
		if len(v) != l.Slots {
			return fmt.Errorf("fhe: vector unpack adjoint: output of %d slots, want %d", len(v), l.Slots)
		}
	}
	for _, v := range in {
		if len(v) != l.Slots {
			return fmt.Errorf("fhe: vector unpack adjoint: accumulator of %d slots, want %d", len(v), l.Slots)
		}
		clear(v)
	}
	for k, o := range out {
		for r := 0; r < l.Requests; r++ {
			a, s := l.Place(r)
			in[a][s+k] = o[r]
		}
	}
	return nil
}

// ReplicatedInts is v in every slot: how a client encrypts a scalar input.
// The committee's packed evaluation multiplies each input by a slot mask
// (one request per slot), so a value only in slot 0 would be lost; a
// replicated value is also correct for the slot-0 path.
func (p *Params) ReplicatedInts(v int64) []int64 {
	out := make([]int64, p.Slots())
	for i := range out {
		out[i] = v
	}
	return out
}

// InputSlotVectors is the slot vectors a client encrypts for one request's
// values: one replicated vector per value (ReplicatedInts), or, with vector,
// one vector input holding all of them (VectorInts).
func (p *Params) InputSlotVectors(vector bool, values []int64) ([][]int64, error) {
	if vector {
		v, err := p.VectorInts(values)
		if err != nil {
			return nil, err
		}
		return [][]int64{v}, nil
	}
	out := make([][]int64, len(values))
	for i, v := range values {
		out[i] = p.ReplicatedInts(v)
	}
	return out, nil
}
