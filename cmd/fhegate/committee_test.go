package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ava-labs/libevm/crypto"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/devchain"
	"github.com/fhegate/fhegate/internal/ports"
)

// TestRelayerKeyNotOnCommandLine: the relayer's private key must not be a
// command-line argument (visible to every user in ps); it comes from a file
// only its owner can read, or from FHEGATE_RELAYER_KEY.
func TestRelayerKeyNotOnCommandLine(t *testing.T) {
	acct := devchain.DevAccounts()[5]
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		require.NoError(t, os.Chmod(p, mode))
		return p
	}
	noEnv := func(string) string { return "" }

	// A 0600 (or 0400) file: the key, with or without 0x and a newline.
	for _, p := range []string{
		write("k1", acct.KeyHex()+"\n", 0o600),
		write("k2", acct.KeyHex()[2:], 0o400),
	} {
		key, err := loadRelayerKey(p, noEnv)
		require.NoError(t, err)
		require.Equal(t, acct.Address, crypto.PubkeyToAddress(key.PublicKey))
	}

	// Group- or world-readable files are refused, and the key is not echoed.
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660, 0o620} {
		p := write("open", acct.KeyHex(), mode)
		_, err := loadRelayerKey(p, noEnv)
		require.ErrorContains(t, err, "chmod 600", "mode %o", mode)
		require.NotContains(t, err.Error(), acct.KeyHex()[2:])
	}
	_, err := loadRelayerKey(filepath.Join(dir, "missing"), noEnv)
	require.ErrorContains(t, err, "--relayer-key-file")
	_, err = loadRelayerKey(write("bad", "not hex", 0o600), noEnv)
	require.ErrorContains(t, err, "--relayer-key-file")
	require.NotContains(t, err.Error(), "not hex")
	_, err = loadRelayerKey(dir, noEnv)
	require.ErrorContains(t, err, "not a regular file")

	// FHEGATE_RELAYER_KEY still works; the file wins when both are given.
	env := func(k string) string {
		if k == "FHEGATE_RELAYER_KEY" {
			return devchain.DevAccounts()[6].KeyHex()
		}
		return ""
	}
	key, err := loadRelayerKey("", env)
	require.NoError(t, err)
	require.Equal(t, devchain.DevAccounts()[6].Address, crypto.PubkeyToAddress(key.PublicKey))
	key, err = loadRelayerKey(write("k3", acct.KeyHex(), 0o600), env)
	require.NoError(t, err)
	require.Equal(t, acct.Address, crypto.PubkeyToAddress(key.PublicKey))
	_, err = loadRelayerKey("", noEnv)
	require.ErrorContains(t, err, "--relayer-key-file (or FHEGATE_RELAYER_KEY) is required")

	// The plain flag is refused before anything else runs, pointing to the file.
	root, _ := newRootCmd()
	root.SetOut(&bytes.Buffer{})
	root.SetArgs([]string{"committee", "serve", "--dir", dir, "--member", "1", "--rpc", "http://127.0.0.1:1", "--relayer-key", acct.KeyHex()})
	err = root.Execute()
	require.ErrorContains(t, err, "--relayer-key-file")
	require.NotContains(t, err.Error(), acct.KeyHex()[2:])
}

// TestCommitteeInitRefusesBadEpochAndChainID: epoch 0 (no committee has it
// on chain), epochs from 2^63 up (2^64−1 leaves no successor: the registry
// only moves forward) and chain ids that are not a positive uint64 are
// refused before any key is made.
func TestCommitteeInitRefusesBadEpochAndChainID(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--epoch", "0"}, "--epoch 0"},
		{[]string{"--epoch", "9223372036854775808"}, "--epoch 9223372036854775808"}, // 2^63
		{[]string{"--epoch", "18446744073709551615"}, "--epoch 18446744073709551615"},
		{[]string{"--chain-id", "0"}, "--chain-id"},
		{[]string{"--chain-id", "-1"}, "--chain-id"},
		{[]string{"--chain-id", "18446744073709551616"}, "--chain-id"}, // 2^64
		{[]string{"--chain-id", "x"}, "--chain-id"},
	} {
		dir := filepath.Join(t.TempDir(), "c")
		root, _ := newRootCmd()
		root.SetOut(&bytes.Buffer{})
		root.SetArgs(append([]string{"committee", "init", "--dir", dir, "--n", "3", "--t", "2", "--log-level", "error"}, tc.args...))
		require.ErrorContains(t, root.Execute(), tc.want, tc.args)
		_, err := os.Stat(dir)
		require.True(t, os.IsNotExist(err), "nothing written for %v", tc.args)
	}

	// The largest accepted epoch, and a typical one, work.
	for _, epoch := range []string{"1", "9223372036854775807"} {
		dir := filepath.Join(t.TempDir(), "c")
		root, _ := newRootCmd()
		root.SetOut(&bytes.Buffer{})
		root.SetArgs([]string{"committee", "init", "--dir", dir, "--n", "3", "--t", "2", "--epoch", epoch, "--chain-id", "43117", "--log-level", "error"})
		require.NoError(t, root.Execute(), epoch)
		_, err := os.Stat(filepath.Join(dir, "committee.json"))
		require.NoError(t, err)
	}
}

// TestCommitteeInitWarnsOfEphemeralPorts: member ports inside the kernel's
// ephemeral range get a warning (an outgoing connection may take a port
// while its member is down, and the restart fails to listen); the default
// base port gets none.
func TestCommitteeInitWarnsOfEphemeralPorts(t *testing.T) {
	lo, _ := ports.EphemeralRange()
	for _, tc := range []struct {
		base string
		warn bool
	}{{"9700", false}, {strconv.Itoa(lo + 100), true}} {
		var stderr bytes.Buffer
		root, _ := newRootCmd()
		root.SetOut(&bytes.Buffer{})
		root.SetErr(&stderr)
		root.SetArgs([]string{"committee", "init", "--dir", filepath.Join(t.TempDir(), "c"), "--n", "3", "--t", "2", "--base-port", tc.base, "--log-level", "error"})
		require.NoError(t, root.Execute())
		require.Equal(t, tc.warn, strings.Contains(stderr.String(), "ephemeral port range"), "--base-port %s: %s", tc.base, stderr.String())
	}
}
