package opencl_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/gpu/opencl"
)

func TestParseKeySwitchOps(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want opencl.KeySwitchOps
		bad  bool
	}{
		{"", opencl.AllKeySwitchOps, false},
		{"all", opencl.AllKeySwitchOps, false},
		{"none", 0, false},
		{"muladd", opencl.OpMulAcc, false},
		{"muladd, modup", opencl.OpMulAcc | opencl.OpModUp, false},
		{"scalediff,modup,muladd", opencl.AllKeySwitchOps, false},
		{"ntt", 0, true},
		{"muladd,", 0, true},
	} {
		got, err := opencl.ParseKeySwitchOps(tc.in)
		if tc.bad {
			require.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

// FuzzParseKeySwitchOps: the FHEGATE_OPENCL_KEYSWITCH parser never panics,
// returns only known loops, and nothing with an error.
func FuzzParseKeySwitchOps(f *testing.F) {
	for _, s := range []string{"", "all", "none", "muladd,modup", " scalediff ", "x", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ops, err := opencl.ParseKeySwitchOps(s)
		if err != nil {
			require.Zero(t, ops)
			return
		}
		require.Zero(t, ops&^opencl.AllKeySwitchOps)
	})
}
