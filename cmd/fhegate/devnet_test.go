package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	ethereum "github.com/ava-labs/libevm"
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/ethclient"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/examples/creditgate"
	"github.com/fhegate/fhegate/precompiles"
	precompileabi "github.com/fhegate/fhegate/precompiles/abi"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

// lockedBuffer is an io.Writer the test can read while runDevnet writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var (
	rpcLine = regexp.MustCompile(`JSON-RPC\s+(http://\S+)`)
	apiLine = regexp.MustCompile(`Committee API\s+(http://\S+)`)
)

func TestDevnetServesAndStopsCleanly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &lockedBuffer{}
	dataDir := filepath.Join(t.TempDir(), "chain")
	done := make(chan error, 1)
	go func() {
		done <- runDevnet(ctx, zaptest.NewLogger(t), out, devnetOptions{
			host: "127.0.0.1", port: 0, dataDir: dataDir, chainID: 31337, committeeN: 3, committeeT: 2,
			// The default preset (BGVN14): since the refresh floor, the
			// credit policy's comparison (degree 15) no longer fits
			// BGVN13's 3 levels per segment.
			committeePre: "bgv-n14-t65537",
		})
	}()
	var url string
	require.Eventually(t, func() bool {
		s := out.String()
		m := rpcLine.FindStringSubmatch(s)
		if m != nil {
			url = m[1]
		}
		return m != nil && strings.Contains(s, "Ctrl-C stops the devnet")
	}, 3*time.Minute, 20*time.Millisecond, "banner with the RPC URL") // a bound, not a speed check
	banner := out.String()
	require.Contains(t, banner, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
	require.Contains(t, banner, "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	require.Contains(t, banner, "0x02000000000000000000000000000000000000f3")
	require.Contains(t, banner, "31337")

	cl, err := ethclient.Dial(url)
	require.NoError(t, err)
	id, err := cl.ChainID(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(31337), id.Int64())
	// The precompiles are active from genesis: subnet-evm marks each
	// activated address with code 0x01.
	for _, p := range devnetPrecompiles {
		code, err := cl.CodeAt(ctx, p.addr, nil)
		require.NoError(t, err)
		require.Equal(t, []byte{1}, code, p.name)
	}
	require.NotContains(t, banner, "NOT ACTIVE")

	// The in-process MPC committee serves its client API: a credit
	// application goes from encrypted inputs to the committee's verdict.
	m := apiLine.FindStringSubmatch(banner)
	require.NotNil(t, m, "committee API in the banner")
	flowCtx, flowCancel := context.WithTimeout(ctx, 3*time.Minute)
	defer flowCancel()
	res, err := creditgate.Run(flowCtx, cl, creditgate.Options{CommitteeAPI: m[1], Logf: t.Logf})
	require.NoError(t, err)
	require.True(t, res.Approved)
	require.Equal(t, int64(31337), res.ChainID.Int64())
	// The committee bound its FHE public key to epoch 1 on chain.
	verdict, err := precompileabi.Parse(precompileabi.Verdict)
	require.NoError(t, err)
	data, err := verdict.Pack("committeeKeyOf", uint64(1))
	require.NoError(t, err)
	to := common.Address(precompiles.FHEVerdictAddress)
	ret, err := cl.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	require.NoError(t, err)
	vals, err := verdict.Unpack("committeeKeyOf", ret)
	require.NoError(t, err)
	require.NotEqual(t, [32]byte{}, vals[0], "committee key digest recorded for epoch 1")
	cl.Close()

	cancel() // what Ctrl-C / SIGTERM does
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(60 * time.Second):
		t.Fatal("devnet did not stop")
	}
	require.Contains(t, out.String(), "stopping devnet")
	_, err = os.Stat(filepath.Join(dataDir, "chaindata"))
	require.NoError(t, err, "--datadir kept")
}

func TestDevnetRejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    devnetOptions
		want string
	}{
		{"port", devnetOptions{host: "127.0.0.1", port: 70000}, "out of range"},
		{"genesis file", devnetOptions{host: "127.0.0.1", genesisFile: filepath.Join(t.TempDir(), "missing.json")}, "--genesis"},
		{"allowed origin", devnetOptions{host: "127.0.0.1", allowOrigins: []string{"localhost:3000"}}, "--rpc-allow-origin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := runDevnet(context.Background(), zaptest.NewLogger(t), &bytes.Buffer{}, tc.o)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestConfigKeysAgree(t *testing.T) {
	require.Equal(t, subnetevm.VerdictConfigKey, configs.VerdictConfigKey)
}
