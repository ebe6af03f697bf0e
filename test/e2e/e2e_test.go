//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/config"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/tests/fixture/tmpnet"
	"github.com/ava-labs/avalanchego/utils/logging"
	"github.com/ava-labs/avalanchego/version"
	"github.com/ava-labs/libevm/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/examples/creditgate"
)

const (
	// fdLimit stays below this machine's hard limit (20000); avalanchego's
	// default asks for 32768 and fails where it cannot raise the limit.
	fdLimit = "16384"
	// bootTimeout bounds node start + subnet/chain creation + restart.
	bootTimeout = 5 * time.Minute
)

// avalanchegoPath finds avalanchego v1.14.x or skips the test.
func avalanchegoPath(t *testing.T) string {
	t.Helper()
	var candidates []string
	if p := os.Getenv("AVALANCHEGO_PATH"); p != "" {
		candidates = append(candidates, p)
	}
	if gp, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		candidates = append(candidates, filepath.Join(strings.TrimSpace(string(gp)), "bin", "avalanchego"))
	}
	if p, err := exec.LookPath("avalanchego"); err == nil {
		candidates = append(candidates, p)
	}
	for _, p := range candidates {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			out, err := exec.Command(p, "--version-json").Output()
			require.NoError(t, err, "%s --version-json", p)
			var v struct {
				RPCChainVM uint64 `json:"rpcchainvm"`
			}
			require.NoError(t, json.Unmarshal(out, &v), "%s --version-json: %s", p, out)
			require.Equal(t, uint64(version.RPCChainVMProtocol), v.RPCChainVM,
				"%s speaks rpcchainvm %d; the fhegate plugin (subnet-evm v0.8.0) needs %d: install avalanchego v1.14.0",
				p, v.RPCChainVM, version.RPCChainVMProtocol)
			return p
		}
	}
	t.Skip("avalanchego v1.14.0 not found: run test/e2e/run.sh (installs it and builds the plugin), " +
		"or `go install github.com/ava-labs/avalanchego/main@v1.14.0` and set AVALANCHEGO_PATH to the installed binary (named `main`)")
	return ""
}

// pluginDir returns a plugin directory holding the fhegate VM: $FHEGATE_PLUGIN_DIR
// if it has one, else a fresh build of cmd/fhegate-vm.
func pluginDir(t *testing.T) string {
	t.Helper()
	name := configs.VMID().String()
	if dir := os.Getenv("FHEGATE_PLUGIN_DIR"); dir != "" {
		_, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err, "FHEGATE_PLUGIN_DIR=%s has no plugin %s (fhegate plugin install --plugin-dir %s)", dir, name, dir)
		return dir
	}
	dir := t.TempDir()
	t.Logf("building the VM plugin into %s (set FHEGATE_PLUGIN_DIR to reuse one)", dir)
	build := exec.Command("go", "build", "-o", filepath.Join(dir, name), "github.com/fhegate/fhegate/cmd/fhegate-vm")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building the plugin: %s", out)
	return dir
}

func TestFHEGateVMInRealNode(t *testing.T) {
	avago := avalanchegoPath(t)
	plugins := pluginDir(t)
	workRoot := t.TempDir()
	genesis, stand, members := e2eGenesis(t, os.Getenv("FHEGATE_E2E_COMMITTEE") == "standin", workRoot)

	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	bootCtx, bootCancel := context.WithTimeout(ctx, bootTimeout)
	defer bootCancel()
	start := time.Now()
	n := bootNode(t, bootCtx, genesis, avago, plugins, filepath.Join(workRoot, "network"))
	t.Logf("node up in %s; fhegate chain %s at %s", time.Since(start).Round(time.Second), n.chainID, n.rpcURL)
	require.True(t, strings.HasPrefix(n.rpcURL, "http://127.0.0.1:"), "loopback only: %s", n.rpcURL)

	cl, err := ethclient.Dial(n.rpcURL)
	require.NoError(t, err)
	defer cl.Close()
	id := n.waitChainRPC(t, ctx, cl)
	t.Logf("chain RPC up %s after start", time.Since(start).Round(time.Second))
	require.Equal(t, big.NewInt(1337), id)

	opts := creditgate.Options{Committee: stand, Logf: t.Logf}
	if members != nil {
		opts.CommitteeAPI = members.serve(t, ctx, n.rpcURL)
	}
	runCreditFlows(t, ctx, cl, opts, members)
	if members != nil { // the load generator needs the committee's API
		runLoadBatch(t, ctx, n.rpcURL, opts.CommitteeAPI, members)
	}
}

// e2eGenesis returns the chain's genesis and its committee: with standin,
// the devnet genesis (chain id 1337, dev accounts funded, precompiles
// enabled) with a stand-in committee registered in FHEVerdict; otherwise a
// real committee of fhegate processes under workRoot/committee.
func e2eGenesis(t *testing.T, standin bool, workRoot string) ([]byte, *devchain.Committee, *committeeProcs) {
	if !standin {
		members := newCommittee(t, fhegateCLI(t), filepath.Join(workRoot, "committee"))
		return members.genesis(t), nil, members
	}
	stand, err := devchain.NewCommittee("e2e", 1, 3, 2)
	require.NoError(t, err)
	genesis, err := configs.WithCommittee(configs.DevnetGenesis(), stand.Registry())
	require.NoError(t, err)
	return genesis, stand, nil
}

