package ports

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPortsBelowTheEphemeralRange(t *testing.T) {
	lo, hi := EphemeralRange()
	require.Less(t, lo, hi)
	for range 20 {
		base, err := FreeBase(3)
		require.NoError(t, err)
		require.False(t, Ephemeral(base+1), "base %d in %d–%d", base, lo, hi)
		require.False(t, Ephemeral(base+3))
		ln, err := Listen()
		require.NoError(t, err)
		port := ln.Addr().(*net.TCPAddr).Port
		require.Less(t, port, lo)
		require.False(t, Ephemeral(port))
		require.NoError(t, ln.Close())
	}
	// what 127.0.0.1:0 hands out is where outgoing connections come from
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	require.True(t, Ephemeral(ln.Addr().(*net.TCPAddr).Port))
}

func TestInUse(t *testing.T) {
	ln, err := Listen()
	require.NoError(t, err)
	defer ln.Close()
	_, err = net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	require.Error(t, err)
	require.True(t, InUse(err), "%v", err)
	require.False(t, InUse(net.ErrClosed))
}
