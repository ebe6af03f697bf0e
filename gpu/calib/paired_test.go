package calib

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPairedRatio(t *testing.T) {
	for _, tc := range []struct {
		name           string
		routed, cpu, a []float64
		want           float64
	}{
		{"same route, quiet", []float64{100, 101, 99}, []float64{300, 300, 300}, []float64{100, 100, 100}, 1.0},
		// Two rounds of routed hit by a burst: the median ignores them.
		{"burst on routed", []float64{140, 100, 150, 101, 100}, []float64{300, 300, 300, 300, 300}, []float64{100, 100, 100, 100, 100}, 1.01},
		// A wrong route (the CPU, 3× slower) is slow in every pair.
		{"wrong route", []float64{300, 310, 295, 305}, []float64{300, 300, 300, 300}, []float64{100, 100, 100, 100}, 3.025},
		{"no accelerator", []float64{100, 102}, []float64{100, 100}, nil, 1.01},
	} {
		t.Run(tc.name, func(t *testing.T) {
			others := []*timer{{rounds: tc.cpu}}
			if tc.a != nil {
				others = append(others, &timer{rounds: tc.a})
			}
			require.InDelta(t, tc.want, pairedRatio(&timer{rounds: tc.routed}, others...), 1e-9)
		})
	}
	require.Zero(t, pairedRatio(&timer{}, &timer{}))
}

// A route that always takes the slower side fails --verify however long it
// is re-measured; the right route passes.
func TestTimeCellCatchesWrongRoute(t *testing.T) {
	spin := func(d time.Duration) func() error {
		return func() error {
			for t0 := time.Now(); time.Since(t0) < d; {
			}
			return nil
		}
	}
	o := Options{K: 3, MinRound: time.Microsecond}
	slow, fast := spin(600*time.Microsecond), spin(200*time.Microsecond)
	vc, err := timeCell(context.Background(), o, VerifyCell{}, slow, func() (string, error) { return "cpu", slow() }, fast)
	require.NoError(t, err)
	require.False(t, vc.OK, "%+v", vc)
	require.Greater(t, vc.Paired, 2.0)

	vc, err = timeCell(context.Background(), o, VerifyCell{}, slow, func() (string, error) { return "accel", fast() }, fast)
	require.NoError(t, err)
	require.True(t, vc.OK, "%+v", vc)
}
