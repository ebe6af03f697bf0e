package circuit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/crdt"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
	"github.com/fhegate/fhegate/fhe/noise"
)

// ErrBadCRDTRequest is returned for an FHECRDT.ValueRequested request whose
// kind, metadata or inputs do not fit together or the committee preset.
var ErrBadCRDTRequest = errors.New("consensus: bad CRDT value request")

// CRDT values one FHECRDT state (a KindCRDT request). The public
// metadata (meta.State, read from FHECRDT.stateOf at the request's block)
// names, per block, the writer's ciphertext; the request's inputs are exactly
// those ciphertexts in block order (State.Handles). Evaluate normalises every
// writer ciphertext to its block (crdt.Engine.Contribution), sums the
// contributions (crdt.Engine.Aggregate: exact additions mod Q, so every member
// gets the same bytes in any order) and applies the read the CRDT type
// implies; the verdict is slot 0 of the level-0 read:
//
//   - G-Counter / PN-Counter: CounterTotals, slot 0 = Σ_r lane(r, 0), the total
//     of counter 0 mod t (a PN-Counter's negative total is t − |total|);
//   - LWW: Register, slot 0 = lane 0 of key 0's winning write;
//   - Set: Cardinality, slot 0 = the number of elements in the set.
//
// Working level. The layout's level is where contributions land for reads
// decrypted at that level; the committee instead refreshes a read result
// collectively before its threshold decryption, and a refresh needs a level
// with room for its flooding (noise.RefreshFloorLevel — level 0 has
// none). Every writer ciphertext is an upload at the top level, so the
// committee normalises the contributions to its own working level
// max(layout level, refresh floor for the aggregate's bounds) (sets: the
// membership polynomial's depth above that), deterministically on every
// member, and leaves the read there: the result is refreshed (at ≥ the
// floor) only if it has no level left for the mask.
type CRDT struct {
	state  *meta.State // the state, its layout at the working level
	bounds RefreshBounds
}

// NewCRDT checks a KindCRDT request (its CRDT kind, metadata and input
// handles) against the committee preset: the metadata decodes, its type is
// the state's kind, its layout targets the preset and the inputs are the
// handles the metadata references.
func NewCRDT(kind uint8, metadata []byte, inputs []fhe.Handle, p *fhe.Params) (*CRDT, error) {
	s, err := meta.Decode(metadata)
	if err != nil {
		return nil, fmt.Errorf("%w: metadata: %v", ErrBadCRDTRequest, err)
	}
	if s.Layout.Type != meta.Type(kind) {
		return nil, fmt.Errorf("%w: metadata is a %s state, kind %d", ErrBadCRDTRequest, s.Layout.Type, kind)
	}
	if fhe.PresetID(s.Layout.Preset) != p.Preset.ID {
		return nil, fmt.Errorf("%w: state preset %d, committee preset %s (%d)", ErrBadCRDTRequest, s.Layout.Preset, p.Preset.Name, p.Preset.ID)
	}
	if len(s.Entries) == 0 {
		return nil, fmt.Errorf("%w: %w (its value is zero, there is nothing to decrypt)", ErrBadCRDTRequest, crdt.ErrEmpty)
	}
	hs := s.Handles()
	if len(hs) != len(inputs) {
		return nil, fmt.Errorf("%w: %d inputs for %d metadata entries", ErrBadCRDTRequest, len(inputs), len(hs))
	}
	for i, h := range hs {
		if fhe.Handle(h) != inputs[i] {
			return nil, fmt.Errorf("%w: input %d is not the handle of entry %d", ErrBadCRDTRequest, i, i)
		}
	}
	work := *s
	bounds, level, err := crdtWorkingLevel(p, s)
	if err != nil {
		return nil, err
	}
	work.Layout.Level = uint8(level)
	return &CRDT{state: &work, bounds: bounds}, nil
}

// crdtWorkingLevel returns the refresh bounds of a state's read result and
// the level the committee normalises its contributions to (see CRDT).
// NoiseBits: noise.CiphertextBits per contribution, summed over the entries
// (a contribution is a masked, modulus-switched upload). WorstBits: an
// upload at the input proof's accepted noise, times the block mask (‖L‖∞ <
// t over N coefficients), divided by the switched prime, summed — it only
// needs room. A set's read is a polynomial of the aggregate, whose
// adversarial bound exceeds every modulus (as for policies, a crafted input
// only corrupts that value); its bounds are the defaults.
func crdtWorkingLevel(p *fhe.Params, s *meta.State) (RefreshBounds, int, error) {
	l := s.Layout
	var b RefreshBounds
	extra := 0
	if l.Type == meta.TypeSet {
		extra = fhe.PolyDepth(int(l.Blocks))
	} else {
		accepted, err := AcceptedInputNoiseBits(p)
		if err != nil {
			return b, 0, err
		}
		sum := math.Log2(float64(len(s.Entries)))
		b.NoiseBits = noise.CiphertextBits + sum
		// MaskWorstGainBits = log2(N·t/2) − log2 q_min: the block mask's
		// product and the switch to the working level.
		b.WorstBits = math.Max(b.NoiseBits, accepted+PolicyNoiseModel(p).MaskWorstGainBits+sum)
	}
	floor, err := noise.RefreshFloorLevel(p, b.NoiseBits, b.WorstBits)
	if err != nil {
		return b, 0, fmt.Errorf("%w: %v", ErrBadCRDTRequest, err)
	}
	level := max(int(l.Level), floor+extra)
	if level >= p.MaxLevel() {
		return b, 0, fmt.Errorf("%w: the committee values this %s at level %d (refresh floor %d), %s has %d levels", ErrBadCRDTRequest, l.Type, level, floor, p.Preset.Name, p.MaxLevel())
	}
	return b, level, nil
}

