package store

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBlobs: a blob reads back what was written, beside the database and
// not in it; a rewrite replaces it; a missing blob is ErrNotFound; a name
// that is not a plain file name is refused.
func TestBlobs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m", "member.db")
	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()

	val := bytes.Repeat([]byte{7}, 1<<20)
	require.NoError(t, s.PutBlob("epoch-1-galois-0", val))
	got, err := s.GetBlob("epoch-1-galois-0")
	require.NoError(t, err)
	require.Equal(t, val, got)
	fi, err := os.Stat(filepath.Join(path+".blobs", "epoch-1-galois-0"))
	require.NoError(t, err)
	require.Equal(t, int64(len(val)), fi.Size())
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	require.NoError(t, s.PutBlob("epoch-1-galois-0", []byte("new")))
	got, err = s.GetBlob("epoch-1-galois-0")
	require.NoError(t, err)
	require.Equal(t, []byte("new"), got)
	ents, err := os.ReadDir(path + ".blobs")
	require.NoError(t, err)
	require.Len(t, ents, 1, "no temporary file left behind")

	_, err = s.GetBlob("epoch-2-relin")
	require.ErrorIs(t, err, ErrNotFound)
	for _, bad := range []string{"", ".hidden", "../member.db", "a/b", "x y"} {
		require.ErrorIs(t, s.PutBlob(bad, val), ErrBadBlobName, bad)
		_, err := s.GetBlob(bad)
		require.ErrorIs(t, err, ErrBadBlobName, bad)
	}
}
