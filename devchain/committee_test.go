package devchain

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/bls"
)

func TestCommittee(t *testing.T) {
	for _, tc := range []struct {
		n, th int
		ok    bool
	}{{3, 2, true}, {1, 1, true}, {0, 1, false}, {3, 0, false}, {2, 3, false}} {
		_, err := NewCommittee("x", 1, tc.n, uint32(tc.th))
		require.Equal(t, tc.ok, err == nil, "%d of %d", tc.th, tc.n)
	}

	c := DevCommittee()
	require.Equal(t, 3, c.Size())
	reg := c.Registry()
	require.Len(t, reg.Members, 3)
	require.Equal(t, DevCommittee().Registry(), reg, "deterministic")
	var keys [][]byte
	for _, m := range reg.Members {
		require.NoError(t, bls.PopVerify(m.PublicKey, m.ProofOfPossession))
		keys = append(keys, m.PublicKey)
	}
	digest := [32]byte{1, 2, 3}
	sig, bitmap, err := c.Sign(digest)
	require.NoError(t, err)
	require.NoError(t, bls.VerifyAggregate(keys, bitmap, digest[:], sig))
	require.Error(t, bls.VerifyAggregate(keys, bitmap, []byte("other"), sig))
}
