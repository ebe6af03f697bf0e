package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/subnet-evm/params"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/internal/devchain"
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

	dst, err := installPlugin(zaptest.NewLogger(t), dir, src)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, configs.VMID().String()), dst)
	st, err := os.Stat(dst)
	require.NoError(t, err)
	require.NotZero(t, st.Mode()&0o100, "executable")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left")

	// Reinstalling replaces the plugin in place.
	_, err = installPlugin(zaptest.NewLogger(t), dir, src)
	require.NoError(t, err)
}

func TestPluginInstallErrors(t *testing.T) {
	log := zaptest.NewLogger(t)
	_, err := installPlugin(log, "", "x")
	require.ErrorContains(t, err, "--plugin-dir")
	_, err = installPlugin(log, t.TempDir(), filepath.Join(t.TempDir(), "missing"))
	require.ErrorContains(t, err, "--binary")
	_, err = installPlugin(log, t.TempDir(), t.TempDir())
	require.ErrorContains(t, err, "not a file")
}

func TestPluginGenesis(t *testing.T) {
	dev := devchain.DevCommittee().Registry()
	cc := consensus.CommitteeConfig{ChainID: "4321", Epoch: dev.Epoch, Threshold: int(dev.Threshold)}
	for i, m := range dev.Members {
		cc.Members = append(cc.Members, consensus.MemberInfo{ID: uint32(i + 1), BLSKey: hex.EncodeToString(m.PublicKey), BLSPoP: hex.EncodeToString(m.ProofOfPossession)})
	}
	dir := t.TempDir()
	write := func(name string, v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	good := write("committee.json", cc)
	bad := cc
	bad.Members = append([]consensus.MemberInfo(nil), cc.Members...)
	bad.Members[0].BLSPoP = cc.Members[1].BLSPoP // another member's proof
	badPath := write("bad.json", bad)

	gov := "0x00000000000000000000000000000000000000a1"
	out, err := buildPluginGenesis(zaptest.NewLogger(t), genesisOptions{committee: good, governance: gov})
	require.NoError(t, err)
	g, err := devchain.ParseGenesis(out, 0, nil)
	require.NoError(t, err)
	require.Equal(t, int64(4321), g.Config.ChainID.Int64(), "chain id from committee.json")
	vc, ok := params.GetExtra(g.Config).GenesisPrecompiles[subnetevm.VerdictConfigKey].(*subnetevm.VerdictConfig)
	require.True(t, ok)
	require.Equal(t, common.HexToAddress(gov), vc.Governance)
	require.Equal(t, dev, vc.Committee)
	for _, k := range []string{subnetevm.InputConfigKey, subnetevm.PolicyConfigKey, subnetevm.CRDTConfigKey} {
		require.Contains(t, params.GetExtra(g.Config).GenesisPrecompiles, k)
	}

	out, err = buildPluginGenesis(zaptest.NewLogger(t), genesisOptions{committee: good, chainID: 99})
	require.NoError(t, err)
	g, err = devchain.ParseGenesis(out, 0, nil)
	require.NoError(t, err)
	require.Equal(t, int64(99), g.Config.ChainID.Int64(), "--chain-id wins")

	for name, o := range map[string]genesisOptions{
		"wrong proof of possession": {committee: badPath},
		"missing committee file":    {committee: filepath.Join(dir, "none.json")},
		"bad governance":            {governance: "nope"},
		"missing base genesis":      {base: filepath.Join(dir, "none.json")},
	} {
		_, err := buildPluginGenesis(zaptest.NewLogger(t), o)
		require.Error(t, err, name)
	}
}
