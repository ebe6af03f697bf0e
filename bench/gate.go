package bench

import (
	"fmt"
	"io"
	"os"

	"github.com/fhegate/fhegate/fhe/engine"
	"github.com/fhegate/fhegate/gpu"
)

// Gate is the NTT gate's columns of a bench row (bench policy,
// workloads and committee): the backend in force, the engine's counters for
// the measured work and the same work's time with every transform on
// Lattigo's own Go NTT, measured in the same process (baseline_go_ms).
type Gate struct {
	// Backend is the accelerator that routing may use ("cpu" when none is
	// armed or the table routes nothing, "none" without a dispatcher).
	Backend        string  `json:"backend"`
	BaselineGoMs   float64 `json:"baseline_go_ms"`
	RoutedFraction float64 `json:"routed_fraction"`
	MedianBatch    int     `json:"median_batch"`
	P95Batch       int     `json:"p95_batch"`
	// MeanBatch is Transforms / Batches; TransformMedianBatch the size of
	// the batch the median transform travelled in (gpu.RouterStats).
	MeanBatch            float64 `json:"mean_batch"`
	TransformMedianBatch int     `json:"transform_median_batch"`
	// Transforms, Routed and Batches are per evaluation where the bench
	// repeats one (bench policy), else totals over the measured work.
	Transforms uint64 `json:"engine_transforms"`
	Routed     uint64 `json:"routed"`
	Batches    uint64 `json:"engine_batches"`
	// The key switch's loops the accelerator ran (gpu.RouterStats): moduli
	// of multiply-accumulates, basis extensions, ModDown/rescale limbs.
	MulAcc    uint64 `json:"muladd_routed,omitempty"`
	ModUp     uint64 `json:"modup_routed,omitempty"`
	ScaleDiff uint64 `json:"scalediff_routed,omitempty"`
	// BGV's products outside the key switch: tensor limbs, limbs of
	// multiply-adds by an integer and of linear combinations (a baby
	// step's multiply-adds in one pass).
	Tensor  uint64 `json:"tensor_routed,omitempty"`
	MulAdd  uint64 `json:"scalar_muladd_routed,omitempty"`
	LinComb uint64 `json:"lincomb_routed,omitempty"`
	// Shed: routed calls that found an exclusive device busy and ran on
	// the CPU (gpu.RouterStats.Shed), a total over the measured work.
	Shed uint64 `json:"shed,omitempty"`
}

// GateBackend names the backend in force of d.
func GateBackend(d *gpu.Dispatcher) string {
	if d == nil {
		return "none"
	}
	if st := d.Status(); st.Armed && st.Routing {
		return st.Accelerator
	}
	return gpu.CPUName
}

// ResetGate zeroes the installed dispatcher's seam counters.
func ResetGate() {
	if d := gpu.Installed(); d != nil {
		d.ResetRouterStats()
	}
}

// GateNow reads the installed dispatcher's counters since the last
// reset; per > 1 divides the counts (per evaluation).
func GateNow(per int) Gate {
	d := gpu.Installed()
	c := Gate{Backend: GateBackend(d)}
	if d == nil {
		return c
	}
	rs := d.RouterStats()
	c.RoutedFraction = float64(int64(rs.RoutedFraction()*1e4+0.5)) / 1e4
	c.MedianBatch, c.P95Batch, c.TransformMedianBatch = rs.MedianBatch, rs.P95Batch, rs.TransformMedianBatch
	if rs.Batches > 0 {
		c.MeanBatch = Round2(float64(rs.Transforms) / float64(rs.Batches))
	}
	c.Transforms, c.Routed, c.Batches = rs.Transforms, rs.Routed, rs.Batches
	c.MulAcc, c.ModUp, c.ScaleDiff = rs.MulAcc, rs.ModUp, rs.ScaleDiff
	c.Tensor, c.MulAdd, c.LinComb, c.Shed = rs.Tensor, rs.MulAdd, rs.LinComb, rs.Shed
	if per > 1 {
		c.Transforms /= uint64(per)
		c.Routed /= uint64(per)
		c.Batches /= uint64(per)
		c.MulAcc /= uint64(per)
		c.ModUp /= uint64(per)
		c.ScaleDiff /= uint64(per)
		c.Tensor /= uint64(per)
		c.MulAdd /= uint64(per)
		c.LinComb /= uint64(per)
	}
	return c
}

// GateOf runs f with the installed dispatcher's counters reset before and
// returns f's error and the counters of f's work alone.
func GateOf(f func() error) (Gate, error) {
	ResetGate()
	err := f()
	return GateNow(1), err
}

// WithPureGo runs f with no router installed in fhegate's engine, so every
// transform runs Lattigo's own Go NTT — the pure-Go baseline of the same
// process. The router in force is restored afterwards; work running
// concurrently meanwhile is pure Go too.
func WithPureGo(f func() error) error {
	prev := engine.CurrentRouter()
	engine.SetRouter(nil)
	defer engine.SetRouter(prev)
	return f()
}

// WriteShapes writes the multi-modulus batch shapes the engine handed the
// dispatcher since the last reset (most frequent first) as JSON to path:
// what `fhegate calibrate --shapes` measures. Empty path: nothing.
func WriteShapes(stdout io.Writer, path string) error {
	if path == "" {
		return nil
	}
	d := gpu.Installed()
	if d == nil {
		return fmt.Errorf("--shapes: no dispatcher installed")
	}
	shapes, other := d.Shapes()
	if other > 0 {
		fmt.Fprintf(os.Stderr, "note: %d batches of shapes beyond the tracked %d not listed\n", other, len(shapes))
	}
	return WriteJSON(stdout, path, shapes)
}

// PrintGateLine prints one line with the gate columns of a bench.
func PrintGateLine(w io.Writer, what string, c Gate, ms float64) {
	ratio := "–"
	if ms > 0 && c.BaselineGoMs > 0 {
		ratio = fmt.Sprintf("%.2f×", c.BaselineGoMs/ms)
	}
	shed := ""
	if c.Shed > 0 {
		shed = fmt.Sprintf(", %d calls shed to the CPU (device busy)", c.Shed)
	}
	fmt.Fprintf(w, "  %s: backend %s, routed %d/%d transforms (%.1f%%), batch median %d p95 %d%s, pure-Go %.1f ms vs %.1f ms (go/routed %s)\n",
		what, c.Backend, c.Routed, c.Transforms, 100*c.RoutedFraction, c.MedianBatch, c.P95Batch, shed, c.BaselineGoMs, ms, ratio)
}
