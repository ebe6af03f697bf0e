package precompiles

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/ava-labs/libevm/accounts/abi"

	precompileabi "github.com/fhegate/fhegate/precompiles/abi"
)

// Contract is one fhegate precompile: an address, its ABI and its method
// table sorted by selector.
type Contract struct {
	name    string
	addr    Address
	abi     abi.ABI
	methods []*method // sorted by selector (see newContract)
}

// handler runs one ABI method on decoded arguments and returns its outputs.
type handler func(cl *call, args []any) ([]any, error)

// methodSpec is one row of a precompile's method table (the shape of
// subnet-evm's precompile function tables): ABI method name, handler,
// read-only flag and static gas.
type methodSpec struct {
	name     string
	readOnly bool // a view: allowed in static calls; false means it writes state
	// payable methods accept call value (FHEPolicy's evaluations, which
	// hold a deposit); Run refuses value sent to any other method.
	payable bool
	// static gas charged before anything is decoded (the method's fixed reads,
	// writes and logs); calldata words are added on top.
	gas uint64
	// maxInput, when non-zero, caps the calldata after the selector: larger
	// inputs revert before anything is decoded.
	maxInput int
	// auth, when set, authorises the caller before any argument is decoded
	// (for methods whose authorisation does not depend on their arguments).
	auth func(cl *call) error
	// items, when set, charges per element of a dynamic array argument
	// from the count read from calldata, after the bounded pre-pass and
	// before decoding: gas before work, count bounded before allocating.
	items *itemGas
	run   handler
}

// itemGas is a per-element charge on the array argument arg (index into
// the method's inputs) of at most max elements.
type itemGas struct {
	arg int
	max int
	gas uint64
}

// charge reads arg's element count from data (offsets already validated by
// checkEncoding), refuses counts above max and charges gas per element.
func (ig *itemGas) charge(cl *call, data []byte) error {
	off, err := word(data, uint64(32*ig.arg))
	if err != nil {
		return revertf("%s.%s: malformed input: %v", cl.c.name, cl.m.name, err)
	}
	n, err := word(data, off)
	if err != nil {
		return revertf("%s.%s: malformed input: %v", cl.c.name, cl.m.name, err)
	}
	if n == 0 || n > uint64(ig.max) {
		return revertf("%s.%s: %d items outside [1,%d]", cl.c.name, cl.m.name, n, ig.max)
	}
	return cl.charge(ig.gas * n)
}

// method is a methodSpec bound to its ABI method.
type method struct {
	methodSpec
	abi abi.Method
}

// newContract loads the ABI I<name> and binds specs to it. Every ABI method
// needs exactly one spec and every spec an ABI method; anything else is an
// error naming the method.
func newContract(name string, addr Address, specs []methodSpec) (*Contract, error) {
	a, err := precompileabi.Parse("I" + name)
	if err != nil {
		return nil, fmt.Errorf("precompiles: load ABI %s: %w", name, err)
	}
	return bindContract(name, addr, a, specs)
}

func bindContract(name string, addr Address, a abi.ABI, specs []methodSpec) (*Contract, error) {
	c := &Contract{name: name, addr: addr, abi: a}
	bound := make(map[string]bool, len(specs)) // membership only; never iterated
	for _, sp := range specs {
		if bound[sp.name] {
			return nil, fmt.Errorf("precompiles: %s: method %s registered twice", name, sp.name)
		}
		bound[sp.name] = true
		m, ok := a.Methods[sp.name]
		if !ok {
			return nil, fmt.Errorf("precompiles: %s: handler %s has no method in the ABI", name, sp.name)
		}
		if sp.run == nil {
			return nil, fmt.Errorf("precompiles: %s: method %s has a nil handler", name, sp.name)
		}
		c.methods = append(c.methods, &method{methodSpec: sp, abi: m})
	}
	for _, n := range sortedKeys(a.Methods) {
		if !bound[n] {
			return nil, fmt.Errorf("precompiles: %s: ABI method %s has no handler", name, n)
		}
	}
	slices.SortFunc(c.methods, func(x, y *method) int { return bytes.Compare(x.abi.ID, y.abi.ID) })
	for i := 1; i < len(c.methods); i++ {
		if bytes.Equal(c.methods[i-1].abi.ID, c.methods[i].abi.ID) {
			return nil, fmt.Errorf("precompiles: %s: methods %s and %s share selector 0x%x", name, c.methods[i-1].name, c.methods[i].name, c.methods[i].abi.ID)
		}
	}
	return c, nil
}

