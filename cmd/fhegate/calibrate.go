package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/configs"
	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/backends"
	"github.com/fhegate/fhegate/gpu/calib"
)

// calibrateOptions are the flags of `fhegate calibrate`.
type calibrateOptions struct {
	backend, out, plotFmt, tablePath, report string
	shapes                                   string
	budget                                   time.Duration
	budgetSet                                bool // --budget given explicitly
	quick, verify                            bool
	k                                        int
}

func newCalibrateCmd(a *app) *cobra.Command {
	var o calibrateOptions
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure the NTT crossover table (CPU vs accelerator) or --verify it",
		Long: `calibrate measures the multi-modulus NTT batches fhegate's engine really hands the
dispatcher — shapes (N, moduli L, direction), each over B = 1, 2, 3, 4, 6, 8 polynomials
per modulus (the engine's B is 1…5), with input words as the engine hands them (forward:
Lattigo's lazy outputs in [0, 2q); inverse: [0, q)) — on the CPU (Lattigo's lazy Go NTT,
limb after limb: the engine's unrouted path) and on the accelerator (its multi-modulus
call) within --budget
(best of k), prints the speedup ladder and the crossover per shape, and writes
DIR/crossover.json and a plot DIR/crossover.png (or .svg). The default shapes are those
KYC/AML on BGVN14 and the N=2^13 workloads produce (calib.EngineRows); --shapes FILE
measures the shapes a run recorded instead (fhegate bench policy/workloads --shapes FILE).
The accelerator must pass its byte-equality self-test first, or nothing is written. With
no accelerator available the table records the CPU ladder and no crossovers, so every
NTT stays on the CPU.

--verify re-measures every cell of the table (--table, default DIR/crossover.json),
routing each batch by its shape exactly as the engine's, and fails unless the routed time
≤ 1.05 × min(cpu, accelerator) in every cell.`,
		Example: `  fhegate calibrate
  fhegate calibrate --backend native --out configs
  fhegate calibrate --shapes shapes.json --quick --out /tmp/cal
  fhegate calibrate --verify --table configs/crossover.json --report verify.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.budgetSet = cmd.Flags().Changed("budget")
			bar := newProgressBar(cmd.ErrOrStderr())
			co := o.calibOptions(a.Log(), bar)
			if err := o.applyShapes(&co); err != nil {
				return err
			}
			if o.verify {
				return runVerify(cmd.Context(), cmd.OutOrStdout(), bar, o, co)
			}
			return runCalibrate(cmd.Context(), a.Log(), cmd.OutOrStdout(), bar, o, co)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.backend, "backend", "", "accelerator to calibrate: opencl, metal, native, or cpu (default: first available)")
	f.DurationVar(&o.budget, "budget", 2*time.Minute, "time budget of the measurement (--quick: 20s unless set)")
	f.BoolVar(&o.quick, "quick", false, "small ladder: six shapes (N=2^13 L=2, N=2^14 L=6 and 12, both directions), B = 1, 2, 4; best of 3")
	f.StringVar(&o.shapes, "shapes", "", "measure the shapes recorded in this JSON file (fhegate bench policy/workloads --shapes) instead of the defaults")
	f.IntVar(&o.k, "k", 0, "timed rounds per cell, best-of (default 5, --quick 3)")
	f.StringVar(&o.out, "out", "configs", "output directory for crossover.json and the plot")
	f.StringVar(&o.plotFmt, "plot", "png", "plot format: png or svg")
	f.BoolVar(&o.verify, "verify", false, "re-measure the table's cells and fail unless routing is within 5% of the best backend")
	f.StringVar(&o.tablePath, "table", "", "--verify: table to check (default DIR/crossover.json)")
	f.StringVar(&o.report, "report", "", "--verify: also write the cells as JSON to this file")
	return cmd
}

// calibOptions are the measurement options the flags select.
func (o calibrateOptions) calibOptions(log *zap.Logger, bar *progressBar) calib.Options {
	co := calib.Defaults(o.quick)
	if o.budgetSet || !o.quick {
		co.Budget = o.budget
	}
	if o.k > 0 {
		co.K = o.k
	}
	co.Log = log
	co.Command = "fhegate " + strings.Join(os.Args[1:], " ")
	co.Progress = bar.update
	return co
}

// maxShapeRows bounds the rows taken from a --shapes file.
const maxShapeRows = 32

// applyShapes replaces the measured rows and ladder by those of --shapes.
func (o calibrateOptions) applyShapes(co *calib.Options) error {
	if o.shapes == "" {
		return nil
	}
	data, err := os.ReadFile(o.shapes)
	if err != nil {
		return fmt.Errorf("--shapes: %w", err)
	}
	if len(data) > 1<<20 {
		return fmt.Errorf("--shapes %s: larger than 1 MiB", o.shapes)
	}
	var shapes []gpu.ShapeCount
	if err := json.Unmarshal(data, &shapes); err != nil {
		return fmt.Errorf("--shapes %s: %w", o.shapes, err)
	}
	rows, ladder := calib.RowsFromShapes(shapes, maxShapeRows)
	if len(rows) == 0 {
		return fmt.Errorf("--shapes %s: no usable shape", o.shapes)
	}
	co.Rows, co.Batches = rows, ladder
	return nil
}

// runVerify is `fhegate calibrate --verify`: re-measure every cell of the
// table and fail unless routing is within calib.Tolerance of the best backend.
func runVerify(ctx context.Context, stdout io.Writer, bar *progressBar, o calibrateOptions, co calib.Options) error {
	tablePath := o.tablePath
	if tablePath == "" {
		tablePath = filepath.Join(o.out, configs.CrossoverFile)
	}
	data, err := os.ReadFile(tablePath)
	if err != nil {
		return fmt.Errorf("--verify: %w", err)
	}
	tab, err := gpu.ParseTable(data)
	if err != nil {
		return fmt.Errorf("--verify %s: %w", tablePath, err)
	}
	want := o.backend
	if want == "" && tab.Fingerprint.Backend != "" && tab.Fingerprint.Backend != gpu.CPUName {
		want = tab.Fingerprint.Backend
	}
	if want != "" && want != gpu.CPUName {
		acc, err := backends.Open(want)
		if err != nil {
			return fmt.Errorf("--verify: the table is for %q: %w", want, err)
		}
		defer acc.Close()
		co.Accel = acc
	}
	cells, ok, err := calib.Verify(ctx, co, tab)
	bar.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "verify %s (%d cells, tolerance routed ≤ %.2f × min(cpu, accelerator) by fastest calls or by the median paired round):\n", tablePath, len(cells), calib.Tolerance)
	calib.WriteVerify(stdout, cells)
	if o.report != "" {
		if err := writeCalibJSON(o.report, map[string]any{"table": tablePath, "tolerance": calib.Tolerance, "ok": ok, "cells": cells, "command": co.Command}); err != nil {
			return err
		}
	}
	if !ok {
		return errors.New("calibrate --verify: routed time above 1.05 × min(cpu, accelerator) in at least one cell")
	}
	fmt.Fprintln(stdout, "verify: OK")
	return nil
}

// runCalibrate is `fhegate calibrate`: measure the ladder and write the
// crossover table and its plot to --out.
func runCalibrate(ctx context.Context, log *zap.Logger, stdout io.Writer, bar *progressBar, o calibrateOptions, co calib.Options) error {
	acc, err := backends.OpenAccelerator(o.backend)
	switch {
	case err != nil && o.backend != "" && o.backend != gpu.CPUName:
		return fmt.Errorf("--backend %s: %w", o.backend, err)
	case err != nil:
		fmt.Fprintf(stdout, "no accelerator (%v)\nnothing to calibrate against: measuring the CPU ladder only; the table will have no crossovers (every NTT stays on the CPU)\n", err)
	default:
		defer acc.Close()
		co.Accel = acc
		i := acc.Info()
		fmt.Fprintf(stdout, "calibrating %s (%s; %s) against the cpu backend; self-test first\n", acc.Name(), i.Device, i.Driver)
	}
	t0 := time.Now()
	tab, err := calib.Measure(ctx, co)
	bar.done()
	if err != nil {
		return err
	}
	log.Info("calibrate: measured", zap.Duration("elapsed", time.Since(t0).Round(time.Millisecond)))
	calib.WriteLadder(stdout, tab)
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	data, err := tab.Marshal()
	if err != nil {
		return err
	}
	jp := filepath.Join(o.out, configs.CrossoverFile)
	if err := os.WriteFile(jp, data, 0o644); err != nil {
		return err
	}
	pp := filepath.Join(o.out, "crossover."+o.plotFmt)
	if err := calib.Plot(tab, pp); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s (%.1fs)\n", jp, pp, time.Since(t0).Seconds())
	return nil
}

func writeCalibJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// progressBar draws on a terminal only (w a character device, e.g. the
// command's stderr on a terminal).
type progressBar struct {
	w     io.Writer
	on    bool
	drawn bool
}

func newProgressBar(w io.Writer) *progressBar {
	f, ok := w.(*os.File)
	if !ok {
		return &progressBar{w: w}
	}
	st, err := f.Stat()
	return &progressBar{w: w, on: err == nil && st.Mode()&os.ModeCharDevice != 0}
}

func (p *progressBar) update(done, total int, label string) {
	if !p.on || total <= 0 {
		return
	}
	const width = 30
	n := done * width / total
	fmt.Fprintf(p.w, "\r[%s%s] %3d/%d %-24s", strings.Repeat("#", n), strings.Repeat(".", width-n), done, total, label)
	p.drawn = true
}

func (p *progressBar) done() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}
