package ledger

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
)

func TestLedgerOneShareEverAcrossRestarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := store.Open(path)
	require.NoError(t, err)
	l, err := New(s.DB())
	require.NoError(t, err)
	d := [32]byte{7}
	calls := 0
	gen := func() ([]byte, error) { calls++; return []byte{byte(calls)}, nil }
	b, err := l.Issue("dec", d, 1, "s1", gen)
	require.NoError(t, err)
	require.Equal(t, []byte{1}, b)
	b, err = l.Issue("dec", d, 1, "s1", gen) // same session: same bytes, no new share
	require.NoError(t, err)
	require.Equal(t, []byte{1}, b)
	_, err = l.Issue("dec", d, 1, "s2", gen)
	require.ErrorIs(t, err, protocol.ErrAlreadyShared)
	_, err = l.Issue("dec", d, 2, "s2", gen) // new epoch: new key, allowed
	require.NoError(t, err)
	_, err = l.Issue("refresh", d, 1, "s3", gen) // other kind
	require.NoError(t, err)
	require.Equal(t, 3, calls)
	require.NoError(t, s.Close())

	s, err = store.Open(path)
	require.NoError(t, err)
	defer s.Close()
	l, err = New(s.DB())
	require.NoError(t, err)
	_, err = l.Issue("dec", d, 1, "s9", gen)
	require.ErrorIs(t, err, protocol.ErrAlreadyShared)
	b, err = l.Issue("dec", d, 1, "s1", gen)
	require.NoError(t, err)
	require.Equal(t, []byte{1}, b)
	require.Equal(t, 3, calls)
	require.Equal(t, 3, l.Count())
}
