//go:build !cgo

package native_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu"
	"github.com/fhegate/fhegate/gpu/native"
)

func TestNewWithoutCgo(t *testing.T) {
	require.False(t, native.Built)
	_, err := native.New()
	require.ErrorIs(t, err, gpu.ErrNotBuilt)
}
