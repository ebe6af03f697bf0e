// Package keccak is the one Keccak-256 (the pre-FIPS SHA-3 variant Ethereum
// uses) helper every fhegate package hashes with: ciphertext handles, plan
// hashes, precompile storage keys and committee digests.
package keccak

import "golang.org/x/crypto/sha3"

// Sum returns keccak256 of the concatenation of parts.
func Sum(parts ...[]byte) [32]byte {
	h := sha3.NewLegacyKeccak256()
	for _, p := range parts {
		h.Write(p)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}
