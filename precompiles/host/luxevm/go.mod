module github.com/fhegate/fhegate/precompiles/host/luxevm

go 1.26.4

// Targets Lux's EVM (github.com/luxfi/evm). These modules cannot be
// downloaded on fhegate's build machines (the module proxy refuses some of
// their dependencies), so CI builds, vets and tests this module against the
// stand-ins in standin/ (.ci/luxevm-standin.sh); run `go mod tidy` here on a
// machine that can fetch the real ones. luxfi/evm v1.99.20 and later accept
// the 0x0200…00f0–f3 addresses in their registry, v0.8.30 to v1.99.19 refuse
// them (see README.md); luxfi/geth v1.20.2 is what v1.104.49 requires.
require (
	github.com/fhegate/fhegate v0.0.0
	github.com/luxfi/evm v1.104.49
	github.com/luxfi/geth v1.20.2
)

replace github.com/fhegate/fhegate => ../../..
