package adapter

import (
	"math/big"

	"github.com/fhegate/fhegate/precompiles"
)

// StateDB is the part of a host StateDB the precompiles read and write: a
// host's contract.StateDB satisfies it as it is (A and H are the host's
// common.Address and common.Hash).
type StateDB[A ~[20]byte, H ~[32]byte] interface {
	GetState(A, H) H
	SetState(A, H, H)
}

// AccountDB is what activation needs besides storage: the nonce that keeps
// the precompile's account (and its storage) alive.
type AccountDB[A ~[20]byte, H ~[32]byte] interface {
	StateDB[A, H]
	GetNonce(A) uint64
	SetNonce(A, uint64)
}

// TransientDB is EIP-1153 transient storage, used when the host's StateDB
// has it (go-ethereum ≥ 1.13). On a StateDB without it transient reads see
// zero and transient writes are dropped, so a transient grant has no effect
// (it fails closed).
type TransientDB[A ~[20]byte, H ~[32]byte] interface {
	GetTransientState(A, H) H
	SetTransientState(A, H, H)
}

// AsTransient returns db's transient storage, or nil when it has none.
func AsTransient[A ~[20]byte, H ~[32]byte](db any) TransientDB[A, H] {
	t, _ := db.(TransientDB[A, H])
	return t
}

// BalanceDB moves balances, in wei (a host's StateDB behind a small shim:
// hosts count balances in uint256 or big.Int).
type BalanceDB[A ~[20]byte] interface {
	GetBalance(A) *big.Int
	AddBalance(A, *big.Int)
	SubBalance(A, *big.Int)
}

// BlockContext is the block a call runs in (a host's
// contract.BlockContext satisfies it).
type BlockContext interface {
	Number() *big.Int
	Timestamp() uint64
}

// Call is one precompile call as its host gives it.
type Call[A ~[20]byte, H ~[32]byte] struct {
	State StateDB[A, H]
	// Transient is the host's transient storage (AsTransient of its StateDB);
	// nil when it has none.
	Transient TransientDB[A, H]
	Block     BlockContext
	Caller    A
	ReadOnly  bool
	// ChainID returns the chain id (a ChainIDPerCall host); nil for a
	// ChainIDAtStartup host, whose id was set with Host.SetChainID.
	ChainID func() *big.Int
	// AddLog emits a log (the host's types.Log) from address at blockNumber.
	AddLog func(address A, topics []H, data []byte, blockNumber uint64)
	// Value is the call's value in wei (nil: none; the host has already
	// credited it to the precompile's balance).
	Value *big.Int
	// Deposits says the host can hold deposits: it passes the call value
	// and, outside static calls, Balances. Where it is false no request
	// carries a deposit (precompiles.Env.HoldsDeposits).
	Deposits bool
	// Balances moves balances for deposit settlement: nil in static calls
	// and on a host that cannot hold deposits (then a call carrying value
	// reverts before any state changes).
	Balances BalanceDB[A]
}

// env implements precompiles.Env over a Call, scoped to the precompile's own
// address self.
type env[A ~[20]byte, H ~[32]byte] struct {
	c    Call[A, H]
	self A
	host *Host
}

var _ precompiles.Env = (*env[[20]byte, [32]byte])(nil)

func (e *env[A, H]) Caller() precompiles.Address { return precompiles.Address(e.c.Caller) }
func (e *env[A, H]) ReadOnly() bool              { return e.c.ReadOnly }

func (e *env[A, H]) GetState(k precompiles.Hash) precompiles.Hash {
	return precompiles.Hash(e.c.State.GetState(e.self, H(k)))
}

func (e *env[A, H]) SetState(k, v precompiles.Hash) { e.c.State.SetState(e.self, H(k), H(v)) }

func (e *env[A, H]) GetTransientState(k precompiles.Hash) precompiles.Hash {
	return e.PeerTransientState(precompiles.Address(e.self), k)
}

func (e *env[A, H]) SetTransientState(k, v precompiles.Hash) {
	if e.c.Transient != nil {
		e.c.Transient.SetTransientState(e.self, H(k), H(v))
	}
}

func (e *env[A, H]) PeerState(peer precompiles.Address, k precompiles.Hash) precompiles.Hash {
	return precompiles.Hash(e.c.State.GetState(A(peer), H(k)))
}

func (e *env[A, H]) PeerTransientState(peer precompiles.Address, k precompiles.Hash) precompiles.Hash {
	if e.c.Transient != nil {
		return precompiles.Hash(e.c.Transient.GetTransientState(A(peer), H(k)))
	}
	return precompiles.Hash{}
}

func (e *env[A, H]) AddLog(topics []precompiles.Hash, data []byte) {
	ts := make([]H, len(topics))
	for i := range topics {
		ts[i] = H(topics[i])
	}
	e.c.AddLog(e.self, ts, data, e.BlockNumber())
}

func (e *env[A, H]) BlockNumber() uint64 {
	if n := e.c.Block.Number(); n != nil && n.IsUint64() {
		return n.Uint64()
	}
	return 0
}

func (e *env[A, H]) BlockTime() uint64 { return e.c.Block.Timestamp() }

func (e *env[A, H]) ChainID() *big.Int {
	if e.c.ChainID != nil {
		return e.c.ChainID()
	}
	return e.host.startupChainID()
}

func (e *env[A, H]) HoldsDeposits() bool { return e.c.Deposits }
func (e *env[A, H]) CallValue() *big.Int { return e.c.Value }

func (e *env[A, H]) Balance(a precompiles.Address) *big.Int {
	if e.c.Balances == nil {
		return new(big.Int)
	}
	return e.c.Balances.GetBalance(A(a))
}

func (e *env[A, H]) Transfer(from precompiles.Address, to *precompiles.Address, amount *big.Int) {
	e.c.Balances.SubBalance(A(from), amount)
	if to != nil {
		e.c.Balances.AddBalance(A(*to), amount)
	}
}

// store is a precompiles.StateStore at one address of a host StateDB.
type store[A ~[20]byte, H ~[32]byte] struct {
	state StateDB[A, H]
	addr  A
}

func (s store[A, H]) GetState(k precompiles.Hash) precompiles.Hash {
	return precompiles.Hash(s.state.GetState(s.addr, H(k)))
}

func (s store[A, H]) SetState(k, v precompiles.Hash) { s.state.SetState(s.addr, H(k), H(v)) }
