// Package kernels is the one home of fhegate's compute kernels: every kernel
// source, the arithmetic they share, the stage schedule the hosts drive them
// by and a Go model of the NTT kernels. It sits at the seam layer, below fhe,
// and imports nothing of fhegate, so both the Lattigo wrapper (through
// muladd) and the GPU gate's backends take their kernels from here.
//
//   - ntt_arith.h: the modular arithmetic (Montgomery MRedLazy/MRed, Barrett
//     BRedAdd, the forward and inverse butterflies and the stage index map),
//     written once and spliced into the OpenCL and Metal dialects below; the
//     native scalar C includes it too.
//   - ntt.cl: OpenCL C kernels (gpu/opencl): per-stage kernels, epilogues,
//     and the local-memory kernels that fuse the stages inside 2^11-word
//     blocks.
//   - keyswitch.cl: OpenCL C kernels of the key switch's other loops
//     (gpu/opencl's gpu.KeySwitchBackend): the gadget multiply-accumulate,
//     the fast exact basis extension and ModDown's/the rescale's
//     scale-difference, each writing the canonical residue in [0, q).
//   - ntt.metal: Metal Shading Language kernels (gpu/metal); also compiled as
//     C++ with a shim on Linux by gpu/metal's tests.
//   - native/: the C of gpu/native (NativeSources): scalar.c (Lattigo's
//     schedule on ntt_arith.h, tables, CPU detection), vec_kernel.h (the
//     eight-lane NTT, key-switch and product kernels) and the two builds of
//     it, ifma.c (AVX-512 IFMA) and emu.c (a portable C model of the
//     intrinsics). It holds no Go: the Go that calls this C passes C types
//     and needs gpu's, so gpu/native compiles these files with cgo, each
//     through a one-line .c file that includes it.
//   - muladd/: package muladd, slot packing's multiply-add (IFMA and its C
//     model) with its cgo wrapper, used by fhe.
//
// Schedule mirrors Lattigo's nttUnrolled16Lazy / inttLazyUnrolled16
// (tuneinsight/lattigo/v6 ring/ntt.go) stage by stage, and Emulate runs the
// exact kernel code path in Go (gpu/gputest.Emulator wraps it as a
// gpu.Backend), so the schedule is tested without any device.
package kernels
