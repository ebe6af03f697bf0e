package uploadwire

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

func sample() Upload {
	u := Upload{Rooted: true, Items: []Item{
		{CType: 1, Ciphertext: bytes.Repeat([]byte{0xc1}, 40), Proof: bytes.Repeat([]byte{0x9f}, 25)},
		{CType: 1, Ciphertext: []byte{1, 2, 3}, Proof: []byte{4}},
	}}
	copy(u.Owner[:], bytes.Repeat([]byte{0xab}, 20))
	return u
}

func TestRoundTrip(t *testing.T) {
	u := sample()
	b, err := Encode(u)
	require.NoError(t, err)
	require.Len(t, b, Size(u.Items))
	got, err := Decode(b, 40, 25)
	require.NoError(t, err)
	require.Equal(t, u, got)

	u.Rooted = false
	b, err = Encode(u)
	require.NoError(t, err)
	got, err = Decode(b, 1<<20, 1<<20)
	require.NoError(t, err)
	require.False(t, got.Rooted)
}

// TestDecodeRefuses: every malformed body is a clear error, never a panic
// or an allocation beyond its bounds.
func TestDecodeRefuses(t *testing.T) {
	good, err := Encode(sample())
	require.NoError(t, err)
	edit := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	for _, tc := range []struct {
		name string
		body []byte
		want string
	}{
		{"empty", nil, "shorter than its"},
		{"JSON", []byte(`{"owner":"0x00"}`), "not a binary upload"},
		{"other magic", edit(func(b []byte) []byte { b[3] = '2'; return b }), "not a binary upload"},
		{"unknown flag", edit(func(b []byte) []byte { b[24] |= 2; return b }), "unknown flags"},
		{"no items", edit(func(b []byte) []byte { b[25] = 0; return b[:26] }), "outside [1,16]"},
		{"17 items", edit(func(b []byte) []byte { b[25] = 17; return b }), "outside [1,16]"},
		{"count beyond the body", edit(func(b []byte) []byte { b[25] = 16; return b }), "16 ciphertexts in"},
		{"ciphertext over its bound", edit(func(b []byte) []byte { binary.BigEndian.PutUint32(b[27:], 41); return b }), "at most 40"},
		{"ciphertext beyond the body", edit(func(b []byte) []byte { return b[:27+4+39] }), "input 0: ciphertext"},
		{"empty proof", edit(func(b []byte) []byte { binary.BigEndian.PutUint32(b[27+4+40:], 0); return b }), "empty"},
		{"truncated second item", edit(func(b []byte) []byte { return b[:len(b)-1] }), "input 1: proof"},
		{"trailing byte", append(bytes.Clone(good), 0), "after the last input"},
		{"huge length", edit(func(b []byte) []byte { binary.BigEndian.PutUint32(b[27:], 0xffffffff); return b }), "at most 40"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.body, 40, 25)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestEncodeRefuses(t *testing.T) {
	_, err := Encode(Upload{})
	require.ErrorContains(t, err, "outside [1,16]")
	_, err = Encode(Upload{Items: make([]Item, 17)})
	require.ErrorContains(t, err, "outside [1,16]")
	_, err = Encode(Upload{Items: []Item{{Ciphertext: []byte{1}}}})
	require.ErrorContains(t, err, "empty ciphertext or proof")
}

// FuzzDecode: the decoder never panics, keeps every item within its bounds,
// and what it accepts encodes back to the same bytes.
func FuzzDecode(f *testing.F) {
	good, err := Encode(sample())
	require.NoError(f, err)
	f.Add(good)
	f.Add([]byte("FGU1"))
	f.Add(append([]byte("FGU1"), make([]byte, 22)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := Decode(b, 64, 64)
		if err != nil {
			return
		}
		require.LessOrEqual(t, len(u.Items), MaxItems)
		for _, it := range u.Items {
			require.LessOrEqual(t, len(it.Ciphertext), 64)
			require.LessOrEqual(t, len(it.Proof), 64)
		}
		again, err := Encode(u)
		require.NoError(t, err)
		require.Equal(t, b, again)
	})
}
