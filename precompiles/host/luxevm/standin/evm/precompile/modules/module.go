// Package modules is a stand-in for github.com/luxfi/evm/precompile/modules:
// the Module type and the global registry (RegisterModule and its lookups).
package modules

import (
	"bytes"
	"fmt"

	"github.com/luxfi/evm/precompile/contract"
	"github.com/luxfi/geth/common"
)

// Module is one stateful precompile as the registry holds it.
type Module struct {
	ConfigKey string
	Address   common.Address
	Contract  contract.StatefulPrecompiledContract
	contract.Configurator
}

var registered []Module

// reserved are the address ranges RegisterModule accepts: the LP-aligned
// page 0x10000–0x1ffff and, from v1.99.20 on, the legacy 0x0200…00–ff page
// (v0.8.30 to v1.99.19 accept only the first).
var reserved = [][2]common.Address{
	{common.HexToAddress("0x0000000000000000000000000000000000010000"), common.HexToAddress("0x000000000000000000000000000000000001ffff")},
	{common.HexToAddress("0x0200000000000000000000000000000000000000"), common.HexToAddress("0x02000000000000000000000000000000000000ff")},
}

// ReservedAddress reports whether addr lies in a range for custom precompiles.
func ReservedAddress(addr common.Address) bool {
	for _, r := range reserved {
		if bytes.Compare(addr[:], r[0][:]) >= 0 && bytes.Compare(addr[:], r[1][:]) <= 0 {
			return true
		}
	}
	return false
}

// RegisterModule adds stm to the registry: its address must be reserved, and
// neither its key nor its address taken.
func RegisterModule(stm Module) error {
	if !ReservedAddress(stm.Address) {
		return fmt.Errorf("address %x not in a reserved range", stm.Address)
	}
	for _, m := range registered {
		if m.ConfigKey == stm.ConfigKey || m.Address == stm.Address {
			return fmt.Errorf("%s / %x already used by a stateful precompile", stm.ConfigKey, stm.Address)
		}
	}
	registered = append(registered, stm)
	return nil
}

// GetPrecompileModule returns the module registered under key.
func GetPrecompileModule(key string) (Module, bool) {
	for _, m := range registered {
		if m.ConfigKey == key {
			return m, true
		}
	}
	return Module{}, false
}

// GetPrecompileModuleByAddress returns the module registered at address.
func GetPrecompileModuleByAddress(address common.Address) (Module, bool) {
	for _, m := range registered {
		if m.Address == address {
			return m, true
		}
	}
	return Module{}, false
}

// RegisteredModules lists the registered modules.
func RegisteredModules() []Module { return registered }
