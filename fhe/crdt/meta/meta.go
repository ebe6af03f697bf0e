package meta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Type is the CRDT type of a state. The numeric values are part of the
// encoding and of on-chain state: never renumber.
type Type uint8

// CRDT types.
const (
	TypeGCounter  Type = 1
	TypePNCounter Type = 2
	TypeLWW       Type = 3
	TypeSet       Type = 4
)

func (t Type) String() string {
	switch t {
	case TypeGCounter:
		return "g-counter"
	case TypePNCounter:
		return "pn-counter"
	case TypeLWW:
		return "lww"
	case TypeSet:
		return "set"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Limits.
const (
	// MaxLanes is the largest number of slots a state may use (BGV N=2^14).
	MaxLanes = 16384
	// Version is the encoding version.
	Version = 1
	// HeaderSize is the size of the fixed header.
	HeaderSize = 20
	// EntrySize is the size of one encoded entry.
	EntrySize = 48
)

var magic = [4]byte{'F', 'C', 'R', 'D'}

// Handle names a ciphertext: keccak256 of its canonical fhe encoding.
type Handle [32]byte

// String returns the 0x-prefixed hex form.
func (h Handle) String() string { return fmt.Sprintf("0x%x", h[:]) }

// Layout fixes the shape of a CRDT object; only states with equal layouts merge.
type Layout struct {
	Type Type
	// Preset is the fhe.PresetID of the ciphertexts (opaque here).
	Preset uint8
	// Level is the ciphertext level contributions are normalised to.
	Level uint8
	// Blocks is the number of replicas (counters, set) or register keys (LWW).
	Blocks uint32
	// Width is the number of lanes per block (counters, LWW) or the size of
	// the universe (set).
	Width uint32
}

// Lanes returns how many slots the layout uses.
func (l Layout) Lanes() int {
	if l.Type == TypeSet {
		return int(l.Width)
	}
	return int(l.Blocks) * int(l.Width)
}

// BlockLanes returns the lane range [lo, hi) that block b's ciphertext may
// write: its own block for counters and LWW, the whole universe for sets.
func (l Layout) BlockLanes(b uint32) (lo, hi int) {
	if l.Type == TypeSet {
		return 0, int(l.Width)
	}
	return int(b) * int(l.Width), int(b+1) * int(l.Width)
}

// Validate checks the layout's own constraints (the FHE side additionally
// checks the lanes against the preset's slot count).
func (l Layout) Validate() error {
	switch l.Type {
	case TypeGCounter, TypePNCounter, TypeLWW, TypeSet:
	default:
		return fmt.Errorf("meta: unknown type %d", uint8(l.Type))
	}
	if l.Preset == 0 {
		return errors.New("meta: preset 0")
	}
	if l.Blocks == 0 || l.Width == 0 {
		return fmt.Errorf("meta: %d blocks × %d lanes", l.Blocks, l.Width)
	}
	if l.Blocks > MaxLanes || l.Width > MaxLanes {
		return fmt.Errorf("meta: %d blocks × %d lanes exceeds %d", l.Blocks, l.Width, MaxLanes)
	}
	if l.Lanes() > MaxLanes {
		return fmt.Errorf("meta: %d lanes exceed %d", l.Lanes(), MaxLanes)
	}
	return nil
}

// Entry is the latest known write of one block.
type Entry struct {
	Block uint32
	// Clock is the replica's version (counters, set) or the write timestamp
	// (LWW); ≥ 1 (an absent block is the bottom element).
	Clock uint64
	// Replica is the writer; equals Block for counters and sets.
	Replica uint32
	// Handle names the writer's ciphertext for the block.
	Handle Handle
}

// Less is the public total order on the entries of one block:
// lexicographic on (Clock, Replica, Handle).
func (e Entry) Less(f Entry) bool {
	if e.Clock != f.Clock {
		return e.Clock < f.Clock
	}
	if e.Replica != f.Replica {
		return e.Replica < f.Replica
	}
	return bytes.Compare(e.Handle[:], f.Handle[:]) < 0
}

func (l Layout) checkEntry(e Entry) error {
	if e.Block >= l.Blocks {
		return fmt.Errorf("block %d ≥ %d blocks", e.Block, l.Blocks)
	}
	if e.Clock == 0 {
		return fmt.Errorf("block %d: clock 0", e.Block)
	}
	if l.Type != TypeLWW && e.Replica != e.Block {
		return fmt.Errorf("block %d: replica %d ≠ block for %v", e.Block, e.Replica, l.Type)
	}
	if e.Handle == (Handle{}) {
		return fmt.Errorf("block %d: zero handle", e.Block)
	}
	return nil
}

// State is a decoded CRDT state: a layout and its entries, strictly ascending
// by block.
type State struct {
	Layout  Layout
	Entries []Entry
}

// New returns the empty state (bottom) of a layout.
func New(l Layout) (*State, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return &State{Layout: l}, nil
}

// Validate checks the layout and the entries.
func (s *State) Validate() error {
	if err := s.Layout.Validate(); err != nil {
		return err
	}
	for i, e := range s.Entries {
		if err := s.Layout.checkEntry(e); err != nil {
			return fmt.Errorf("meta: entry %d: %s", i, err)
		}
		if i > 0 && s.Entries[i-1].Block >= e.Block {
			return fmt.Errorf("meta: entry %d: block %d not after %d", i, e.Block, s.Entries[i-1].Block)
		}
	}
	return nil
}

// Get returns the entry of block b.
func (s *State) Get(b uint32) (Entry, bool) {
	lo, hi := 0, len(s.Entries)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case s.Entries[m].Block == b:
			return s.Entries[m], true
		case s.Entries[m].Block < b:
			lo = m + 1
		default:
			hi = m
		}
	}
	return Entry{}, false
}