// Evaluate implements Circuit: inputs[i] is the writer ciphertext of entry i.
func (c *CRDT) Evaluate(_ context.Context, ev *fhe.Evaluator, in []*fhe.Ciphertext, _ RefreshFunc) (*fhe.Ciphertext, error) {
	if c.state == nil || len(in) != len(c.state.Entries) {
		return nil, fmt.Errorf("%w: inputs do not match the metadata", ErrBadCRDTRequest)
	}
	eng, err := crdt.NewEngine(ev)
	if err != nil {
		return nil, err
	}
	eng = eng.WithReadLevel(ev.Params().MaxLevel()) // the read stays at its level (see CRDT)
	l := c.state.Layout
	st := crdt.NewStore(eng)
	for i, e := range c.state.Entries {
		// in[i] was loaded by handle req.Inputs[i] = e.Handle (NewCRDT
		// checks they match) and is its evaluable form (2·ct for an upload).
		if err := st.IngestBound(l, e, in[i]); err != nil {
			return nil, fmt.Errorf("consensus: crdt entry %d (block %d): %w", i, e.Block, err)
		}
	}
	agg, err := eng.Aggregate(c.state, st.Resolve)
	if err != nil {
		return nil, err
	}
	switch l.Type {
	case meta.TypeGCounter, meta.TypePNCounter:
		return eng.CounterTotals(l, agg)
	case meta.TypeLWW:
		return eng.Register(l, agg)
	case meta.TypeSet:
		return eng.Cardinality(l, agg)
	}
	return nil, fmt.Errorf("%w: type %v", ErrBadCRDTRequest, l.Type)
}

// Reference implements Circuit, with in[i] the plaintext of entry i's block
// lane 0 (its counter-0 value, or its register value): counters sum them,
// LWW returns key 0's value. A set's cardinality is not a function of one
// lane per entry: Reference returns 0 for sets.
func (c *CRDT) Reference(p *fhe.Params, in []int64) uint64 {
	if c.state == nil {
		return 0
	}
	t := p.PlaintextModulus()
	switch c.state.Layout.Type {
	case meta.TypeGCounter, meta.TypePNCounter:
		var acc int64
		for _, x := range in {
			acc += x
		}
		return mod(acc, t)
	case meta.TypeLWW:
		for i, e := range c.state.Entries {
			if e.Block == 0 && i < len(in) {
				return mod(in[i], t)
			}
		}
	}
	return 0
}

// CRDTGaloisElements returns the Galois elements that the reads of every CRDT
// layout the preset admits need (crdt.ReadGaloisElements over counters of
// every power-of-two width and replica count, and sets of every universe
// size): the committee's DKG generates them so that any FHECRDT state can be
// valued. For BGV this is every power-of-two column rotation below the row
// length plus the row rotation. Sorted, without duplicates; nil for CKKS.
func CRDTGaloisElements(p *fhe.Params) []uint64 {
	if p.Scheme() != fhe.SchemeBGV {
		return nil
	}
	slots := p.Slots()
	seen := map[uint64]bool{}
	add := func(l meta.Layout) {
		for _, g := range crdt.ReadGaloisElements(p, l) {
			seen[g] = true
		}
	}
	for w := 1; w < slots; w <<= 1 {
		for n := 2; w*n <= slots; n <<= 1 {
			add(meta.Layout{Type: meta.TypeGCounter, Preset: uint8(p.Preset.ID), Blocks: uint32(n), Width: uint32(w)})
		}
	}
	for n := 2; n <= slots; n <<= 1 {
		add(meta.Layout{Type: meta.TypeSet, Preset: uint8(p.Preset.ID), Blocks: 1, Width: uint32(n)})
	}
	out := make([]uint64, 0, len(seen))
	for g := range seen {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// State is the state c values, its layout at the committee's working level.
func (c *CRDT) State() *meta.State { return c.state }

// Bounds are the refresh bounds of c's read result.
func (c *CRDT) Bounds() RefreshBounds { return c.bounds }
