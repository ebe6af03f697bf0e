// Package subnetevm hosts fhegate's precompiles (package precompiles) in
// github.com/ava-labs/subnet-evm v0.8.0. Importing it registers four modules
// with subnet-evm's global precompile registry (modules.RegisterModule, from
// init, as subnet-evm's own precompiles do). It is a shim over the adapter
// core, precompiles/host/adapter, which the Lux adapter calls too: this
// package holds only the registration, the config types subnet-evm's registry
// unmarshals, and the chain id read from the precompile environment. The
// modules:
//
//	config key         address                                      precompile
//	fheInputConfig     0x02000000000000000000000000000000000000f0   FHEInput
//	fhePolicyConfig    0x02000000000000000000000000000000000000f1   FHEPolicy
//	fheCRDTConfig      0x02000000000000000000000000000000000000f2   FHECRDT
//	fheVerdictConfig   0x02000000000000000000000000000000000000f3   FHEVerdict
//
// Enable them in the chain config (genesis "config" or an upgrade), e.g.
//
//	"fheInputConfig":   {"blockTimestamp": 0},
//	"fhePolicyConfig":  {"blockTimestamp": 0},
//	"fheCRDTConfig":    {"blockTimestamp": 0},
//	"fheVerdictConfig": {"blockTimestamp": 0, "governance": "0x…",
//	                     "committee": {"epoch": 1, "threshold": 2,
//	                       "members": [{"publicKey": "0x…48 bytes", "proofOfPossession": "0x…96 bytes"}, …]}}
//
// or in Go with Enable / Configs. The verdict configurator writes the committee
// registry (keys checked with their proofs of possession) and the governance
// address into FHEVerdict's storage at activation.
//
// EIP-158 trap: an account with no nonce, code or balance is deleted when
// touched, taking its storage with it. subnet-evm sets nonce 1 and code 0x01
// at activation; the configurators set nonce 1 as well, so storage written by
// the precompiles persists whatever the activation path.
//
// The adapter maps the core's errors to the EVM's: a revert returns
// Error(string) revert data with vm.ErrExecutionReverted and the unused gas; an
// out-of-gas returns vm.ErrOutOfGas (all gas consumed). The policy compiler and
// CRDT metadata merger are the real ones (policy/ and fhe/crdt/meta through
// precompiles/corebackends); tests may swap in the stand-ins of
// precompiles/precompilestest with SetBackends. SetBackends refuses nil
// backends, and without an installed suite activation fails and every call
// reverts.
package subnetevm
