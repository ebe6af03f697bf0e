package subnetevm

import (
	"math/big"

	"github.com/holiman/uint256"

	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/core/vm"
	"github.com/ava-labs/subnet-evm/precompile/contract"
	"github.com/ava-labs/subnet-evm/precompile/modules"
	"github.com/ava-labs/subnet-evm/precompile/precompileconfig"

	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/host/adapter"
)

// Config keys of the four modules.
const (
	InputConfigKey   = adapter.InputConfigKey
	PolicyConfigKey  = adapter.PolicyConfigKey
	CRDTConfigKey    = adapter.CRDTConfigKey
	VerdictConfigKey = adapter.VerdictConfigKey
)

// Addresses of the four precompiles.
var (
	InputAddress   = common.Address(precompiles.FHEInputAddress)
	PolicyAddress  = common.Address(precompiles.FHEPolicyAddress)
	CRDTAddress    = common.Address(precompiles.FHECRDTAddress)
	VerdictAddress = common.Address(precompiles.FHEVerdictAddress)
)

// host is this adapter's installed suite; subnet-evm gives the chain id with
// every call (the chain config of the precompile environment).
var host = adapter.MustNewHost("subnetevm", adapter.ChainIDPerCall)

// SetBackends replaces the policy compiler and CRDT metadata merger used by the
// registered precompiles. Both are required: nil is an error and leaves the
// current suite in place (there is no silent default; test stand-ins are in
// precompiles/precompilestest and must be installed explicitly). The default,
// installed at init, is the real pair: corebackends.Policy (policy/) and
// corebackends.CRDTMeta (fhe/crdt/meta). Call it before any chain is created:
// every validator must run the same backends.
func SetBackends(compiler precompiles.PolicyCompiler, merger precompiles.CRDTMerger) error {
	return host.SetBackends(compiler, merger)
}

// Suite returns the core precompiles currently registered.
func Suite() *precompiles.Suite { return host.Suite() }

// Modules lists the four modules in address order.
var Modules []modules.Module

func init() {
	var err error
	if Modules, err = adapter.Register(module, modules.RegisterModule); err != nil {
		panic(err) // the registry refuses the keys or addresses: the host cannot run them
	}
}

func module(i int) modules.Module {
	addr := common.Address(adapter.Addresses[i])
	return modules.Module{ConfigKey: adapter.Keys[i], Address: addr, Contract: &statefulContract{index: i}, Configurator: &configurator{key: adapter.Keys[i], addr: addr}}
}

var vmErrors = adapter.VMErrors{Reverted: vm.ErrExecutionReverted, OutOfGas: vm.ErrOutOfGas}

// statefulContract adapts core contract index (into adapter.Keys) to
// contract.StatefulPrecompiledContract.
type statefulContract struct{ index int }

var _ contract.StatefulPrecompiledContract = (*statefulContract)(nil)

func (p *statefulContract) Run(as contract.AccessibleState, caller, addr common.Address, input []byte, suppliedGas uint64, readOnly bool) ([]byte, uint64, error) {
	return adapter.Run(host, p.index, addr, input, suppliedGas, vmErrors, func() adapter.Call[common.Address, common.Hash] {
		sdb := as.GetStateDB()
		c := adapter.Call[common.Address, common.Hash]{
			State: stateDB{sdb}, Transient: adapter.AsTransient[common.Address, common.Hash](sdb),
			Block: as.GetBlockContext(), Caller: caller, ReadOnly: readOnly,
			ChainID: func() *big.Int { return chainID(as) },
			AddLog: func(a common.Address, topics []common.Hash, data []byte, block uint64) {
				sdb.AddLog(&types.Log{Address: a, Topics: topics, Data: data, BlockNumber: block})
			},
		}
		c.Deposits, c.Value, c.Balances = valueAndBalances(as, readOnly)
		return c
	})
}

type precompileEnvGetter interface {
	GetPrecompileEnv() vm.PrecompileEnvironment
}

// valueAndBalances returns the call's value and, outside static calls,
// libevm's StateDB for moving deposits (subnet-evm's contract.StateDB has no
// SubBalance; the precompile environment behind it has both, and the
// call value, which subnet-evm's Run signature does not pass).
func valueAndBalances(as contract.AccessibleState, readOnly bool) (bool, *big.Int, adapter.BalanceDB[common.Address]) {
	g, ok := as.(precompileEnvGetter)
	if !ok {
		return false, nil, nil
	}
	env := g.GetPrecompileEnv()
	var value *big.Int
	if v := env.Value(); v != nil {
		value = v.ToBig()
	}
	if readOnly || env.StateDB() == nil {
		return true, value, nil
	}
	return true, value, balances{env.StateDB()}
}

// balances is libevm's StateDB as an adapter.BalanceDB.
type balances struct{ db vm.StateDB }

func (b balances) GetBalance(a common.Address) *big.Int { return b.db.GetBalance(a).ToBig() }
func (b balances) AddBalance(a common.Address, x *big.Int) {
	b.db.AddBalance(a, uint256.MustFromBig(x))
}
func (b balances) SubBalance(a common.Address, x *big.Int) {
	b.db.SubBalance(a, uint256.MustFromBig(x))
}

// chainID is the chain id of the precompile environment's chain config (zero
// if the state gives none).
func chainID(as contract.AccessibleState) *big.Int {
	if g, ok := as.(precompileEnvGetter); ok {
		if cc := g.GetPrecompileEnv().ChainConfig(); cc != nil && cc.ChainID != nil {
			return new(big.Int).Set(cc.ChainID)
		}
	}
	return new(big.Int)
}

// configurator implements contract.Configurator for one module.
type configurator struct {
	key  string
	addr common.Address
}

func (c *configurator) MakeConfig() precompileconfig.Config {
	if c.key == VerdictConfigKey {
		return new(VerdictConfig)
	}
	return NewConfig(c.key, nil)
}

func (c *configurator) Configure(_ precompileconfig.ChainConfig, cfg precompileconfig.Config, state contract.StateDB, _ contract.ConfigurationBlockContext) error {
	return adapter.Configure[common.Address, common.Hash](host, c.key, cfg, stateDB{state}, c.addr)
}

// stateDB is subnet-evm's StateDB without its state options (the
// precompiles pass none).
type stateDB struct{ contract.StateDB }

func (s stateDB) GetState(a common.Address, k common.Hash) common.Hash {
	return s.StateDB.GetState(a, k)
}
func (s stateDB) SetState(a common.Address, k, v common.Hash) { s.StateDB.SetState(a, k, v) }
