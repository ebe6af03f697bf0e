// Package store is a member's embedded persistent database (bbolt): the
// content-addressed ciphertext store (handle = keccak256 of the canonical
// bytes, validated with fhe.UnmarshalCiphertext before it is stored), the
// member's key material and small metadata records. Every write is one
// bbolt transaction, fsync'd on commit.
package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/fhegate/fhegate/fhe"
)

var (
	bucketCT   = []byte("ciphertexts")
	bucketMeta = []byte("meta")
	// bucketEpoch maps a handle to the key epoch of the ciphertext stored
	// under it (8 bytes, big-endian); see epoch.go.
	bucketEpoch = []byte("ciphertext-epochs")
)

// Errors.
var (
	ErrNotFound = errors.New("store: not found")
	ErrTooLarge = errors.New("store: ciphertext too large")
)

// MaxCiphertext bounds one stored ciphertext (BGVN14 degree 2 at the top
// level is ≈ 3.9 MB).
const MaxCiphertext = 8 << 20

// Store is a member's database.
type Store struct {
	db    *bolt.DB
	path  string        // the database file (blob.go keeps files beside it)
	epoch atomic.Uint64 // key epoch Put records (SetEpoch)
}

// Open opens (creating if needed) the database at path with mode 0600.
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketCT, bucketMeta, bucketEpoch} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		db.Close()
		return nil, err
	}
	return &Store{db: db, path: path}, nil
}

// DB exposes the bbolt handle (the share ledger keeps its own bucket in it).
func (s *Store) DB() *bolt.DB { return s.db }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Validate checks that b is a canonical ciphertext and returns its handle.
func Validate(b []byte) (fhe.Handle, *fhe.Ciphertext, error) {
	if len(b) > MaxCiphertext {
		return fhe.Handle{}, nil, fmt.Errorf("%w: %d bytes", ErrTooLarge, len(b))
	}
	ct, err := fhe.UnmarshalCiphertext(b)
	if err != nil {
		return fhe.Handle{}, nil, err
	}
	return fhe.HandleOf(b), ct, nil
}

// Put validates and stores a canonical ciphertext under its handle,
// recording the store's current key epoch (SetEpoch) with it; storing a
// handle that is already stored (the same bytes, or a re-encryption of
// them) is a no-op. It returns the handle.
func (s *Store) Put(b []byte) (fhe.Handle, *fhe.Ciphertext, error) {
	h, ct, err := Validate(b)
	if err != nil {
		return h, nil, err
	}
	epoch := s.epoch.Load()
	err = s.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketCT)
		if bk.Get(h[:]) != nil {
			return nil
		}
		if err := bk.Put(h[:], append([]byte(nil), b...)); err != nil {
			return err
		}
		return tx.Bucket(bucketEpoch).Put(h[:], epochBytes(epoch))
	})
	return h, ct, err
}

// PutCiphertext encodes and stores ct.
func (s *Store) PutCiphertext(ct *fhe.Ciphertext) (fhe.Handle, error) {
	b, err := ct.MarshalBinary()
	if err != nil {
		return fhe.Handle{}, err
	}
	h, _, err := s.Put(b)
	return h, err
}

// Get returns the canonical bytes of a handle.
func (s *Store) Get(h fhe.Handle) ([]byte, error) {
	var out []byte
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketCT).Get(h[:])
		if v == nil {
			return fmt.Errorf("%w: ciphertext %s", ErrNotFound, h)
		}
		out = append([]byte(nil), v...)
		return nil
	})
	return out, err
}

// Has reports whether a handle is stored.
func (s *Store) Has(h fhe.Handle) bool {
	ok := false
	_ = s.db.View(func(tx *bolt.Tx) error { ok = tx.Bucket(bucketCT).Get(h[:]) != nil; return nil })
	return ok
}

// GetCiphertext returns the decoded ciphertext of a handle (re-validated).
func (s *Store) GetCiphertext(h fhe.Handle) (*fhe.Ciphertext, error) {
	b, err := s.Get(h)
	if err != nil {
		return nil, err
	}
	return fhe.UnmarshalCiphertext(b)
}

// Count returns the number of stored ciphertexts.
func (s *Store) Count() int {
	n := 0
	_ = s.db.View(func(tx *bolt.Tx) error { n = tx.Bucket(bucketCT).Stats().KeyN; return nil })
	return n
}

// PutMeta stores a metadata record.
func (s *Store) PutMeta(key string, val []byte) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put([]byte(key), append([]byte(nil), val...))
	})
}

// GetMeta returns a metadata record or ErrNotFound.
func (s *Store) GetMeta(key string) ([]byte, error) {
	var out []byte
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get([]byte(key))
		if v == nil {
			return fmt.Errorf("%w: %s", ErrNotFound, key)
		}
		out = append([]byte(nil), v...)
		return nil
	})
	return out, err
}

// MetaKeys lists metadata keys with a prefix, ascending.
func (s *Store) MetaKeys(prefix string) []string {
	var out []string
	_ = s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketMeta).Cursor()
		for k, _ := c.Seek([]byte(prefix)); k != nil && len(k) >= len(prefix) && string(k[:len(prefix)]) == prefix; k, _ = c.Next() {
			out = append(out, string(k))
		}
		return nil
	})
	return out
}
