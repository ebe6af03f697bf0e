package ledger

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
)

// TestLedgerWipeShares: wiping a kind's entries under an epoch drops their
// bytes (also after a restart) and nothing else: the entries still refuse
// another session, a same-session Issue returns no bytes and generates
// nothing, and other kinds and epochs keep their shares.
func TestLedgerWipeShares(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := store.Open(path)
	require.NoError(t, err)
	l, err := New(s.DB())
	require.NoError(t, err)
	gen := func(b byte) func() ([]byte, error) { return func() ([]byte, error) { return []byte{b, b}, nil } }
	for _, e := range []struct {
		kind  protocol.ShareKind
		d     byte
		epoch uint64
	}{{protocol.KindReencrypt, 1, 1}, {protocol.KindReencrypt, 2, 1}, {protocol.KindReencrypt, 3, 2}, {"dec", 4, 1}} {
		_, err := l.Issue(e.kind, [32]byte{e.d}, e.epoch, "s", gen(e.d))
		require.NoError(t, err)
	}
	require.Equal(t, 2, l.Held(protocol.KindReencrypt, 1))
	n, err := l.WipeShares(protocol.KindReencrypt, 1)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	n, err = l.WipeShares(protocol.KindReencrypt, 1)
	require.NoError(t, err)
	require.Zero(t, n, "nothing left to wipe")
	require.NoError(t, s.Close())

	s, err = store.Open(path)
	require.NoError(t, err)
	defer s.Close()
	l, err = New(s.DB())
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		kind  protocol.ShareKind
		d     byte
		epoch uint64
		held  []byte
	}{
		{"wiped", protocol.KindReencrypt, 1, 1, nil},
		{"other epoch kept", protocol.KindReencrypt, 3, 2, []byte{3, 3}},
		{"other kind kept", "dec", 4, 1, []byte{4, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, ok, err := l.Lookup(tc.kind, [32]byte{tc.d}, tc.epoch)
			require.NoError(t, err)
			require.True(t, ok, "the entry stays")
			require.Equal(t, "s", e.Session)
			require.Equal(t, len(tc.held), len(e.Share))
			b, err := l.Issue(tc.kind, [32]byte{tc.d}, tc.epoch, "s", func() ([]byte, error) { t.Fatal("a new share was generated"); return nil, nil })
			require.NoError(t, err)
			require.Equal(t, len(tc.held), len(b))
			_, err = l.Issue(tc.kind, [32]byte{tc.d}, tc.epoch, "other", gen(9))
			require.ErrorIs(t, err, protocol.ErrAlreadyShared, "the once-per rule survives the wipe")
		})
	}
	require.Zero(t, l.Held(protocol.KindReencrypt, 1))
	require.Equal(t, 1, l.Held(protocol.KindReencrypt, 2))
}
