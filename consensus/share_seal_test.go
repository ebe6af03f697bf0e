package consensus_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/fhegate/fhegate/consensus"
	"github.com/fhegate/fhegate/consensus/store"
)

// TestSecretsAtRest: a member's secrets file is encrypted to a passphrase
// (scrypt) or an age key file, is 0600 in a 0700 directory, fails clearly
// with a wrong or missing passphrase, is refused when its group or others
// may read it; plain JSON secrets of older versions still load, with a
// warning.
// TestThresholdShareSealedInStore: after the DKG the member's threshold key
// share is not in the bbolt file in plain; a store written before shares
// were sealed still loads and is sealed in place; a store cannot be opened
// with another member's BLS key.
func TestThresholdShareSealedInStore(t *testing.T) {
	t.Parallel()
	lc := startTest(t, 3, 2, false)
	m1 := lc.Member(1)
	plain, err := m1.ThresholdKeyBytes()
	require.NoError(t, err)
	digest := m1.Status().KeyDigest
	dbPath := filepath.Join(lc.Dir(), "member-1", "member.db")
	lc.Kill(1)

	raw, err := os.ReadFile(dbPath)
	require.NoError(t, err)
	require.False(t, bytes.Contains(raw, plain), "the threshold key share is in the store in plain")
	// Not even a 64-byte window of it (from its middle: no shared headers).
	mid := len(plain) / 2
	require.False(t, bytes.Contains(raw, plain[mid:mid+64]))
	st, err := store.Open(dbPath)
	require.NoError(t, err)
	rec, err := st.GetMeta("epoch/1/tsk")
	require.NoError(t, err)
	require.True(t, ShareSealed(rec))

	// A store from before: the share in plain. It loads, and is sealed.
	require.NoError(t, st.PutMeta("epoch/1/tsk", plain))
	require.NoError(t, st.Close())
	require.NoError(t, lc.Restart(1))
	require.Equal(t, digest, lc.Member(1).Status().KeyDigest)
	again, err := lc.Member(1).ThresholdKeyBytes()
	require.NoError(t, err)
	require.Equal(t, plain, again)
	lc.Kill(1)
	st, err = store.Open(dbPath)
	require.NoError(t, err)
	rec, err = st.GetMeta("epoch/1/tsk")
	require.NoError(t, err)
	require.True(t, ShareSealed(rec))

	// Member 2's sealed share swapped into member 1's store does not open.
	m2rec := func() []byte {
		lc.Kill(2)
		st2, err := store.Open(filepath.Join(lc.Dir(), "member-2", "member.db"))
		require.NoError(t, err)
		defer st2.Close()
		r, err := st2.GetMeta("epoch/1/tsk")
		require.NoError(t, err)
		return r
	}()
	require.NoError(t, st.PutMeta("epoch/1/tsk", m2rec))
	require.NoError(t, st.Close())
	require.ErrorContains(t, lc.Restart(1), "cannot open the stored threshold key share")
}
