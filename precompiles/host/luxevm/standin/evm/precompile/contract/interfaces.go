// Package contract is a stand-in for github.com/luxfi/evm/precompile/contract:
// the interfaces a stateful precompile and its configurator implement and
// consume, with the real method sets and signatures.
package contract

import (
	"context"
	"math/big"

	"github.com/holiman/uint256"
	"github.com/luxfi/evm/precompile/precompileconfig"
	"github.com/luxfi/geth/common"
	ethtypes "github.com/luxfi/geth/core/types"
)

// StatefulPrecompiledContract is a precompile that sees the EVM state.
type StatefulPrecompiledContract interface {
	Run(accessibleState AccessibleState, caller common.Address, addr common.Address, input []byte, suppliedGas uint64, readOnly bool) (ret []byte, remainingGas uint64, err error)
}

// StateReader reads storage.
type StateReader interface {
	GetState(common.Address, common.Hash) common.Hash
}

// StateDB is the EVM state a precompile reads and writes.
type StateDB interface {
	StateReader
	SetState(common.Address, common.Hash, common.Hash)

	SetNonce(common.Address, uint64)
	GetNonce(common.Address) uint64

	GetBalance(common.Address) *uint256.Int
	AddBalance(common.Address, *uint256.Int)

	CreateAccount(common.Address)
	Exist(common.Address) bool

	AddLog(*ethtypes.Log)
	GetPredicateStorageSlots(address common.Address, index int) ([]byte, bool)

	GetTxHash() common.Hash

	Snapshot() int
	RevertToSnapshot(int)
}

// AccessibleState is what a call of a stateful precompile sees of its host.
type AccessibleState interface {
	GetStateDB() StateDB
	GetBlockContext() BlockContext
	GetConsensusContext() context.Context
	GetChainConfig() precompileconfig.ChainConfig
}

// ConfigurationBlockContext is the block an activation runs in.
type ConfigurationBlockContext interface {
	Number() *big.Int
	Timestamp() uint64
}

// BlockContext is the block a call runs in.
type BlockContext interface {
	ConfigurationBlockContext
	GetPredicateResults(txHash common.Hash, precompileAddress common.Address) []byte
}

// Configurator makes and applies a precompile's activation config.
type Configurator interface {
	MakeConfig() precompileconfig.Config
	MakeGenesisConfig() precompileconfig.Config
	Configure(
		chainConfig precompileconfig.ChainConfig,
		precompileconfig precompileconfig.Config,
		state StateDB,
		blockContext ConfigurationBlockContext,
	) error
}
