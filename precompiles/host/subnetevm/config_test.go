package subnetevm_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ava-labs/subnet-evm/params/extras"
	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/precompiles/host/subnetevm"
)

// TestConfigJSON: the chain-config JSON of docs/precompiles.md parses into the
// modules' configs (through subnet-evm's registry), verifies, and round-trips.
func TestConfigJSON(t *testing.T) {
	t.Parallel()
	com := newCommittee(t, "json", 3, 3, 2)
	cc := com.config()
	members, err := json.Marshal(cc.Members)
	require.NoError(t, err)
	raw := fmt.Sprintf(`{
		"fheInputConfig":   {"blockTimestamp": 0},
		"fhePolicyConfig":  {"blockTimestamp": 0},
		"fheCRDTConfig":    {"blockTimestamp": 0},
		"fheVerdictConfig": {"blockTimestamp": 0, "governance": "0x00000000000000000000000000000000000000aa",
		                     "committee": {"epoch": 3, "threshold": 2, "members": %s}}}`, members)
	var ps extras.Precompiles
	require.NoError(t, json.Unmarshal([]byte(raw), &ps))
	require.Len(t, ps, 4)
	vc, ok := ps[subnetevm.VerdictConfigKey].(*subnetevm.VerdictConfig)
	require.True(t, ok)
	require.NoError(t, vc.Verify(nil))
	require.Equal(t, uint64(3), vc.Committee.Epoch)
	for _, k := range []string{subnetevm.InputConfigKey, subnetevm.PolicyConfigKey, subnetevm.CRDTConfigKey} {
		c, ok := ps[k].(*subnetevm.Config)
		require.True(t, ok, k)
		require.Equal(t, k, c.Key())
		require.NoError(t, c.Verify(nil))
		require.True(t, c.Equal(subnetevm.NewConfig(k, c.Timestamp())))
	}
	out, err := json.Marshal(ps)
	require.NoError(t, err)
	var again extras.Precompiles
	require.NoError(t, json.Unmarshal(out, &again))
	for k := range ps {
		require.True(t, ps[k].Equal(again[k]), k)
	}

	// a bad PoP or threshold is refused by Verify (before the chain starts)
	bad := *vc
	bc := *vc.Committee
	bc.Members = append([]subnetevm.Member(nil), vc.Committee.Members...)
	bc.Members[0].ProofOfPossession = bc.Members[1].ProofOfPossession
	bad.Committee = &bc
	require.ErrorContains(t, bad.Verify(nil), "proof of possession")
	bc2 := *vc.Committee
	bc2.Threshold = 4
	bad.Committee = &bc2
	require.ErrorContains(t, bad.Verify(nil), "threshold")
	require.Error(t, (&subnetevm.VerdictConfig{}).Verify(nil))
}
