package store

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
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
