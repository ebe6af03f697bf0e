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


func newCalibrateCmd(a *app) *cobra.Command {
	var (
		backend, out, plotFmt, tablePath, report string
		budget                                   time.Duration
		quick, verify                            bool
		k                                        int
	)
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure the NTT crossover table (CPU vs accelerator) or --verify it",
		Long: `calibrate measures batched forward NTTs on the CPU (Lattigo, all cores) and on the
accelerator over N = 2^10 … 2^16 and B = 1, 2, 4, … 2048 within --budget (best of k),
prints the speedup ladder and the crossover per N, and writes DIR/crossover.json and a
plot DIR/crossover.png (or .svg). The accelerator must pass its byte-equality self-test
first, or nothing is written. With only the cpu backend built (no -tags opencl, not a
Mac) there is nothing to compare against: the table records the CPU ladder and no
crossovers, so every NTT stays on the CPU.

--verify re-measures every cell of the table (--table, default DIR/crossover.json) and
fails unless the routed time ≤ 1.05 × min(cpu, accelerator) in every cell.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log := a.Log()
			o := calib.Defaults(quick)
			if cmd.Flags().Changed("budget") || !quick {
				o.Budget = budget
			}
			if k > 0 {
				o.K = k
			}
			o.Log = log
			o.Command = "fhegate " + strings.Join(os.Args[1:], " ")
			stdout := cmd.OutOrStdout()
			bar := newProgressBar(os.Stderr)
			o.Progress = bar.update
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}

			if verify {
				if tablePath == "" {
					tablePath = filepath.Join(out, configs.CrossoverFile)
				}
				data, err := os.ReadFile(tablePath)
				if err != nil {
					return fmt.Errorf("--verify: %w", err)
				}
				tab, err := gpu.ParseTable(data)
				if err != nil {
					return fmt.Errorf("--verify %s: %w", tablePath, err)
				}
				want := backend
				if want == "" && tab.Fingerprint.Backend != "" && tab.Fingerprint.Backend != gpu.CPUName {
					want = tab.Fingerprint.Backend
				}
				if want != "" && want != gpu.CPUName {
					acc, err := backends.Open(want)
					if err != nil {
						return fmt.Errorf("--verify: the table is for %q: %w", want, err)
					}
					defer acc.Close()
					o.Accel = acc
				}
				cells, ok, err := calib.Verify(ctx, o, tab)
				bar.done()
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "verify %s (%d cells, tolerance routed ≤ %.2f × min(cpu, accelerator)):\n", tablePath, len(cells), calib.Tolerance)
				calib.WriteVerify(stdout, cells)
				if report != "" {
					if err := writeCalibJSON(report, map[string]any{"table": tablePath, "tolerance": calib.Tolerance, "ok": ok, "cells": cells, "command": o.Command}); err != nil {
						return err
					}
				}
				if !ok {
					return errors.New("calibrate --verify: routed time above 1.05 × min(cpu, accelerator) in at least one cell")
				}
				fmt.Fprintln(stdout, "verify: OK")
				return nil
			}

			acc, err := backends.OpenAccelerator(backend)
			switch {
			case err != nil && backend != "" && backend != gpu.CPUName:
				return fmt.Errorf("--backend %s: %w", backend, err)
			case err != nil:
				fmt.Fprintf(stdout, "no accelerator (%v)\nnothing to calibrate against: measuring the CPU ladder only; the table will have no crossovers (every NTT stays on the CPU)\n", err)
			default:
				defer acc.Close()
				o.Accel = acc
				i := acc.Info()
				fmt.Fprintf(stdout, "calibrating %s (%s; %s) against the cpu backend; self-test first\n", acc.Name(), i.Device, i.Driver)
			}
			t0 := time.Now()
			tab, err := calib.Measure(ctx, o)
			bar.done()
			if err != nil {
				return err
			}
			log.Info("calibrate: measured", zap.Duration("elapsed", time.Since(t0).Round(time.Millisecond)))
			calib.WriteLadder(stdout, tab)
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			data, err := tab.Marshal()
			if err != nil {
				return err
			}
			jp := filepath.Join(out, configs.CrossoverFile)
			if err := os.WriteFile(jp, data, 0o644); err != nil {
				return err
			}
			pp := filepath.Join(out, "crossover."+plotFmt)
			if err := calib.Plot(tab, pp); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s and %s (%.1fs)\n", jp, pp, time.Since(t0).Seconds())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&backend, "backend", "", "accelerator to calibrate: opencl, metal, or cpu (default: first available)")
	f.DurationVar(&budget, "budget", 2*time.Minute, "time budget of the measurement (--quick: 20s unless set)")
	f.BoolVar(&quick, "quick", false, "small ladder: N 2^10, 2^12, 2^14; B ≤ 256; best of 3")
	f.IntVar(&k, "k", 0, "timed rounds per cell, best-of (default 5, --quick 3)")
	f.StringVar(&out, "out", "configs", "output directory for crossover.json and the plot")
	f.StringVar(&plotFmt, "plot", "png", "plot format: png or svg")
	f.BoolVar(&verify, "verify", false, "re-measure the table's cells and fail unless routing is within 5% of the best backend")
	f.StringVar(&tablePath, "table", "", "--verify: table to check (default DIR/crossover.json)")
	f.StringVar(&report, "report", "", "--verify: also write the cells as JSON to this file")
	return cmd
}

func writeCalibJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// progressBar draws on a terminal only (stderr a character device).
type progressBar struct {
	w     io.Writer
	on    bool
	drawn bool
}

func newProgressBar(f *os.File) *progressBar {
	st, err := f.Stat()
	return &progressBar{w: f, on: err == nil && st.Mode()&os.ModeCharDevice != 0}
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
