package consensus

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPickCopy: a new member takes the re-encryption t old members
// delivered identically, never a tie or a minority copy.
func TestPickCopy(t *testing.T) {
	t.Parallel()
	good, bad := []byte("good"), []byte("bad")
	v := map[[32]byte]*copyVote{{1}: {b: good, n: 2}, {2}: {b: bad, n: 1}}
	b, err := pickCopy(v, 2)
	require.NoError(t, err)
	require.Equal(t, good, b)
	_, err = pickCopy(v, 3)
	require.Error(t, err)
	v[[32]byte{2}].n = 2
	_, err = pickCopy(v, 2)
	require.Error(t, err, "tie")
}
