package main

import (
	_ "github.com/ava-labs/avalanchego/vms/rpcchainvm"
	_ "github.com/ava-labs/libevm/accounts/abi"
	_ "github.com/ava-labs/libevm/ethclient"
	_ "github.com/ava-labs/subnet-evm/ethclient/simulated"
	_ "github.com/ava-labs/subnet-evm/plugin/evm"
	_ "github.com/ava-labs/subnet-evm/precompile/modules"
	_ "github.com/luxfi/lattice/v7/schemes/bgv"
	_ "github.com/luxfi/lattice/v7/multiparty/mpbgv"
)

func main() {}
