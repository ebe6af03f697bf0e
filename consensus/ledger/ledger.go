// Package ledger is the persisted share ledger: a member issues at most one
// decryption (or refresh) share per (kind, ciphertext digest, key epoch),
// ever, across restarts. The entry — with the share bytes, so that the same
// share can be re-sent within the same session — is committed and fsync'd
// to the member's bbolt database before the share is returned to the caller
// (and so before it can leave the process). A request from another session
// for the same ciphertext is refused: the caller must re-randomise the
// ciphertext (add a fresh encryption of zero), which gives a new digest.
package ledger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/fhegate/fhegate/consensus/protocol"
)

// The on-disk format. Bucket "share-ledger" maps
//
//	kind ‖ 0x00 ‖ digest (32 bytes) ‖ epoch (uint64, big-endian)
//
// to
//
//	len(session) (uint16, big-endian) ‖ session ‖ share
//
// where kind is a protocol.ShareKind ("dec", "refresh", "reenc"). Entries are never
// rewritten or deleted.
var bucket = []byte("share-ledger")

// Ledger implements protocol.Ledger over bbolt.
type Ledger struct {
	db *bolt.DB
	mu sync.Mutex
}

// New opens the ledger bucket in db.
func New(db *bolt.DB) (*Ledger, error) {
	if db.NoSync {
		return nil, errors.New("ledger: database must fsync on commit")
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	}); err != nil {
		return nil, err
	}
	return &Ledger{db: db}, nil
}

// key is the bucket key of (kind, digest, epoch).
func key(kind protocol.ShareKind, digest [32]byte, epoch uint64) []byte {
	k := make([]byte, 0, len(kind)+1+32+8)
	k = append(k, kind...)
	k = append(k, 0)
	k = append(k, digest[:]...)
	return binary.BigEndian.AppendUint64(k, epoch)
}

// Entry is one ledger record.
type Entry struct {
	Session string
	Share   []byte
}

// encode is the bucket value of an entry.
func encode(e Entry) []byte {
	v := binary.BigEndian.AppendUint16(nil, uint16(len(e.Session)))
	v = append(v, e.Session...)
	return append(v, e.Share...)
}

func decode(v []byte) (Entry, error) {
	if len(v) < 2 {
		return Entry{}, errors.New("ledger: corrupt entry")
	}
	sl := int(binary.BigEndian.Uint16(v))
	if len(v) < 2+sl {
		return Entry{}, errors.New("ledger: corrupt entry")
	}
	return Entry{Session: string(v[2 : 2+sl]), Share: append([]byte(nil), v[2+sl:]...)}, nil
}

// Issue implements protocol.Ledger.
func (l *Ledger) Issue(kind protocol.ShareKind, digest [32]byte, epoch uint64, session string, gen func() ([]byte, error)) ([]byte, error) {
	if len(session) > 0xffff {
		return nil, errors.New("ledger: session name too long")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := key(kind, digest, epoch)
	var prev *Entry
	if err := l.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucket).Get(k); v != nil {
			e, err := decode(v)
			if err != nil {
				return err
			}
			prev = &e
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if prev != nil {
		if prev.Session == session {
			return prev.Share, nil
		}
		return nil, fmt.Errorf("ledger: %s share for %x (epoch %d) already issued in session %q: %w", kind, digest[:8], epoch, prev.Session, protocol.ErrAlreadyShared)
	}
	share, err := gen()
	if err != nil {
		return nil, err
	}
	v := encode(Entry{Session: session, Share: share})
	if err := l.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put(k, v) }); err != nil {
		return nil, fmt.Errorf("ledger: persist: %w", err)
	}
	return share, nil
}

// Lookup returns the entry for (kind, digest, epoch), if any.
func (l *Ledger) Lookup(kind protocol.ShareKind, digest [32]byte, epoch uint64) (Entry, bool, error) {
	var e Entry
	found := false
	err := l.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucket).Get(key(kind, digest, epoch))
		if v == nil {
			return nil
		}
		var err error
		e, err = decode(v)
		found = err == nil
		return err
	})
	return e, found, err
}

// Count returns the number of shares ever issued.
func (l *Ledger) Count() int {
	n := 0
	_ = l.db.View(func(tx *bolt.Tx) error { n = tx.Bucket(bucket).Stats().KeyN; return nil })
	return n
}
