package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/bench/committee"
)

// parseBenchCommittee parses args into the command's options.
func parseBenchCommittee(t *testing.T, args ...string) (*committee.Options, error) {
	t.Helper()
	var f benchCommitteeFlags
	cmd := &cobra.Command{}
	f.register(cmd)
	require.NoError(t, cmd.ParseFlags(args))
	return f.options(cmd.Flags(), zap.NewNop())
}

// TestBenchCommitteeOptions: the defaults, --quick (explicit flags win),
// --refresh-only and --stages.
func TestBenchCommitteeOptions(t *testing.T) {
	o, err := parseBenchCommittee(t)
	require.NoError(t, err)
	require.Equal(t, committee.Stages, o.Stages)
	require.Equal(t, []int{3, 5}, o.RefreshN)
	require.Equal(t, 7, o.RefreshK)
	require.Equal(t, []string{"bgv-n13-t65537", "bgv-n14-t65537"}, o.Presets)
	require.Equal(t, 5, o.N)
	require.Equal(t, 3, o.T)
	require.Equal(t, 64, o.Batch)
	require.Equal(t, 16, o.KYCBatch)
	require.Equal(t, []int{64, 1024}, o.Packed)
	require.True(t, o.Has(committee.StagePacked))

	o, err = parseBenchCommittee(t, "--quick", "--batch", "8")
	require.NoError(t, err)
	require.Equal(t, []string{"bgv-n13-t65537"}, o.Presets)
	require.Equal(t, []int{3}, o.RefreshN)
	require.Equal(t, 3, o.RefreshK)
	require.Equal(t, 8, o.Batch)
	require.Zero(t, o.KYCBatch)
	require.Empty(t, o.Packed, "--quick skips the packed stage")

	o, err = parseBenchCommittee(t, "--refresh-only", "--preset", "bgv-n14-t65537")
	require.NoError(t, err)
	require.Equal(t, []string{committee.StageRefresh}, o.Stages)
	require.False(t, mainStages(o))
	require.False(t, o.Has(committee.StageDKG))

	o, err = parseBenchCommittee(t, "--stages", "dkg,refresh", "--refresh-n", "5")
	require.NoError(t, err)
	require.True(t, o.Has(committee.StageDKG))
	require.False(t, mainStages(o))
	require.Equal(t, []int{5}, o.RefreshN)

	_, err = parseBenchCommittee(t, "--stages", "refesh")
	require.ErrorContains(t, err, "unknown stage")
	_, err = parseBenchCommittee(t, "--refresh-only", "--stages", "dkg")
	require.Equal(t, exitUsage, exitCode(err), "%v", err)
	_, err = parseBenchCommittee(t, "--refresh-n", "1")
	require.Error(t, err)
	_, err = parseBenchCommittee(t, "--packed", "0")
	require.Error(t, err)
	o, err = parseBenchCommittee(t, "--stages", "packed-kyc", "--packed", "16384")
	require.NoError(t, err)
	require.True(t, mainStages(o))
	require.Equal(t, []int{16384}, o.Packed)
	o, err = parseBenchCommittee(t, "--stages", "packed-kyc-vector", "--gomaxprocs", "1,2")
	require.NoError(t, err)
	require.Equal(t, []int{1, 2}, o.GOMAXPROCS)
	o, err = parseBenchCommittee(t, "--stages", "packed-kyc-vector", "--procs", "2,4,8,16")
	require.NoError(t, err)
	require.Equal(t, []int{2, 4, 8, 16}, o.GOMAXPROCS)
	_, err = parseBenchCommittee(t, "--gomaxprocs", "0")
	require.ErrorContains(t, err, "--procs 0")
	_, err = parseBenchCommittee(t, "--procs", "0")
	require.ErrorContains(t, err, "--procs 0")
}

// mainStages reports whether o selects a stage that runs on the (N, T)
// committee after its DKG.
func mainStages(o *committee.Options) bool {
	return slices.ContainsFunc(o.Stages, func(s string) bool { return s != committee.StageDKG && s != committee.StageRefresh })
}

// TestBenchCommandsWired: every bench subcommand is under `fhegate bench`
// and has --json.
func TestBenchCommandsWired(t *testing.T) {
	root, _ := newRootCmd()
	for _, name := range []string{"committee", "crdt", "inputs", "load", "policy", "workloads"} {
		cmd, _, err := root.Find([]string{"bench", name})
		require.NoError(t, err, name)
		require.Equal(t, name, cmd.Name())
		require.NotNil(t, cmd.Flags().Lookup("json"), name)
	}
}

// TestBenchRejectsBadRuns: --runs 0 is a usage error (exit status 2) for
// the benches that count runs.
func TestBenchRejectsBadRuns(t *testing.T) {
	for _, name := range []string{"crdt", "workloads"} {
		root, _ := newRootCmd()
		root.SetOut(&lockedBuffer{})
		root.SetErr(&lockedBuffer{})
		root.SetArgs([]string{"bench", name, "--runs", "0"})
		err := root.Execute()
		require.ErrorContains(t, err, "--runs must be ≥ 1", name)
		require.Equal(t, exitUsage, exitCode(err), name)
	}
}

// TestBenchInputsQuick: --quick measures inputsQuickRuns runs per row, a
// --runs given explicitly wins, and without --quick the default is 11.
func TestBenchInputsQuick(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 11},
		{[]string{"--quick"}, inputsQuickRuns},
		{[]string{"--quick", "--runs", "5"}, 5},
		{[]string{"--runs", "7"}, 7},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			cmd := newBenchInputsCmd(&app{})
			require.NoError(t, cmd.ParseFlags(tc.args))
			quick, err := cmd.Flags().GetBool("quick")
			require.NoError(t, err)
			runs, err := cmd.Flags().GetInt("runs")
			require.NoError(t, err)
			require.Equal(t, tc.want, inputsRuns(cmd.Flags(), quick, runs))
		})
	}
}
