package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/backends"
)

func newGPUCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gpu",
		Short: "GPU gate: NTT backends, arming and the crossover table (info, calibrate)",
		Long: `The GPU gate routes NTT batches to an accelerator only where this machine's own
measurements say it wins. Subcommands:

  info       list the backends, whether each is armed (and why), and the table in force
  calibrate  measure the crossover table (the same command as "fhegate calibrate")`,
	}
	calibrate := newCalibrateCmd(a)
	calibrate.Example = strings.ReplaceAll(calibrate.Example, "fhegate calibrate", "fhegate gpu calibrate")
	cmd.AddCommand(newGPUInfoCmd(a), calibrate)
	return cmd
}

// gpuInfoOptions are the flags of `fhegate gpu info`.
type gpuInfoOptions struct {
	tablePath, backend string
	asJSON             bool
}

func newGPUInfoCmd(a *app) *cobra.Command {
	var o gpuInfoOptions
	info := &cobra.Command{
		Use:   "info",
		Short: "List the NTT backends, whether each is armed (and why), and the crossover table in force",
		Example: `  fhegate gpu info
  fhegate gpu info --table configs/crossover.json --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runGPUInfo(a.Log(), cmd.OutOrStdout(), o)
		},
	}
	info.Flags().StringVar(&o.tablePath, "table", "", "crossover table file (default: the embedded configs/crossover.json)")
	info.Flags().StringVar(&o.backend, "backend", "", "accelerator to arm: opencl, metal, native, cpu (default: the table's, else first available)")
	info.Flags().BoolVar(&o.asJSON, "json", false, "print JSON")
	return info
}

// gpuBackendRow is one NTT backend in `fhegate gpu info`.
type gpuBackendRow struct {
	Backend  string          `json:"backend"`
	Built    bool            `json:"built"`
	Found    bool            `json:"found"`
	Device   *gpu.DeviceInfo `json:"device,omitempty"`
	SelfTest string          `json:"self_test"`
	Error    string          `json:"error,omitempty"`
}

// probeGPUBackends probes every NTT backend and self-tests those found.
func probeGPUBackends() []gpuBackendRow {
	var rows []gpuBackendRow
	for _, p := range backends.ProbeAll() {
		r := gpuBackendRow{Backend: p.Name, Built: p.Built, Found: p.Backend != nil}
		if p.Err != nil {
			r.Error = p.Err.Error()
			r.SelfTest = "not run"
		}
		if p.Backend != nil {
			i := p.Backend.Info()
			r.Device = &i
			t0 := time.Now()
			if err := gpu.SelfTest(p.Backend, uint64(t0.UnixNano())); err != nil {
				r.SelfTest = "FAIL: " + err.Error()
			} else {
				r.SelfTest = fmt.Sprintf("pass (%v)", time.Since(t0).Round(time.Millisecond))
			}
			_ = p.Backend.Close()
		}
		rows = append(rows, r)
	}
	return rows
}

func runGPUInfo(log *zap.Logger, out io.Writer, o gpuInfoOptions) error {
	rows := probeGPUBackends()
	d, acc := backends.NewDispatcher(backends.Config{Log: log, Backend: o.backend, TablePath: o.tablePath, Embedded: configs.CrossoverJSON()})
	if acc != nil {
		defer acc.Close()
	}
	st := d.Status()
	kernels := accelKernels(acc)
	if o.asJSON {
		b, err := json.MarshalIndent(map[string]any{"backends": rows, "dispatcher": st, "accelerator_kernels": kernels}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(out, string(b))
		return nil
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BACKEND\tBUILT\tFOUND\tDEVICE\tSELF-TEST\tNOTE")
	for _, r := range rows {
		dev := "-"
		if r.Device != nil {
			dev = r.Device.Device + " / " + r.Device.Driver
		}
		fmt.Fprintf(tw, "%s\t%v\t%v\t%s\t%s\t%s\n", r.Backend, r.Built, r.Found, dev, r.SelfTest, r.Error)
	}
	_ = tw.Flush()
	printGPUDispatcher(out, d, st)
	if len(kernels) > 0 {
		fmt.Fprintf(out, "accelerator kernels: %s\n", strings.Join(kernels, "; "))
	}
	return nil
}

// accelKernels lists what the accelerator runs besides the NTT, as the
// dispatcher would route it: the key switch's loops, BGV's products (and
// whether they are switched on), linear combinations, and whether it takes
// one call at a time.
func accelKernels(acc gpu.Backend) []string {
	if acc == nil {
		return nil
	}
	out := []string{"NTT"}
	if _, ok := acc.(gpu.KeySwitchBackend); ok {
		out = append(out, "key switch (multiply-accumulate, basis extension, ModDown/rescale)")
	}
	if _, ok := acc.(gpu.ProductBackend); ok {
		p := "BGV products (tensor, multiply-add"
		if _, ok := acc.(gpu.LinCombBackend); ok {
			p += ", baby-step linear combinations"
		}
		p += ")"
		if sw, ok := acc.(gpu.ProductSwitch); ok && !sw.ProductsOn() {
			p += " — off (FHEGATE_OPENCL_PRODUCTS=1 turns them on)"
		}
		out = append(out, p)
	}
	if e, ok := acc.(gpu.Exclusive); ok && e.Exclusive() {
		out = append(out, "one call at a time (a busy device sheds calls to the CPU; FHEGATE_GPU_QUEUE=1 waits)")
	}
	return out
}

// printGPUDispatcher prints the dispatcher's state: the accelerator, the
// table in force and this process's counters.
func printGPUDispatcher(out io.Writer, d *gpu.Dispatcher, st gpu.Status) {
	acName := st.Accelerator
	if acName == "" {
		acName = "none"
	}
	fmt.Fprintf(out, "\naccelerator: %s; armed: %v; routing: %v\nreason: %s\n", acName, st.Armed, st.Routing, st.Reason)
	fmt.Fprintf(out, "table: %s\n", st.TableSource)
	if t := st.Table; t != nil {
		fmt.Fprintf(out, "  fingerprint: backend=%q device=%q driver=%q host_cpu=%q\n", t.Fingerprint.Backend, t.Fingerprint.Device, t.Fingerprint.Driver, t.Fingerprint.HostCPU)
		if t.Created != "" {
			fmt.Fprintf(out, "  created %s by %q\n", t.Created, t.Command)
		}
		if len(t.Entries) == 0 {
			fmt.Fprintln(out, "  no entries: every N on the CPU")
		}
		for _, e := range t.Entries {
			x := "none (CPU)"
			if e.Crossover != nil {
				x = fmt.Sprintf("B ≥ %d", *e.Crossover)
			}
			sh := gpu.Shape{LogN: e.LogN, Moduli: e.Moduli}
			if e.Dir == "inverse" {
				sh.Dir = gpu.Inverse
			}
			in := ""
			if b, ok := d.Threshold(sh); ok {
				in = fmt.Sprintf(" — in force: B ≥ %d", b)
			}
			fmt.Fprintf(out, "  N=2^%-2d %s crossover %s (%d cells measured)%s\n", e.LogN, entryShape(e), x, len(e.Ladder), in)
		}
	} else {
		fmt.Fprintln(out, "  (no usable table: CPU only)")
	}
	fmt.Fprintln(out, "counters (this process):")
	for _, s := range st.Stats {
		fmt.Fprintf(out, "  %-8s batches=%d polys=%d fallbacks=%d\n", s.Backend, s.Batches, s.Polys, s.Fallbacks)
	}
}

// entryShape describes the moduli and direction of a table entry.
func entryShape(e gpu.Entry) string {
	l, dir := "any L", "any dir"
	if e.Moduli > 0 {
		l = fmt.Sprintf("L=%d", e.Moduli)
	}
	if e.Dir != "" {
		dir = e.Dir
	}
	return l + " " + dir
}
