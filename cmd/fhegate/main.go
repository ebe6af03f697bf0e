// Command fhegate is the operator, developer and researcher entry point of
// fhegate: the local devnet, the VM plugin installer, the MPC committee, GPU
// calibration, benchmarks and client-side encryption.
//
// Every subcommand lives in its own file and registers itself with
// registerCommand from an init function; each receives the *app, which carries
// the zap logger built from the persistent --log-level/--log-format flags.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
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

// commandFactories are the subcommands, in registration order (file-name order
// within this package, so the help output is stable).
var commandFactories []func(*app) *cobra.Command

// registerCommand adds a subcommand constructor to the root command.
func registerCommand(f func(*app) *cobra.Command) {
	commandFactories = append(commandFactories, f)
}

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
				return err
			}
			a.log = l
			return nil
		},
	}
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	root.PersistentFlags().StringVar(&a.logFormat, "log-format", "console", "log format: console or json")
	for _, f := range commandFactories {
		root.AddCommand(f(a))
	}
	return root, a
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
	root, a := newRootCmd()
	err := root.Execute()
	_ = a.log.Sync()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fhegate:", err)
		os.Exit(1)
	}
}
