package precompiles

import (
	"math/big"

	"github.com/ava-labs/libevm/common"
)

// Checked conversions from abi.Unpack results. A type mismatch can only come
// from an ABI/handler mismatch; it is reported as a revert, never a panic.

func argHash(v any) (Hash, error) {
	b, ok := v.([32]byte)
	if !ok {
		return Hash{}, revertf("internal: argument is %T, want bytes32", v)
	}
	return Hash(b), nil
}

func argAddr(v any) (Address, error) {
	a, ok := v.(common.Address)
	if !ok {
		return Address{}, revertf("internal: argument is %T, want address", v)
	}
	return Address(a), nil
}

func argU8(v any) (uint8, error) {
	x, ok := v.(uint8)
	if !ok {
		return 0, revertf("internal: argument is %T, want uint8", v)
	}
	return x, nil
}

func argU8s(v any) ([]uint8, error) {
	l, ok := v.([]uint8)
	if !ok {
		return nil, revertf("internal: argument is %T, want uint8[]", v)
	}
	return append([]uint8(nil), l...), nil
}

func argU32(v any) (uint32, error) {
	x, ok := v.(uint32)
	if !ok {
		return 0, revertf("internal: argument is %T, want uint32", v)
	}
	return x, nil
}

func argU64(v any) (uint64, error) {
	x, ok := v.(uint64)
	if !ok {
		return 0, revertf("internal: argument is %T, want uint64", v)
	}
	return x, nil
}

func argBig(v any) (*big.Int, error) {
	x, ok := v.(*big.Int)
	if !ok || x == nil {
		return nil, revertf("internal: argument is %T, want uint256", v)
	}
	return new(big.Int).Set(x), nil
}

func argBytes(v any) ([]byte, error) {
	b, ok := v.([]byte)
	if !ok {
		return nil, revertf("internal: argument is %T, want bytes", v)
	}
	return append([]byte(nil), b...), nil
}

func argBytesList(v any) ([][]byte, error) {
	l, ok := v.([][]byte)
	if !ok {
		return nil, revertf("internal: argument is %T, want bytes[]", v)
	}
	out := make([][]byte, len(l))
	for i := range l {
		out[i] = append([]byte(nil), l[i]...)
	}
	return out, nil
}

func argHashes(v any) ([]Hash, error) {
	l, ok := v.([][32]byte)
	if !ok {
		return nil, revertf("internal: argument is %T, want bytes32[]", v)
	}
	out := make([]Hash, len(l))
	for i := range l {
		out[i] = Hash(l[i])
	}
	return out, nil
}

// topicOf converts an indexed event argument to its topic word.
func topicOf(v any) (Hash, error) {
	switch x := v.(type) {
	case [32]byte:
		return Hash(x), nil
	case common.Address:
		return addrWord(Address(x)), nil
	case uint64:
		return u64Word(x), nil
	default:
		return Hash{}, revertf("internal: unsupported topic type %T", v)
	}
}

func outAddr(a Address) common.Address { return common.Address(a) }
func outHash(h Hash) [32]byte          { return [32]byte(h) }

// outHashes converts hashes to an ABI bytes32[] value.
func outHashes(hs []Hash) [][32]byte {
	out := make([][32]byte, len(hs))
	for i, h := range hs {
		out[i] = h
	}
	return out
}
