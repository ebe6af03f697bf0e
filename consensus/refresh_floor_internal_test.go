package consensus

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/consensus/protocol"
	"github.com/fhegate/fhegate/fhe"
	"github.com/fhegate/fhegate/fhe/fhetest"
	"github.com/fhegate/fhegate/fhe/noise"
)

// TestReencryptedBounds: a rotation's refresh of a re-encrypted input (at
// the top level) has room for its flooding.
func TestReencryptedBounds(t *testing.T) {
	t.Parallel()
	for _, id := range []fhe.PresetID{fhe.BGVN13, fhe.BGVN14, fhetest.InsecureBGVN10} {
		p, err := fhe.NewParams(id)
		require.NoError(t, err)
		b, err := reencryptedBounds(p, protocol.MaxReencryptSigmaBits, noise.MaxMembers)
		require.NoError(t, err)
		// The bounds follow the old committee's t (its shares made the
		// noise), whatever the new committee's: more old shares, more noise.
		small, err := reencryptedBounds(p, protocol.MaxReencryptSigmaBits, 2)
		require.NoError(t, err)
		require.Greater(t, b.WorstBits, small.WorstBits)
		require.Greater(t, b.NoiseBits, small.NoiseBits)
		_, err = reencryptedBounds(p, protocol.MaxReencryptSigmaBits, 0)
		require.Error(t, err)
		floor, err := noise.RefreshFloorLevel(p, b.NoiseBits, b.WorstBits)
		require.NoError(t, err)
		require.Less(t, floor, p.MaxLevel(), p.Preset.Name)
		t.Logf("%s: re-encrypted input 2^%.1f hidden, 2^%.1f worst: floor %d of %d", p.Preset.Name, b.NoiseBits, b.WorstBits, floor, p.MaxLevel())
	}
}
