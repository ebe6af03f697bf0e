package subnetevm

import (
	"github.com/ava-labs/libevm/common"
	"github.com/ava-labs/subnet-evm/params"
	"github.com/ava-labs/subnet-evm/precompile/precompileconfig"

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

// Member is one committee member's BLS key with its proof of possession.
type Member = adapter.Member

// Committee is the committee registry installed at activation.
type Committee = adapter.Committee

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

// Configs returns activation configs for all four precompiles at blockTimestamp.
func Configs(blockTimestamp *uint64, governance common.Address, committee *Committee) []precompileconfig.Config {
	return []precompileconfig.Config{
		NewConfig(InputConfigKey, blockTimestamp),
		NewConfig(PolicyConfigKey, blockTimestamp),
		NewConfig(CRDTConfigKey, blockTimestamp),
		&VerdictConfig{Upgrade: precompileconfig.Upgrade{BlockTimestamp: blockTimestamp}, Governance: governance, Committee: committee},
	}
}

// Enable activates all four precompiles from genesis in chainConfig
// (params.GetExtra(chainConfig).GenesisPrecompiles).
func Enable(chainConfig *params.ChainConfig, governance common.Address, committee *Committee) {
	extra := params.GetExtra(chainConfig)
	// copy: params.Copy shares the map with the config it was copied from
	m := make(map[string]precompileconfig.Config, len(extra.GenesisPrecompiles)+4)
	for k, v := range extra.GenesisPrecompiles {
		m[k] = v
	}
	zero := uint64(0)
	for _, c := range Configs(&zero, governance, committee) {
		m[c.Key()] = c
	}
	extra.GenesisPrecompiles = m
}
