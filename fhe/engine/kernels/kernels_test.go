package kernels_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fhegate/fhegate/fhe/engine/kernels"
)

func TestSourcesSpliceOneHeader(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{"opencl": kernels.OpenCLSource(), "metal": kernels.MetalSource()} {
		t.Run(name, func(t *testing.T) {
			require.NotContains(t, src, `#include "ntt_arith.h"`)
			require.Equal(t, 1, strings.Count(src, "FG_INLINE FG_U64 fg_mred_lazy("))
			for _, k := range []string{kernels.KernelForwardStage, kernels.KernelInverseStage, kernels.KernelForwardFinal, kernels.KernelInverseFinal} {
				require.Contains(t, src, k+"(")
			}
		})
	}
}

func TestKeySwitchSourceSplicesHeader(t *testing.T) {
	t.Parallel()
	src := kernels.OpenCLKeySwitchSource()
	require.NotContains(t, src, `#include "ntt_arith.h"`)
	require.Equal(t, 1, strings.Count(src, "FG_INLINE FG_U64 fg_mred("))
	for _, k := range []string{kernels.KernelGadgetMulAcc, kernels.KernelModUp, kernels.KernelScaleDiff} {
		require.Contains(t, src, "__kernel void "+k+"(")
	}
	require.Contains(t, src, fmt.Sprintf("#define FG_KS_MAX_SOURCES %d", kernels.MaxModUpSources))
}

func TestSchedule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		logN int
		fwd  []uint32 // reduce flags
	}{
		{4, []uint32{0, 0, 1, 1}},
		{5, []uint32{0, 0, 1, 0, 1}},
		{10, []uint32{0, 0, 1, 0, 1, 0, 1, 0, 1, 1}},
	} {
		fs := kernels.ForwardStages(tc.logN)
		is := kernels.InverseStages(tc.logN)
		require.Len(t, fs, tc.logN)
		require.Len(t, is, tc.logN)
		for s := range fs {
			require.Equal(t, uint32(tc.logN-1-s), fs[s].LogT)
			require.Equal(t, tc.fwd[s], fs[s].Reduce, "logN %d stage %d", tc.logN, s)
			require.Equal(t, uint32(s), is[s].LogT)
		}
	}
}
