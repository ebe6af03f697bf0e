package precompiles

import (
	"encoding/binary"
	"encoding/hex"
	"math/big"

	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
)

// Address is a 20-byte account address.
type Address [20]byte

// Hash is a 32-byte word: storage keys and values, handles, ids, log topics.
type Hash [32]byte

// Handle identifies a ciphertext: keccak256 of its canonical bytes (fhe/ wire
// format). To the precompiles it is 32 opaque bytes plus a preset id and a type tag.
type Handle = Hash

// String renders the address as 0x-prefixed hex.
func (a Address) String() string { return "0x" + hex.EncodeToString(a[:]) }

// String renders the hash as 0x-prefixed hex.
func (h Hash) String() string { return "0x" + hex.EncodeToString(h[:]) }

// IsZero reports whether h is all zeros.
func (h Hash) IsZero() bool { return h == Hash{} }

func addrFromLow(b []byte) Address {
	var a Address
	copy(a[:], b[len(b)-20:])
	return a
}

// addrWord left-pads an address to a 32-byte word.
func addrWord(a Address) Hash {
	var h Hash
	copy(h[12:], a[:])
	return h
}

func u64Word(x uint64) Hash {
	var h Hash
	binary.BigEndian.PutUint64(h[24:], x)
	return h
}

func bigWord(x *big.Int) Hash {
	var h Hash
	if x != nil && x.Sign() > 0 && x.BitLen() <= 256 {
		x.FillBytes(h[:])
	}
	return h
}

// Keccak256 hashes the concatenation of parts.
func Keccak256(parts ...[]byte) Hash { return Hash(keccakpkg.Sum(parts...)) }

// slot derives a storage key: keccak256(tag || parts...). Tags are distinct
// per record kind so records never collide.
func slot(tag string, parts ...[]byte) Hash {
	all := make([][]byte, 0, len(parts)+1)
	all = append(all, []byte(tag))
	all = append(all, parts...)
	return Keccak256(all...)
}

// addOffset returns key + i (as a 256-bit big-endian integer, wrapping), used
// for consecutive slots of one record.
func addOffset(key Hash, i uint64) Hash {
	out := key
	carry := i
	for j := 31; j >= 0 && carry > 0; j-- {
		s := uint64(out[j]) + (carry & 0xff)
		out[j] = byte(s)
		carry = (carry >> 8) + (s >> 8)
	}
	return out
}

// Precompile addresses (subnet-evm's reserved 0x0200…00–ff page; also inside Lux's reserved range).
var (
	FHEInputAddress   = Address{0x02, 19: 0xf0}
	FHEPolicyAddress  = Address{0x02, 19: 0xf1}
	FHECRDTAddress    = Address{0x02, 19: 0xf2}
	FHEVerdictAddress = Address{0x02, 19: 0xf3}
)
