package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/subnet-evm/params"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/consensus/config"
	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

func TestPluginVMID(t *testing.T) {
	root, _ := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"plugin", "vmid"})
	require.NoError(t, root.Execute())
	require.Equal(t, configs.VMID().String(), strings.TrimSpace(out.String()))
}

func TestPluginInstallCopiesBinary(t *testing.T) {
	src := filepath.Join(t.TempDir(), "fhegate-vm")
	require.NoError(t, os.WriteFile(src, []byte("#!/bin/sh\n"), 0o644))
	dir := filepath.Join(t.TempDir(), "plugins")

	dst, err := installPlugin(zaptest.NewLogger(t), io.Discard, dir, src)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, configs.VMID().String()), dst)
	st, err := os.Stat(dst)
	require.NoError(t, err)
	require.NotZero(t, st.Mode()&0o100, "executable")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left")

	// Reinstalling replaces the plugin in place.
	_, err = installPlugin(zaptest.NewLogger(t), io.Discard, dir, src)
	require.NoError(t, err)
}

func TestPluginInstallErrors(t *testing.T) {
	log := zaptest.NewLogger(t)
	_, err := installPlugin(log, io.Discard, "", "x")
	require.ErrorContains(t, err, "--plugin-dir")
	_, err = installPlugin(log, io.Discard, t.TempDir(), filepath.Join(t.TempDir(), "missing"))
	require.ErrorContains(t, err, "--binary")
	_, err = installPlugin(log, io.Discard, t.TempDir(), t.TempDir())
	require.ErrorContains(t, err, "not a file")
}

// writeCommitteeJSON writes the development committee as a committee.json for
// chainID, plus a copy whose first proof of possession is another member's.
func writeCommitteeJSON(t *testing.T, chainID string) (good, bad string) {
	t.Helper()
	dev := devchain.DevCommittee().Registry()
	cc := config.CommitteeConfig{ChainID: chainID, Epoch: dev.Epoch, Threshold: int(dev.Threshold)}
	for i, m := range dev.Members {
		cc.Members = append(cc.Members, config.MemberInfo{ID: uint32(i + 1), BLSKey: hex.EncodeToString(m.PublicKey), BLSPoP: hex.EncodeToString(m.ProofOfPossession)})
	}
	dir := t.TempDir()
	write := func(name string, v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	good = write("committee.json", cc)
	wrong := cc
	wrong.Members = append([]config.MemberInfo(nil), cc.Members...)
	wrong.Members[0].BLSPoP = cc.Members[1].BLSPoP // another member's proof
	return good, write("bad.json", wrong)
}

// prodBaseGenesis is the devnet genesis without its alloc: a base genesis
// that funds no well-known key, as an operator's own --genesis would be.
func prodBaseGenesis(t *testing.T) string {
	t.Helper()
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(configs.DevnetGenesis(), &doc))
	doc["alloc"] = json.RawMessage(`{"0x00000000000000000000000000000000000000b2":{"balance":"0x1"}}`)
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "base.json")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

func TestPluginGenesis(t *testing.T) {
	dev := devchain.DevCommittee().Registry()
	good, badPath := writeCommitteeJSON(t, "4321")
	base := prodBaseGenesis(t)
	dir := t.TempDir()

	gov := "0x00000000000000000000000000000000000000a1"
	out, err := buildPluginGenesis(zaptest.NewLogger(t), genesisOptions{base: base, committee: good, governance: gov, chainID: 4321})
	require.NoError(t, err)
	g, err := devchain.ParseGenesis(out, 0, nil)
	require.NoError(t, err)
	require.Equal(t, int64(4321), g.Config.ChainID.Int64())
	vc, ok := params.GetExtra(g.Config).GenesisPrecompiles[subnetevm.VerdictConfigKey].(*subnetevm.VerdictConfig)
	require.True(t, ok)
	require.Equal(t, common.HexToAddress(gov), vc.Governance)
	require.Equal(t, dev, vc.Committee)
	for _, k := range []string{subnetevm.InputConfigKey, subnetevm.PolicyConfigKey, subnetevm.CRDTConfigKey} {
		require.Contains(t, params.GetExtra(g.Config).GenesisPrecompiles, k)
	}

	// Development chains: --dev allows the devnet base, its chain id and a
	// dev account as governance.
	out, err = buildPluginGenesis(zaptest.NewLogger(t), genesisOptions{dev: true, chainID: 1337,
		governance: devchain.DevAccounts()[0].Address.Hex()})
	require.NoError(t, err)
	g, err = devchain.ParseGenesis(out, 0, nil)
	require.NoError(t, err)
	require.Equal(t, int64(1337), g.Config.ChainID.Int64())

	for name, o := range map[string]genesisOptions{
		"wrong proof of possession": {base: base, committee: badPath, governance: gov, chainID: 4321},
		"missing committee file":    {base: base, committee: filepath.Join(dir, "none.json"), governance: gov, chainID: 4321},
		"bad governance":            {base: base, governance: "nope", chainID: 4321},
		"missing base genesis":      {base: filepath.Join(dir, "none.json"), governance: gov, chainID: 4321},
	} {
		_, err := buildPluginGenesis(zaptest.NewLogger(t), o)
		require.Error(t, err, name)
	}
}

