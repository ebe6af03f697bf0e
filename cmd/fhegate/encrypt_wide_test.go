package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEncryptValuesPolicy: with --policy, --values are the declared inputs
// and wide ones are split into base-16 digits, least significant first.
func TestEncryptValuesPolicy(t *testing.T) {
	t.Parallel()
	o := encryptOptions{policy: "example:amounts/credit_dollars", values: "1000000,0,65535"}
	got, err := encryptValues(o)
	require.NoError(t, err)
	// income 1,000,000 = 0xF4240 (5 digits), request 0 (5 digits: 100,000 = 0x186A0), debt 0xFFFF (5 digits).
	require.Equal(t, []int64{0, 4, 2, 4, 15, 0, 0, 0, 0, 0, 15, 15, 15, 15, 0}, got)
	for _, bad := range []string{"1000001,0,0", "1,2", "x,0,0", "-1,0,0"} {
		_, err := encryptValues(encryptOptions{policy: o.policy, values: bad})
		require.Error(t, err, bad)
	}
	got, err = encryptValues(encryptOptions{policy: "example:amounts/token_balance", values: "18446744073709551615"})
	require.NoError(t, err)
	require.Len(t, got, 16)
	for _, d := range got {
		require.Equal(t, int64(15), d)
	}
	got, err = encryptValues(encryptOptions{values: "1,2,3"})
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2, 3}, got)
}
