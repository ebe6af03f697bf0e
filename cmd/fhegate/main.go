// Command fhegate is the operator, developer and researcher entry point of
// fhegate: the local devnet, the VM plugin installer, the MPC committee, GPU
// calibration, benchmarks and client-side encryption.
//
// The command tree is built in one place, newRootCmd (gh's NewCmdRoot shape):
// every subcommand has a constructor newXxxCmd(*app) in its own file, and
// newRootCmd adds them explicitly (newBenchCmd adds the bench areas the same
// way). There are no init-time registries or package-level command state.
// Each constructor receives the *app, which carries the zap logger built from
// the persistent --log-level/--log-format flags. Long commands keep their
// flags in an options struct and run in a runXxx(ctx, opts, …) function.
//
// main installs one signal.NotifyContext (SIGINT, SIGTERM) and runs the tree
// with ExecuteContext: commands read cancellation from cmd.Context() and write
// their output to cmd.OutOrStdout()/cmd.ErrOrStderr(); logs go to the zap
// logger (stderr). Every leaf command has an Example.
//
// Exit status: 0 on success, 2 for a usage error (unknown command or flag,
// wrong number of arguments, missing required flag, bad flag value: see
// usage.go), 1 for any other error.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/fhegate/fhegate/internal/usage"
)

// app is what every subcommand receives: the process logger (built once the
// flags are parsed) and the root command's global options.
type app struct {
	logLevel  string
	logFormat string
	log       *zap.Logger
}

// Log returns the logger; it is valid inside a command's RunE.
func (a *app) Log() *zap.Logger { return a.log }

// newRootCmd builds the whole command tree.
func newRootCmd() (*cobra.Command, *app) {
	a := &app{log: zap.NewNop()}
	root := &cobra.Command{
		Use:           "fhegate",
		Short:         "FHE precompiles, MPC committee and GPU-gated NTT for Lux-family EVM chains",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			l, err := newLogger(a.logLevel, a.logFormat)
			if err != nil {
				return usage.Error{Err: err}
			}
			a.log = l
			return startProfileServer(l)
		},
	}
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	root.PersistentFlags().StringVar(&a.logFormat, "log-format", "console", "log format: console or json")
	// Commands are grouped by who reaches for them (gh's "Core commands",
	// "Additional commands" shape): a chain operator, a committee member, a
	// client (a dApp or policy author), someone measuring.
	root.AddGroup(
		&cobra.Group{ID: groupChain, Title: "Chain commands:"},
		&cobra.Group{ID: groupCommittee, Title: "Committee commands:"},
		&cobra.Group{ID: groupClient, Title: "Client commands:"},
		&cobra.Group{ID: groupMeasure, Title: "Measurement commands:"},
	)
	addGrouped(root, groupChain, newDevnetCmd(a), newPluginCmd(a), newDumpConfigCmd(a))
	addGrouped(root, groupCommittee, newCommitteeCmd(a))
	addGrouped(root, groupClient, newEncryptCmd(a), newDecryptCmd(a), newKeysCmd(a), newPolicyCmd(a))
	addGrouped(root, groupMeasure, newBenchCmd(a), newCalibrateCmd(a), newGPUCmd(a))
	root.AddCommand(newVersionCmd(a))
	markUsageErrors(root)
	return root, a
}

// The root command's groups (fhegate --help lists commands under these).
const (
	groupChain     = "chain"
	groupCommittee = "committee"
	groupClient    = "client"
	groupMeasure   = "measure"
)

// addGrouped adds cmds to root under the group id.
func addGrouped(root *cobra.Command, id string, cmds ...*cobra.Command) {
	for _, c := range cmds {
		c.GroupID = id
		root.AddCommand(c)
	}
}

// newLogger builds the process logger. Logs go to stderr so that command
// output on stdout (tables, JSON) stays machine-readable.
func newLogger(level, format string) (*zap.Logger, error) {
	var lvl zapcore.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: %w", level, err)
	}
	var cfg zap.Config
	switch format {
	case "json":
		cfg = zap.NewProductionConfig()
	case "console":
		cfg = zap.NewDevelopmentConfig()
		cfg.DisableStacktrace = true
	default:
		return nil, fmt.Errorf("--log-format %q: want json or console", format)
	}
	cfg.Level = zap.NewAtomicLevelAt(lvl)
	cfg.OutputPaths = []string{"stderr"}
	cfg.ErrorOutputPaths = []string{"stderr"}
	return cfg.Build()
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := mainRun(ctx, os.Stderr)
	stop()
	os.Exit(code)
}

// mainRun executes the command line under ctx, reports an error on stderr
// and returns the process exit status (exitCode).
func mainRun(ctx context.Context, stderr io.Writer) int {
	root, a := newRootCmd()
	cmd, err := root.ExecuteContextC(ctx)
	_ = a.log.Sync()
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "fhegate:", err)
	code := exitCode(err)
	if code == exitUsage && cmd != nil {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}
