// Package vm is a stand-in for github.com/luxfi/geth/core/vm: the two
// sentinel errors a precompile returns.
package vm

import "errors"

// Errors a precompiled contract returns to the EVM.
var (
	ErrOutOfGas          = errors.New("out of gas")
	ErrExecutionReverted = errors.New("execution reverted")
)