// e2eNode is a booted one-node network with the fhegate chain.
type e2eNode struct {
	network *tmpnet.Network
	node    *tmpnet.Node
	chainID ids.ID
	rpcURL  string
}

// bootNode bootstraps a one-node tmpnet network (under dir) whose subnet
// runs the fhegate VM on genesis, and stops it when the test ends.
func bootNode(t *testing.T, ctx context.Context, genesis []byte, avago, plugins, dir string) *e2eNode {
	log := logging.NewLogger("tmpnet", logging.NewWrappedCore(logging.Info, os.Stderr, logging.Plain.ConsoleEncoder()))
	node := tmpnet.NewNode()
	require.NoError(t, node.EnsureKeys())
	subnet := &tmpnet.Subnet{
		Name: "fhegate",
		Chains: []*tmpnet.Chain{{
			VMID:        configs.VMID(),
			Genesis:     genesis,
			Config:      `{"log-level":"info"}`,
			VersionArgs: []string{"--version-json"},
		}},
		ValidatorIDs: []ids.NodeID{node.NodeID},
	}
	network := &tmpnet.Network{
		Owner: "fhegate-e2e",
		Nodes: []*tmpnet.Node{node},
		DefaultFlags: tmpnet.FlagsMap{
			// One node: no stake-weighted sampling, no peers needed.
			config.SybilProtectionEnabledKey:     "false",
			config.FdLimitKey:                    fdLimit,
			config.ProposerVMUseCurrentHeightKey: "true",
			config.ProposerVMMinBlockDelayKey:    "0s",
			config.LogLevelKey:                   "info",
		},
		DefaultRuntimeConfig: tmpnet.NodeRuntimeConfig{
			Process: &tmpnet.ProcessRuntimeConfig{AvalancheGoPath: avago, PluginDir: plugins},
		},
		Subnets: []*tmpnet.Subnet{subnet},
	}
	require.NoError(t, tmpnet.BootstrapNewNetwork(ctx, log, network, dir))
	t.Cleanup(func() {
		stopCtx, c := context.WithTimeout(context.Background(), time.Minute)
		defer c()
		require.NoError(t, network.Stop(stopCtx))
	})
	chainID := subnet.Chains[0].ChainID
	return &e2eNode{network: network, node: node, chainID: chainID,
		rpcURL: fmt.Sprintf("%s/ext/bc/%s/rpc", node.GetAccessibleURI(), chainID)}
}

// waitChainRPC waits (up to bootTimeout) until the node serves the chain's
// RPC — once the VM has started and the chain has bootstrapped (404 until
// then) — and returns the chain id.
func (n *e2eNode) waitChainRPC(t *testing.T, ctx context.Context, cl *ethclient.Client) *big.Int {
	waitCtx, waitCancel := context.WithTimeout(ctx, bootTimeout)
	defer waitCancel()
	for {
		id, err := cl.ChainID(waitCtx)
		if err == nil {
			return id
		}
		select {
		case <-waitCtx.Done():
			t.Fatalf("chain RPC not up: %v\n%s", err, chainLogTail(n.network, n.node, n.chainID.String()))
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// runCreditFlows runs, on the real VM, precompiles active, a plain deploy,
// then Solidity to verdict with the example contracts
// (examples/creditgate): one approval and one denial (2 > 3·1 is false),
// from different accounts.
func runCreditFlows(t *testing.T, ctx context.Context, cl *ethclient.Client, opts creditgate.Options, members *committeeProcs) {
	accts := devchain.DevAccounts()
	for _, tc := range []struct {
		name         string
		account      int
		income, debt int64
		approved     bool
	}{{"approve", 0, 5, 1, true}, {"deny", 1, 2, 1, false}} {
		o := opts
		o.Applicant, o.Income, o.Debt = &accts[tc.account], tc.income, tc.debt
		flowStart := time.Now()
		res, err := creditgate.Run(ctx, cl, o)
		if err != nil && members != nil {
			t.Logf("committee logs:\n%s", members.logTail())
		}
		require.NoError(t, err, tc.name)
		t.Logf("%s: %d transactions in %s; request %s verdict %s approved=%v credit line %s", tc.name,
			res.Transactions, time.Since(flowStart).Round(time.Second), res.RequestID, res.Verdict, res.Approved, res.CreditLine)
		require.Equal(t, tc.approved, res.Approved, tc.name)
	}
}

// chainLogTail returns the end of the node's log for the chain, for failures.
func chainLogTail(network *tmpnet.Network, node *tmpnet.Node, chainID string) string {
	dir := node.DataDir
	if dir == "" {
		dir = filepath.Join(network.Dir, node.NodeID.String())
	}
	var out strings.Builder
	for _, name := range []string{chainID + ".log", "main.log"} {
		b, err := os.ReadFile(filepath.Join(dir, "logs", name))
		if err != nil {
			fmt.Fprintf(&out, "(%s: %v)\n", name, err)
			continue
		}
		if len(b) > 6000 {
			b = b[len(b)-6000:]
		}
		fmt.Fprintf(&out, "--- %s (tail) ---\n%s\n", name, b)
	}
	return out.String()
}
