package crdt

import (
	"fmt"
	"io"
	"text/tabwriter"

	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bench"
	"github.com/fhegate/fhegate/internal/usage"
)

// luxFHECRDTMergesPerS is Lux fheCRDT's published rate (< 1 merge/s, 136 KB
// per LWW ciphertext): the anchor the CRDT rows are read against.
const luxFHECRDTMergesPerS = 1.0

// Command is `fhegate bench crdt`: Runs timed runs per row (median; Quick
// skips the ct×ct OR-union baseline and the 128-replica row). The table goes
// to Stdout (Stderr when JSONPath is "-"), the rows as JSON to JSONPath.
type Command struct {
	JSONPath       string
	Runs           int
	Quick          bool
	Log            *zap.Logger
	Stdout, Stderr io.Writer
}

// Run measures, prints and writes the rows.
func (c Command) Run() error {
	if c.Runs < 1 {
		return usage.Errorf("--runs must be ≥ 1")
	}
	if c.Log == nil {
		c.Log = zap.NewNop()
	}
	res, err := Run(Options{Runs: c.Runs, Quick: c.Quick}, c.Log)
	if err != nil {
		return err
	}
	return bench.Report(c.Stdout, c.Stderr, c.JSONPath, c.Log, "crdt", res, func(w io.Writer) { Print(w, res) })
}

// Print prints the rows as a table, merges per second against Lux
// fheCRDT's published rate.
func Print(w io.Writer, res []Result) {
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
