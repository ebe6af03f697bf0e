package adapter

import (
	"encoding/json"
	"testing"

	"github.com/ava-labs/libevm/common/hexutil"
	"github.com/stretchr/testify/require"
)

// TestHexBytesIsHexutilBytes: HexBytes reads and writes JSON exactly as
// go-ethereum's hexutil.Bytes (which the adapters used before the committee
// types moved here), so a chain config that parsed before parses the same,
// and one that was refused is still refused.
func TestHexBytesIsHexutilBytes(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`""`, `"0x"`, `"0X"`, `"0x00"`, `"0xAbCd"`, `"0XabCD12"`, `"0x0"`, `"0x123"`, `"ab"`, `"x12"`, `"0"`,
		`"0xzz"`, `"0x\u0030"`, `"\u0030x12"`, `null`, `12`, `[1,2]`, `{}`, `"0x 1"`, `" 0x12"`, `true`,
	} {
		var want hexutil.Bytes
		errWant := json.Unmarshal([]byte(in), &want)
		var got HexBytes
		errGot := json.Unmarshal([]byte(in), &got)
		require.Equal(t, errWant == nil, errGot == nil, "%s: hexutil %v, HexBytes %v", in, errWant, errGot)
		require.Equal(t, []byte(want), []byte(got), in)

		// inside a struct field, as in a committee member
		var ws struct{ K hexutil.Bytes }
		var gs struct{ K HexBytes }
		errWant = json.Unmarshal([]byte(`{"K":`+in+`}`), &ws)
		errGot = json.Unmarshal([]byte(`{"K":`+in+`}`), &gs)
		require.Equal(t, errWant == nil, errGot == nil, "field %s: hexutil %v, HexBytes %v", in, errWant, errGot)
		require.Equal(t, []byte(ws.K), []byte(gs.K), in)
	}
	for _, b := range [][]byte{nil, {}, {0}, {0xab, 0xcd, 0xef}} {
		want, err := json.Marshal(struct{ K hexutil.Bytes }{b})
		require.NoError(t, err)
		got, err := json.Marshal(struct{ K HexBytes }{b})
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	}
}

func TestCommitteeEqual(t *testing.T) {
	t.Parallel()
	a := &Committee{Epoch: 1, Threshold: 2, Members: []Member{{PublicKey: HexBytes{1}, ProofOfPossession: HexBytes{2}}}}
	b := &Committee{Epoch: 1, Threshold: 2, Members: []Member{{PublicKey: HexBytes{1}, ProofOfPossession: HexBytes{2}}}}
	require.True(t, a.Equal(b))
	require.True(t, (*Committee)(nil).Equal(nil))
	require.False(t, a.Equal(nil))
	require.False(t, (*Committee)(nil).Equal(a))
	b.Members[0].ProofOfPossession = HexBytes{3}
	require.False(t, a.Equal(b))
	b = &Committee{Epoch: 2, Threshold: 2, Members: a.Members}
	require.False(t, a.Equal(b))
	require.Nil(t, (*Committee)(nil).Config())
	cc := a.Config()
	require.Equal(t, [][]byte{{1}}, cc.PubKeys)
	require.Equal(t, [][]byte{{2}}, cc.PoPs)
}

func TestVerdictVerify(t *testing.T) {
	t.Parallel()
	require.ErrorContains(t, Verdict{}.Verify(false), "needs a committee or a governance address")
	require.NoError(t, Verdict{}.Verify(true))
	require.NoError(t, Verdict{Governance: Addresses[0]}.Verify(false))
	// a committee whose keys do not check is refused before the chain starts
	bad := &Committee{Epoch: 1, Threshold: 1, Members: []Member{{PublicKey: HexBytes{1}, ProofOfPossession: HexBytes{2}}}}
	require.ErrorContains(t, Verdict{Committee: bad}.Verify(false), VerdictConfigKey+":")
	require.True(t, Verdict{Committee: bad}.Equal(Verdict{Committee: bad}))
	require.False(t, Verdict{Committee: bad}.Equal(Verdict{Governance: Addresses[0], Committee: bad}))
}
