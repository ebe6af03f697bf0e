package calib

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/fhegate/fhegate/gpu"
)

// Plot draws the ladder to path (.png or .svg): speedup cpu/accelerator
// against B (log2 axis), one line per N, with the break-even line at 1; for a
// CPU-only table, µs per polynomial against B.
func Plot(tab *gpu.Table, path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".png" && ext != ".svg" {
		return fmt.Errorf("calib: plot %q: want .png or .svg", path)
	}
	accel := tab.Fingerprint.Backend != "" && tab.Fingerprint.Backend != gpu.CPUName
	p := plot.New()
	p.X.Label.Text = "batch size B (polynomials)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = pow2Ticks{}
	if accel {
		p.Title.Text = fmt.Sprintf("NTT speedup cpu / %s (%s)", tab.Fingerprint.Backend, tab.Fingerprint.Device)
		p.Y.Label.Text = "speedup (>1: accelerator faster)"
	} else {
		p.Title.Text = "Lattigo NTT on the CPU (no accelerator)"
		p.Y.Label.Text = "µs per polynomial"
	}
	p.Legend.Top = false
	p.Legend.Left = false
	if accel {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = ratioTicks{}
	}
	maxB := 1.0
	var lines []any
	for _, e := range tab.Entries {
		var xy plotter.XYs
		for _, c := range e.Ladder {
			y := c.Speedup
			if !accel {
				y = c.CPUNs / float64(c.B) / 1e3
			}
			if y <= 0 {
				continue
			}
			xy = append(xy, plotter.XY{X: float64(c.B), Y: y})
			maxB = math.Max(maxB, float64(c.B))
		}
		if len(xy) == 0 {
			continue
		}
		label := entryRow(e).String()
		if e.Crossover != nil {
			label += fmt.Sprintf(" (crossover B=%d)", *e.Crossover)
		} else if accel {
			label += " (no crossover)"
		}
		lines = append(lines, label, xy)
	}
	if len(lines) > 0 {
		if err := plotutil.AddLinePoints(p, lines...); err != nil {
			return err
		}
	}
	if accel {
		one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: 1}, {X: maxB, Y: 1}})
		if err != nil {
			return err
		}
		one.Color = color.Gray{Y: 96}
		one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(one)
		p.Legend.Add("break-even", one)
	}
	p.Add(plotter.NewGrid())
	return p.Save(9*vg.Inch, 5.5*vg.Inch, path)
}

type pow2Ticks struct{}

func (pow2Ticks) Ticks(min, max float64) []plot.Tick {
	var t []plot.Tick
	for b := 1.0; b <= max*1.001; b *= 2 {
		if b >= min/1.001 {
			t = append(t, plot.Tick{Value: b, Label: strconv.Itoa(int(b))})
		}
	}
	return t
}

type ratioTicks struct{}

func (ratioTicks) Ticks(min, max float64) []plot.Tick {
	var t []plot.Tick
	for _, d := range []float64{0.01, 0.1, 1, 10, 100} {
		for _, m := range []float64{1, 2, 5} {
			v := d * m
			if v >= min/1.001 && v <= max*1.001 {
				t = append(t, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
	}
	return t
}
