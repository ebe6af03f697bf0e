package store

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestPutMetaBatch: records given in any order are all stored (put in key
// order), and of two records with one key the later one wins, as in a
// loop of PutMeta calls.
func TestPutMetaBatch(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "db"))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	r := rand.New(rand.NewPCG(1, 2))
	var keys []string
	var vals [][]byte
	for _, k := range r.Perm(2000) {
		keys = append(keys, fmt.Sprintf("verdict/%04x", k))
		vals = append(vals, []byte(fmt.Sprint(k)))
	}
	keys = append(keys, "verdict/0007", "verdict/0007")
	vals = append(vals, []byte("second"), []byte("third"))
	require.NoError(t, s.PutMetaBatch(keys, vals))
	for k := range 2000 {
		want := fmt.Sprint(k)
		if k == 7 {
			want = "third"
		}
		got, err := s.GetMeta(fmt.Sprintf("verdict/%04x", k))
		require.NoError(t, err)
		require.Equal(t, want, string(got), "key %d", k)
	}
	require.NoError(t, s.PutMetaBatch(nil, nil))
}

// BenchmarkPutMetaBatch: one packed batch's 16,384 verdict records (keys
// in random order, 200-byte values) put in one transaction as
// PutMetaBatch does (key order) and in the order given (the puts before
// the sort). go test ./consensus/store -bench PutMetaBatch -benchtime 5x
func BenchmarkPutMetaBatch(b *testing.B) {
	for _, sorted := range []bool{true, false} {
		b.Run(map[bool]string{true: "key-order", false: "given-order"}[sorted], func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), "db"))
			require.NoError(b, err)
			b.Cleanup(func() { s.Close() })
			r := rand.New(rand.NewPCG(3, 4))
			for n := 0; b.Loop(); n++ {
				var keys []string
				var vals [][]byte
				for _, k := range r.Perm(16384) {
					keys = append(keys, fmt.Sprintf("verdict/%d/%064x", n, k))
					vals = append(vals, make([]byte, 200))
				}
				if sorted {
					require.NoError(b, s.PutMetaBatch(keys, vals))
					continue
				}
				require.NoError(b, s.db.Update(func(tx *bolt.Tx) error {
					bk := tx.Bucket(bucketMeta)
					for i, k := range keys {
						if err := bk.Put([]byte(k), append([]byte(nil), vals[i]...)); err != nil {
							return err
						}
					}
					return nil
				}))
			}
		})
	}
}
