package meta

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// DecodeErrorKind classifies why bytes were rejected.
type DecodeErrorKind uint8

// Decode error kinds.
const (
	ErrKindTruncated DecodeErrorKind = iota + 1
	ErrKindMagic
	ErrKindVersion
	ErrKindType
	ErrKindLayout
	ErrKindLength
	ErrKindEntry
	ErrKindOrder
	ErrKindTrailing
)

func (k DecodeErrorKind) String() string {
	switch k {
	case ErrKindTruncated:
		return "truncated"
	case ErrKindMagic:
		return "bad magic"
	case ErrKindVersion:
		return "unsupported version"
	case ErrKindType:
		return "unknown type"
	case ErrKindLayout:
		return "bad layout"
	case ErrKindLength:
		return "wrong length"
	case ErrKindEntry:
		return "bad entry"
	case ErrKindOrder:
		return "entries not strictly ascending"
	case ErrKindTrailing:
		return "trailing bytes"
	}
	return fmt.Sprintf("DecodeErrorKind(%d)", uint8(k))
}

// DecodeError is returned for every rejected encoding.
type DecodeError struct {
	Kind   DecodeErrorKind
	Detail string
}

func (e *DecodeError) Error() string {
	return "crdt/meta: decode: " + e.Kind.String() + ": " + e.Detail
}

// Is matches on the kind: errors.Is(err, &DecodeError{Kind: ErrKindOrder}).
func (e *DecodeError) Is(target error) bool {
	var t *DecodeError
	if errors.As(target, &t) {
		return t.Kind == e.Kind && (t.Detail == "" || t.Detail == e.Detail)
	}
	return false
}

func decErr(k DecodeErrorKind, format string, args ...any) error {
	return &DecodeError{Kind: k, Detail: fmt.Sprintf(format, args...)}
}

// Decode parses a canonical state. Every non-canonical input is rejected with
// a *DecodeError; it never panics and allocates only after the length has
// been checked against the header.
func Decode(b []byte) (*State, error) {
	l, err := DecodeLayout(b)
	if err != nil {
		return nil, err
	}
	count := binary.BigEndian.Uint32(b[16:])
	if count > l.Blocks {
		return nil, decErr(ErrKindLength, "%d entries for %d blocks", count, l.Blocks)
	}
	want := HeaderSize + EntrySize*int(count)
	if len(b) < want {
		return nil, decErr(ErrKindTruncated, "%d bytes, want %d", len(b), want)
	}
	if len(b) > want {
		return nil, decErr(ErrKindTrailing, "%d bytes after %d entries", len(b)-want, count)
	}
	s := &State{Layout: l, Entries: make([]Entry, count)}
	p := b[HeaderSize:]
	for i := range s.Entries {
		e := Entry{
			Block:   binary.BigEndian.Uint32(p),
			Clock:   binary.BigEndian.Uint64(p[4:]),
			Replica: binary.BigEndian.Uint32(p[12:]),
			Handle:  Handle(p[16:48]),
		}
		if err := l.checkEntry(e); err != nil {
			return nil, decErr(ErrKindEntry, "entry %d: %s", i, err)
		}
		if i > 0 && s.Entries[i-1].Block >= e.Block {
			return nil, decErr(ErrKindOrder, "entry %d: block %d after %d", i, e.Block, s.Entries[i-1].Block)
		}
		s.Entries[i] = e
		p = p[EntrySize:]
	}
	return s, nil
}

// DecodeLayout parses and checks only the header of a state.
func DecodeLayout(b []byte) (Layout, error) {
	if len(b) < HeaderSize {
		return Layout{}, decErr(ErrKindTruncated, "%d bytes, header is %d", len(b), HeaderSize)
	}
	if [4]byte(b[:4]) != magic {
		return Layout{}, decErr(ErrKindMagic, "%x", b[:4])
	}
	if b[4] != Version {
		return Layout{}, decErr(ErrKindVersion, "%d", b[4])
	}
	l := Layout{
		Type:   Type(b[5]),
		Preset: b[6],
		Level:  b[7],
		Blocks: binary.BigEndian.Uint32(b[8:]),
		Width:  binary.BigEndian.Uint32(b[12:]),
	}
	switch l.Type {
	case TypeGCounter, TypePNCounter, TypeLWW, TypeSet:
	default:
		return Layout{}, decErr(ErrKindType, "%d", b[5])
	}
	if err := l.Validate(); err != nil {
		return Layout{}, decErr(ErrKindLayout, "%s", err)
	}
	return l, nil
}
