// Package adapter is what every host adapter of fhegate's precompiles does
// alike, written once against small interfaces that each host's types
// satisfy: the config keys and addresses of the four modules, the installed
// backends (and, on hosts that do not give it per call, the chain id), one
// precompile call (readiness, delegatecall refusal, panic recovery, the core's
// errors mapped to the host EVM's), the precompiles.Env and StateStore over a
// host StateDB and block context, the activation (Configure), and the
// activation config's host-neutral part (the committee JSON, its validation
// and equality).
//
// A host adapter (precompiles/host/subnetevm, precompiles/host/luxevm) is a
// shim: it registers the modules with its host's registry, declares the config
// types its registry unmarshals (they embed the host's precompileconfig.Upgrade
// and must have the host's method signatures) and turns its host's
// AccessibleState into a Call. The interfaces are generic over the host's
// address and hash types (both hosts use go-ethereum's common.Address and
// common.Hash, from different modules), so a host StateDB satisfies them as it
// is, without a wrapper.
//
// This package imports no host module: it builds in fhegate's main module, and
// the Lux adapter, which CI compiles against a stand-in of Lux's API, shares
// every line of it with the subnet-evm adapter.
package adapter
