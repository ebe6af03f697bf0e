package committee

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestEfficiency: cpu / (wall × procs), 0 where it is undefined.
func TestEfficiency(t *testing.T) {
	for _, tc := range []struct {
		wall, cpu time.Duration
		procs     int
		want      float64
	}{
		{time.Second, 2 * time.Second, 2, 1},
		{2 * time.Second, 2 * time.Second, 4, 0.25},
		{0, time.Second, 2, 0},
		{time.Second, time.Second, 0, 0},
	} {
		require.InDelta(t, tc.want, efficiency(tc.wall, tc.cpu, tc.procs), 1e-9)
	}
}

// TestPrintLadder: the ladder prints one line per packed run and one line
// per member with the grouped phases (decrypt = digest + mask + decrypt),
// and the rows' JSON carries the efficiency and the members' phases.
func TestPrintLadder(t *testing.T) {
	tr := map[uint32]map[string]time.Duration{
		2: {"pack": 30 * time.Millisecond, "eval": 5 * time.Millisecond},
		1: {"pack": 10 * time.Millisecond, "pack-refresh": 20 * time.Millisecond, "digest": time.Millisecond, "mask": 2 * time.Millisecond,
			"decrypt": 3 * time.Millisecond, "sign": 4 * time.Millisecond},
	}
	members := memberPhaseRows(tr)
	require.Len(t, members, 2)
	require.Equal(t, uint32(1), members[0].Member)
	require.Equal(t, 10.0, members[0].PhasesMs["pack"])
	rows := []Row{
		{Stage: StageDKG, Ms: 5},
		{Stage: StageVector, Batch: 64, GOMAXPROCS: 2, Ms: 100, CPUMs: 150, VerdictsPerS: 640, ParallelEfficiency: 0.75, Members: members},
		{Stage: StageVector + "/pack", Batch: 64, GOMAXPROCS: 2, Ms: 10},
	}
	var out bytes.Buffer
	printLadder(&out, rows)
	s := out.String()
	require.Contains(t, s, "cpu/(wall·procs)")
	require.Regexp(t, `packed-kyc-vector\s+64\s+2\s+100\.0\s+150\.0\s+640\.0\s+0\.75`, s)
	// member 1: pack 10, xform 20, eval 0, decrypt 1+2+3, sign 4
	require.Regexp(t, `packed-kyc-vector\s+64\s+2\s+1\s+10\.0\s+20\.0\s+0\.0\s+6\.0\s+4\.0`, s)
	require.Regexp(t, `packed-kyc-vector\s+64\s+2\s+2\s+30\.0\s+0\.0\s+5\.0\s+0\.0\s+0\.0`, s)
	b, err := json.Marshal(rows[1])
	require.NoError(t, err)
	require.Contains(t, string(b), `"parallel_efficiency":0.75`)
	require.Contains(t, string(b), `"members":[{"member":1,"phases_ms":{`)

	out.Reset()
	printLadder(&out, rows[:1])
	require.Empty(t, out.String(), "no packed run, no ladder")
}
