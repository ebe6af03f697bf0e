package consensus_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/fhegate/fhegate/consensus/local"
	"github.com/fhegate/fhegate/consensus/store"
)

// requireOneCopy checks that every live member of lc holds the same
// objects of the public key material (each Galois key included) and the
// same evaluator: one copy in the process, not one per member.
func requireOneCopy(t *testing.T, lc *local.Committee) {
	t.Helper()
	first, err := lc.Member(1).Keys()
	require.NoError(t, err)
	ev, err := lc.Member(1).Evaluator()
	require.NoError(t, err)
	for id := uint32(2); id <= uint32(len(lc.Config.Members)); id++ {
		km, err := lc.Member(id).Keys()
		require.NoError(t, err)
		require.Equal(t, first.Digest, km.Digest, "member %d", id)
		require.Same(t, first.Public, km.Public, "member %d", id)
		require.Same(t, first.Relin, km.Relin, "member %d", id)
		require.Same(t, first.Galois, km.Galois, "member %d", id)
		for i, gk := range km.Galois.Lattigo() {
			require.Same(t, first.Galois.Lattigo()[i], gk, "member %d, Galois key %d", id, i)
		}
		ev2, err := lc.Member(id).Evaluator()
		require.NoError(t, err)
		require.Same(t, ev, ev2, "member %d", id)
	}
}

// TestLocalMembersShareKeyMaterial: the members of an in-process committee
// each run the whole DKG and verify their keys, then hold one copy of the
// public material and one evaluator between them — after the DKG, after a
// resume from their stores (Galois keys stored a key at a time beside the
// database), and after a resume from a store written in the earlier layout
// (the whole encoding in the database). Every verdict is checked against
// its plaintext reference. A store whose key blobs are gone is an error,
// not "no keys yet".
func TestLocalMembersShareKeyMaterial(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir := t.TempDir()
	o := local.Options{N: 3, T: 2, Dir: dir, Preset: "InsecureBGVN10", Rotations: []int{1, 2},
		RoundTimeout: 10 * time.Second, BatchSize: 4, Serve: true, Log: zaptest.NewLogger(t)}
	lc, err := local.Start(ctx, o)
	require.NoError(t, err)
	requireOneCopy(t, lc)
	reqs := makeRequests(t, lc, 1, 1, 11)
	lc.Chain.Post(reqs[0].req)
	waitVerdicts(t, lc.Chain, reqs)
	km, err := lc.Member(2).Keys()
	require.NoError(t, err)
	rlk, err := km.Relin.MarshalBinary()
	require.NoError(t, err)
	gal, err := km.Galois.MarshalBinary()
	require.NoError(t, err)
	lc.Close()

	resume := func() (*local.Committee, error) {
		return local.Resume(ctx, local.Options{Dir: dir, RoundTimeout: 10 * time.Second, BatchSize: 4, Serve: true, Log: zaptest.NewLogger(t)})
	}
	lc2, err := resume()
	require.NoError(t, err)
	requireOneCopy(t, lc2)
	lc2.Close()

	// Member 2's store in the earlier layout: the relinearisation key and
	// the whole Galois encoding in the database, no blobs.
	db := filepath.Join(dir, "member-2", "member.db")
	st, err := store.Open(db)
	require.NoError(t, err)
	require.NoError(t, st.PutMeta("epoch/1/rlk", rlk))
	require.NoError(t, st.PutMeta("epoch/1/gal", gal))
	require.NoError(t, st.Close())
	require.NoError(t, os.RemoveAll(db+".blobs"))
	lc3, err := resume()
	require.NoError(t, err)
	requireOneCopy(t, lc3)
	more := makeRequests(t, lc3, 3, 2, 12)
	for _, q := range more {
		lc3.Chain.Post(q.req)
	}
	waitVerdicts(t, lc3.Chain, more)
	lc3.Close()

	require.NoError(t, os.RemoveAll(filepath.Join(dir, "member-3", "member.db.blobs")))
	_, err = resume()
	require.ErrorContains(t, err, "stored key material is incomplete")
}
