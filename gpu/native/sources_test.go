package native_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe/engine/kernels"
)

// TestCompilesEveryNativeSource: each C file of fhe/engine/kernels/native
// (kernels.NativeSources) is compiled here by exactly one kernel_<name>.c
// that includes it, and no kernel_*.c includes anything else.
func TestCompilesEveryNativeSource(t *testing.T) {
	t.Parallel()
	srcs, err := fs.Glob(kernels.NativeSources, "native/*.c")
	require.NoError(t, err)
	require.NotEmpty(t, srcs)
	var want []string
	for _, s := range srcs {
		want = append(want, "kernel_"+path.Base(s))
	}
	have, err := filepath.Glob("kernel_*.c")
	require.NoError(t, err)
	require.ElementsMatch(t, want, have)
	for _, f := range have {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		name := strings.TrimPrefix(f, "kernel_")
		require.Contains(t, string(b), `#include "native/`+name+`"`, f)
		require.Equal(t, 1, strings.Count(string(b), "#include"), f)
	}
}
