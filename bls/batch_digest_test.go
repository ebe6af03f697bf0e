package bls

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBatchDigestsBindEveryField: changing any pair, their order, their
// count or any header field changes the batch digests (a signature over one
// batch is valid for no other).
func TestBatchDigestsBindEveryField(t *testing.T) {
	a := VerdictItem{RequestID: [32]byte{1}, Result: big.NewInt(1)}
	b := VerdictItem{RequestID: [32]byte{2}, Result: big.NewInt(0)}
	root := VerdictBatchRoot([]VerdictItem{a, b})
	seen := map[[32]byte]string{root: "base"}
	for name, r := range map[string][32]byte{
		"swapped":   VerdictBatchRoot([]VerdictItem{b, a}),
		"truncated": VerdictBatchRoot([]VerdictItem{a}),
		"result":    VerdictBatchRoot([]VerdictItem{a, {RequestID: b.RequestID, Result: big.NewInt(1)}}),
		"empty":     VerdictBatchRoot(nil),
	} {
		_, dup := seen[r]
		require.False(t, dup, name)
		seen[r] = name
	}
	d := VerdictBatchDigest(big.NewInt(7), 1, [32]byte{9}, [32]byte{8}, root)
	require.NotEqual(t, d, VerdictBatchDigest(big.NewInt(8), 1, [32]byte{9}, [32]byte{8}, root))
	require.NotEqual(t, d, VerdictBatchDigest(big.NewInt(7), 2, [32]byte{9}, [32]byte{8}, root))
	require.NotEqual(t, d, VerdictBatchDigest(big.NewInt(7), 1, [32]byte{8}, [32]byte{8}, root))
	require.NotEqual(t, d, VerdictBatchDigest(big.NewInt(7), 1, [32]byte{9}, [32]byte{7}, root))

	in := []InputItem{{Handle: [32]byte{1}, CType: 1, ProofDigest: [32]byte{3}}, {Handle: [32]byte{2}, CType: 1}}
	ir := InputBatchRoot(in)
	require.NotEqual(t, ir, InputBatchRoot(in[:1]))
	require.NotEqual(t, ir, InputBatchRoot([]InputItem{in[1], in[0]}))
	require.NotEqual(t, ir, InputBatchRoot([]InputItem{{Handle: [32]byte{1}, CType: 1}, in[1]}))
	id := InputBatchDigest(big.NewInt(7), 1, [20]byte{1}, 2, ir)
	require.NotEqual(t, id, InputBatchDigest(big.NewInt(7), 1, [20]byte{2}, 2, ir))
	require.NotEqual(t, id, InputBatchDigest(big.NewInt(7), 1, [20]byte{1}, 3, ir))
	require.NotEqual(t, d, id)
}

// TestCommitteeKeyDigest: the committee-key statement binds the chain, the
// epoch and the key digest, equals its documented keccak preimage, and is
// domain-separated from a verdict over the same words.
func TestCommitteeKeyDigest(t *testing.T) {
	pkd := [32]byte{0xaa, 31: 0xbb}
	d := CommitteeKeyDigest(big.NewInt(1337), 2, pkd)
	require.Equal(t, keccak([]byte("fhegate/committee-key/v1"), word(big.NewInt(1337)), u64(2), pkd[:]), d)
	for name, other := range map[string][32]byte{
		"chain":          CommitteeKeyDigest(big.NewInt(1338), 2, pkd),
		"epoch":          CommitteeKeyDigest(big.NewInt(1337), 3, pkd),
		"key":            CommitteeKeyDigest(big.NewInt(1337), 2, [32]byte{0xab}),
		"verdict domain": VerdictDigest(big.NewInt(1337), 2, pkd, [32]byte{}, [32]byte{}, nil),
	} {
		require.NotEqual(t, d, other, name)
	}
}
