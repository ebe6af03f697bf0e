package kernels

import (
	"embed"
	"strings"
)

//go:embed ntt_arith.h
var arithHeader string

//go:embed ntt.cl
var openCLSource string

//go:embed keyswitch.cl
var openCLKeySwitchSource string

//go:embed ntt.metal
var metalSource string

// NativeSources is the C of the native backend's kernels as written
// (native/: native.h, scalar.c, ifma.c, emu.c, vec_kernel.h) with the
// arithmetic header scalar.c includes. gpu/native compiles these files
// through cgo and imports this package for them: the go command tracks no C
// file outside a package's own directory, but it rebuilds an importer when
// an embedded file changes.
//
//go:embed ntt_arith.h native
var NativeSources embed.FS

// ArithHeaderFile is the shared header's file name (the include line the
// hosts splice).
const ArithHeaderFile = "ntt_arith.h"

// ArithHeader returns the shared arithmetic header.
func ArithHeader() string { return arithHeader }

// OpenCLKernelFile returns ntt.cl as written (with its include line).
func OpenCLKernelFile() string { return openCLSource }

// MetalKernelFile returns ntt.metal as written (with its include line).
func MetalKernelFile() string { return metalSource }

// OpenCLSource returns the self-contained OpenCL program (header spliced in).
func OpenCLSource() string { return splice(openCLSource) }

// OpenCLKeySwitchSource returns the self-contained OpenCL program of the
// key switch's multiply-accumulate, basis extension and scale-difference
// kernels (keyswitch.cl, header spliced in; it needs 64-bit floating point
// for the extension's quotient estimate).
func OpenCLKeySwitchSource() string { return splice(openCLKeySwitchSource) }

// Key-switch kernel names (keyswitch.cl).
const (
	KernelGadgetMulAcc = "fg_ks_gadget_mac"
	KernelModUp        = "fg_ks_modup"
	KernelScaleDiff    = "fg_ks_scalediff"
	// The products' kernels, in the same program.
	KernelLinComb = "fg_pr_lincomb"
	KernelTensor  = "fg_pr_tensor"
	// MaxModUpSources bounds a basis extension's source moduli (the
	// kernel's private array).
	MaxModUpSources = 32
)

// MetalSource returns the self-contained MSL library source (header spliced in).
func MetalSource() string { return splice(metalSource) }

func splice(src string) string {
	return strings.Replace(src, `#include "`+ArithHeaderFile+`"`, arithHeader, 1)
}

// Kernel names (identical in both dialects).
const (
	KernelForwardStage = "fg_ntt_fwd_stage"
	KernelInverseStage = "fg_ntt_inv_stage"
	KernelForwardFinal = "fg_ntt_fwd_final"
	KernelInverseFinal = "fg_ntt_inv_final"
)

// Stage is one butterfly stage: half-span t = 2^LogT; Reduce selects the
// folding butterfly (forward only).
type Stage struct {
	LogT   uint32
	Reduce uint32
}

// ForwardStages is Lattigo's forward schedule for N = 2^logN (logN ≥ 4):
// stage s = 0 … logN-1 has m = 2^s groups and t = N/2m; the first stage
// never folds, the last (t = 1) always does, and the others fold iff
// bits.Len(m) is odd, i.e. s is even (ring/ntt.go nttUnrolled16Lazy).
func ForwardStages(logN int) []Stage {
	st := make([]Stage, 0, logN)
	for s := 0; s < logN; s++ {
		logT := uint32(logN - 1 - s)
		red := uint32(0)
		if s > 0 && (logT == 0 || s%2 == 0) {
			red = 1
		}
		st = append(st, Stage{LogT: logT, Reduce: red})
	}
	return st
}

// InverseStages is Lattigo's inverse schedule: t = 1, 2, …, N/2, every stage
// the same invbutterfly (ring/ntt.go inttLazyUnrolled16).
func InverseStages(logN int) []Stage {
	st := make([]Stage, 0, logN)
	for s := 0; s < logN; s++ {
		st = append(st, Stage{LogT: uint32(s)})
	}
	return st
}

// Fused OpenCL kernels (local-memory blocks of 2^logL coefficients).
const (
	KernelForwardTail = "fg_ntt_fwd_tail"
	KernelInverseHead = "fg_ntt_inv_head"
	// MaxFusedLogL caps the fused block: 2^11 words = 16 KiB of local memory,
	// 1024 work items per group.
	MaxFusedLogL = 11
)

// ReduceMask returns the forward schedule's fold flags as a bit mask indexed
// by log2(t) (bit logT set: the stage with half-span 2^logT folds).
func ReduceMask(logN int) uint32 {
	var m uint32
	for _, s := range ForwardStages(logN) {
		m |= s.Reduce << s.LogT
	}
	return m
}
