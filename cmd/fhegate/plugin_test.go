package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/configs"
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
