package subnetevm_test

import (
	"context"
	"testing"

	ethereum "github.com/ava-labs/libevm"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

// TestGenesisActivation: the modules are registered, the genesis committee is
// installed by the configurator and a view method answers through eth_call.
func TestGenesisActivation(t *testing.T) {
	com := newCommittee(t, "a", 7, 4, 3)
	c := newChain(t, 0, com)
	ab := subnetevm.Suite().Verdict.ABI()
	data, err := ab.Pack("committee")
	require.NoError(t, err)
	out, err := c.client.CallContract(context.Background(), ethereum.CallMsg{To: &subnetevm.VerdictAddress, Data: data}, nil)
	require.NoError(t, err)
	vals, err := ab.Unpack("committee", out)
	require.NoError(t, err)
	require.Equal(t, uint64(7), vals[0])
	require.Equal(t, uint32(3), vals[1])
	require.Equal(t, uint32(4), vals[2])
	require.Equal(t, c.addrs[0], vals[3])

	data, err = ab.Pack("memberKey", uint32(2))
	require.NoError(t, err)
	out, err = c.client.CallContract(context.Background(), ethereum.CallMsg{To: &subnetevm.VerdictAddress, Data: data}, nil)
	require.NoError(t, err)
	vals, err = ab.Unpack("memberKey", out)
	require.NoError(t, err)
	require.Equal(t, com.keys[2].PublicKey(), vals[0])
}
