package store

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
)

func TestStorePersistsAndValidates(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := Open(path)
	require.NoError(t, err)
	k := fhetest.MustKit(fhetest.InsecureBGVN10)
	ct, err := k.Enc.EncryptInts([]int64{1, 2, 3})
	require.NoError(t, err)
	b, err := ct.MarshalBinary()
	require.NoError(t, err)
	h, _, err := s.Put(b)
	require.NoError(t, err)
	require.Equal(t, fhe.HandleOf(b), h)
	_, _, err = s.Put(b) // idempotent
	require.NoError(t, err)

	bad := append([]byte(nil), b...)
	bad[len(bad)-1] ^= 0xff
	bad = append(bad, 0)
	_, _, err = s.Put(bad)
	require.Error(t, err)
	_, _, err = s.Put([]byte("junk"))
	require.Error(t, err)
	require.NoError(t, s.PutMeta("k/1", []byte("v")))
	require.NoError(t, s.Close())

	s, err = Open(path)
	require.NoError(t, err)
	defer s.Close()
	got, err := s.Get(h)
	require.NoError(t, err)
	require.Equal(t, b, got)
	dct, err := s.GetCiphertext(h)
	require.NoError(t, err)
	v, err := k.Dec.DecryptInts(dct)
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2, 3}, v[:3])
	require.Equal(t, 1, s.Count())
	m, err := s.GetMeta("k/1")
	require.NoError(t, err)
	require.Equal(t, []byte("v"), m)
	require.Equal(t, []string{"k/1"}, s.MetaKeys("k/"))
	_, err = s.Get(fhe.Handle{1})
	require.ErrorIs(t, err, ErrNotFound)
}
