package consensus

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/consensus/transport"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/noise"
)

// FuzzDecodeHandles: the joint session's handle-list decoder never panics
// and what it accepts re-encodes to the same bytes.
func FuzzDecodeHandles(f *testing.F) {
	f.Add(encodeHandles(nil))
	f.Add(encodeHandles([]fhe.Handle{{1}, {2}}))
	f.Add(encodeHandles([]fhe.Handle{{2}, {1}}))
	f.Add([]byte{0, 0, 0, 9})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		hs, err := decodeHandles(b)
		if err != nil {
			return
		}
		require.Equal(t, b, encodeHandles(hs))
	})
}

// TestJointPlan: a joint session's layout and its refusals.
func TestJointPlan(t *testing.T) {
	target := fhe.GenKeys(fhe.MustParams(fhetest.InsecureBGVN10), nil).Public
	p, err := newJointPlan(1, 3, 2, 4, 3, []uint32{3, 1}, target)
	require.NoError(t, err)
	ids := func(v ...transport.MemberID) []transport.MemberID { return v }
	require.Equal(t, ids(1, 2, 3, 4), p.nw)
	require.Equal(t, ids(5, 6, 7), p.old)
	require.Equal(t, ids(5, 7), p.oldActive)
	require.Equal(t, ids(1, 2, 3), p.newActive)
	require.Equal(t, ids(4), p.receivers)
	require.Equal(t, transport.MemberID(4), p.oldOff)

	for _, tc := range []struct {
		name   string
		active []uint32
		newT   int
		want   string
	}{
		{"too few active", []uint32{1}, 2, "exactly t=2"},
		{"active out of range", []uint32{1, 4}, 2, "not one of 1..3"},
		{"active twice", []uint32{2, 2}, 2, "listed twice"},
		{"new threshold", []uint32{1, 2}, 5, "threshold 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newJointPlan(1, 3, 2, 4, tc.newT, tc.active, target)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestKeySwitchedBounds: the adoption refresh of a key-switched input
// accounts for the new active members' floodings too, and still has room
// at the top level with the largest committees on both sides.
func TestKeySwitchedBounds(t *testing.T) {
	t.Parallel()
	for _, id := range []fhe.PresetID{fhe.BGVN13, fhe.BGVN14, fhetest.InsecureBGVN10} {
		p, err := fhe.NewParams(id)
		require.NoError(t, err)
		old, err := reencryptedBounds(p, protocol.MaxReencryptSigmaBits, noise.MaxMembers)
		require.NoError(t, err)
		b, err := keySwitchedBounds(p, protocol.MaxReencryptSigmaBits, noise.MaxMembers, noise.MaxMembers)
		require.NoError(t, err)
		require.Greater(t, b.WorstBits, old.WorstBits, "the new members' floodings are in the worst case")
		require.Equal(t, old.NoiseBits, b.NoiseBits, "and hide nothing the refresh must")
		floor, err := noise.RefreshFloorLevel(p, b.NoiseBits, b.WorstBits)
		require.NoError(t, err)
		require.Less(t, floor, p.MaxLevel(), p.Preset.Name)
		for _, bad := range []int{0, noise.MaxMembers + 1} {
			_, err = keySwitchedBounds(p, protocol.MaxReencryptSigmaBits, 2, bad)
			require.Error(t, err)
		}
	}
}
