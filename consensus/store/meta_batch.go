package store

import (
	"cmp"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// PutMetaBatch stores several metadata records in ONE transaction (one
// fsync): a packed batch persists up to 16384 verdicts at once. The records
// are put in key order (a stable sort: of two records with one key, the
// later still wins), so that each lands at the end of its leaf instead of
// shifting the records after it: in arbitrary order the puts of one batch
// move O(batch²) records in memory.
func (s *Store) PutMetaBatch(keys []string, vals [][]byte) error {
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketMeta)
		for _, i := range order {
			if err := b.Put([]byte(keys[i]), append([]byte(nil), vals[i]...)); err != nil {
				return err
			}
		}
		return nil
	})
}
