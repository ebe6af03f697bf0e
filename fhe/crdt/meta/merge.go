package meta

import (
	"errors"
	"fmt"
)

// MergeErrorKind classifies why two decoded states cannot be merged.
type MergeErrorKind uint8

// Merge error kinds.
const (
	// ErrLayoutMismatch: the states have different layouts (type, preset,
	// level, blocks or width).
	ErrLayoutMismatch MergeErrorKind = iota + 1
	// ErrBadEntry: an entry written with Put is invalid for the layout.
	ErrBadEntry
	// ErrInvalidState: a State built by hand does not validate.
	ErrInvalidState
)

func (k MergeErrorKind) String() string {
	switch k {
	case ErrLayoutMismatch:
		return "layout mismatch"
	case ErrBadEntry:
		return "bad entry"
	case ErrInvalidState:
		return "invalid state"
	}
	return fmt.Sprintf("MergeErrorKind(%d)", uint8(k))
}

// MergeError is returned when decoded states cannot be merged.
type MergeError struct {
	Kind   MergeErrorKind
	Detail string
}

func (e *MergeError) Error() string { return "crdt/meta: merge: " + e.Kind.String() + ": " + e.Detail }

// Is matches on the kind.
func (e *MergeError) Is(target error) bool {
	var t *MergeError
	if errors.As(target, &t) {
		return t.Kind == e.Kind && (t.Detail == "" || t.Detail == e.Detail)
	}
	return false
}

// Side says which input of a merge supplies a block of the result.
type Side uint8

// Sides. SideBoth: both inputs hold the identical entry.
const (
	SideA    Side = 1
	SideB    Side = 2
	SideBoth Side = 3
)

func (s Side) String() string {
	switch s {
	case SideA:
		return "a"
	case SideB:
		return "b"
	case SideBoth:
		return "both"
	}
	return fmt.Sprintf("Side(%d)", uint8(s))
}

// Pick is one block of a merge result: lanes [Lo, Hi) of the result come from
// the ciphertext Winner (normalised for Block); when the other input also had
// the block, Loser names the ciphertext it replaces there.
type Pick struct {
	Block     uint32
	Lo, Hi    int
	From      Side
	Winner    Handle
	Loser     Handle
	HasLoser  bool
	WinEntry  Entry
	LoseEntry Entry
}

// Plan is the materialisation plan of a merge, for the committee: which lanes
// of which input ciphertext go into the result.
type Plan struct {
	Layout Layout
	// Picks has one element per block of the result, ascending by block.
	Picks []Pick
}

// Changes returns the picks the result does not share with base (blocks the
// other side wins or that only the other side has): materialising
// agg(result) = agg(base) + Σ(+Winner − Loser if HasLoser) over these picks.
func (p *Plan) Changes(base Side) []Pick {
	var out []Pick
	for _, pk := range p.Picks {
		if pk.From != SideBoth && pk.From != base {
			out = append(out, pk)
		}
	}
	return out
}

// Base returns the side whose aggregate needs the fewest changes to become
// the result's aggregate (SideA on ties), and those changes.
func (p *Plan) Base() (Side, []Pick) {
	a, b := p.Changes(SideA), p.Changes(SideB)
	if len(b) < len(a) {
		return SideB, b
	}
	return SideA, a
}

// Join merges two decoded states (pointwise max of entries per block) and
// returns the result and its materialisation plan. Inputs are not modified.
func Join(a, b *State) (*State, *Plan, error) {
	if a == nil || b == nil {
		return nil, nil, &MergeError{Kind: ErrInvalidState, Detail: "nil state"}
	}
	if a.Layout != b.Layout {
		return nil, nil, &MergeError{Kind: ErrLayoutMismatch, Detail: fmt.Sprintf("%+v vs %+v", a.Layout, b.Layout)}
	}
	for _, s := range []*State{a, b} {
		if err := s.Validate(); err != nil {
			return nil, nil, &MergeError{Kind: ErrInvalidState, Detail: err.Error()}
		}
	}
	l := a.Layout
	out := &State{Layout: l, Entries: make([]Entry, 0, max(len(a.Entries), len(b.Entries)))}
	plan := &Plan{Layout: l, Picks: make([]Pick, 0, cap(out.Entries))}
	add := func(win Entry, from Side, lose *Entry) {
		lo, hi := l.BlockLanes(win.Block)
		pk := Pick{Block: win.Block, Lo: lo, Hi: hi, From: from, Winner: win.Handle, WinEntry: win}
		if lose != nil {
			pk.Loser, pk.HasLoser, pk.LoseEntry = lose.Handle, true, *lose
		}
		out.Entries = append(out.Entries, win)
		plan.Picks = append(plan.Picks, pk)
	}
	i, j := 0, 0
	for i < len(a.Entries) || j < len(b.Entries) {
		switch {
		case j == len(b.Entries) || (i < len(a.Entries) && a.Entries[i].Block < b.Entries[j].Block):
			add(a.Entries[i], SideA, nil)
			i++
		case i == len(a.Entries) || b.Entries[j].Block < a.Entries[i].Block:
			add(b.Entries[j], SideB, nil)
			j++
		default:
			ea, eb := a.Entries[i], b.Entries[j]
			switch {
			case ea == eb:
				add(ea, SideBoth, nil)
			case eb.Less(ea):
				add(ea, SideA, &eb)
			default:
				add(eb, SideB, &ea)
			}
			i++
			j++
		}
	}
	return out, plan, nil
}

// Merge merges two canonical encodings and returns the canonical encoding of
// the join. It is what the on-chain precompile runs: deterministic,
// commutative, associative and idempotent on the bytes.
func Merge(a, b []byte) ([]byte, error) {
	out, _, err := MergePlan(a, b)
	return out, err
}

// MergePlan is Merge that also returns the materialisation plan.
func MergePlan(a, b []byte) ([]byte, *Plan, error) {
	sa, err := Decode(a)
	if err != nil {
		return nil, nil, fmt.Errorf("state a: %w", err)
	}
	sb, err := Decode(b)
	if err != nil {
		return nil, nil, fmt.Errorf("state b: %w", err)
	}
	s, plan, err := Join(sa, sb)
	if err != nil {
		return nil, nil, err
	}
	return s.Encode(), plan, nil
}

// LessEq reports whether a ⊑ b in the state lattice (a ⊔ b = b): every entry
// of a is present in b or dominated there. Both must share a layout.
func LessEq(a, b *State) (bool, error) {
	j, _, err := Join(a, b)
	if err != nil {
		return false, err
	}
	if len(j.Entries) != len(b.Entries) {
		return false, nil
	}
	for i := range j.Entries {
		if j.Entries[i] != b.Entries[i] {
			return false, nil
		}
	}
	return true, nil
}
