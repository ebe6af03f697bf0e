package store

import bolt "go.etcd.io/bbolt"

// DeleteMeta removes metadata records, all in one transaction (a record
// that is not there is no error).
func (s *Store) DeleteMeta(keys ...string) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketMeta)
		for _, k := range keys {
			if err := b.Delete([]byte(k)); err != nil {
				return err
			}
		}
		return nil
	})
}
