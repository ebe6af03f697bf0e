package testseed_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/internal/testseed"
)

func TestSeedFromEnv(t *testing.T) {
	t.Setenv(testseed.Env, "1234")
	require.Equal(t, uint64(1234), testseed.Seed(t))
	require.Equal(t, testseed.Rand(t, 7).Uint64(), testseed.Rand(t, 7).Uint64(), "same seed, same stream")
}

func TestSeedHex(t *testing.T) {
	t.Setenv(testseed.Env, "0x10")
	require.Equal(t, uint64(16), testseed.Seed(t))
}
