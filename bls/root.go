package bls

import (
	"errors"
	"fmt"
	"math/big"
)

// Input roots: one committee aggregate signature over a Merkle
// root of many uploads' attestation digests, so that a chain verifies one
// pairing for all of them instead of one per upload.
//
// The leaves are InputBatchDigest values — the very statement a member
// signs for a single upload (chain id, epoch, owner, preset and the root of
// the upload's (handle, ctype, proof digest) items) — so a root signature
// attests exactly what the leaves' own signatures would, no more. The tree is
// an RFC 6962-style binary Merkle tree with one-byte domain separation
// between leaves and inner nodes, padded to a power of two:
//
//	leaf(d)     = keccak256(0x00 || d)
//	node(l, r)  = keccak256(0x01 || l || r)
//	pad         = leaf(0^32)            (no upload digest is zero)
//
// and the members sign
//
//	keccak256("fhegate/input-root/v1" || chainId(32) || epoch(8) || root(32))
//
// A leaf's inclusion proof is its index and the depth siblings from the leaf
// up; the index's bit k says whether the node at height k is a right child.

// InputRootDomain tags the digest signed over an input root.
const InputRootDomain = "fhegate/input-root/v1"

// MaxInputRootDepth bounds an inclusion path (2^16 leaves): a verifier
// refuses longer paths before hashing.
const MaxInputRootDepth = 16

// ErrRootPath is returned for an inclusion path that is too long or an
// index outside the tree it describes.
var ErrRootPath = errors.New("bls: bad input-root path")

func rootLeaf(d [32]byte) [32]byte { return keccak([]byte{0}, d[:]) }

func rootNode(l, r [32]byte) [32]byte { return keccak([]byte{1}, l[:], r[:]) }

// InputRootTree builds the tree over leaves (1 … 2^MaxInputRootDepth
// upload digests, in order) and returns its root and each leaf's inclusion
// path.
func InputRootTree(leaves [][32]byte) (root [32]byte, paths [][][32]byte, err error) {
	if len(leaves) == 0 || len(leaves) > 1<<MaxInputRootDepth {
		return root, nil, fmt.Errorf("%w: %d leaves outside [1, %d]", ErrRootPath, len(leaves), 1<<MaxInputRootDepth)
	}
	depth := 0
	for 1<<depth < len(leaves) {
		depth++
	}
	level := make([][32]byte, 1<<depth)
	for i, l := range leaves {
		level[i] = rootLeaf(l)
	}
	if len(leaves) < len(level) {
		pad := rootLeaf([32]byte{})
		for i := len(leaves); i < len(level); i++ {
			level[i] = pad
		}
	}
	paths = make([][][32]byte, len(leaves))
	for i := range paths {
		paths[i] = make([][32]byte, 0, depth)
	}
	for h := 0; h < depth; h++ {
		for i := range paths {
			paths[i] = append(paths[i], level[(i>>h)^1])
		}
		next := make([][32]byte, len(level)/2)
		for i := range next {
			next[i] = rootNode(level[2*i], level[2*i+1])
		}
		level = next
	}
	return level[0], paths, nil
}

// InputRootFromPath recomputes the root of the tree in which leaf sits at
// index with the given inclusion path (what FHEPolicy.evaluateRooted does
// on chain). It fails for a path longer than MaxInputRootDepth or an index
// ≥ 2^len(path).
func InputRootFromPath(leaf [32]byte, index uint64, path [][32]byte) ([32]byte, error) {
	if len(path) > MaxInputRootDepth || index>>uint(len(path)) != 0 {
		return [32]byte{}, fmt.Errorf("%w: index %d, %d siblings (at most %d)", ErrRootPath, index, len(path), MaxInputRootDepth)
	}
	cur := rootLeaf(leaf)
	for k, sib := range path {
		if index>>uint(k)&1 == 0 {
			cur = rootNode(cur, sib)
		} else {
			cur = rootNode(sib, cur)
		}
	}
	return cur, nil
}

// InputRootDigest is the message committee members sign over an input
// root: keccak256("fhegate/input-root/v1" || chainId(32) || epoch(8) || root(32)).
func InputRootDigest(chainID *big.Int, epoch uint64, root [32]byte) [32]byte {
	return keccak([]byte(InputRootDomain), word(chainID), u64(epoch), root[:])
}
