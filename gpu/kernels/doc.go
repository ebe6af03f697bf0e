// Package kernels holds the accelerator kernel sources of fhegate's NTT and
// the host-side stage schedule they are driven by.
//
//   - ntt_arith.h: the modular arithmetic (Montgomery MRedLazy/MRed, Barrett
//     BRedAdd, the forward and inverse butterflies and the stage index map),
//     written once and spliced into both dialects below.
//   - ntt.cl: OpenCL C kernels (gpu/opencl): per-stage kernels, epilogues,
//     and the local-memory kernels that fuse the stages inside 2^11-word
//     blocks.
//   - keyswitch.cl: OpenCL C kernels of the key switch's other loops
//     (gpu/opencl's gpu.KeySwitchBackend): the gadget multiply-accumulate,
//     the fast exact basis extension and ModDown's/the rescale's
//     scale-difference, each writing the canonical residue in [0, q).
//   - ntt.metal: Metal Shading Language kernels (gpu/metal); also compiled as
//     C++ with a shim on Linux by gpu/metal's tests.
//
// Schedule mirrors Lattigo's nttUnrolled16Lazy / inttLazyUnrolled16
// (tuneinsight/lattigo/v6 ring/ntt.go) stage by stage, and Emulator runs the exact
// kernel code path in Go, so the schedule is tested without any device.
package kernels
