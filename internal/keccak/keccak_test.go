package keccak

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSum(t *testing.T) {
	// keccak256("") and keccak256("abc"), the Ethereum test vectors.
	empty := Sum()
	require.Equal(t, "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470", hex.EncodeToString(empty[:]))
	abc := Sum([]byte("a"), []byte("bc"))
	require.Equal(t, "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45", hex.EncodeToString(abc[:]))
}
