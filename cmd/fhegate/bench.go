package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

func newBenchCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Reproduce the measurements in docs/LP-137.md (workloads, policy, crdt, committee, inputs, load)",
		Long: `Each bench subcommand measures one area in this process, prints a table and, with --json FILE,
writes machine-readable results. Baselines are measured in the same run: compare ratios, not
absolute times, across machines.`,
	}
	cmd.AddCommand(
		newBenchCommitteeCmd(a),
		newBenchCRDTCmd(a),
		newBenchInputsCmd(a),
		newBenchLoadCmd(a),
		newBenchPolicyCmd(a),
		newBenchWorkloadsCmd(a),
	)
	return cmd
}

// writeJSON writes v as indented JSON to path ("-" is stdout, the command's
// output writer).
func writeJSON(stdout io.Writer, path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "-" {
		_, err = stdout.Write(b)
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
