package ledger

import (
	"bytes"
	"encoding/binary"

	bolt "go.etcd.io/bbolt"

	"github.com/fhegate/fhegate/consensus/protocol"
)

// WipeShares drops the share bytes of every entry of kind under key epoch
// — a retiring member's last step of a rotation (docs/committee.md,
// "Rotation"): the entries stay, with their sessions, so that every
// once-per rule and every pin they record still holds (a later Issue for
// them is refused, or returns no bytes within the same session), but no
// share can be read back from the ledger. It returns the number of entries
// wiped. bbolt reuses the freed pages; the old bytes stay on disk until
// they are overwritten or the file is compacted (`bbolt compact`).
func (l *Ledger) WipeShares(kind protocol.ShareKind, epoch uint64) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	err := l.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		prefix := append([]byte(kind), 0)
		type rewrite struct{ k, v []byte }
		var todo []rewrite
		c := b.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if len(k) != len(prefix)+32+8 || binary.BigEndian.Uint64(k[len(k)-8:]) != epoch {
				continue
			}
			e, err := decode(v)
			if err != nil {
				return err
			}
			if len(e.Share) == 0 {
				continue
			}
			todo = append(todo, rewrite{append([]byte(nil), k...), encode(Entry{Session: e.Session})})
		}
		for _, r := range todo {
			if err := b.Put(r.k, r.v); err != nil {
				return err
			}
		}
		n = len(todo)
		return nil
	})
	return n, err
}

// Held is the number of entries of kind under key epoch that still hold
// share bytes.
func (l *Ledger) Held(kind protocol.ShareKind, epoch uint64) int {
	n := 0
	_ = l.db.View(func(tx *bolt.Tx) error {
		prefix := append([]byte(kind), 0)
		c := tx.Bucket(bucket).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if len(k) != len(prefix)+32+8 || binary.BigEndian.Uint64(k[len(k)-8:]) != epoch {
				continue
			}
			if e, err := decode(v); err != nil || len(e.Share) > 0 {
				n++
			}
		}
		return nil
	})
	return n
}
