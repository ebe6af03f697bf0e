package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/store"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// freeBase returns a base port whose next 8 ports were free a moment ago.
// It draws from 20000–29999, below Linux's ephemeral range (32768–60999),
// so that the 127.0.0.1:0 listeners and outgoing connections of tests
// running in parallel cannot take them between this check and their use.
func freeBase(t *testing.T) int {
	t.Helper()
	for range 100 {
		base := 20000 + rand.IntN(10000-16)
		free := true
		for p := base + 1; p <= base+8 && free; p++ {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				free = false
				continue
			}
			_ = ln.Close()
		}
		if free {
			return base
		}
	}
	t.Fatal("no 8 consecutive free loopback ports in 20000-29999")
	return 0
}

// runAll runs one CLI invocation per member id at the same time.
func runAll(t *testing.T, ids []uint32, args func(id uint32) []string) {
	t.Helper()
	errs := make([]error, len(ids))
	outs := make([]string, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func(i int, id uint32) { defer wg.Done(); outs[i], errs[i] = runCLI(t, args(id)...) }(i, id)
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "member %d: %s", ids[i], outs[i])
	}
}

// TestCommitteeRotateCLI: inputs uploaded to an epoch-1 committee are
// re-encrypted by its members (`committee rotate reencrypt`) and adopted by
// an epoch-2 committee (`committee rotate adopt`): every new member stores
// each input under its handle, under epoch 2, with the same bytes.
func TestCommitteeRotateCLI(t *testing.T) {
	dir := t.TempDir()
	oldDir, newDir := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	preset := fhe.MustParams(fhetest.InsecureBGVN10).Preset.Name
	ids := []uint32{1, 2, 3}
	_, err := runCLI(t, "committee", "init", "--dir", oldDir, "--n", "3", "--t", "2", "--preset", preset, "--base-port", fmt.Sprint(freeBase(t)))
	require.NoError(t, err)
	_, err = runCLI(t, "committee", "dkg", "--dir", oldDir, "--all", "--round-timeout", "20s")
	require.NoError(t, err)

	// Upload two inputs through member 1 while all three are up.
	var handles []fhe.Handle
	func() {
		ms := make([]*consensus.Member, 3)
		for i, id := range ids {
			m, st, err := openMember(oldDir, id, 10*time.Second, zap.NewNop())
			require.NoError(t, err)
			defer st.Close()
			defer m.Close()
			ms[i] = m
		}
		km, err := ms[0].Keys()
		require.NoError(t, err)
		_ = km
		for _, v := range []int64{5, -7} {
			b, proof, err := ms[0].EncryptInput([]int64{v}, [20]byte{1})
			require.NoError(t, err)
			att, err := ms[0].Upload(context.Background(), b, proof, [20]byte{1}, 1)
			require.NoError(t, err)
			handles = append(handles, att.Handle)
		}
	}()

	_, err = runCLI(t, "committee", "init", "--dir", newDir, "--epoch", "2", "--n", "3", "--t", "2", "--preset", preset, "--base-port", fmt.Sprint(freeBase(t)))
	require.NoError(t, err)
	_, err = runCLI(t, "committee", "dkg", "--dir", newDir, "--all", "--round-timeout", "20s")
	require.NoError(t, err)

	bundle := func(id uint32) string { return filepath.Join(dir, fmt.Sprintf("reenc-%d.bin", id)) }
	runAll(t, ids, func(id uint32) []string {
		return []string{"committee", "rotate", "reencrypt", "--dir", oldDir, "--member", fmt.Sprint(id),
			"--to", filepath.Join(newDir, "committee.pk"), "--out", bundle(id), "--round-timeout", "20s"}
	})
	from := strings.Join([]string{bundle(1), bundle(2), bundle(3)}, ",")
	runAll(t, ids, func(id uint32) []string {
		return []string{"committee", "rotate", "adopt", "--dir", newDir, "--member", fmt.Sprint(id), "--from", from, "--quorum", "2",
			"--old-committee", filepath.Join(oldDir, "committee.json"), "--round-timeout", "20s"}
	})
	// One old member's bundle twice does not make a quorum of two: bundles
	// are counted by signer.
	_, err = runCLI(t, "committee", "rotate", "adopt", "--dir", newDir, "--member", "1", "--from", bundle(1)+","+bundle(1), "--quorum", "2",
		"--old-committee", filepath.Join(oldDir, "committee.json"), "--round-timeout", "5s")
	require.ErrorContains(t, err, "both signed by old member 1")
	// A bundle checked against another committee (the new one's members
	// hold other BLS keys) is refused.
	_, err = runCLI(t, "committee", "rotate", "adopt", "--dir", newDir, "--member", "1", "--from", bundle(1), "--quorum", "1",
		"--old-committee", filepath.Join(newDir, "committee.json"), "--round-timeout", "5s")
	require.Error(t, err)

	var first [][]byte
	for _, id := range ids {
		st, err := store.Open(filepath.Join(memberDir(newDir, id), "member.db"))
		require.NoError(t, err)
		for k, h := range handles {
			b, e, err := st.GetAt(h)
			require.NoError(t, err)
			require.Equal(t, uint64(2), e)
			require.NotEqual(t, h, fhe.HandleOf(b))
			if id == 1 {
				first = append(first, b)
			} else {
				require.Equal(t, first[k], b, "member %d", id)
			}
		}
		require.NoError(t, st.Close())
	}

	// The old committee's own key is refused as a target.
	_, err = runCLI(t, "committee", "rotate", "reencrypt", "--dir", oldDir, "--member", "1",
		"--to", filepath.Join(oldDir, "committee.pk"), "--out", bundle(9), "--round-timeout", "5s")
	require.ErrorContains(t, err, "own key")
}
