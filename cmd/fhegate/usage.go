package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fhegate/fhegate/internal/usage"
)

// Exit statuses of the fhegate process.
const (
	exitOK    = 0
	exitError = 1 // a runtime error
	exitUsage = 2 // the command line is wrong (internal/usage)
)

// usageErrorf is fmt.Errorf marked as a usage error (internal/usage): an
// unknown command or flag, a wrong number of arguments, a missing required
// flag or a bad flag value. It exits with status 2; every other error exits
// with 1.
func usageErrorf(format string, args ...any) error { return usage.Errorf(format, args...) }

// exitCode classifies err: 0 for nil, 2 for a usage error, 1 otherwise.
// Cobra's own untyped command-line errors (an unknown command at the root, a
// missing required flag) count as usage errors too.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	if usage.Is(err) {
		return exitUsage
	}
	msg := err.Error()
	for _, prefix := range []string{"unknown command ", "required flag(s) ", "unknown flag: ", "unknown shorthand flag: "} {
		if strings.HasPrefix(msg, prefix) {
			return exitUsage
		}
	}
	return exitError
}

// markUsageErrors makes every command-line error of the tree under root a
// usage error: flag parsing errors (SetFlagErrorFunc, inherited by every
// command), every command's Args validator, and, on commands with
// subcommands, an unknown subcommand (a parent runs only to print its help).
// Call it once the tree is complete.
func markUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage.Error{Err: err} })
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasSubCommands() {
			c.Args = unknownSubcommand
			if c.Run == nil && c.RunE == nil {
				c.RunE = showHelp
			}
		} else if c.Args != nil {
			c.Args = usageArgs(c.Args)
		}
		c.PreRunE = requiredFlagsAsUsage(c.PreRunE)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// usageArgs wraps a positional-argument validator so that its errors are
// usage errors.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usage.Error{Err: err}
		}
		return nil
	}
}

// requiredFlagsAsUsage checks the command's required flags before its
// PreRunE (cobra checks them after, with an untyped error) and reports a
// missing one as a usage error.
func requiredFlagsAsUsage(next func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := cmd.ValidateRequiredFlags(); err != nil {
			return usage.Error{Err: err}
		}
		if next != nil {
			return next(cmd, args)
		}
		return nil
	}
}

// unknownSubcommand is the Args of a command with subcommands: any
// positional argument left over is an unknown subcommand.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return usage.Error{Err: errors.New(msg)}
}

// showHelp is the RunE of a command with subcommands: it prints the help, as
// cobra does for a command that cannot run.
func showHelp(cmd *cobra.Command, _ []string) error { return cmd.Help() }
