//go:build darwin && cgo

package metal_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/gputest"
	"github.com/fhegate/fhegate/gpu/metal"
)

func open(t *testing.T) gpu.Backend {
	t.Helper()
	b, err := metal.New()
	if errors.Is(err, gpu.ErrNoDevice) {
		t.Skip("no Metal device:", err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

func TestMetalConformance(t *testing.T) { gputest.Run(t, open(t)) }

func TestMetalErrors(t *testing.T) { gputest.RunErrors(t, open(t)) }

func TestMetalSelfTest(t *testing.T) { require.NoError(t, gpu.SelfTest(open(t), 5)) }

// The byte-identity checks of FHE and workload evaluations on Metal
// (TestMetal*ByteIdentical) are in test/fhecheck.
