package precompiles

import (
	"math/big"
	"testing"

	"github.com/ava-labs/libevm/common"
	"github.com/stretchr/testify/require"
)

func TestWorldFixture(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	out := w.must(w.s.Verdict, w.bob, "verdictOf", [32]byte(w.req3))
	require.Equal(t, true, out[0])
	require.Equal(t, big.NewInt(1), out[1])
	out = w.must(w.s.CRDT, w.bob, "stateOf", [32]byte(w.merged))
	require.Equal(t, true, out[0])
	require.Equal(t, EncodeVersionVector([2]uint64{1, 1}, [2]uint64{2, 3}), out[6])
	out = w.must(w.s.Input, w.bob, "isAllowed", [32]byte(w.hA), common.Address(w.gate))
	require.Equal(t, true, out[0])
}
