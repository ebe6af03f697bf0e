package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/internal/usage"
)

// TestExitCodeClassification runs bad (and a few good) command lines through
// the real command tree and checks how exitCode classifies the result: 2 for
// usage errors, 1 for runtime errors, 0 for success (help included).
func TestExitCodeClassification(t *testing.T) {
	missing := t.TempDir() + "/missing.yaml"
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"unknown command", []string{"bogus"}, exitUsage},
		{"unknown subcommand", []string{"committee", "bogus"}, exitUsage},
		{"unknown nested subcommand", []string{"committee", "rotate", "bogus"}, exitUsage},
		{"unknown bench area", []string{"bench", "nope"}, exitUsage},
		{"unknown flag", []string{"version", "--nope"}, exitUsage},
		{"unknown shorthand", []string{"gpu", "info", "-z"}, exitUsage},
		{"extra argument", []string{"version", "extra"}, exitUsage},
		{"missing argument", []string{"policy", "compile"}, exitUsage},
		{"too many arguments", []string{"dumpconfig", "genesis", "presets"}, exitUsage},
		{"missing required flag", []string{"encrypt", "--values", "1"}, exitUsage},
		{"missing required flags", []string{"decrypt"}, exitUsage},
		{"bad flag value", []string{"committee", "init", "--n", "five"}, exitUsage},
		{"bad global flag value", []string{"--log-level", "loud", "version"}, exitUsage},
		{"one of two flags required", []string{"committee", "status"}, exitUsage},
		{"bad --runs", []string{"bench", "crdt", "--runs", "0"}, exitUsage},
		{"no decisions", []string{"policy", "eval", "example:allowlist"}, exitUsage},
		{"runtime: unknown config", []string{"dumpconfig", "nope"}, exitError},
		{"runtime: missing file", []string{"policy", "compile", missing}, exitError},
		{"ok", []string{"version"}, exitOK},
		{"ok: parent prints help", []string{"committee"}, exitOK},
		{"ok: root prints help", nil, exitOK},
		{"ok: --help", []string{"policy", "eval", "--help"}, exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, _ := newRootCmd()
			var out, errOut bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&errOut)
			root.SetArgs(append([]string{}, tc.args...))
			_, err := root.ExecuteContextC(context.Background())
			require.Equal(t, tc.want, exitCode(err), "args %q: err %v", tc.args, err)
		})
	}
}

func TestExitCodeOfErrors(t *testing.T) {
	require.Equal(t, exitOK, exitCode(nil))
	require.Equal(t, exitError, exitCode(errors.New("boom")))
	require.Equal(t, exitUsage, exitCode(usageErrorf("--x %d: bad", 1)))
	require.Equal(t, exitUsage, exitCode(errors.Join(errors.New("ctx"), usage.Error{Err: errors.New("wrapped")})))
	// cobra's own untyped command-line errors
	require.Equal(t, exitUsage, exitCode(errors.New(`unknown command "x" for "fhegate"`)))
	require.Equal(t, exitUsage, exitCode(errors.New(`required flag(s) "key" not set`)))
}

// TestUnknownSubcommandSuggests keeps cobra's "Did you mean this?" hint.
func TestUnknownSubcommandSuggests(t *testing.T) {
	root, _ := newRootCmd()
	root.SetOut(&bytes.Buffer{})
	root.SetArgs([]string{"committe"})
	_, err := root.ExecuteContextC(context.Background())
	require.ErrorContains(t, err, `unknown command "committe" for "fhegate"`)
	require.ErrorContains(t, err, "committee")
}

// TestEveryLeafHasExample walks the command tree: every runnable command
// without subcommands needs an Example that shows its own command path.
func TestEveryLeafHasExample(t *testing.T) {
	root, _ := newRootCmd()
	var leaves int
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasSubCommands() {
			for _, sub := range c.Commands() {
				walk(sub)
			}
			return
		}
		leaves++
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s: leaf command without an Example", c.CommandPath())
		} else if !strings.Contains(c.Example, c.CommandPath()) {
			t.Errorf("%s: Example does not show the command:\n%s", c.CommandPath(), c.Example)
		}
		if c.Args == nil {
			t.Errorf("%s: leaf command without an Args validator", c.CommandPath())
		}
	}
	walk(root)
	require.Greater(t, leaves, 20)
}
