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

	// HoldsDeposits is false on a host that cannot move balances (its
	// precompile interface passes neither the call value nor a way to pay
	// it back): there requests carry no deposit (depositOf is 0) and
	// isolation is unpaid, as before deposits (deposit.go).
	HoldsDeposits() bool
	// CallValue is the wei the call carries (msg.value; nil or zero when
	// none). The host has already moved it to the precompile's own balance,
	// and a revert moves it back. Only payable methods accept it (Run
	// refuses value sent to any other method).
	CallValue() *big.Int
	// Balance is the balance of account a in wei.
	Balance(a Address) *big.Int
	// Transfer moves amount wei from the balance of from, one of the fhegate
	// precompiles (the deposits FHEPolicy holds), to the account to, or
	// burns it when to is nil. The core never moves more than from holds
	// (overlay.move checks Balance first); the recipient's code does not run.
	Transfer(from Address, to *Address, amount *big.Int)
}

// overlay buffers a call's writes and logs so that nothing reaches the host
// unless the call succeeds. Writes are applied in program order.
type overlay struct {
	env       Env
	persist   map[Hash]Hash
	transient map[Hash]Hash
	ops       []writeOp
	logs      []logEntry
	debits    map[Address]*big.Int // wei moved out of each account by buffered transfers
}

type writeOp struct {
	transient  bool
	key, value Hash
	// a balance move (transfer) instead of a storage write when move is set
	move *balanceMove
}

// balanceMove is one buffered Env.Transfer.
type balanceMove struct {
	from   Address
	to     *Address // nil: burn
	amount *big.Int
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

// move buffers a transfer of amount wei from from to to (nil: burn). It
// fails, buffering nothing, when from's balance less what earlier buffered
// transfers took from it is short: a deposit is paid out at most once, so
// this can only fail on a broken invariant, never on a user's input.
func (o *overlay) move(from Address, to *Address, amount *big.Int) error {
	if amount.Sign() <= 0 {
		return nil
	}
	out := o.debits[from]
	if out == nil {
		out = new(big.Int)
	}
	left := new(big.Int).Sub(o.env.Balance(from), out)
	if left.Cmp(amount) < 0 {
		return revertf("internal: %s holds %s wei, cannot pay %s", from, left, amount)
	}
	if o.debits == nil {
		o.debits = map[Address]*big.Int{}
	}
	o.debits[from] = out.Add(out, amount)
	o.ops = append(o.ops, writeOp{move: &balanceMove{from: from, to: to, amount: new(big.Int).Set(amount)}})
	return nil
}

func (o *overlay) log(topics []Hash, data []byte) {
	o.logs = append(o.logs, logEntry{topics: topics, data: data})
}

func (o *overlay) commit() {
	for _, w := range o.ops {
		if w.move != nil {
			o.env.Transfer(w.move.from, w.move.to, w.move.amount)
			continue
		}
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
