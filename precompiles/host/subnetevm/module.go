package subnetevm

import (
	"errors"
	"fmt"
	"math/big"
	"sync/atomic"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/core/vm"
	"github.com/ava-labs/subnet-evm/precompile/contract"
	"github.com/ava-labs/subnet-evm/precompile/modules"
	"github.com/ava-labs/subnet-evm/precompile/precompileconfig"

	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/corebackends"
)

// Config keys of the four modules.
const (
	InputConfigKey   = "fheInputConfig"
	PolicyConfigKey  = "fhePolicyConfig"
	CRDTConfigKey    = "fheCRDTConfig"
	VerdictConfigKey = "fheVerdictConfig"
)

// Addresses of the four precompiles.
var (
	InputAddress   = common.Address(precompiles.FHEInputAddress)
	PolicyAddress  = common.Address(precompiles.FHEPolicyAddress)
	CRDTAddress    = common.Address(precompiles.FHECRDTAddress)
	VerdictAddress = common.Address(precompiles.FHEVerdictAddress)
)

var suite atomic.Pointer[precompiles.Suite]

// SetBackends replaces the policy compiler and CRDT metadata merger used by the
// registered precompiles. Both are required: nil is an error and leaves the
// current suite in place (there is no silent default; test stand-ins are in
// precompiles/precompilestest and must be installed explicitly). The default,
// installed at init, is the real pair: corebackends.Policy (policy/) and
// corebackends.CRDTMeta (fhe/crdt/meta). Call it before any chain is created:
// every validator must run the same backends.
func SetBackends(compiler precompiles.PolicyCompiler, merger precompiles.CRDTMerger) error {
	s, err := precompiles.NewSuite(precompiles.Options{Compiler: compiler, Merger: merger})
	if err != nil {
		return fmt.Errorf("subnetevm.SetBackends: %w", err)
	}
	suite.Store(s)
	return nil
}

// errNoBackends is returned (activation) or reverted with (calls) when no
// suite is installed: never run the precompiles without their backends.
const errNoBackends = "fhegate: precompile backends not set (subnetevm.SetBackends)"

// Suite returns the core precompiles currently registered.
func Suite() *precompiles.Suite { return suite.Load() }

// Modules lists the four modules in address order.
var Modules []modules.Module

func init() {
	if err := SetBackends(corebackends.Policy{}, corebackends.CRDTMeta{}); err != nil {
		panic(err) // embedded ABI broken: a build defect, not a runtime condition
	}
	pick := []func(*precompiles.Suite) *precompiles.Contract{
		func(s *precompiles.Suite) *precompiles.Contract { return s.Input },
		func(s *precompiles.Suite) *precompiles.Contract { return s.Policy },
		func(s *precompiles.Suite) *precompiles.Contract { return s.CRDT },
		func(s *precompiles.Suite) *precompiles.Contract { return s.Verdict },
	}
	keys := []string{InputConfigKey, PolicyConfigKey, CRDTConfigKey, VerdictConfigKey}
	addrs := []common.Address{InputAddress, PolicyAddress, CRDTAddress, VerdictAddress}
	for i := range keys {
		m := modules.Module{
			ConfigKey:    keys[i],
			Address:      addrs[i],
			Contract:     &statefulContract{addr: addrs[i], pick: pick[i]},
			Configurator: &configurator{key: keys[i], addr: addrs[i]},
		}
		if err := modules.RegisterModule(m); err != nil {
			panic(fmt.Sprintf("fhegate: register %s: %v", keys[i], err))
		}
		Modules = append(Modules, m)
	}
}

// statefulContract adapts a core contract to contract.StatefulPrecompiledContract.
type statefulContract struct {
	addr common.Address
	pick func(*precompiles.Suite) *precompiles.Contract
}

var _ contract.StatefulPrecompiledContract = (*statefulContract)(nil)

func (p *statefulContract) Run(as contract.AccessibleState, caller, addr common.Address, input []byte, suppliedGas uint64, readOnly bool) (ret []byte, remaining uint64, err error) {
	defer func() {
		if r := recover(); r != nil { // last line; the core validates and recovers itself
			ret, remaining, err = precompiles.EncodeRevert("fhegate: internal error"), 0, vm.ErrExecutionReverted
		}
	}()
	st := suite.Load()
	if st == nil {
		if suppliedGas < precompiles.GasMinimum {
			return nil, 0, vm.ErrOutOfGas
		}
		return precompiles.EncodeRevert(errNoBackends), suppliedGas - precompiles.GasMinimum, vm.ErrExecutionReverted
	}
	c := p.pick(st)
	if addr != p.addr {
		// delegatecall / callcode would scope storage to the caller: refuse.
		if suppliedGas < precompiles.GasMinimum {
			return nil, 0, vm.ErrOutOfGas
		}
		return precompiles.EncodeRevert(c.Name() + ": delegatecall and callcode are not supported"), suppliedGas - precompiles.GasMinimum, vm.ErrExecutionReverted
	}
	e := &env{as: as, sdb: as.GetStateDB(), caller: caller, self: p.addr, readOnly: readOnly}
	ret, remaining, err = c.Run(e, input, suppliedGas)
	return mapErr(ret, remaining, err)
}

