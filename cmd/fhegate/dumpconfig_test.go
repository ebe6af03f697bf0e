package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDumpConfig(t *testing.T) {
	for _, name := range []string{"genesis", "crossover", "presets"} {
		t.Run(name, func(t *testing.T) {
			root, _ := newRootCmd()
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetArgs([]string{"dumpconfig", name})
			require.NoError(t, root.Execute())
			require.True(t, json.Valid(out.Bytes()), out.String())
		})
	}
	root, _ := newRootCmd()
	root.SetArgs([]string{"dumpconfig", "nope"})
	root.SetOut(&bytes.Buffer{})
	require.ErrorContains(t, root.Execute(), "unknown config")
}
