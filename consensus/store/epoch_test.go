package store

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

// TestStoreEpochs: a store written before key epochs were recorded (only
// the "ciphertexts" and "meta" buckets) still opens, its ciphertexts read
// as epoch 0 until AdoptLegacy labels them; Put records the store's epoch;
// PutAt keeps the newest epoch under a handle.
func TestStoreEpochs(t *testing.T) {
	t.Parallel()
	k := fhetest.MustKit(fhetest.InsecureBGVN10)
	enc := func(v int64) []byte {
		ct, err := k.Enc.EncryptInts([]int64{v})
		require.NoError(t, err)
		b, err := ct.MarshalBinary()
		require.NoError(t, err)
		return b
	}
	legacy, fresh, reenc := enc(1), enc(2), enc(3)

	// A pre-epoch store, written the way the old code did.
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucket(bucketCT)
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucket(bucketMeta); err != nil {
			return err
		}
		h := fhe.HandleOf(legacy)
		return bk.Put(h[:], legacy)
	}))
	require.NoError(t, db.Close())

	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	hl := fhe.HandleOf(legacy)
	e, err := s.Epoch(hl)
	require.NoError(t, err)
	require.Zero(t, e, "legacy record: unknown epoch")
	n, err := s.AdoptLegacy(1)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	n, err = s.AdoptLegacy(2)
	require.NoError(t, err)
	require.Zero(t, n, "idempotent")
	e, err = s.Epoch(hl)
	require.NoError(t, err)
	require.Equal(t, uint64(1), e)

	s.SetEpoch(1)
	hf, _, err := s.Put(fresh)
	require.NoError(t, err)
	e, err = s.Epoch(hf)
	require.NoError(t, err)
	require.Equal(t, uint64(1), e)

	// A re-encryption keeps the handle; the newest epoch wins; an older or
	// equal epoch does not replace it; Put of the original bytes is a no-op.
	ok, err := s.PutAt(hf, reenc, 2)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = s.PutAt(hf, fresh, 1)
	require.NoError(t, err)
	require.False(t, ok)
	s.SetEpoch(2)
	_, _, err = s.Put(fresh)
	require.NoError(t, err)
	b, e, err := s.GetAt(hf)
	require.NoError(t, err)
	require.Equal(t, uint64(2), e)
	require.Equal(t, reenc, b)
	require.NoError(t, s.ViewAll([]fhe.Handle{hf, hl}, func(v [][]byte, ve []uint64) error {
		require.Equal(t, reenc, v[0])
		require.Equal(t, []uint64{2, 1}, ve)
		return nil
	}))
	require.ErrorIs(t, s.ViewAll([]fhe.Handle{hf, {1}}, func([][]byte, []uint64) error {
		t.Fatal("fn ran with a handle missing")
		return nil
	}), ErrNotFound)
	_, err = s.PutAt(hf, []byte("junk"), 3)
	require.Error(t, err)

	all, err := s.Handles()
	require.NoError(t, err)
	require.Equal(t, map[fhe.Handle]uint64{hl: 1, hf: 2}, all)
}
