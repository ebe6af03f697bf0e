package fhe

import (
	"errors"
	"fmt"
)

// SameLattigoShape reports whether b is an encoding, by a Lattigo
// MarshalBinary, of an object of exactly the shape of a template: every
// structural byte (lengths, degrees, levels, ring degree) equal to the
// template's. Lattigo's decoders trust those fields, and a length field
// that disagrees with the data makes buffer.ReadUint64Slice recurse until
// the goroutine's stack is exhausted — a fatal error that recover() cannot
// catch — so a decoder of untrusted shares calls this first.
//
// marshal(fill) encodes the template with every coefficient set to fill.
// The structural bytes are those equal in the encodings with fill = 0 and
// fill = 2^64−1: every coefficient byte differs between the two.
func SameLattigoShape(b []byte, marshal func(fill uint64) ([]byte, error)) error {
	zero, err := marshal(0)
	if err != nil {
		return err
	}
	ones, err := marshal(^uint64(0))
	if err != nil {
		return err
	}
	if len(zero) != len(ones) {
		return errors.New("fhe: shape template encodes to different lengths")
	}
	if len(b) != len(zero) {
		return fmt.Errorf("fhe: %d bytes, want %d", len(b), len(zero))
	}
	for i := range b {
		if zero[i] == ones[i] && b[i] != zero[i] {
			return fmt.Errorf("fhe: structural byte %d is %#x, want %#x", i, b[i], zero[i])
		}
	}
	return nil
}
