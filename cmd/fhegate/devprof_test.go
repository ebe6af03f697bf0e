package main

import (
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
)

// TestProfileServer: FHEGATE_PPROF_ADDR serves the runtime profiles on a
// loopback address and is refused on any other; unset, nothing is served.
func TestProfileServer(t *testing.T) {
	t.Setenv(profileAddrEnv, "")
	require.NoError(t, startProfileServer(zap.NewNop()))

	for _, bad := range []string{"0.0.0.0:0", "192.0.2.1:6060", "example.com:6060", "6060"} {
		t.Setenv(profileAddrEnv, bad)
		require.Error(t, startProfileServer(zap.NewNop()), bad)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	t.Setenv(profileAddrEnv, addr)
	require.NoError(t, startProfileServer(zap.NewNop()))
	resp, err := http.Get("http://" + addr + "/debug/pprof/heap?debug=1")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Contains(t, string(b), "heap profile")
}
