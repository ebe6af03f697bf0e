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

// Batch domain tags: one BLS aggregate covers a whole batch of
// verdicts, or a whole upload of input handles.
const (
	VerdictBatchDomain = "fhegate/verdict-batch/v1"
	InputBatchDomain   = "fhegate/input-batch/v1"
	VerdictLeafDomain  = "fhegate/verdict-leaf/v1"
	InputLeafDomain    = "fhegate/input-leaf/v1"
)

// VerdictItem is one (request id, result) pair of a verdict batch.
type VerdictItem struct {
	RequestID [32]byte
	Result    *big.Int
}

// VerdictBatchRoot is the root of a verdict batch's (request id, result)
// pairs, in the order they are submitted:
//
//	leaf_i = keccak256("fhegate/verdict-leaf/v1" || requestId_i(32) || result_i(32))
//	root   = keccak256(count(8) || leaf_0 || … || leaf_{n-1})
//
// A flat hash, not a Merkle tree: FHEVerdict.submitBatch recomputes it over
// every pair it stores anyway, so no inclusion proofs are needed.
func VerdictBatchRoot(items []VerdictItem) [32]byte {
	parts := make([][]byte, 0, len(items)+1)
	parts = append(parts, u64(uint64(len(items))))
	for _, it := range items {
		leaf := keccak([]byte(VerdictLeafDomain), it.RequestID[:], word(it.Result))
		parts = append(parts, leaf[:])
	}
	return keccak(parts...)
}

// VerdictBatchDigest is the message committee members sign for a batch of
// verdicts of one policy, evaluated together in one packed ciphertext set
// whose (masked) result ciphertext hashes to resultDigest:
//
//	keccak256("fhegate/verdict-batch/v1" || chainId(32) || epoch(8) ||
//	          policyId(32) || resultDigest(32) || root(32))
func VerdictBatchDigest(chainID *big.Int, epoch uint64, policyID, resultDigest, root [32]byte) [32]byte {
	return keccak([]byte(VerdictBatchDomain), word(chainID), u64(epoch), policyID[:], resultDigest[:], root[:])
}

// InputItem is one handle of an upload attested as a set.
type InputItem struct {
	Handle      [32]byte
	CType       uint8
	ProofDigest [32]byte // keccak256 of the handle's proof of plaintext knowledge (fhe/zkpok)
}

// InputBatchRoot is the root of an upload's handles, in order:
//
//	leaf_i = keccak256("fhegate/input-leaf/v1" || handle_i(32) || ctype_i(1) || proofDigest_i(32))
//	root   = keccak256(count(8) || leaf_0 || … || leaf_{n-1})
func InputBatchRoot(items []InputItem) [32]byte {
	parts := make([][]byte, 0, len(items)+1)
	parts = append(parts, u64(uint64(len(items))))
	for _, it := range items {
		leaf := keccak([]byte(InputLeafDomain), it.Handle[:], []byte{it.CType}, it.ProofDigest[:])
		parts = append(parts, leaf[:])
	}
	return keccak(parts...)
}

// InputBatchDigest is the message committee members sign to attest a set of
// input handles of one owner and preset (one BLS verification registers them
// all: FHEInput.registerBatch):
//
//	keccak256("fhegate/input-batch/v1" || chainId(32) || epoch(8) || owner(20) ||
//	          preset(1) || root(32))
func InputBatchDigest(chainID *big.Int, epoch uint64, owner [20]byte, preset uint8, root [32]byte) [32]byte {
	return keccak([]byte(InputBatchDomain), word(chainID), u64(epoch), owner[:], []byte{preset}, root[:])
}

// CommitteeKeyDomain tags the statement a committee makes about its own
// collective FHE public key.
const CommitteeKeyDomain = "fhegate/committee-key/v1"

// CommitteeKeyDigest is the message the members of the committee of epoch
// sign to bind their collective FHE public key to that epoch on chain
// (FHEVerdict.setCommitteeKey):
//
//	keccak256("fhegate/committee-key/v1" || chainId(32) || epoch(8) || pkDigest(32))
//
// pkDigest is keccak256 of the canonical public-key bytes (the DKG's
// PKDigest). The old committee re-encrypts its inputs during a rotation
// only to a key whose digest the chain recorded for the next epoch.
func CommitteeKeyDigest(chainID *big.Int, epoch uint64, pkDigest [32]byte) [32]byte {
	return keccak([]byte(CommitteeKeyDomain), word(chainID), u64(epoch), pkDigest[:])
}
