package precompiles

import (
	"bytes"
	"embed"
	"fmt"
	"strings"

	"github.com/ava-labs/libevm/accounts/abi"
)

//go:embed abi/*.abi.json
var abiFS embed.FS

func loadABI(name string) (abi.ABI, error) {
	raw, err := abiFS.ReadFile("abi/" + name + ".abi.json")
	if err != nil {
		return abi.ABI{}, err
	}
	return abi.JSON(bytes.NewReader(raw))
}

// Contract is one fhegate precompile: an address, its ABI and a selector table.
type Contract struct {
	name    string
	addr    Address
	abi     abi.ABI
	methods map[[4]byte]*method
	suite   *Suite
}

// method is one ABI method with its gas and handler.
type method struct {
	name  string
	abi   abi.Method
	write bool
	// static gas charged before anything is decoded (the method's fixed reads,
	// writes and logs); calldata words are added on top.
	gas uint64
	run func(c *call, args []any) ([]any, error)
}

// Name returns the precompile's name (FHEInput, FHEPolicy, FHECRDT, FHEVerdict).
func (c *Contract) Name() string { return c.name }

// Address returns the precompile's address.
func (c *Contract) Address() Address { return c.addr }

// ABI returns the precompile's ABI (from the Solidity interface).
func (c *Contract) ABI() abi.ABI { return c.abi }

// Methods lists the method names in selector order (deterministic).
func (c *Contract) Methods() []string {
	out := make([]string, 0, len(c.methods))
	for _, m := range c.abi.Methods {
		out = append(out, m.Name)
	}
	sortStrings(out)
	return out
}

// StaticGas returns the fixed gas of a method (before calldata and dynamic parts).
func (c *Contract) StaticGas(name string) (uint64, bool) {
	m, ok := c.abi.Methods[name]
	if !ok {
		return 0, false
	}
	return c.methods[[4]byte(m.ID)].gas, true
}

func (c *Contract) bind(name string, write bool, gas uint64, run func(*call, []any) ([]any, error)) {
	m, ok := c.abi.Methods[name]
	if !ok {
		panic(fmt.Sprintf("precompiles: %s has no method %s in its ABI", c.name, name)) // init-time programming error
	}
	c.methods[[4]byte(m.ID)] = &method{name: name, abi: m, write: write, gas: gas, run: run}
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

// Run executes one call: charge gas → refuse writes when read-only → decode →
// authorise → act. It never panics; any residual panic becomes a revert that
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
	m, ok := c.methods[[4]byte(in[:4])]
	if !ok {
		return nil, cl.gas, revertf("%s: unknown selector 0x%x", c.name, in[:4])
	}
	cl.m = m
	if err := cl.charge(m.gas + GasInputWord*words(len(in)-4)); err != nil {
		return nil, 0, err
	}
	if m.write && env.ReadOnly() {
		return nil, cl.gas, revertf("%s.%s: state change refused in a read-only (static) call", c.name, m.name)
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
		if err == ErrOutOfGas {
			return nil, 0, err
		}
		if _, ok := err.(*RevertError); !ok {
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

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && strings.Compare(s[j-1], s[j]) > 0; j-- {
			s[j-1], s[j] = s[j], s[j-1]
		}
	}
}
