package gputest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/gputest"
)

func TestEmulatorConformance(t *testing.T) {
	t.Parallel()
	gputest.Run(t, gputest.Emulator{})
}

func TestEmulatorErrors(t *testing.T) {
	t.Parallel()
	gputest.RunErrors(t, gputest.Emulator{})
}

func TestEmulatorSelfTest(t *testing.T) {
	t.Parallel()
	require.NoError(t, gpu.SelfTest(gputest.Emulator{}, 7))
}
