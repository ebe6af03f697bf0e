package consensus_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/circuit"
	"github.com/fhegate/fhegate/consensus/local"
)

// TestResumeLocal: an in-process committee closed and resumed from its
// directory keeps its members' secrets and DKG keys (no new DKG) and answers
// requests on fresh ports, for inputs uploaded before and after the restart.
func TestResumeLocal(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir := t.TempDir()
	o := local.Options{N: 3, T: 2, Dir: dir, Preset: "InsecureBGVN10", Rotations: []int{1},
		RoundTimeout: 10 * time.Second, BatchSize: 4, Serve: true, Log: zaptest.NewLogger(t)}
	require.False(t, local.HasState(dir))
	lc, err := local.Start(ctx, o)
	require.NoError(t, err)
	require.True(t, local.HasState(dir))
	before := lc.Member(1).Status()
	early := makeRequests(t, lc, 1, 1, 5)
	lc.Chain.Post(early[0].req)
	waitVerdicts(t, lc.Chain, early)
	lc.Close()

	lc2, err := local.Resume(ctx, local.Options{Dir: dir, RoundTimeout: 10 * time.Second, BatchSize: 4, Serve: true, Log: zaptest.NewLogger(t)})
	require.NoError(t, err)
	t.Cleanup(lc2.Close)
	require.Equal(t, lc.Config.Members[0].BLSKey, lc2.Config.Members[0].BLSKey)
	for id := uint32(1); id <= 3; id++ {
		st := lc2.Member(id).Status()
		require.True(t, st.HaveKeys)
		require.Equal(t, before.KeyDigest, st.KeyDigest, "member %d", id)
	}
	late := makeRequests(t, lc2, 2, 2, 6)
	// An input uploaded before the restart evaluates after it.
	late[1].req.Inputs[0] = early[0].req.Inputs[0]
	late[1].want = circuit.ProductSum{}.Reference(lc2.Member(1).Params(), []int64{early[0].vals[0], late[1].vals[1]})
	for _, q := range late {
		lc2.Chain.Post(q.req)
	}
	waitVerdicts(t, lc2.Chain, late)
}
