package store

import bolt "go.etcd.io/bbolt"

// PutMetaBatch stores several metadata records in ONE transaction (one
// fsync): a packed batch persists up to 16384 verdicts at once.
func (s *Store) PutMetaBatch(keys []string, vals [][]byte) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketMeta)
		for i, k := range keys {
			if err := b.Put([]byte(k), append([]byte(nil), vals[i]...)); err != nil {
				return err
			}
		}
		return nil
	})
}
