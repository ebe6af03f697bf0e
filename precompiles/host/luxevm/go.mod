module github.com/fhegate/fhegate/precompiles/host/luxevm

go 1.25.5

// Targets Lux's EVM (github.com/luxfi/evm); its StatefulPrecompiledContract
// has the subnet-evm shape. These modules cannot be downloaded in fhegate's
// CI (the proxy refuses some of their dependencies), so this module is NOT
// built there. Versions pinned from a published consumer's go.mod; run
// `go mod tidy` in this directory on a machine that can fetch them.
require (
	github.com/fhegate/fhegate v0.0.0
	github.com/luxfi/evm v0.8.35
	github.com/luxfi/geth v1.16.73
)

replace github.com/fhegate/fhegate => ../../..
