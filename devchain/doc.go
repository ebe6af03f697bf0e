// Package devchain runs a single-process subnet-evm chain and serves it over
// HTTP (and WebSocket) JSON-RPC, so that any Ethereum tool — ethclient, viem,
// ethers, Foundry, MetaMask — can deploy and call contracts against the same
// EVM, precompile registry and fee rules a subnet-evm v0.8.0 validator runs.
//
// # How it is put together
//
// There is no avalanchego node and no consensus engine: the chain is
// subnet-evm's own eth.Ethereum service (eth.New) over a LevelDB database,
// with its eth, net, web3 and txpool services (not admin, debug or personal)
// registered on a subnet-evm rpc.Server, which is an http.Handler. Browser
// pages may call it only from localhost origins, or from Config.AllowOrigins
// (CORS and WebSocket upgrades alike); clients that send no Origin header are
// served as usual. The node normally decides when to build a block
// (snowman + proposervm); here a single producer goroutine does it, following
// the same steps as subnet-evm's ethclient/simulated backend:
//
//	txpool.Sync → set the miner's clock → Miner().GenerateBlock
//	→ BlockChain().InsertBlock → Accept → DrainAcceptorQueue
//
// A block is produced as soon as transactions reach the pool's pending set
// (so a sent transaction is mined within milliseconds), optionally also on a
// fixed interval, and on demand (Chain.Mine, or the `evm_mine` RPC method that
// Hardhat-style tooling uses). Every block is accepted immediately: there are
// no forks and "latest" is final.
//
// The pool's arrival events are drained on a goroutine of their own, never by
// the producer between blocks: the pool's reorg (which TxPool.Sync, called
// with the producer's lock held, waits for) blocks until every subscriber has
// taken its event. A head that stays at one block for Config.StallWarning
// (30 s by default) while executable transactions are pending is logged as a
// warning, repeated while it lasts. Chain.Head waits for a block being
// produced, so it is never behind a receipt a client has seen.
//
// # Differences from a validator
//
//   - The ACP-226 minimum block delay (≈2 s after Granite) is not waited for;
//     block timestamps are the wall clock, kept strictly increasing at
//     millisecond resolution. A real node spaces blocks by the delay.
//   - Blocks are not re-verified by the VM's block wrapper (predicate results,
//     warp) — the EVM, the fee rules and the precompiles run exactly as on a
//     validator, because they live in eth.New's blockchain and miner.
//   - State is archival (no pruning): every block's state is on disk, so
//     historical eth_call works and a datadir survives restarts.
//
// The fhegate precompiles are registered with subnet-evm by importing this
// package (it imports precompiles/host/subnetevm); the devnet genesis
// (configs/genesis-devnet.json) enables them. DevAccounts and DevCommittee are
// the well-known, public development keys the devnet funds and registers.
//
// The caller must have registered subnet-evm's libevm extras once per process
// (evm.RegisterAllLibEVMExtras in package main, or in TestMain) before New.
package devchain
