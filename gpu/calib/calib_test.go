package calib_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/calib"
	"github.com/fhegate/fhegate/gpu/gputest"
)

func small(t *testing.T, acc gpu.Backend) calib.Options {
	return calib.Options{Log: zaptest.NewLogger(t), Accel: acc, LogNs: []int{10, 11}, Batches: []int{1, 2, 4},
		K: 1, Budget: 20 * time.Second, MinRound: time.Microsecond}
}

func TestMeasureVerifyPlot(t *testing.T) {
	for _, tc := range []struct {
		name string
		acc  gpu.Backend
	}{{"cpu only", nil}, {"emulator accelerator", gputest.Emulator{}}} {
		t.Run(tc.name, func(t *testing.T) {
			o := small(t, tc.acc)
			calls := 0
			o.Progress = func(done, total int, _ string) { calls++; require.LessOrEqual(t, done, total) }
			tab, err := calib.Measure(context.Background(), o)
			require.NoError(t, err)
			require.NoError(t, tab.Validate())
			require.Len(t, tab.Entries, 2)
			require.Equal(t, 6, calls)
			for _, e := range tab.Entries {
				require.Len(t, e.Ladder, 3)
				require.Equal(t, gpu.DeriveCrossover(e.Ladder), e.Crossover)
				if tc.acc == nil {
					require.Nil(t, e.Crossover)
				}
			}
			dir := t.TempDir()
			for _, name := range []string{"crossover.png", "crossover.svg"} {
				require.NoError(t, calib.Plot(tab, filepath.Join(dir, name)))
				st, err := os.Stat(filepath.Join(dir, name))
				require.NoError(t, err)
				require.Greater(t, st.Size(), int64(1000))
			}
			require.Error(t, calib.Plot(tab, filepath.Join(dir, "x.gif")))

			cells, _, err := calib.Verify(context.Background(), o, tab)
			require.NoError(t, err)
			require.Len(t, cells, 6)
			for _, c := range cells {
				thr, ok := tab.Crossover(1 << c.LogN)
				if tc.acc != nil && ok && c.B >= thr {
					require.Equal(t, tc.acc.Name(), c.Route)
				} else {
					require.Equal(t, gpu.CPUName, c.Route)
				}
			}
		})
	}
}

type broken struct{ gputest.Emulator }

func (broken) NTT(dir gpu.Direction, p *gpu.Params, src, dst [][]uint64) error {
	if err := (gputest.Emulator{}).NTT(dir, p, src, dst); err != nil {
		return err
	}
	dst[0][0]++
	return nil
}

func TestMeasureRefusesFailingBackend(t *testing.T) {
	_, err := calib.Measure(context.Background(), small(t, broken{}))
	require.True(t, errors.Is(err, calib.ErrSelfTest), err)
}

// TestMeasureVerifyRows: rows of several moduli and both directions give
// one table entry each, keyed by shape, and Verify routes every cell by the
// table's entry for its shape.
func TestMeasureVerifyRows(t *testing.T) {
	o := calib.Options{Log: zaptest.NewLogger(t), Accel: gputest.Emulator{}, K: 1, Budget: 20 * time.Second, MinRound: time.Microsecond,
		Rows:    []calib.Row{{LogN: 10, Moduli: 3, Dir: gpu.Inverse}, {LogN: 10, Moduli: 3, Dir: gpu.Forward}},
		Batches: []int{1, 2}}
	tab, err := calib.Measure(context.Background(), o)
	require.NoError(t, err)
	require.Equal(t, gpu.TableVersion, tab.Version)
	require.Len(t, tab.Entries, 2)
	require.Equal(t, "forward", tab.Entries[0].Dir, "entries sorted by shape")
	for _, e := range tab.Entries {
		require.Equal(t, 3, e.Moduli)
		require.Len(t, e.Ladder, 2)
	}
	cells, _, err := calib.Verify(context.Background(), o, tab)
	require.NoError(t, err)
	require.Len(t, cells, 4)
	for _, c := range cells {
		dir := gpu.Forward
		if c.Dir == "inverse" {
			dir = gpu.Inverse
		}
		thr, ok := tab.Route(gpu.Shape{LogN: c.LogN, Moduli: c.Moduli, B: c.B, Dir: dir})
		if ok && c.B >= thr {
			require.Equal(t, "emulator", c.Route)
		} else {
			require.Equal(t, gpu.CPUName, c.Route)
		}
	}
}

func TestRowsFromShapes(t *testing.T) {
	t.Parallel()
	shapes := []gpu.ShapeCount{
		{Shape: gpu.Shape{LogN: 14, Moduli: 6, B: 2, Dir: gpu.Forward}, Batches: 40},
		{Shape: gpu.Shape{LogN: 14, Moduli: 2, B: 2, Dir: gpu.Inverse}, Batches: 30},
		{Shape: gpu.Shape{LogN: 14, Moduli: 6, B: 4, Dir: gpu.Forward}, Batches: 20},
		{Shape: gpu.Shape{LogN: 13, Moduli: 3, B: 3, Dir: gpu.Forward}, Batches: 10},
		{Shape: gpu.Shape{LogN: 40, Moduli: 3, B: 3, Dir: gpu.Forward}, Batches: 9}, // out of range: dropped
		{Shape: gpu.Shape{LogN: 14, Moduli: 9, B: 5, Dir: gpu.Forward}, Batches: 1}, // beyond max rows
	}
	rows, ladder := calib.RowsFromShapes(shapes, 3)
	require.Equal(t, []calib.Row{{LogN: 13, Moduli: 3, Dir: gpu.Forward}, {LogN: 14, Moduli: 2, Dir: gpu.Inverse}, {LogN: 14, Moduli: 6, Dir: gpu.Forward}}, rows)
	require.Equal(t, []int{1, 2, 3, 4}, ladder)
}