// TestPluginGenesisRefusesDevDefaults: a production genesis must not inherit
// the devnet's governance (a Hardhat account whose key is public), its chain
// id or its funded dev keys; --governance and --chain-id are required, and
// development values need --dev.
func TestPluginGenesisRefusesDevDefaults(t *testing.T) {
	good, _ := writeCommitteeJSON(t, "4321")
	base := prodBaseGenesis(t)
	gov := "0x00000000000000000000000000000000000000a1"
	for name, tc := range map[string]struct {
		o    genesisOptions
		want string
	}{
		"no governance":   {genesisOptions{base: base, chainID: 4321}, "--governance is required"},
		"no chain id":     {genesisOptions{base: base, governance: gov}, "--chain-id is required"},
		"nothing":         {genesisOptions{}, "--governance is required"},
		"dev0 governance": {genesisOptions{base: base, chainID: 4321, governance: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"}, "dev0"},
		"ewoq governance": {genesisOptions{base: base, chainID: 4321, governance: "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"}, "ewoq"},
		"hardhat 19 governance": {genesisOptions{base: base, chainID: 4321,
			governance: "0x8626f6940e2eb28930efb4cef49b2d1f2c9c1199"}, "hardhat19"},
		"chain id 1337":               {genesisOptions{base: base, chainID: 1337, governance: gov}, "--chain-id 1337"},
		"chain id 31337":              {genesisOptions{base: base, chainID: 31337, governance: gov}, "--chain-id 31337"},
		"embedded devnet base":        {genesisOptions{chainID: 4321, governance: gov}, "--genesis is required"},
		"committee for another chain": {genesisOptions{base: base, chainID: 99, governance: gov, committee: good}, "chainId 4321"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := buildPluginGenesis(zaptest.NewLogger(t), tc.o)
			require.ErrorContains(t, err, tc.want)
		})
	}

	// A base genesis that funds (or otherwise names) a dev key is refused.
	devFunded := filepath.Join(t.TempDir(), "funded.json")
	require.NoError(t, os.WriteFile(devFunded, configs.DevnetGenesis(), 0o644))
	_, err := buildPluginGenesis(zaptest.NewLogger(t), genesisOptions{base: devFunded, chainID: 4321, governance: gov})
	require.ErrorContains(t, err, "funds the well-known development account dev0")

	// …as is one naming a dev key elsewhere, e.g. as a precompile admin.
	var doc map[string]any
	raw, err := os.ReadFile(base)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &doc))
	doc["config"].(map[string]any)["txAllowListConfig"] = map[string]any{
		"blockTimestamp": 0, "adminAddresses": []string{"0x90F79bf6EB2c4f870365E785982E1f101E93b906"}}
	raw, err = json.Marshal(doc)
	require.NoError(t, err)
	devAdmin := filepath.Join(t.TempDir(), "admin.json")
	require.NoError(t, os.WriteFile(devAdmin, raw, 0o644))
	_, err = buildPluginGenesis(zaptest.NewLogger(t), genesisOptions{base: devAdmin, chainID: 4321, governance: gov})
	require.ErrorContains(t, err, "names the well-known development account dev3")

	// Through the command line: the same refusals, and --dev lifts them.
	run := func(args ...string) error {
		root, _ := newRootCmd()
		root.SetOut(&bytes.Buffer{})
		root.SetArgs(append([]string{"plugin", "genesis", "--log-level", "error"}, args...))
		return root.Execute()
	}
	require.ErrorContains(t, run(), "--governance is required")
	require.ErrorContains(t, run("--governance", gov), "--chain-id is required")
	require.ErrorContains(t, run("--governance", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "--chain-id", "1337"), "--dev")
	require.NoError(t, run("--dev", "--governance", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "--chain-id", "1337"))
	require.NoError(t, run("--genesis", base, "--governance", gov, "--chain-id", "4321", "--committee", good))
}
