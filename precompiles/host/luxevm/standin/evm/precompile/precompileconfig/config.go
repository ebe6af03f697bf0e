// Package precompileconfig is a stand-in for
// github.com/luxfi/evm/precompile/precompileconfig: the Config and
// ChainConfig interfaces and the Upgrade type, with the real signatures
// (PredicateContext, Predicater, Accepter and WarpMessageWriter are left out:
// the adapter does not use them).
package precompileconfig

import "github.com/luxfi/evm/commontype"

// Config is one precompile's activation config, as the chain config's JSON
// unmarshals it.
type Config interface {
	Key() string
	Timestamp() *uint64
	IsDisabled() bool
	Equal(Config) bool
	Verify(ChainConfig) error
}

// ChainConfig is what a precompile may read of the chain configuration.
type ChainConfig interface {
	GetFeeConfig() commontype.FeeConfig
	AllowedFeeRecipients() bool
	IsDurango(time uint64) bool
}
