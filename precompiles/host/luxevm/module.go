// Package luxevm hosts fhegate's precompiles (package precompiles) in Lux's
// EVM (github.com/luxfi/evm). Importing it registers the four modules with
// Lux's precompile registry, at the same config keys and addresses, with the
// same chain config JSON, as precompiles/host/subnetevm. Both adapters are
// shims over precompiles/host/adapter; this one differs only in its import
// paths, in MakeGenesisConfig (Lux's Configurator has it) and in the chain id,
// which Lux's AccessibleState does not give: the VM sets it once with
// SetChainID. See README.md for what CI proves of this module.
package luxevm

import (
	"math/big"

	"github.com/luxfi/evm/precompile/contract"
	"github.com/luxfi/evm/precompile/modules"
	"github.com/luxfi/evm/precompile/precompileconfig"
	"github.com/luxfi/geth/common"
	"github.com/luxfi/geth/core/types"
	"github.com/luxfi/geth/core/vm"

	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/host/adapter"
)

// Config keys of the four modules (the subnet-evm adapter's).
const (
	InputConfigKey   = adapter.InputConfigKey
	PolicyConfigKey  = adapter.PolicyConfigKey
	CRDTConfigKey    = adapter.CRDTConfigKey
	VerdictConfigKey = adapter.VerdictConfigKey
)

// host is this adapter's installed suite and chain id.
var host = adapter.MustNewHost("luxevm", adapter.ChainIDAtStartup)

// SetBackends replaces the policy compiler and CRDT merger. Both are required
// (nil is an error); init installs the real pair from precompiles/corebackends.
func SetBackends(compiler precompiles.PolicyCompiler, merger precompiles.CRDTMerger) error {
	return host.SetBackends(compiler, merger)
}

// Suite returns the core precompiles currently registered.
func Suite() *precompiles.Suite { return host.Suite() }

// SetChainID sets the EVM chain id bound into verdict and input digests. The
// VM must call it at start-up, before activation: until it does, activation
// fails and every call reverts (a zero chain id would let verdicts and input
// attestations replay across chains). A nil or non-positive id is ignored.
func SetChainID(id *big.Int) { host.SetChainID(id) }

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
		return adapter.Call[common.Address, common.Hash]{
			State: sdb, Transient: adapter.AsTransient[common.Address, common.Hash](sdb),
			Block: as.GetBlockContext(), Caller: caller, ReadOnly: readOnly,
			AddLog: func(a common.Address, topics []common.Hash, data []byte, block uint64) {
				sdb.AddLog(&types.Log{Address: a, Topics: topics, Data: data, BlockNumber: block})
			},
		}
	})
}

// configurator implements contract.Configurator for one module.
type configurator struct {
	key  string
	addr common.Address
}

var _ contract.Configurator = (*configurator)(nil)

func (c *configurator) MakeConfig() precompileconfig.Config {
	if c.key == VerdictConfigKey {
		return new(VerdictConfig)
	}
	return NewConfig(c.key, nil)
}

// MakeGenesisConfig is the module's config activated at genesis. FHEVerdict's
// has neither committee nor governance, so it fails Verify: the verdict
// precompile is enabled only with an explicit config.
func (c *configurator) MakeGenesisConfig() precompileconfig.Config {
	zero := uint64(0)
	if c.key == VerdictConfigKey {
		return &VerdictConfig{Upgrade: precompileconfig.Upgrade{BlockTimestamp: &zero}}
	}
	return NewConfig(c.key, &zero)
}

func (c *configurator) Configure(_ precompileconfig.ChainConfig, cfg precompileconfig.Config, state contract.StateDB, _ contract.ConfigurationBlockContext) error {
	return adapter.Configure[common.Address, common.Hash](host, c.key, cfg, state, c.addr)
}
