//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/crypto"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/internal/ports"
)

const (
	committeeN = 3
	committeeT = 2
)

// fhegateCLI returns the fhegate CLI: $FHEGATE_BIN, else a fresh build.
func fhegateCLI(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("FHEGATE_BIN"); p != "" {
		return p
	}
	p := filepath.Join(t.TempDir(), "fhegate")
	out, err := exec.Command("go", "build", "-o", p, "github.com/fhegate/fhegate/cmd/fhegate").CombinedOutput()
	require.NoError(t, err, "building the fhegate CLI: %s", out)
	return p
}

// committeeProcs is an MPC committee whose members run as separate
// `fhegate committee serve` processes.
type committeeProcs struct {
	cli, dir string
	mu       sync.Mutex // procs: bounce replaces one while the load reads their CPU
	procs    []*exec.Cmd
	args     [][]string
	logs     []string
}

// freeBase finds base such that base+1 … base+n are free loopback ports
// (member i listens on base+i), below the ephemeral range: the member the
// load batch kills must get its port back when it restarts (package
// ports).
func freeBase(t *testing.T, n int) int {
	t.Helper()
	base, err := ports.FreeBase(n)
	require.NoError(t, err)
	return base
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := ports.Listen()
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func (c *committeeProcs) run(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command(c.cli, args...).CombinedOutput()
	require.NoError(t, err, "fhegate %s:\n%s", strings.Join(args, " "), out)
}

// newCommittee creates the committee's configuration and runs its distributed
// key generation (all members in one process, over loopback TLS).
func newCommittee(t *testing.T, cli, dir string) *committeeProcs {
	t.Helper()
	c := &committeeProcs{cli: cli, dir: dir}
	start := time.Now()
	c.run(t, "committee", "init", "--dir", dir, "--n", strconv.Itoa(committeeN), "--t", strconv.Itoa(committeeT),
		"--chain-id", "1337", "--base-port", strconv.Itoa(freeBase(t, committeeN)))
	c.run(t, "committee", "dkg", "--dir", dir, "--all")
	t.Logf("committee: init + DKG (n=%d, t=%d) in %s", committeeN, committeeT, time.Since(start).Round(time.Second))
	return c
}

// genesis is the devnet genesis with the committee registered
// (`fhegate plugin genesis --dev --committee`: a development chain, chain id
// 1337, governed by dev0).
func (c *committeeProcs) genesis(t *testing.T) []byte {
	t.Helper()
	out := filepath.Join(c.dir, "genesis.json")
	c.run(t, "plugin", "genesis", "--dev", "--chain-id", "1337", "--governance", devchain.DevAccounts()[0].Address.Hex(),
		"--committee", filepath.Join(c.dir, "committee.json"), "--out", out, "--log-level", "error")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	return b
}

// serve starts every member against the chain and returns member 1's client
// API URL once it answers. The processes are stopped (SIGTERM) at cleanup.
func (c *committeeProcs) serve(t *testing.T, ctx context.Context, rpcURL string) string {
	t.Helper()
	api := "127.0.0.1:" + strconv.Itoa(freePort(t))
	accts := devchain.DevAccounts()
	for i := 1; i <= committeeN; i++ {
		// Each member pays for its submissions from its own dev account,
		// whose key it reads from a file only its owner can read.
		keyFile := filepath.Join(c.dir, fmt.Sprintf("relayer-%d.key", i))
		require.NoError(t, os.WriteFile(keyFile, []byte(common.Bytes2Hex(crypto.FromECDSA(accts[4+i].Key))+"\n"), 0o600))
		args := []string{"committee", "serve", "--dir", c.dir, "--member", strconv.Itoa(i), "--rpc", rpcURL, "--relayer-key-file", keyFile}
		if i == 1 {
			args = append(args, "--api", api)
		}
		logPath := filepath.Join(c.dir, fmt.Sprintf("member-%d.log", i))
		cmd, err := c.start(args, logPath)
		require.NoError(t, err)
		c.procs = append(c.procs, cmd)
		c.args = append(c.args, args)
		c.logs = append(c.logs, logPath)
	}
	t.Cleanup(c.stop)

	url := "http://" + api
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(url + "/v1/status")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("committee API %s not up: %v\n%s", url, err, c.logTail())
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("committee: %d `fhegate committee serve` processes, client API %s", committeeN, url)
	return url
}

// start runs `fhegate args…` with its output appended to logPath.
func (c *committeeProcs) start(args []string, logPath string) (*exec.Cmd, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd := exec.Command(c.cli, args...)
	cmd.Stdout, cmd.Stderr = f, f
	return cmd, cmd.Start()
}

// bounce kills member id's process (SIGKILL: no clean shutdown, mid-round)
// and starts it again with the same arguments after down: a validator's
// crash and restart. It returns what it did.
func (c *committeeProcs) bounce(ctx context.Context, id int, down time.Duration) (string, error) {
	c.mu.Lock()
	p := c.procs[id-1]
	c.mu.Unlock()
	if err := p.Process.Kill(); err != nil {
		return "", fmt.Errorf("kill member %d: %w", id, err)
	}
	_ = p.Wait()
	select {
	case <-time.After(down):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	cmd, err := c.start(c.args[id-1], c.logs[id-1])
	if err != nil {
		return "", fmt.Errorf("restart member %d: %w", id, err)
	}
	c.mu.Lock()
	c.procs[id-1] = cmd
	c.mu.Unlock()
	return fmt.Sprintf("committee member %d's process killed (SIGKILL), restarted %s later", id, down), nil
}

// pids are the member processes now running.
func (c *committeeProcs) pids() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]int, len(c.procs))
	for i, p := range c.procs {
		out[i] = p.Process.Pid
	}
	return out
}

// stop sends SIGTERM to the members this test started and waits for them
// (SIGKILL after 20 s).
func (c *committeeProcs) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.procs {
		_ = p.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range c.procs {
		done := make(chan struct{})
		go func() { _ = p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = p.Process.Kill()
			<-done
		}
	}
	c.procs = nil
}

// logTail returns the last 3,000 bytes of every member's log. With
// FHEGATE_E2E_KEEP_LOGS=DIR it also copies the full logs into DIR, for a
// failure that the tails do not explain.
func (c *committeeProcs) logTail() string {
	if dir := os.Getenv("FHEGATE_E2E_KEEP_LOGS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err == nil {
			for _, p := range c.logs {
				if data, err := os.ReadFile(p); err == nil {
					_ = os.WriteFile(filepath.Join(dir, filepath.Base(p)), data, 0o644)
				}
			}
		}
	}
	var b strings.Builder
	for _, p := range c.logs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if len(data) > 3000 {
			data = data[len(data)-3000:]
		}
		fmt.Fprintf(&b, "--- %s (tail) ---\n%s\n", filepath.Base(p), data)
	}
	return b.String()
}
