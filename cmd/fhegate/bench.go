package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// benchFactories are the `fhegate bench <area>` subcommands; each area's file
// registers its own with registerBench from init.
var benchFactories []func(*app) *cobra.Command

func registerBench(f func(*app) *cobra.Command) { benchFactories = append(benchFactories, f) }

func init() { registerCommand(newBenchCmd) }

func newBenchCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Reproduce the measurements in docs/LP-137.md (workloads, policy, crdt, committee, …)",
		Long: `Each bench subcommand measures one area in this process, prints a table and, with --json FILE,
writes machine-readable results. Baselines are measured in the same run: compare ratios, not
absolute times, across machines.`,
	}
	for _, f := range benchFactories {
		cmd.AddCommand(f(a))
	}
	return cmd
}

// writeJSON writes v as indented JSON to path ("-" is stdout).
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "-" {
		_, err = os.Stdout.Write(b)
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
