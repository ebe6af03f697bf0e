//go:build !(js && wasm)

package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/corebackends"
)

// CRDTCheck and CRDTMerge decide what FHECRDT.create and FHECRDT.merge
// decide about metadata (corebackends.CRDTMeta): the same handles and
// merged bytes, the same refusals word for word.
func TestCRDTMetadataIsChain(t *testing.T) {
	t.Parallel()
	h := func(b byte) string { return "0x" + repeatHex(b) }
	l := CRDTLayout{Type: 2, Preset: 2, Level: 1, Blocks: 4, Width: 1}
	a, err := CRDTMetadata(l, []CRDTEntry{{Block: 0, Clock: 1, Replica: 0, Handle: h(0xa1)}})
	require.NoError(t, err)
	b, err := CRDTMetadata(l, []CRDTEntry{{Block: 1, Clock: 1, Replica: 1, Handle: h(0xb1)}, {Block: 0, Clock: 2, Replica: 0, Handle: h(0xa2)}})
	require.NoError(t, err)
	other, err := CRDTMetadata(CRDTLayout{Type: 2, Preset: 2, Level: 1, Blocks: 8, Width: 1}, nil)
	require.NoError(t, err)
	_, err = CRDTMetadata(l, []CRDTEntry{{Block: 1, Clock: 1, Replica: 0, Handle: h(0xc1)}})
	require.ErrorContains(t, err, "replica 0 ≠ block")
	_, err = CRDTMetadata(CRDTLayout{Type: 9, Preset: 2, Blocks: 1, Width: 1}, nil)
	require.ErrorContains(t, err, "unknown type 9")

	chain := corebackends.CRDTMeta{}
	for _, tc := range []struct {
		name string
		kind uint8
		m    []byte
	}{
		{"one entry", 2, a}, {"two entries", 2, b}, {"empty", 2, other},
		{"another kind", 1, a}, {"not metadata", 2, []byte("0x")}, {"a handle", 2, make([]byte, 32)}, {"nothing", 2, nil},
	} {
		got, err := CRDTCheck(tc.kind, tc.m)
		if cerr := chain.Validate(tc.kind, tc.m); cerr != nil {
			require.EqualError(t, err, cerr.Error(), tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		want, err := chain.Handles(tc.kind, tc.m)
		require.NoError(t, err)
		require.Len(t, got, len(want), tc.name)
		for i := range want {
			require.Equal(t, precompiles.Hash(want[i]).String(), got[i], tc.name)
		}
	}
	for _, tc := range []struct {
		name string
		kind uint8
		x, y []byte
	}{
		{"a ⊔ b", 2, a, b}, {"b ⊔ a", 2, b, a}, {"a ⊔ a", 2, a, a},
		{"layouts differ", 2, a, other}, {"another kind", 1, a, b}, {"not metadata", 2, a, []byte{1, 2, 3}},
	} {
		got, err := CRDTMerge(tc.kind, tc.x, tc.y)
		want, cerr := chain.Merge(tc.kind, tc.x, tc.y)
		if cerr != nil {
			require.EqualError(t, err, cerr.Error(), tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		require.Equal(t, want, got, tc.name)
	}
}

func repeatHex(b byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 64)
	for i := 0; i < 64; i += 2 {
		out[i], out[i+1] = digits[b>>4], digits[b&15]
	}
	return string(out)
}
