package committee

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// MemberPhases is one member's wall time in each phase of a packed batch
// (consensus.Member.ProcessPacked, MemberConfig.Trace), in ms. A phase is
// the time since the previous one ended, so a member that waits — for the
// packers' accumulators, for the others' shares — counts the wait in the
// phase that waits.
type MemberPhases struct {
	Member   uint32             `json:"member"`
	PhasesMs map[string]float64 `json:"phases_ms"`
}

// ladderColumns are the phase groups of the ladder table: the block
// packing (and the agreement on the accumulators), the refresh transform
// that un-interleaves them (with its rescales), the evaluation, the
// threshold decryption and its combination (digest agreement, final
// refresh if any, mask, decrypt) and the BLS signature with the verdicts'
// persistence.
var ladderColumns = []struct {
	name   string
	phases []string
}{
	{"pack", []string{"pack"}},
	{"xform", []string{"pack-refresh"}},
	{"eval", []string{"eval"}},
	{"decrypt", []string{"digest", "refresh", "mask", "decrypt"}},
	{"sign", []string{"sign"}},
}

// memberPhaseRows turns the trace (member → phase → wall) into rows in
// member order.
func memberPhaseRows(tr map[uint32]map[string]time.Duration) []MemberPhases {
	var out []MemberPhases
	for m, phs := range tr {
		mp := MemberPhases{Member: m, PhasesMs: map[string]float64{}}
		for ph, d := range phs {
			mp.PhasesMs[ph] = float64(d.Microseconds()) / 1000
		}
		out = append(out, mp)
	}
	slices.SortFunc(out, func(a, b MemberPhases) int { return int(a.Member) - int(b.Member) })
	return out
}

// efficiency is cpu / (wall × procs): 1 when every core was busy all along.
func efficiency(wall, cpu time.Duration, procs int) float64 {
	if wall <= 0 || procs < 1 {
		return 0
	}
	return cpu.Seconds() / (wall.Seconds() * float64(procs))
}

// printLadder prints the packed stages' rows against GOMAXPROCS (one line
// per run: wall, CPU, verdicts/s, parallel efficiency) and each run's
// phase split per member.
func printLadder(out io.Writer, rows []Row) {
	var runs []Row
	for _, r := range rows {
		if r.Members != nil {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "packed stage\tbatch\tprocs\twall ms\tcpu ms\tverdicts/s\tcpu/(wall·procs)\t\n")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.1f\t%.1f\t%.1f\t%.2f\t\n", r.Stage, r.Batch, procsOf(r), r.Ms, r.CPUMs, r.VerdictsPerS, r.ParallelEfficiency)
	}
	tw.Flush()
	fmt.Fprintln(out)
	names := make([]string, len(ladderColumns))
	for i, c := range ladderColumns {
		names[i] = c.name + " ms"
	}
	fmt.Fprintf(tw, "phase wall per member\tbatch\tprocs\tmember\t%s\t\n", strings.Join(names, "\t"))
	for _, r := range runs {
		for _, m := range r.Members {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%d", r.Stage, r.Batch, procsOf(r), m.Member)
			for _, c := range ladderColumns {
				var ms float64
				for _, ph := range c.phases {
					ms += m.PhasesMs[ph]
				}
				fmt.Fprintf(tw, "\t%.1f", ms)
			}
			fmt.Fprintf(tw, "\t\n")
		}
	}
	tw.Flush()
}

func procsOf(r Row) string {
	if r.GOMAXPROCS > 0 {
		return fmt.Sprint(r.GOMAXPROCS)
	}
	return "–"
}
