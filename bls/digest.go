package bls

import (
	"encoding/binary"
	"math/big"

	keccakpkg "github.com/fhegate/fhegate/internal/keccak"
)

// Domain tags. They are the first bytes hashed into each digest, so a
// signature over one kind of statement is never valid for another.
const (
	VerdictDomain = "fhegate/verdict/v1"
	InputDomain   = "fhegate/input/v1"
)

var keccak = keccakpkg.Sum

// word encodes a non-negative integer as a 32-byte big-endian word (like
// abi.encode(uint256)); nil and negative values encode as zero, and values
// wider than 256 bits keep their low 256 bits.
func word(x *big.Int) []byte {
	var w [32]byte
	if x == nil || x.Sign() <= 0 {
		return w[:]
	}
	b := x.Bytes()
	if len(b) > 32 {
		b = b[len(b)-32:]
	}
	copy(w[32-len(b):], b)
	return w[:]
}

func u64(x uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], x)
	return b[:]
}

// VerdictDigest is the message committee members sign for a verdict:
//
//	keccak256("fhegate/verdict/v1" || chainId(32) || epoch(8) || requestId(32) ||
//	          policyId(32) || resultDigest(32) || result(32))
//
// chainId and result are big-endian 256-bit words; epoch is big-endian 64-bit.
// resultDigest is the hash of the result ciphertext the committee decrypted.
func VerdictDigest(chainID *big.Int, epoch uint64, requestID, policyID, resultDigest [32]byte, result *big.Int) [32]byte {
	return keccak([]byte(VerdictDomain), word(chainID), u64(epoch), requestID[:], policyID[:], resultDigest[:], word(result))
}

// InputDigest is the message committee members sign to attest an input
// ciphertext:
//
//	keccak256("fhegate/input/v1" || chainId(32) || epoch(8) || handle(32) ||
//	          owner(20) || preset(1) || ctype(1))
//
// handle is keccak256 of the canonical ciphertext bytes, owner the account that
// may use it, preset the parameter-preset id and ctype the ciphertext type tag.
func InputDigest(chainID *big.Int, epoch uint64, handle [32]byte, owner [20]byte, preset, ctype uint8) [32]byte {
	return keccak([]byte(InputDomain), word(chainID), u64(epoch), handle[:], owner[:], []byte{preset, ctype})
}
