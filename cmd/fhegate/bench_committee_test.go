package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/multiparty/mpbgv"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/utils/sampling"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/fhe"
)

// parseBenchCommittee parses args into the command's options.
func parseBenchCommittee(t *testing.T, args ...string) (*benchCommitteeOptions, error) {
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
	require.Equal(t, committeeStages, o.Stages)
	require.Equal(t, []int{3, 5}, o.RefreshN)
	require.Equal(t, 7, o.RefreshK)
	require.Equal(t, []string{"bgv-n13-t65537", "bgv-n14-t65537"}, o.Presets)
	require.Equal(t, 5, o.N)
	require.Equal(t, 3, o.T)
	require.Equal(t, 64, o.Batch)
	require.Equal(t, 16, o.KYCBatch)
	require.Equal(t, []int{64, 1024}, o.Packed)
	require.True(t, o.has(stagePacked))

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
	require.Equal(t, []string{stageRefresh}, o.Stages)
	require.False(t, o.mainStages())
	require.False(t, o.has(stageDKG))

	o, err = parseBenchCommittee(t, "--stages", "dkg,refresh", "--refresh-n", "5")
	require.NoError(t, err)
	require.True(t, o.has(stageDKG))
	require.False(t, o.mainStages())
	require.Equal(t, []int{5}, o.RefreshN)

	_, err = parseBenchCommittee(t, "--stages", "refesh")
	require.ErrorContains(t, err, "unknown stage")
	_, err = parseBenchCommittee(t, "--refresh-only", "--stages", "dkg")
	require.Error(t, err)
	_, err = parseBenchCommittee(t, "--refresh-n", "1")
	require.Error(t, err)
	_, err = parseBenchCommittee(t, "--packed", "0")
	require.Error(t, err)
	o, err = parseBenchCommittee(t, "--stages", "packed-kyc", "--packed", "16384")
	require.NoError(t, err)
	require.True(t, o.mainStages())
	require.Equal(t, []int{16384}, o.Packed)
	o, err = parseBenchCommittee(t, "--stages", "packed-kyc-vector", "--gomaxprocs", "1,2")
	require.NoError(t, err)
	require.Equal(t, []int{1, 2}, o.GOMAXPROCS)
	_, err = parseBenchCommittee(t, "--gomaxprocs", "0")
	require.ErrorContains(t, err, "--gomaxprocs 0")
}

func TestRefreshThresholdAndMedian(t *testing.T) {
	require.Equal(t, 2, refreshThreshold(3))
	require.Equal(t, 3, refreshThreshold(5))
	require.Equal(t, 3*time.Millisecond, medianDuration([]time.Duration{5 * time.Millisecond, 1 * time.Millisecond, 3 * time.Millisecond}))
	require.Equal(t, 2*time.Millisecond, medianDuration([]time.Duration{4 * time.Millisecond, 1 * time.Millisecond, 3 * time.Millisecond, 1 * time.Millisecond}))
	require.Zero(t, medianDuration(nil))
}

// TestRefreshShareBytes: refreshShareBytes equals the length of a refresh
// share generated the way protocol.Refresh generates it (mpbgv GenShare on
// the ciphertext, then MarshalBinary), at level 0 and at the top level.
func TestRefreshShareBytes(t *testing.T) {
	pr, err := fhe.PresetByName("bgv-n13-t65537")
	require.NoError(t, err)
	p, err := fhe.NewParams(pr.ID)
	require.NoError(t, err)
	sk, pk := rlwe.NewKeyGenerator(p.RLWE()).GenKeyPairNew()
	enc := fhe.NewEncryptor(fhe.WrapPublicKey(p, pk))
	rfp, err := mpbgv.NewRefreshProtocol(p.BGV(), ring.DiscreteGaussian{Sigma: 1 << 20, Bound: 6 << 20})
	require.NoError(t, err)
	prng, err := sampling.NewKeyedPRNG([]byte("crs"))
	require.NoError(t, err)
	crp := rfp.SampleCRP(p.MaxLevel(), prng)
	for _, level := range []int{0, p.MaxLevel()} {
		ct, err := enc.EncryptIntsAtLevel(refreshVector(p, level), level)
		require.NoError(t, err)
		share := rfp.AllocateShare(ct.Level(), p.MaxLevel())
		require.NoError(t, rfp.GenShare(sk, ct.Lattigo(), crp, &share))
		raw, err := share.MarshalBinary()
		require.NoError(t, err)
		got, err := refreshShareBytes(p, ct)
		require.NoError(t, err)
		require.Equal(t, len(raw), got, "level %d", level)
		// Two polynomials: level+1 and MaxLevel+1 residues of N 8-byte words.
		require.GreaterOrEqual(t, got, (level+1+p.MaxLevel()+1)*p.N()*8)
	}
}

// TestBenchCommitteeRefreshQuick runs the refresh stage as `--quick
// --refresh-only` does (BGVN13, n=3, t=2, 3 refreshes) and checks the row.
// A DKG at N=2^13 takes seconds: skipped under -short.
func TestBenchCommitteeRefreshQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("committee DKG: slow")
	}
	out := filepath.Join(t.TempDir(), "refresh.json")
	cmd := newBenchCommitteeCmd(&app{log: zap.NewNop()})
	var stdout bytes.Buffer
	cmd.SetOut(&stdout)
	cmd.SetArgs([]string{"--quick", "--refresh-only", "--json", out})
	require.NoError(t, cmd.Execute())
	raw, err := os.ReadFile(out)
	require.NoError(t, err)
	var rows []committeeRow
	require.NoError(t, json.Unmarshal(raw, &rows))
	require.Len(t, rows, 2)
	require.Equal(t, stageDKG, rows[0].Stage)
	r := rows[1]
	require.Equal(t, stageRefresh, r.Stage)
	require.Equal(t, 3, r.N)
	require.Equal(t, 2, r.T)
	require.Equal(t, 3, r.Runs)
	require.Positive(t, r.Ms)
	require.Positive(t, r.ShareBytes)
	require.Equal(t, 2*r.ShareBytes, r.BytesPerMember)
	require.Contains(t, stdout.String(), "bytes/active member")
}