// Clone returns a deep copy.
func (s *State) Clone() *State {
	return &State{Layout: s.Layout, Entries: append([]Entry(nil), s.Entries...)}
}

// Encode returns the canonical encoding. The state must be valid (states
// from Decode, New, Join and Put are).
func (s *State) Encode() []byte {
	out := make([]byte, HeaderSize+EntrySize*len(s.Entries))
	copy(out, magic[:])
	out[4] = Version
	out[5] = byte(s.Layout.Type)
	out[6] = s.Layout.Preset
	out[7] = s.Layout.Level
	binary.BigEndian.PutUint32(out[8:], s.Layout.Blocks)
	binary.BigEndian.PutUint32(out[12:], s.Layout.Width)
	binary.BigEndian.PutUint32(out[16:], uint32(len(s.Entries)))
	p := out[HeaderSize:]
	for _, e := range s.Entries {
		binary.BigEndian.PutUint32(p, e.Block)
		binary.BigEndian.PutUint64(p[4:], e.Clock)
		binary.BigEndian.PutUint32(p[12:], e.Replica)
		copy(p[16:48], e.Handle[:])
		p = p[EntrySize:]
	}
	return out
}

// Handles returns the handles of the state's entries, in block order: the
// ciphertexts the state references.
func (s *State) Handles() []Handle {
	out := make([]Handle, len(s.Entries))
	for i, e := range s.Entries {
		out[i] = e.Handle
	}
	return out
}

// Put returns s with e written: the join of s and the singleton state {e}.
// It is how a replica (or the precompile) records a local update.
func (s *State) Put(e Entry) (*State, error) {
	if err := s.Layout.checkEntry(e); err != nil {
		return nil, &MergeError{Kind: ErrBadEntry, Detail: err.Error()}
	}
	single := &State{Layout: s.Layout, Entries: []Entry{e}}
	out, _, err := Join(s, single)
	return out, err
}

// Put decodes a state, writes an entry and re-encodes it.
func Put(state []byte, e Entry) ([]byte, error) {
	s, err := Decode(state)
	if err != nil {
		return nil, err
	}
	out, err := s.Put(e)
	if err != nil {
		return nil, err
	}
	return out.Encode(), nil
}
