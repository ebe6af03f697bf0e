package crdt

import (
	"fmt"
	"sync"

	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/crdt/meta"
)

// Store keeps the normalised contributions a committee member has ingested,
// keyed by (block, handle of the writer's ciphertext). Its Resolve method is a
// Resolver. Safe for concurrent use.
type Store struct {
	eng *Engine
	mu  sync.RWMutex
	m   map[storeKey]*fhe.Ciphertext
}

type storeKey struct {
	block uint32
	h     meta.Handle
}

// NewStore returns an empty store.
func NewStore(eng *Engine) *Store {
	return &Store{eng: eng, m: map[storeKey]*fhe.Ciphertext{}}
}

// Ingest normalises the ciphertext of entry e (written for layout l) and keeps
// it. The handle must be keccak256 of raw's canonical bytes, which binds the
// public entry to the ciphertext. Ingesting the same entry twice is a no-op.
func (s *Store) Ingest(l meta.Layout, e meta.Entry, raw *fhe.Ciphertext) error {
	return s.ingest(l, e, raw, true)
}

// IngestBound is Ingest for a ciphertext its caller has already bound to
// e.Handle: the committee loads every input by its handle (the store's key,
// the fetch's hash check) and evaluates the evaluable form of an upload,
// 2·ct (fhe.Ciphertext.Evaluable), which does not hash to the handle.
func (s *Store) IngestBound(l meta.Layout, e meta.Entry, c *fhe.Ciphertext) error {
	return s.ingest(l, e, c, false)
}

func (s *Store) ingest(l meta.Layout, e meta.Entry, raw *fhe.Ciphertext, checkHandle bool) error {
	if raw == nil {
		return fmt.Errorf("%w: nil ciphertext", ErrInput)
	}
	k := storeKey{e.Block, e.Handle}
	s.mu.RLock()
	_, ok := s.m[k]
	s.mu.RUnlock()
	if ok {
		return nil
	}
	if checkHandle {
		h, err := raw.Handle()
		if err != nil {
			return fmt.Errorf("%w: %v", ErrInput, err)
		}
		if meta.Handle(h) != e.Handle {
			return fmt.Errorf("%w: handle %v does not match the ciphertext (%v)", ErrInput, e.Handle, meta.Handle(h))
		}
	}
	c, err := s.eng.Contribution(l, e.Block, raw)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.m[k] = c
	s.mu.Unlock()
	return nil
}

// Resolve returns the contribution of handle h for block b.
func (s *Store) Resolve(b uint32, h meta.Handle) (*fhe.Ciphertext, error) {
	s.mu.RLock()
	c, ok := s.m[storeKey{b, h}]
	s.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: block %d handle %v not ingested", ErrMissing, b, h)
	}
	return c, nil
}

// Len returns the number of stored contributions.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.m)
}
