package subnetevm

import (
	"testing"

	"github.com/ava-labs/libevm/core/vm"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/corebackends"
)

// TestNoSilentStandIns. Defect: SetBackends(nil, nil) silently installed the
// test stand-in compiler and merger, so a validator wired without backends
// would run them on a real chain and fork from the others. SetBackends must
// refuse nil and keep the installed suite; with no suite installed at all,
// activation fails and every call reverts loudly.
func TestNoSilentStandIns(t *testing.T) {
	before := Suite()
	require.NotNil(t, before)
	require.Error(t, SetBackends(nil, nil))
	require.Error(t, SetBackends(corebackends.Policy{}, nil))
	require.Error(t, SetBackends(nil, corebackends.CRDTMeta{}))
	require.Same(t, before, Suite(), "a refused SetBackends keeps the installed suite")

	host.SwapSuite(nil)
	defer host.SwapSuite(before)
	p := &statefulContract{index: 0} // FHEInput
	ret, rem, err := p.Run(nil, InputAddress, InputAddress, []byte{1, 2, 3, 4}, 10_000, false)
	require.ErrorIs(t, err, vm.ErrExecutionReverted)
	require.Equal(t, uint64(10_000-precompiles.GasMinimum), rem)
	require.Contains(t, string(ret), "backends not set")
	c := &configurator{key: InputConfigKey, addr: InputAddress}
	require.ErrorContains(t, c.Configure(nil, NewConfig(InputConfigKey, nil), nil, nil), "backends not set")
}
