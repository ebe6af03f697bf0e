//go:build !opencl || !cgo

package opencl_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/opencl"
)

func TestNewWithoutTag(t *testing.T) {
	require.False(t, opencl.Built)
	_, err := opencl.New()
	require.ErrorIs(t, err, gpu.ErrNotBuilt)
}
