//go:build darwin && cgo

package fhecheck_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/metal"
	"github.com/fhegate/fhegate/test/fhecheck"
)

func openMetal(t *testing.T) gpu.Backend {
	t.Helper()
	b, err := metal.New()
	if errors.Is(err, gpu.ErrNoDevice) {
		t.Skip("no Metal device:", err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

func TestMetalFHEByteIdentical(t *testing.T) { fhecheck.RunFHE(t, openMetal(t)) }

func TestMetalWorkloadsByteIdentical(t *testing.T) { fhecheck.RunWorkloads(t, openMetal(t)) }