// lookup finds the method with selector sel (binary search of the sorted table).
func (c *Contract) lookup(sel []byte) (*method, bool) {
	i, ok := slices.BinarySearchFunc(c.methods, sel, func(m *method, sel []byte) int { return bytes.Compare(m.abi.ID, sel) })
	if !ok {
		return nil, false
	}
	return c.methods[i], true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Name returns the precompile's name (FHEInput, FHEPolicy, FHECRDT, FHEVerdict).
func (c *Contract) Name() string { return c.name }

// Address returns the precompile's address.
func (c *Contract) Address() Address { return c.addr }

// ABI returns the precompile's ABI (from the Solidity interface).
func (c *Contract) ABI() abi.ABI { return c.abi }

// Methods lists the method names in name order (deterministic; FuzzPrecompiles
// and its corpus in testdata/fuzz index methods in this order).
func (c *Contract) Methods() []string {
	return sortedKeys(c.abi.Methods)
}

// StaticGas returns the fixed gas of a method (before calldata and dynamic parts).
func (c *Contract) StaticGas(name string) (uint64, bool) {
	m, ok := c.abi.Methods[name]
	if !ok {
		return 0, false
	}
	cm, _ := c.lookup(m.ID)
	return cm.gas, true
}

// call is the per-invocation context.
type call struct {
	env    Env
	st     *overlay
	caller Address
	gas    uint64 // remaining
	c      *Contract
	m      *method
}

// charge deducts n gas or fails with ErrOutOfGas.
func (c *call) charge(n uint64) error {
	if c.gas < n {
		c.gas = 0
		return ErrOutOfGas
	}
	c.gas -= n
	return nil
}

// chargeStore charges for writing key: GasWrite when the slot is still
// zero, GasUpdate when it already holds a value (the caller's static gas paid
// the read).
func (c *call) chargeStore(key Hash) error {
	if c.st.get(key).IsZero() {
		return c.charge(GasWrite)
	}
	return c.charge(GasUpdate)
}

func (c *call) emit(event string, args ...any) error {
	ev, ok := c.c.abi.Events[event]
	if !ok {
		return revertf("internal: no event %s", event)
	}
	topics := []Hash{Hash(ev.ID)}
	var dataArgs abi.Arguments
	var dataVals []any
	for i, in := range ev.Inputs {
		if in.Indexed {
			t, err := topicOf(args[i])
			if err != nil {
				return err
			}
			topics = append(topics, t)
		} else {
			dataArgs = append(dataArgs, in)
			dataVals = append(dataVals, args[i])
		}
	}
	data, err := dataArgs.Pack(dataVals...)
	if err != nil {
		return revertf("internal: pack event %s: %v", event, err)
	}
	c.st.log(topics, data)
	return nil
}

// Run executes one call: charge gas → refuse writes when read-only → size cap
// and argument-free authorisation → bounded pre-pass over the encoding →
// decode → authorise → act. It never panics; any residual panic becomes a revert that
// consumes all supplied gas.
func (c *Contract) Run(env Env, input []byte, suppliedGas uint64) (ret []byte, remaining uint64, err error) {
	defer func() {
		if r := recover(); r != nil {
			ret, remaining, err = nil, 0, revertf("%s: internal error", c.name)
		}
	}()
	in := bytes.Clone(input) // never alias or mutate the caller's input
	cl := &call{env: env, st: newOverlay(env), caller: env.Caller(), gas: suppliedGas, c: c}
	if err := cl.charge(GasMinimum); err != nil {
		return nil, 0, err
	}
	if len(in) < 4 {
		return nil, cl.gas, revertf("%s: input shorter than a 4-byte selector", c.name)
	}
	m, ok := c.lookup(in[:4])
	if !ok {
		return nil, cl.gas, revertf("%s: unknown selector 0x%x", c.name, in[:4])
	}
	cl.m = m
	if err := cl.charge(m.gas + GasInputWord*words(len(in)-4)); err != nil {
		return nil, 0, err
	}
	if !m.readOnly && env.ReadOnly() {
		return nil, cl.gas, revertf("%s.%s: state change refused in a read-only (static) call", c.name, m.name)
	}
	if v := env.CallValue(); v != nil && v.Sign() != 0 && !m.payable {
		return nil, cl.gas, revertf("%s.%s: not payable: the call carries %s wei", c.name, m.name, v)
	}
	if m.maxInput > 0 && len(in)-4 > m.maxInput {
		return nil, cl.gas, revertf("%s.%s: input of %d bytes exceeds the method's %d", c.name, m.name, len(in)-4, m.maxInput)
	}
	if m.auth != nil {
		if err := m.auth(cl); err != nil {
			return nil, cl.gas, err
		}
	}
	// bounded pre-pass: Unpack allocates per decoded element, so counts,
	// lengths and offsets are checked against the input size first (decode.go)
	if err := checkEncoding(m.abi.Inputs, in[4:]); err != nil {
		return nil, cl.gas, revertf("%s.%s: malformed input: %v", c.name, m.name, err)
	}
	if m.items != nil {
		if err := m.items.charge(cl, in[4:]); err != nil {
			if errors.Is(err, ErrOutOfGas) {
				return nil, 0, err
			}
			return nil, cl.gas, err
		}
	}
	args, err := m.abi.Inputs.Unpack(in[4:])
	if err != nil {
		return nil, cl.gas, revertf("%s.%s: malformed input: %v", c.name, m.name, err)
	}
	if len(args) != len(m.abi.Inputs) {
		return nil, cl.gas, revertf("%s.%s: malformed input", c.name, m.name)
	}
	outs, err := m.run(cl, args)
	if err != nil {
		if errors.Is(err, ErrOutOfGas) {
			return nil, 0, err
		}
		var rev *RevertError
		if !errors.As(err, &rev) {
			err = revertf("%s.%s: %v", c.name, m.name, err)
		}
		return nil, cl.gas, err
	}
	ret, err = m.abi.Outputs.Pack(outs...)
	if err != nil {
		return nil, cl.gas, revertf("%s.%s: internal: pack output: %v", c.name, m.name, err)
	}
	cl.st.commit()
	return ret, cl.gas, nil
}
