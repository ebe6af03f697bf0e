package local

import (
	"context"
	"sync"
)

// MemACL is an in-memory consensus.ACL (tests and the in-process committee).
type MemACL struct {
	mu sync.RWMutex
	m  map[[52]byte]bool
}

// NewMemACL returns an empty in-memory ACL.
func NewMemACL() *MemACL { return &MemACL{m: map[[52]byte]bool{}} }

func aclKey(h [32]byte, a [20]byte) (k [52]byte) {
	copy(k[:], h[:])
	copy(k[32:], a[:])
	return k
}

// Allow lets account use handle.
func (a *MemACL) Allow(h [32]byte, account [20]byte) {
	a.mu.Lock()
	a.m[aclKey(h, account)] = true
	a.mu.Unlock()
}

// Revoke removes account's grant on handle.
func (a *MemACL) Revoke(h [32]byte, account [20]byte) {
	a.mu.Lock()
	delete(a.m, aclKey(h, account))
	a.mu.Unlock()
}

// IsAllowed implements ACL.
func (a *MemACL) IsAllowed(_ context.Context, h [32]byte, account [20]byte) (bool, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.m[aclKey(h, account)], nil
}
