package committee

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/gpu"
)

// TestRefreshThreshold: the refresh stage's committee of n has threshold
// ⌊n/2⌋+1.
func TestRefreshThreshold(t *testing.T) {
	for n, want := range map[int]int{2: 2, 3: 2, 4: 3, 5: 3, 7: 4} {
		require.Equal(t, want, refreshThreshold(n), "n=%d", n)
	}
}

// TestValidate: unknown stages, empty batches, a GOMAXPROCS outside
// [1, 4096], a one-member refresh committee and no refreshes are errors.
func TestValidate(t *testing.T) {
	ok := Options{Stages: Stages, Packed: []int{64}, RefreshN: []int{3}, RefreshK: 1, GOMAXPROCS: []int{1, 2}}
	require.NoError(t, ok.Validate())
	for _, tc := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"unknown stage", func(o *Options) { o.Stages = []string{"refesh"} }, "unknown stage"},
		{"empty batch", func(o *Options) { o.Packed = []int{0} }, "--packed 0"},
		{"gomaxprocs 0", func(o *Options) { o.GOMAXPROCS = []int{0} }, "--procs 0"},
		{"gomaxprocs huge", func(o *Options) { o.GOMAXPROCS = []int{4097} }, "--procs 4097"},
		{"one member", func(o *Options) { o.RefreshN = []int{1} }, "--refresh-n 1"},
		{"no refreshes", func(o *Options) { o.RefreshK = 0 }, "--refresh-k 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.edit(&o)
			require.ErrorContains(t, o.Validate(), tc.want)
		})
	}
}

// TestCommandRefreshQuick runs the refresh stage as `--quick
// --refresh-only` does (BGVN13, n=3, t=2, 3 refreshes) and checks the row.
// A DKG at N=2^13 takes seconds: skipped under -short.
func TestCommandRefreshQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("committee DKG: slow")
	}
	out := filepath.Join(t.TempDir(), "refresh.json")
	var stdout bytes.Buffer
	c := Command{Options: Options{Presets: []string{"bgv-n13-t65537"}, N: 5, T: 3, Stages: []string{StageRefresh},
		RefreshN: []int{3}, RefreshK: 3, Log: zaptest.NewLogger(t)}, JSONPath: out, Stdout: &stdout, Stderr: &stdout}
	require.NoError(t, c.Run(context.Background()))
	raw, err := os.ReadFile(out)
	require.NoError(t, err)
	var rows []Row
	require.NoError(t, json.Unmarshal(raw, &rows))
	require.Len(t, rows, 2)
	require.Equal(t, StageDKG, rows[0].Stage)
	r := rows[1]
	require.Equal(t, StageRefresh, r.Stage)
	require.Equal(t, 3, r.N)
	require.Equal(t, 2, r.T)
	require.Equal(t, 3, r.Runs)
	require.Positive(t, r.Ms)
	require.Positive(t, r.ShareBytes)
	require.Equal(t, 2*r.ShareBytes, r.BytesPerMember)
	require.Contains(t, stdout.String(), "bytes/active member")
}

// TestGateStage: a committee stage's rows carry the gate's counters of the
// stage (bench.GateOf); with nothing routed — here no dispatcher at all — the
// stage's own time is its pure-Go baseline.
func TestGateStage(t *testing.T) {
	require.Nil(t, gpu.Installed())
	rows, err := gateStage(func() ([]Row, error) {
		return []Row{{Stage: StageBatch, Ms: 12.5}, {Stage: StageBatch + "/eval", Ms: 3}}, nil
	})
	require.NoError(t, err)
	require.Len(t, rows, 2)
	for _, r := range rows {
		require.Equal(t, "none", r.Backend)
		require.Zero(t, r.Transforms)
		require.Equal(t, r.Ms, r.BaselineGoMs)
	}
	_, err = gateStage(func() ([]Row, error) { return nil, errors.New("stage failed") })
	require.ErrorContains(t, err, "stage failed")
}

// TestTraceBeforePackedStages: the verdict stage traces member phases before
// any packed stage has run (the packed stages reset the per-member map; the
// verdict stage used to write into a nil one and panic). Every member's
// phases are summed, member 1's also into the verdict stage's phases, and
// nothing is recorded while tracing is off.
func TestTraceBeforePackedStages(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *committeeBench
	}{
		{"zero value", &committeeBench{}},
		{"as startCommitteeBench makes it", &committeeBench{phases: map[string]time.Duration{}, memberPhases: map[uint32]map[string]time.Duration{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b
			b.trace(1, [32]byte{}, "eval", time.Second) // tracing off: dropped
			b.setTracing(true)
			b.trace(1, [32]byte{}, "eval", 2*time.Millisecond)
			b.trace(1, [32]byte{}, "eval", 3*time.Millisecond)
			b.trace(2, [32]byte{}, "sign", 7*time.Millisecond)
			b.setTracing(false)
			b.trace(2, [32]byte{}, "sign", time.Second) // dropped
			require.Equal(t, map[string]time.Duration{"eval": 5 * time.Millisecond}, b.phases)
			require.Equal(t, map[uint32]map[string]time.Duration{
				1: {"eval": 5 * time.Millisecond},
				2: {"sign": 7 * time.Millisecond},
			}, b.memberPhases)
		})
	}
}
