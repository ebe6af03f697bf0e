package ledger

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/store"
)

func TestLedgerOneShareEverAcrossRestarts(t *testing.T) {
	t.Parallel()
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

// TestLedgerFormat pins the persisted bytes: entries written by hand in the
// on-disk format (as an existing ledger holds them) are found under the
// ShareKind constants, and Issue writes exactly that format.
func TestLedgerFormat(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := store.Open(path)
	require.NoError(t, err)
	d := [32]byte{0xd1, 31: 0xd2}
	rawKey := func(kind string, epoch byte) []byte {
		k := append([]byte(kind), 0)
		k = append(k, d[:]...)
		return append(k, 0, 0, 0, 0, 0, 0, 0, epoch)
	}
	old := map[string][]byte{
		string(rawKey("dec", 5)):     append([]byte{0, 4}, "dec5\x01\x02"...),
		string(rawKey("refresh", 5)): append([]byte{0, 2}, "r5\x03"...),
	}
	require.NoError(t, s.DB().Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("share-ledger"))
		if err != nil {
			return err
		}
		for k, v := range old {
			if err := b.Put([]byte(k), v); err != nil {
				return err
			}
		}
		return nil
	}))
	l, err := New(s.DB())
	require.NoError(t, err)

	e, ok, err := l.Lookup(protocol.KindDecryption, d, 5)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, Entry{Session: "dec5", Share: []byte{1, 2}}, e)
	e, ok, err = l.Lookup(protocol.KindRefresh, d, 5)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, Entry{Session: "r5", Share: []byte{3}}, e)
	gen := func() ([]byte, error) { return []byte{9, 9}, nil }
	b, err := l.Issue(protocol.KindDecryption, d, 5, "dec5", gen)
	require.NoError(t, err)
	require.Equal(t, []byte{1, 2}, b)
	_, err = l.Issue(protocol.KindRefresh, d, 5, "other", gen)
	require.ErrorIs(t, err, protocol.ErrAlreadyShared)

	_, err = l.Issue(protocol.KindDecryption, d, 6, "dec6", gen)
	require.NoError(t, err)
	_, err = l.Issue(protocol.KindRefresh, d, 6, "r6", gen)
	require.NoError(t, err)
	want := map[string][]byte{
		string(rawKey("dec", 6)):     append([]byte{0, 4}, "dec6\x09\x09"...),
		string(rawKey("refresh", 6)): append([]byte{0, 2}, "r6\x09\x09"...),
	}
	for k, v := range old {
		want[k] = v
	}
	got := map[string][]byte{}
	require.NoError(t, s.DB().View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("share-ledger")).ForEach(func(k, v []byte) error {
			got[string(k)] = bytes.Clone(v)
			return nil
		})
	}))
	require.Equal(t, want, got)
	require.Equal(t, 4, l.Count())
	require.NoError(t, s.Close())
}
