package adapter

import (
	"errors"
	"fmt"
	"math/big"
	"sync/atomic"

	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/corebackends"
)

// Config keys of the four modules, in address order.
const (
	InputConfigKey   = "fheInputConfig"
	PolicyConfigKey  = "fhePolicyConfig"
	CRDTConfigKey    = "fheCRDTConfig"
	VerdictConfigKey = "fheVerdictConfig"
)

// Keys lists the config keys in address order; Addresses[i] is Keys[i]'s
// address and precompiles.Suite.Contracts()[i] its contract.
var (
	Keys      = [4]string{InputConfigKey, PolicyConfigKey, CRDTConfigKey, VerdictConfigKey}
	Addresses = [4]precompiles.Address{precompiles.FHEInputAddress, precompiles.FHEPolicyAddress, precompiles.FHECRDTAddress, precompiles.FHEVerdictAddress}
)

// ChainIDSource says where a host's chain id comes from.
type ChainIDSource int

const (
	// ChainIDPerCall: the host gives the chain id with every call (Call.ChainID).
	ChainIDPerCall ChainIDSource = iota
	// ChainIDAtStartup: the host's precompile interface does not give it, so
	// the VM sets it once with SetChainID; until it does, activation fails and
	// every call reverts (a zero chain id would let verdicts and input
	// attestations replay across chains).
	ChainIDAtStartup
)

// Host is one adapter's installed state: the suite (the core precompiles with
// their backends) and, for a ChainIDAtStartup host, the chain id. A host
// adapter keeps one in a package variable: its modules are registered once
// per process, in its host's global registry.
type Host struct {
	name    string // the adapter's package name, in error messages
	source  ChainIDSource
	suite   atomic.Pointer[precompiles.Suite]
	chainID atomic.Pointer[big.Int]
}

// NewHost returns the state of adapter name (its package name) with the real
// backends installed (corebackends.Policy and corebackends.CRDTMeta). It
// fails only if the embedded ABIs are broken: a build defect.
func NewHost(name string, source ChainIDSource) (*Host, error) {
	h := &Host{name: name, source: source}
	if err := h.SetBackends(corebackends.Policy{}, corebackends.CRDTMeta{}); err != nil {
		return nil, err
	}
	return h, nil
}

// MustNewHost is NewHost for a host adapter's package variable: it panics on
// the build defect NewHost reports, at init, before any chain runs.
func MustNewHost(name string, source ChainIDSource) *Host {
	h, err := NewHost(name, source)
	if err != nil {
		panic(err)
	}
	return h
}

// Register builds the four modules with module(i) (Keys[i] at Addresses[i])
// and registers each with register (the host registry's RegisterModule),
// returning them in address order.
func Register[M any](module func(i int) M, register func(M) error) ([]M, error) {
	out := make([]M, 0, len(Keys))
	for i := range Keys {
		m := module(i)
		if err := register(m); err != nil {
			return nil, fmt.Errorf("fhegate: register %s: %w", Keys[i], err)
		}
		out = append(out, m)
	}
	return out, nil
}

// SetBackends replaces the policy compiler and CRDT metadata merger. Both are
// required: nil is an error and leaves the installed suite in place (there is
// no silent default; test stand-ins are in precompiles/precompilestest).
func (h *Host) SetBackends(compiler precompiles.PolicyCompiler, merger precompiles.CRDTMerger) error {
	s, err := precompiles.NewSuite(precompiles.Options{Compiler: compiler, Merger: merger})
	if err != nil {
		return fmt.Errorf("%s.SetBackends: %w", h.name, err)
	}
	h.suite.Store(s)
	return nil
}

// Suite returns the installed suite (nil when none is).
func (h *Host) Suite() *precompiles.Suite { return h.suite.Load() }

// SwapSuite installs s (nil: none) and returns the suite it replaces; for
// tests of the no-backends paths.
func (h *Host) SwapSuite(s *precompiles.Suite) *precompiles.Suite { return h.suite.Swap(s) }

// SetChainID sets the chain id of a ChainIDAtStartup host. A nil or
// non-positive id is ignored (the precompiles stay disabled).
func (h *Host) SetChainID(id *big.Int) {
	if id == nil || id.Sign() <= 0 {
		return
	}
	h.chainID.Store(new(big.Int).Set(id))
}

// ready returns the installed suite, or why the precompiles cannot run.
func (h *Host) ready() (*precompiles.Suite, string) {
	s := h.suite.Load()
	if s == nil {
		return nil, "fhegate: precompile backends not set (" + h.name + ".SetBackends)"
	}
	if h.source == ChainIDAtStartup && h.chainID.Load() == nil {
		return nil, "fhegate: chain id not set (" + h.name + ".SetChainID)"
	}
	return s, ""
}

// startupChainID is the id set with SetChainID (zero when unset).
func (h *Host) startupChainID() *big.Int {
	if id := h.chainID.Load(); id != nil {
		return new(big.Int).Set(id)
	}
	return new(big.Int)
}

// VMErrors are the host EVM's sentinel errors (vm.ErrExecutionReverted,
// vm.ErrOutOfGas of its go-ethereum fork).
type VMErrors struct {
	Reverted error
	OutOfGas error
}

// Run runs one call of module i (an index into Keys) called at addr. call
// gives the host's view of the call; it runs only once the call is admitted.
// A revert returns Error(string) revert data with errs.Reverted and the unused
// gas; an out-of-gas returns errs.OutOfGas and no gas; a panic (the core
// recovers its own; this is the last line) reverts with all gas consumed.
func Run[A ~[20]byte, H ~[32]byte](h *Host, i int, addr A, input []byte, gas uint64, errs VMErrors, call func() Call[A, H]) (ret []byte, remaining uint64, err error) {
	defer func() {
		if r := recover(); r != nil {
			ret, remaining, err = precompiles.EncodeRevert("fhegate: internal error"), 0, errs.Reverted
		}
	}()
	s, why := h.ready()
	if s == nil {
		return refuse(why, gas, errs)
	}
	c := s.Contracts()[i]
	if precompiles.Address(addr) != Addresses[i] {
		// delegatecall / callcode would scope storage to the caller: refuse.
		return refuse(c.Name()+": delegatecall and callcode are not supported", gas, errs)
	}
	e := &env[A, H]{c: call(), self: A(Addresses[i]), host: h}
	if v := e.c.Value; v != nil && v.Sign() != 0 && e.c.Balances == nil {
		return refuse(c.Name()+": this host cannot hold deposits: the call must carry no value", gas, errs)
	}
	ret, remaining, err = c.Run(e, input, gas)
	return mapErr(ret, remaining, err, errs)
}

// refuse reverts with why after charging precompiles.GasMinimum (gas before work).
func refuse(why string, gas uint64, errs VMErrors) ([]byte, uint64, error) {
	if gas < precompiles.GasMinimum {
		return nil, 0, errs.OutOfGas
	}
	return precompiles.EncodeRevert(why), gas - precompiles.GasMinimum, errs.Reverted
}

// mapErr maps the core's outcome to the host EVM's.
func mapErr(ret []byte, remaining uint64, err error, errs VMErrors) ([]byte, uint64, error) {
	if err == nil {
		return ret, remaining, nil
	}
	if errors.Is(err, precompiles.ErrOutOfGas) {
		return nil, 0, errs.OutOfGas
	}
	var rev *precompiles.RevertError
	if errors.As(err, &rev) {
		return precompiles.EncodeRevert(rev.Reason), remaining, errs.Reverted
	}
	return precompiles.EncodeRevert(err.Error()), remaining, errs.Reverted
}
