package precompiles

import "math/big"

// Env is everything a precompile sees of its host. State access is scoped: a
// precompile reads and writes only its own address's storage and reads (never
// writes) the storage of the other fhegate precompiles through PeerState.
type Env interface {
	// Caller is the immediate caller (msg.sender of the precompile call).
	Caller() Address
	// ReadOnly is true inside STATICCALL (and eth_call of a view through one).
	ReadOnly() bool

	// GetState / SetState access persistent storage at the precompile's own address.
	GetState(key Hash) Hash
	SetState(key, value Hash)
	// GetTransientState / SetTransientState access EIP-1153 transient storage
	// (cleared at the end of the transaction) at the precompile's own address.
	GetTransientState(key Hash) Hash
	SetTransientState(key, value Hash)

	// PeerState and PeerTransientState read another fhegate precompile's storage.
	PeerState(peer Address, key Hash) Hash
	PeerTransientState(peer Address, key Hash) Hash

	// AddLog emits a log from the precompile's own address.
	AddLog(topics []Hash, data []byte)

	BlockNumber() uint64
	BlockTime() uint64
	ChainID() *big.Int
}

// overlay buffers a call's writes and logs so that nothing reaches the host
// unless the call succeeds. Writes are applied in program order.
type overlay struct {
	env       Env
	persist   map[Hash]Hash
	transient map[Hash]Hash
	ops       []writeOp
	logs      []logEntry
}

type writeOp struct {
	transient  bool
	key, value Hash
}

type logEntry struct {
	topics []Hash
	data   []byte
}

func newOverlay(env Env) *overlay {
	return &overlay{env: env, persist: map[Hash]Hash{}, transient: map[Hash]Hash{}}
}

func (o *overlay) get(key Hash) Hash {
	if v, ok := o.persist[key]; ok {
		return v
	}
	return o.env.GetState(key)
}

func (o *overlay) set(key, value Hash) {
	o.persist[key] = value
	o.ops = append(o.ops, writeOp{key: key, value: value})
}

func (o *overlay) getT(key Hash) Hash {
	if v, ok := o.transient[key]; ok {
		return v
	}
	return o.env.GetTransientState(key)
}

func (o *overlay) setT(key, value Hash) {
	o.transient[key] = value
	o.ops = append(o.ops, writeOp{transient: true, key: key, value: value})
}

func (o *overlay) log(topics []Hash, data []byte) {
	o.logs = append(o.logs, logEntry{topics: topics, data: data})
}

func (o *overlay) commit() {
	for _, w := range o.ops {
		if w.transient {
			o.env.SetTransientState(w.key, w.value)
		} else {
			o.env.SetState(w.key, w.value)
		}
	}
	for _, l := range o.logs {
		o.env.AddLog(l.topics, l.data)
	}
}
