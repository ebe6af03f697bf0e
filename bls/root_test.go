package bls

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

func rootLeaves(n int) [][32]byte {
	out := make([][32]byte, n)
	for i := range out {
		out[i] = keccak([]byte("leaf"), u64(uint64(i)))
	}
	return out
}

// TestInputRootPaths: every leaf's path leads to the root, for tree sizes
// around powers of two; a path for one leaf does not prove another, at
// another index, or with a sibling changed.
func TestInputRootPaths(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 33} {
		leaves := rootLeaves(n)
		root, paths, err := InputRootTree(leaves)
		require.NoError(t, err)
		for i, l := range leaves {
			got, err := InputRootFromPath(l, uint64(i), paths[i])
			require.NoError(t, err)
			require.Equal(t, root, got, "n=%d leaf %d", n, i)
			if n == 1 {
				continue
			}
			other := leaves[(i+1)%n]
			got, err = InputRootFromPath(other, uint64(i), paths[i])
			require.NoError(t, err)
			require.NotEqual(t, root, got, "n=%d: leaf %d's path proved another leaf", n, i)
			got, err = InputRootFromPath(l, uint64((i+1)%n), paths[i])
			require.NoError(t, err)
			require.NotEqual(t, root, got, "n=%d: leaf %d's path at another index", n, i)
			bad := append([][32]byte(nil), paths[i]...)
			bad[0][0] ^= 1
			got, err = InputRootFromPath(l, uint64(i), bad)
			require.NoError(t, err)
			require.NotEqual(t, root, got)
		}
	}
}

// TestInputRootRefusals: empty and oversized trees, paths that are too long
// and indices outside the path's tree are errors, not roots.
func TestInputRootRefusals(t *testing.T) {
	_, _, err := InputRootTree(nil)
	require.ErrorIs(t, err, ErrRootPath)
	_, err = InputRootFromPath([32]byte{1}, 4, make([][32]byte, 2))
	require.ErrorIs(t, err, ErrRootPath)
	_, err = InputRootFromPath([32]byte{1}, 0, make([][32]byte, MaxInputRootDepth+1))
	require.ErrorIs(t, err, ErrRootPath)
	_, err = InputRootFromPath([32]byte{1}, 1<<63, make([][32]byte, MaxInputRootDepth))
	require.ErrorIs(t, err, ErrRootPath)
}

// TestInputRootNoConfusion: an inner node is never accepted as a leaf (the
// 0x00/0x01 prefixes), so a depth-1 proof of an inner node's value does not
// reproduce the root; and the root digest binds chain, epoch and root and
// differs from every other digest kind.
func TestInputRootNoConfusion(t *testing.T) {
	leaves := rootLeaves(4)
	root, _, err := InputRootTree(leaves)
	require.NoError(t, err)
	l := [2][32]byte{rootNode(rootLeaf(leaves[0]), rootLeaf(leaves[1])), rootNode(rootLeaf(leaves[2]), rootLeaf(leaves[3]))}
	got, err := InputRootFromPath(l[0], 0, [][32]byte{l[1]})
	require.NoError(t, err)
	require.NotEqual(t, root, got)

	d := InputRootDigest(big.NewInt(7), 1, root)
	require.NotEqual(t, d, InputRootDigest(big.NewInt(8), 1, root))
	require.NotEqual(t, d, InputRootDigest(big.NewInt(7), 2, root))
	require.NotEqual(t, d, InputRootDigest(big.NewInt(7), 1, leaves[0]))
	require.NotEqual(t, d, InputBatchDigest(big.NewInt(7), 1, [20]byte{}, 0, root))
}

// FuzzInputRootFromPath: any path decodes to a root or an error, never a
// panic, and never hashes more than MaxInputRootDepth levels.
func FuzzInputRootFromPath(f *testing.F) {
	f.Add([]byte{1, 2, 3}, uint64(0))
	f.Add(make([]byte, 32*MaxInputRootDepth+5), uint64(1<<15))
	f.Fuzz(func(t *testing.T, b []byte, index uint64) {
		path := make([][32]byte, len(b)/32)
		for i := range path {
			copy(path[i][:], b[32*i:])
		}
		_, err := InputRootFromPath([32]byte{9}, index, path)
		if len(path) > MaxInputRootDepth {
			require.Error(t, err)
		}
	})
}
