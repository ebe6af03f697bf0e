package luxevm

import (
	"github.com/luxfi/evm/precompile/precompileconfig"
	"github.com/luxfi/geth/common"

	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/host/adapter"
)

// Config activates FHEInput, FHEPolicy or FHECRDT (no settings beyond the upgrade).
type Config struct {
	precompileconfig.Upgrade
	adapter.Module
}

var _ precompileconfig.Config = (*Config)(nil)

// NewConfig returns the activation config for one of InputConfigKey,
// PolicyConfigKey, CRDTConfigKey at blockTimestamp.
func NewConfig(key string, blockTimestamp *uint64) *Config {
	return &Config{Upgrade: precompileconfig.Upgrade{BlockTimestamp: blockTimestamp}, Module: adapter.NewModule(key)}
}

func (c *Config) Verify(precompileconfig.ChainConfig) error { return nil }
func (c *Config) Equal(o precompileconfig.Config) bool {
	x, ok := o.(*Config)
	return ok && x.Module == c.Module && c.Upgrade.Equal(&x.Upgrade)
}

// Member and Committee are the committee registry of FHEVerdict's config.
type (
	Member    = adapter.Member
	Committee = adapter.Committee
)

// VerdictConfig activates FHEVerdict with a governance address (may call
// setCommittee) and, optionally, the initial committee.
type VerdictConfig struct {
	precompileconfig.Upgrade
	Governance common.Address `json:"governance"`
	Committee  *Committee     `json:"committee,omitempty"`
}

var _ precompileconfig.Config = (*VerdictConfig)(nil)

func (c *VerdictConfig) Key() string { return VerdictConfigKey }

// VerdictSettings is the host-neutral part of c.
func (c *VerdictConfig) VerdictSettings() adapter.Verdict {
	return adapter.Verdict{Governance: precompiles.Address(c.Governance), Committee: c.Committee}
}

func (c *VerdictConfig) Verify(precompileconfig.ChainConfig) error {
	return c.VerdictSettings().Verify(c.Disable)
}

func (c *VerdictConfig) Equal(o precompileconfig.Config) bool {
	x, ok := o.(*VerdictConfig)
	return ok && c.Upgrade.Equal(&x.Upgrade) && c.VerdictSettings().Equal(x.VerdictSettings())
}
