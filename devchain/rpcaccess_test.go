package devchain

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	ethrpc "github.com/ava-labs/libevm/rpc"
	"github.com/stretchr/testify/require"
)

// rpcCall posts one JSON-RPC request with an optional Origin header.
func rpcCall(t *testing.T, url, origin, method string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":[]}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

// wsHandshake asks for a WebSocket upgrade with an optional Origin and returns
// the response status (101 when upgraded).
func wsHandshake(t *testing.T, url, origin string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

func preflight(t *testing.T, url, origin string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodOptions, url, nil)
	require.NoError(t, err)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp
}

// TestRPCServesOnlyPublicNamespaces: the devnet's JSON-RPC must not serve
// admin, debug (profiles written to any path, raw chain access) or personal;
// eth, net, web3, txpool and evm_mine stay.
func TestRPCServesOnlyPublicNamespaces(t *testing.T) {
	c := newTestChain(t, Config{})
	for _, m := range []string{"admin_nodeInfo", "admin_exportChain", "debug_getRawHeader", "debug_writeMemProfile",
		"debug_traceTransaction", "personal_listAccounts"} {
		_, body := rpcCall(t, c.URL(), "", m)
		require.Contains(t, body, "does not exist", m) // "the method … does not exist/is not available" (-32601)
		require.Contains(t, body, "-32601", m)
	}
	for _, m := range []string{"eth_chainId", "net_version", "web3_clientVersion", "txpool_status", "evm_mine"} {
		resp, body := rpcCall(t, c.URL(), "", m)
		require.Equal(t, http.StatusOK, resp.StatusCode, m)
		require.Contains(t, body, `"result"`, m)
	}
	// Over WebSocket as well.
	cl, err := ethrpc.DialContext(context.Background(), c.WSURL())
	require.NoError(t, err)
	defer cl.Close()
	var info any
	require.ErrorContains(t, cl.Call(&info, "admin_nodeInfo"), "does not exist")
	var id string
	require.NoError(t, cl.Call(&id, "eth_chainId"))
}

// TestRPCOriginsRestrictedToLocalhost: a web page on another origin may not
// call the devnet (no CORS grant, requests and WebSocket upgrades refused);
// localhost pages and --rpc-allow-origin origins may, and clients that send
// no Origin (Go, node, curl) are unaffected.
func TestRPCOriginsRestrictedToLocalhost(t *testing.T) {
	c := newTestChain(t, Config{AllowOrigins: []string{"https://dapp.example:8443"}})

	for _, evil := range []string{"https://evil.example", "http://localhost.evil.example", "null", "http://127.0.0.1.evil.example:3000",
		"https://localhost:3000", "https://dapp.example"} {
		resp := preflight(t, c.URL(), evil)
		require.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"), evil)
		resp, body := rpcCall(t, c.URL(), evil, "eth_chainId")
		require.Equal(t, http.StatusForbidden, resp.StatusCode, evil)
		require.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"), evil)
		require.NotContains(t, body, `"result"`, evil)

		require.Equal(t, http.StatusForbidden, wsHandshake(t, c.URL(), evil), evil)
	}

	for _, good := range []string{"http://localhost:3000", "http://127.0.0.1:5173", "http://localhost", "http://LOCALHOST:8080",
		"https://dapp.example:8443"} {
		resp := preflight(t, c.URL(), good)
		require.Equal(t, good, resp.Header.Get("Access-Control-Allow-Origin"), good)
		require.Contains(t, resp.Header.Values("Vary"), "Origin")
		resp, body := rpcCall(t, c.URL(), good, "eth_chainId")
		require.Equal(t, http.StatusOK, resp.StatusCode, good)
		require.Equal(t, good, resp.Header.Get("Access-Control-Allow-Origin"), good)
		require.Contains(t, body, `"result"`, good)

		require.Equal(t, http.StatusSwitchingProtocols, wsHandshake(t, c.URL(), good), good)
	}

	// No Origin: not a browser; served as before, without CORS headers.
	resp, body := rpcCall(t, c.URL(), "", "eth_chainId")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, `"result"`)
	require.Equal(t, http.StatusSwitchingProtocols, wsHandshake(t, c.URL(), ""))
}

func TestAllowOriginsValidated(t *testing.T) {
	for _, bad := range []string{"localhost:3000", "http://", "http://a/b", "ftp://x", "http://x:y"} {
		_, err := New(Config{HTTPAddr: "127.0.0.1:0", AllowOrigins: []string{bad}})
		require.ErrorContains(t, err, "origin", bad)
	}
}
