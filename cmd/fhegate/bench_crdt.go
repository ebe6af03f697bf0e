package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/fhe/crdt/crdtbench"
)

// luxFHECRDTMergesPerS is Lux fheCRDT's published rate (< 1 merge/s, 136 KB
// per LWW ciphertext): the anchor the CRDT rows are read against.
const luxFHECRDTMergesPerS = 1.0

func newBenchCRDTCmd(a *app) *cobra.Command {
	var (
		jsonPath string
		quick    bool
		runs     int
	)
	cmd := &cobra.Command{
		Use:   "crdt",
		Short: "Encrypted CRDT merges on BGVN14 (16384 lanes): materialisation, metadata merge, reads, baselines",
		Long: `Measures, on preset bgv-n14-t65537 with GOMAXPROCS(1) during timing, the committee-side
materialisation of a merge of two 16384-lane states (G-/PN-Counter, LWW register and map, add-wins
set), the on-chain metadata merge (meta.MergePlan), the normalisation of one writer ciphertext, the
counter and set reads, and two baselines: a mask select of two packed ciphertexts and an OR union
(a + b − a·b). Each merge is checked once by decryption against a plaintext model before it is
timed. Medians of --runs runs (default 21, --quick 7); merges_per_s counts metadata + ciphertext.`,
		Example: `  fhegate bench crdt --json docs/results/crdt.json
  fhegate bench crdt --quick`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log := a.Log()
			if !cmd.Flags().Changed("runs") && quick {
				runs = 7
			}
			if runs < 1 {
				return usageErrorf("--runs must be ≥ 1")
			}
			res, err := crdtbench.Run(crdtbench.Options{Runs: runs, Quick: quick}, log)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if jsonPath == "-" {
				out = cmd.ErrOrStderr()
			}
			printCRDT(out, res)
			if jsonPath != "" {
				if err := writeJSON(cmd.OutOrStdout(), jsonPath, res); err != nil {
					return err
				}
				log.Info("wrote crdt results", zap.String("file", jsonPath))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&jsonPath, "json", "", "write results as JSON to FILE (- for stdout)")
	cmd.Flags().BoolVar(&quick, "quick", false, "fewer runs, skip the ct×ct OR-union baseline and the 128-replica row")
	cmd.Flags().IntVar(&runs, "runs", 21, "timed runs per row (median reported)")
	return cmd
}

func printCRDT(w io.Writer, res []crdtbench.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "type\tlanes\tblocks×width\tlevel\tchanged\tmerge_ms\tcpu_ms\tmeta_ms\tmerges/s\tvs Lux fheCRDT\tct_bytes\tmax_chain")
	for _, r := range res {
		shape := "-"
		if r.Blocks > 0 {
			shape = fmt.Sprintf("%d×%d", r.Blocks, r.Width)
		}
		rate, vs, chain := "-", "-", "-"
		if r.Type == "baseline-mask-select-chain" {
			chain = fmt.Sprint(r.MaxChain)
		}
		if r.MergesPerS > 0 {
			rate = fmt.Sprintf("%.0f", r.MergesPerS)
			vs = fmt.Sprintf("≥%.0f×", r.MergesPerS/luxFHECRDTMergesPerS)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%.3f\t%.3f\t%.4f\t%s\t%s\t%d\t%s\n", r.Type, r.Lanes, shape, r.Level, r.ChangedBlocks,
			r.MergeMS, r.CPUMS, r.MetaMergeMS, rate, vs, r.CtBytes, chain)
	}
	tw.Flush()
}
