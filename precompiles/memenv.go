package precompiles

import (
	"bytes"
	"fmt"
	"math/big"
	"sort"
)

// MemState is an in-memory world state for the four precompiles: persistent
// and transient storage per address plus the emitted logs. It backs the unit
// tests, JSON vectors, fuzz targets and benchmarks, and lets other packages
// (e.g. the committee) exercise the precompiles without an EVM.
type MemState struct {
	Persistent map[Address]map[Hash]Hash
	Transient  map[Address]map[Hash]Hash
	Logs       []MemLog
	// Balances in wei (absent: zero); Burnt counts the wei Transfer burnt.
	Balances map[Address]*big.Int
	Burnt    *big.Int
}

// MemLog is one emitted log.
type MemLog struct {
	Address Address
	Topics  []Hash
	Data    []byte
}

// NewMemState returns an empty state.
func NewMemState() *MemState {
	return &MemState{Persistent: map[Address]map[Hash]Hash{}, Transient: map[Address]map[Hash]Hash{}, Balances: map[Address]*big.Int{}, Burnt: new(big.Int)}
}

// Balance is a's balance (a copy; zero when absent).
func (s *MemState) Balance(a Address) *big.Int {
	if b, ok := s.Balances[a]; ok {
		return new(big.Int).Set(b)
	}
	return new(big.Int)
}

// AddBalance adds delta (possibly negative) to a's balance; it fails when
// the balance would go negative (the EVM's insufficient-funds check).
func (s *MemState) AddBalance(a Address, delta *big.Int) error {
	b := new(big.Int).Add(s.Balance(a), delta)
	if b.Sign() < 0 {
		return fmt.Errorf("account %s holds %s wei, cannot pay %s", a, s.Balance(a), new(big.Int).Neg(delta))
	}
	if s.Balances == nil {
		s.Balances = map[Address]*big.Int{}
	}
	if b.Sign() == 0 {
		delete(s.Balances, a)
	} else {
		s.Balances[a] = b
	}
	return nil
}

func get(m map[Address]map[Hash]Hash, a Address, k Hash) Hash {
	if s, ok := m[a]; ok {
		return s[k]
	}
	return Hash{}
}

func set(m map[Address]map[Hash]Hash, a Address, k, v Hash) {
	s, ok := m[a]
	if !ok {
		s = map[Hash]Hash{}
		m[a] = s
	}
	if v.IsZero() {
		delete(s, k)
		return
	}
	s[k] = v
}

// Clone deep-copies the state.
func (s *MemState) Clone() *MemState {
	c := NewMemState()
	for a, m := range s.Persistent {
		for k, v := range m {
			set(c.Persistent, a, k, v)
		}
	}
	for a, m := range s.Transient {
		for k, v := range m {
			set(c.Transient, a, k, v)
		}
	}
	for a, b := range s.Balances {
		c.Balances[a] = new(big.Int).Set(b)
	}
	if s.Burnt != nil {
		c.Burnt.Set(s.Burnt)
	}
	for _, l := range s.Logs {
		c.Logs = append(c.Logs, MemLog{Address: l.Address, Topics: append([]Hash(nil), l.Topics...), Data: append([]byte(nil), l.Data...)})
	}
	return c
}

// EndTransaction clears transient storage (EIP-1153) and the log list.
func (s *MemState) EndTransaction() {
	s.Transient = map[Address]map[Hash]Hash{}
	s.Logs = nil
}

