package metal_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/metal"
)

func TestNewWithoutMetal(t *testing.T) {
	if metal.Built {
		t.Skip("Metal is built in")
	}
	_, err := metal.New()
	require.ErrorIs(t, err, gpu.ErrNotBuilt)
}
