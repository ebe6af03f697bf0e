package precompiles

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ava-labs/libevm/accounts/abi"
)

// checkEncoding is the bounded pre-pass run over a method's calldata (after
// the selector) before abi.Arguments.Unpack. Unpack materialises every element
// it decodes and the ABI lets offsets alias: n offsets of a bytes[] may all
// point at one L-byte payload, so S bytes of calldata would decode to about
// S²/128 bytes (1 MB → 16 GiB). checkEncoding walks the encoding without
// allocating and rejects it unless
//
//   - every offset and length word fits in the input and points inside it, and
//   - the total the decoder will materialise — the payload bytes of every
//     bytes/string plus 32 bytes per array element — is at most len(data).
//
// A canonical (non-aliased) encoding always passes: its payloads and element
// heads occupy disjoint ranges of data. So decoding allocates O(len(data)).
//
// It also decodes addresses as strictly as Solidity's ABI decoder (which
// reverts on dirty high-order bits), where abi.Unpack keeps the low 20 bytes
// of any word: an address word — an argument or an address[] element — whose
// 12 high bytes are not zero is refused, naming the argument. Unpack already
// refuses out-of-range uintN and non-0/1 bools.
// Only the types fhegate's ABIs use are supported (elementary static words,
// bytes, string, T[] of those); any other type is refused, never skipped.
func checkEncoding(args abi.Arguments, data []byte) error {
	b := budget{left: uint64(len(data))}
	types := make([]*abi.Type, 0, 8)
	names := make([]string, 0, 8)
	for i := range args {
		types = append(types, &args[i].Type)
		name := args[i].Name
		if name == "" {
			name = fmt.Sprintf("#%d", i)
		}
		names = append(names, name)
	}
	return b.tuple(types, len(types), data, func(i int) string { return names[i] })
}

var errAliased = errors.New("encoding decodes to more than its own size (aliased or overlapping offsets)")

type budget struct{ left uint64 }

func (b *budget) consume(n uint64) error {
	if n > b.left {
		return errAliased
	}
	b.left -= n
	return nil
}

// word reads the 32-byte word at r[pos:] as an integer no larger than len(r).
func word(r []byte, pos uint64) (uint64, error) {
	if pos > uint64(len(r)) || uint64(len(r))-pos < 32 {
		return 0, fmt.Errorf("word at %d beyond the %d-byte input", pos, len(r))
	}
	w := r[pos : pos+32]
	for _, x := range w[:24] {
		if x != 0 {
			return 0, fmt.Errorf("offset or length at %d out of range", pos)
		}
	}
	v := binary.BigEndian.Uint64(w[24:])
	if v > uint64(len(r)) {
		return 0, fmt.Errorf("offset or length %d at %d exceeds the %d-byte input", v, pos, len(r))
	}
	return v, nil
}

// tuple checks n heads encoded at the start of r: of types[i] when types
// lists every head, of types[0] when it is an array's single element type;
// name(i) names head i in errors.
func (b *budget) tuple(types []*abi.Type, n int, r []byte, name func(int) string) error {
	for i := 0; i < n; i++ {
		t := types[0]
		if len(types) > 1 {
			t = types[i]
		}
		pos := uint64(32 * i)
		if !dynamic(t) {
			if !elementary(t) {
				return fmt.Errorf("unsupported ABI type %s", t)
			}
			w, err := wordAny(r, pos)
			if err != nil {
				return err
			}
			if t.T == abi.AddressTy && !zero(w[:12]) {
				return fmt.Errorf("argument %s: address with non-zero high-order bytes %x", name(i), w[:12])
			}
			continue
		}
		off, err := word(r, pos)
		if err != nil {
			return err
		}
		if err := b.value(t, r, off, name(i)); err != nil {
			return err
		}
	}
	return nil
}

// value checks the dynamic value of type t at r[off:] (of the argument
// named name).
func (b *budget) value(t *abi.Type, r []byte, off uint64, name string) error {
	n, err := word(r, off)
	if err != nil {
		return err
	}
	rest := uint64(len(r)) - off - 32 // word() guarantees off+32 <= len(r)
	switch t.T {
	case abi.BytesTy, abi.StringTy:
		if n > rest {
			return fmt.Errorf("length %d at %d runs past the input", n, off)
		}
		return b.consume(n)
	case abi.SliceTy:
		if n > rest/32 {
			return fmt.Errorf("array of %d elements at %d runs past the input", n, off)
		}
		if err := b.consume(32 * n); err != nil {
			return err
		}
		return b.tuple([]*abi.Type{t.Elem}, int(n), r[off+32:], func(i int) string { return fmt.Sprintf("%s[%d]", name, i) })
	}
	return fmt.Errorf("unsupported ABI type %s", t)
}

// wordAny checks that a static word exists at r[pos:].
func wordAny(r []byte, pos uint64) ([]byte, error) {
	if pos > uint64(len(r)) || uint64(len(r))-pos < 32 {
		return nil, fmt.Errorf("word at %d beyond the %d-byte input", pos, len(r))
	}
	return r[pos : pos+32], nil
}

func zero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

func dynamic(t *abi.Type) bool {
	return t.T == abi.BytesTy || t.T == abi.StringTy || t.T == abi.SliceTy
}

func elementary(t *abi.Type) bool {
	switch t.T {
	case abi.IntTy, abi.UintTy, abi.BoolTy, abi.AddressTy, abi.FixedBytesTy:
		return true
	}
	return false
}