// Fingerprint is a deterministic digest of persistent and transient storage
// and logs (sorted), for equality checks.
func (s *MemState) Fingerprint() Hash {
	var parts [][]byte
	dump := func(tag byte, m map[Address]map[Hash]Hash) {
		var rows [][]byte
		for a, kv := range m {
			for k, v := range kv {
				rows = append(rows, append(append(append([]byte{tag}, a[:]...), k[:]...), v[:]...))
			}
		}
		sort.Slice(rows, func(i, j int) bool { return bytes.Compare(rows[i], rows[j]) < 0 })
		parts = append(parts, rows...)
	}
	dump('p', s.Persistent)
	dump('t', s.Transient)
	var bal [][]byte
	for a, b := range s.Balances {
		w := bigWord(b)
		bal = append(bal, append(append([]byte{'b'}, a[:]...), w[:]...))
	}
	sort.Slice(bal, func(i, j int) bool { return bytes.Compare(bal[i], bal[j]) < 0 })
	parts = append(parts, bal...)
	if s.Burnt != nil && s.Burnt.Sign() != 0 {
		w := bigWord(s.Burnt)
		parts = append(parts, []byte{'x'}, w[:])
	}
	for _, l := range s.Logs {
		parts = append(parts, []byte{'l'}, l.Address[:])
		for _, t := range l.Topics {
			parts = append(parts, t[:])
		}
		parts = append(parts, Keccak256(l.Data).Bytes())
	}
	return Keccak256(parts...)
}

// Bytes returns h as a slice.
func (h Hash) Bytes() []byte { return h[:] }

// MemEnv is an Env over a MemState for one call. Value is the call's
// value, which the caller (like the EVM) has already moved from From to
// Self's balance, and moves back when the call fails.
type MemEnv struct {
	State   *MemState
	Self    Address
	From    Address
	Static  bool
	Number  uint64
	Time    uint64
	ChainId *big.Int
	Value   *big.Int
	// NoDeposits stands for a host that cannot hold deposits
	// (Env.HoldsDeposits false).
	NoDeposits bool
}

var _ Env = (*MemEnv)(nil)

func (e *MemEnv) Caller() Address                  { return e.From }
func (e *MemEnv) ReadOnly() bool                   { return e.Static }
func (e *MemEnv) GetState(k Hash) Hash             { return get(e.State.Persistent, e.Self, k) }
func (e *MemEnv) SetState(k, v Hash)               { set(e.State.Persistent, e.Self, k, v) }
func (e *MemEnv) GetTransientState(k Hash) Hash    { return get(e.State.Transient, e.Self, k) }
func (e *MemEnv) SetTransientState(k, v Hash)      { set(e.State.Transient, e.Self, k, v) }
func (e *MemEnv) PeerState(p Address, k Hash) Hash { return get(e.State.Persistent, p, k) }
func (e *MemEnv) PeerTransientState(p Address, k Hash) Hash {
	return get(e.State.Transient, p, k)
}
func (e *MemEnv) AddLog(topics []Hash, data []byte) {
	e.State.Logs = append(e.State.Logs, MemLog{Address: e.Self, Topics: topics, Data: data})
}
func (e *MemEnv) BlockNumber() uint64 { return e.Number }
func (e *MemEnv) BlockTime() uint64   { return e.Time }
func (e *MemEnv) ChainID() *big.Int {
	if e.ChainId == nil {
		return new(big.Int)
	}
	return e.ChainId
}

func (e *MemEnv) HoldsDeposits() bool        { return !e.NoDeposits }
func (e *MemEnv) CallValue() *big.Int        { return e.Value }
func (e *MemEnv) Balance(a Address) *big.Int { return e.State.Balance(a) }
func (e *MemEnv) Transfer(from Address, to *Address, amount *big.Int) {
	if err := e.State.AddBalance(from, new(big.Int).Neg(amount)); err != nil {
		panic(err) // the core checks the balance first (overlay.move)
	}
	if to == nil {
		if e.State.Burnt == nil {
			e.State.Burnt = new(big.Int)
		}
		e.State.Burnt.Add(e.State.Burnt, amount)
		return
	}
	_ = e.State.AddBalance(*to, amount)
}

// Store returns a StateStore over one address of the state (for ConfigureVerdict).
func (s *MemState) Store(a Address) StateStore { return memStore{s: s, a: a} }

type memStore struct {
	s *MemState
	a Address
}

func (m memStore) GetState(k Hash) Hash { return get(m.s.Persistent, m.a, k) }
func (m memStore) SetState(k, v Hash)   { set(m.s.Persistent, m.a, k, v) }
