// Package commontype is a stand-in for github.com/luxfi/evm/commontype: the
// FeeConfig type precompileconfig.ChainConfig returns. Its fields are left out
// (the adapter never reads them): a stand-in, not the real struct.
package commontype

// FeeConfig is the chain's fee configuration (fields not modelled).
type FeeConfig struct{}