func mapErr(ret []byte, remaining uint64, err error) ([]byte, uint64, error) {
	if err == nil {
		return ret, remaining, nil
	}
	if errors.Is(err, precompiles.ErrOutOfGas) {
		return nil, 0, vm.ErrOutOfGas
	}
	var rev *precompiles.RevertError
	if errors.As(err, &rev) {
		return precompiles.EncodeRevert(rev.Reason), remaining, vm.ErrExecutionReverted
	}
	return precompiles.EncodeRevert(err.Error()), remaining, vm.ErrExecutionReverted
}

// env implements precompiles.Env over subnet-evm's AccessibleState.
type env struct {
	as       contract.AccessibleState
	sdb      contract.StateDB
	caller   common.Address
	self     common.Address
	readOnly bool
}

type transientDB interface {
	GetTransientState(addr common.Address, key common.Hash) common.Hash
	SetTransientState(addr common.Address, key, value common.Hash)
}

type precompileEnvGetter interface {
	GetPrecompileEnv() vm.PrecompileEnvironment
}

func (e *env) Caller() precompiles.Address { return precompiles.Address(e.caller) }
func (e *env) ReadOnly() bool              { return e.readOnly }
func (e *env) GetState(k precompiles.Hash) precompiles.Hash {
	return precompiles.Hash(e.sdb.GetState(e.self, common.Hash(k)))
}
func (e *env) SetState(k, v precompiles.Hash) {
	e.sdb.SetState(e.self, common.Hash(k), common.Hash(v))
}
func (e *env) GetTransientState(k precompiles.Hash) precompiles.Hash {
	if t, ok := e.sdb.(transientDB); ok {
		return precompiles.Hash(t.GetTransientState(e.self, common.Hash(k)))
	}
	return precompiles.Hash{}
}
func (e *env) SetTransientState(k, v precompiles.Hash) {
	if t, ok := e.sdb.(transientDB); ok {
		t.SetTransientState(e.self, common.Hash(k), common.Hash(v))
	}
}
func (e *env) PeerState(peer precompiles.Address, k precompiles.Hash) precompiles.Hash {
	return precompiles.Hash(e.sdb.GetState(common.Address(peer), common.Hash(k)))
}
func (e *env) PeerTransientState(peer precompiles.Address, k precompiles.Hash) precompiles.Hash {
	if t, ok := e.sdb.(transientDB); ok {
		return precompiles.Hash(t.GetTransientState(common.Address(peer), common.Hash(k)))
	}
	return precompiles.Hash{}
}
func (e *env) AddLog(topics []precompiles.Hash, data []byte) {
	ts := make([]common.Hash, len(topics))
	for i := range topics {
		ts[i] = common.Hash(topics[i])
	}
	e.sdb.AddLog(&types.Log{Address: e.self, Topics: ts, Data: data, BlockNumber: e.BlockNumber()})
}
func (e *env) BlockNumber() uint64 {
	if n := e.as.GetBlockContext().Number(); n != nil && n.IsUint64() {
		return n.Uint64()
	}
	return 0
}
func (e *env) BlockTime() uint64 { return e.as.GetBlockContext().Timestamp() }
func (e *env) ChainID() *big.Int {
	if g, ok := e.as.(precompileEnvGetter); ok {
		if cc := g.GetPrecompileEnv().ChainConfig(); cc != nil && cc.ChainID != nil {
			return new(big.Int).Set(cc.ChainID)
		}
	}
	return new(big.Int)
}

var _ precompiles.Env = (*env)(nil)

// configurator implements contract.Configurator for one module.
type configurator struct {
	key  string
	addr common.Address
}

func (c *configurator) MakeConfig() precompileconfig.Config {
	if c.key == VerdictConfigKey {
		return new(VerdictConfig)
	}
	return &Config{key: c.key}
}

func (c *configurator) Configure(_ precompileconfig.ChainConfig, cfg precompileconfig.Config, state contract.StateDB, _ contract.ConfigurationBlockContext) error {
	if suite.Load() == nil {
		return errors.New(errNoBackends)
	}
	// EIP-158: make sure the account is never "empty" so its storage survives.
	if state.GetNonce(c.addr) == 0 {
		state.SetNonce(c.addr, 1)
	}
	if c.key != VerdictConfigKey {
		if _, ok := cfg.(*Config); !ok {
			return fmt.Errorf("%s: expected *Config, got %T", c.key, cfg)
		}
		return nil
	}
	vc, ok := cfg.(*VerdictConfig)
	if !ok {
		return fmt.Errorf("%s: expected *VerdictConfig, got %T", c.key, cfg)
	}
	cc, err := vc.committeeConfig()
	if err != nil {
		return err
	}
	return precompiles.ConfigureVerdict(store{state: state, addr: c.addr}, precompiles.Address(vc.Governance), cc)
}

type store struct {
	state contract.StateDB
	addr  common.Address
}

func (s store) GetState(k precompiles.Hash) precompiles.Hash {
	return precompiles.Hash(s.state.GetState(s.addr, common.Hash(k)))
}
func (s store) SetState(k, v precompiles.Hash) {
	s.state.SetState(s.addr, common.Hash(k), common.Hash(v))
}
