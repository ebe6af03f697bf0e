package configs

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// genesisEdit is one edit of the devnet genesis and what it must give.
type genesisEdit struct {
	name    string
	apply   func([]byte) ([]byte, error)
	check   func(t *testing.T, cfg map[string]json.RawMessage)
	wantErr bool
	errIs   error
}

func TestGenesisEdits(t *testing.T) {
	t.Parallel()
	for _, tc := range genesisEdits(t) {
		t.Run(tc.name, func(t *testing.T) {
			orig := DevnetGenesis()
			out, err := tc.apply(orig)
			require.Equal(t, devnetGenesis, orig, "input not mutated")
			if tc.wantErr {
				require.Error(t, err)
				if tc.errIs != nil {
					require.ErrorIs(t, err, tc.errIs)
				}
				return
			}
			require.NoError(t, err)
			var doc struct {
				Config map[string]json.RawMessage `json:"config"`
				Alloc  map[string]json.RawMessage `json:"alloc"`
			}
			require.NoError(t, json.Unmarshal(out, &doc))
			require.Len(t, doc.Alloc, 11)
			tc.check(t, doc.Config)
		})
	}
}

// genesisEdits is the case table of TestGenesisEdits.
func genesisEdits(t *testing.T) []genesisEdit {
	return []genesisEdit{
		{
			name:  "chain id",
			apply: func(g []byte) ([]byte, error) { return WithChainID(g, 99999) },
			check: func(t *testing.T, cfg map[string]json.RawMessage) {
				require.JSONEq(t, `99999`, string(cfg["chainId"]))
				require.Contains(t, cfg, "feeConfig", "other members kept")
			},
		},
		{
			name: "precompile config",
			apply: func(g []byte) ([]byte, error) {
				return WithPrecompileConfig(g, "fheVerdictConfig", map[string]any{"blockTimestamp": 0})
			},
			check: func(t *testing.T, cfg map[string]json.RawMessage) {
				require.JSONEq(t, `{"blockTimestamp":0}`, string(cfg["fheVerdictConfig"]))
			},
		},
		{
			name: "committee",
			apply: func(g []byte) ([]byte, error) {
				return WithCommittee(g, map[string]any{"epoch": 1, "threshold": 2, "members": []any{}})
			},
			check: func(t *testing.T, cfg map[string]json.RawMessage) {
				var v map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(cfg[VerdictConfigKey], &v))
				require.JSONEq(t, `{"epoch":1,"threshold":2,"members":[]}`, string(v["committee"]))
				require.JSONEq(t, `0`, string(v["blockTimestamp"]))
				require.Contains(t, v, "governance", "existing members kept")
			},
		},
		{
			name:  "governance",
			apply: func(g []byte) ([]byte, error) { return WithGovernance(g, "0x00000000000000000000000000000000000000a1") },
			check: func(t *testing.T, cfg map[string]json.RawMessage) {
				var v map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(cfg[VerdictConfigKey], &v))
				require.JSONEq(t, `"0x00000000000000000000000000000000000000a1"`, string(v["governance"]))
				require.JSONEq(t, `0`, string(v["blockTimestamp"]))
			},
		},
		{
			name: "committee, verdict config not an object",
			apply: func(g []byte) ([]byte, error) {
				g, err := WithPrecompileConfig(g, VerdictConfigKey, 5)
				require.NoError(t, err)
				return WithCommittee(g, map[string]any{})
			},
			wantErr: true, errIs: ErrBadGenesis,
		},
		{name: "zero chain id", apply: func(g []byte) ([]byte, error) { return WithChainID(g, 0) }, wantErr: true},
		{name: "empty key", apply: func(g []byte) ([]byte, error) { return WithPrecompileConfig(g, "", 1) }, wantErr: true},
		{name: "not json", apply: func([]byte) ([]byte, error) { return WithChainID([]byte("["), 1) }, wantErr: true, errIs: ErrBadGenesis},
		{name: "no config", apply: func([]byte) ([]byte, error) { return WithChainID([]byte(`{"alloc":{}}`), 1) }, wantErr: true, errIs: ErrBadGenesis},
		{name: "config not object", apply: func([]byte) ([]byte, error) { return WithChainID([]byte(`{"config":3}`), 1) }, wantErr: true, errIs: ErrBadGenesis},
	}
}

func TestVMID(t *testing.T) {
	t.Parallel()
	// The file name avalanchego looks for in its plugin dir; pinned so that a
	// rename is a conscious, documented change.
	require.Equal(t, "n6sSnySnJof67ir3nSGM69scebMbXDzbVHoLsKxmfUZSa5UmW", VMID().String())
}
