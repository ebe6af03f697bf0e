// Stand-in for github.com/luxfi/evm: only the precompile API fhegate's Lux
// adapter uses, with the real package paths and signatures (see ../README.md).
// Never published; CI builds the adapter against it through a go.work file.
module github.com/luxfi/evm

go 1.25.5

require (
	github.com/holiman/uint256 v1.2.4
	github.com/luxfi/geth v1.20.2
)
