package store

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/fhegate/fhegate/fhe"
)

// Key epochs of stored ciphertexts.
//
// A handle names a plaintext input: it is keccak256 of the ciphertext bytes
// first uploaded (and registered on chain), and it keeps naming the same
// input after a committee rotation re-encrypts the ciphertext to the next
// committee's key, although the re-encrypted bytes hash to something else.
// The store therefore maps handle → (key epoch, ciphertext) and keeps the
// newest: bucket "ciphertexts" holds the bytes, bucket "ciphertext-epochs"
// the epoch of the key they are encrypted under (uint64, big-endian).
//
// Format compatibility: stores written before the epoch bucket existed open
// unchanged (Open creates the empty bucket); their ciphertexts have no epoch
// record and read as epoch 0, "unknown", until AdoptLegacy labels them with
// the epoch the member was serving when it first opened the store with this
// code. Epoch 0 is never a committee epoch.

// SetEpoch sets the key epoch Put records for newly stored ciphertexts (the
// member's current committee epoch).
func (s *Store) SetEpoch(epoch uint64) { s.epoch.Store(epoch) }

func epochBytes(e uint64) []byte { return binary.BigEndian.AppendUint64(nil, e) }

func readEpoch(v []byte) uint64 {
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// Epoch returns the key epoch of the ciphertext stored under h (0 for a
// legacy record without one).
func (s *Store) Epoch(h fhe.Handle) (uint64, error) {
	var e uint64
	err := s.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketCT).Get(h[:]) == nil {
			return fmt.Errorf("%w: ciphertext %s", ErrNotFound, h)
		}
		e = readEpoch(tx.Bucket(bucketEpoch).Get(h[:]))
		return nil
	})
	return e, err
}

// GetAt returns the canonical bytes stored under h and their key epoch.
func (s *Store) GetAt(h fhe.Handle) ([]byte, uint64, error) {
	var out []byte
	var e uint64
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketCT).Get(h[:])
		if v == nil {
			return fmt.Errorf("%w: ciphertext %s", ErrNotFound, h)
		}
		out = append([]byte(nil), v...)
		e = readEpoch(tx.Bucket(bucketEpoch).Get(h[:]))
		return nil
	})
	return out, e, err
}

// ViewAll calls fn with the bytes stored under each of hs and their key
// epochs, in place, in one read transaction (no copy: the committee's packer
// reads a few rows of inputs of megabytes). The bytes are valid only during
// fn, which must not keep or modify them. A missing handle fails with
// ErrNotFound before fn runs.
func (s *Store) ViewAll(hs []fhe.Handle, fn func(bs [][]byte, epochs []uint64) error) error {
	return s.db.View(func(tx *bolt.Tx) error {
		bk, be := tx.Bucket(bucketCT), tx.Bucket(bucketEpoch)
		bs, es := make([][]byte, len(hs)), make([]uint64, len(hs))
		for i, h := range hs {
			if bs[i] = bk.Get(h[:]); bs[i] == nil {
				return fmt.Errorf("%w: ciphertext %s", ErrNotFound, h)
			}
			es[i] = readEpoch(be.Get(h[:]))
		}
		return fn(bs, es)
	})
}

// GetCiphertextAt returns the decoded ciphertext stored under h and its key
// epoch.
func (s *Store) GetCiphertextAt(h fhe.Handle) (*fhe.Ciphertext, uint64, error) {
	b, e, err := s.GetAt(h)
	if err != nil {
		return nil, 0, err
	}
	ct, err := fhe.UnmarshalCiphertext(b)
	return ct, e, err
}

// PutAt stores the canonical ciphertext b under handle h (not necessarily
// the keccak of b: a re-encrypted input keeps its original handle) with key
// epoch `epoch`, replacing what is stored under h only if that is under an
// older epoch. It reports whether b was stored.
func (s *Store) PutAt(h fhe.Handle, b []byte, epoch uint64) (bool, error) {
	if epoch == 0 {
		return false, fmt.Errorf("store: key epoch 0 for %s", h)
	}
	if _, _, err := Validate(b); err != nil {
		return false, err
	}
	stored := false
	err := s.db.Update(func(tx *bolt.Tx) error {
		bk, be := tx.Bucket(bucketCT), tx.Bucket(bucketEpoch)
		if bk.Get(h[:]) != nil && readEpoch(be.Get(h[:])) >= epoch {
			return nil
		}
		if err := bk.Put(h[:], append([]byte(nil), b...)); err != nil {
			return err
		}
		stored = true
		return be.Put(h[:], epochBytes(epoch))
	})
	return stored, err
}

// AdoptLegacy records epoch for every stored ciphertext without a key
// epoch (stores written before epochs were recorded) and returns how many
// it labelled. It is idempotent: every later Put records an epoch.
func (s *Store) AdoptLegacy(epoch uint64) (int, error) {
	if epoch == 0 {
		return 0, nil
	}
	n := 0
	err := s.db.Update(func(tx *bolt.Tx) error {
		be := tx.Bucket(bucketEpoch)
		var missing [][]byte
		if err := tx.Bucket(bucketCT).ForEach(func(k, _ []byte) error {
			if readEpoch(be.Get(k)) == 0 {
				missing = append(missing, append([]byte(nil), k...))
			}
			return nil
		}); err != nil {
			return err
		}
		for _, k := range missing {
			if err := be.Put(k, epochBytes(epoch)); err != nil {
				return err
			}
		}
		n = len(missing)
		return nil
	})
	return n, err
}

// Handles lists every stored handle with its key epoch.
func (s *Store) Handles() (map[fhe.Handle]uint64, error) {
	out := map[fhe.Handle]uint64{}
	err := s.db.View(func(tx *bolt.Tx) error {
		be := tx.Bucket(bucketEpoch)
		return tx.Bucket(bucketCT).ForEach(func(k, _ []byte) error {
			if len(k) == len(fhe.Handle{}) {
				out[fhe.Handle(k)] = readEpoch(be.Get(k))
			}
			return nil
		})
	})
	return out, err
}
