package consensus

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/protocol"
)

// TestPermanentFailuresNotRetried: failures that recur on every attempt
// are not retried (they would only cost committee work until expiry);
// transient ones are.
func TestPermanentFailuresNotRetried(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("x: %w", ErrDigestMismatch), true},
		{fmt.Errorf("x: %w", circuit.ErrBadCRDTRequest), true},
		{fmt.Errorf("refresh: %w", protocol.ErrRefreshNoRoom), true},
		{errors.New("protocol: fewer than t decryption shares"), false},
		{context.DeadlineExceeded, false},
	} {
		require.Equal(t, tc.want, permanent(tc.err), "%v", tc.err)
	}
}
