// Package native is fhegate's native NTT backend (gpu.Backend "native"): the
// batched negacyclic NTT in C through cgo, with AVX-512 IFMA vector kernels
// where the CPU has them, byte-identical to Lattigo's SubRing.NTT / INTT for
// every input.
//
// # Paths
//
// One backend, three implementations, chosen per polynomial:
//
//   - IFMA (x86-64 with avx512f, avx512dq and avx512ifma, and an OS that
//     saves the opmask/zmm state — cpuid leaf 7 plus XGETBV, read once in C):
//     primes q < 2^51 and polynomials whose largest word is below 2^52
//     (forward) or 2q (inverse), reduced on load (see "Byte identity"). Eight
//     64-bit lanes per zmm register, vpmadd52luq/vpmadd52huq for the modular
//     products, vpermt2q for the three stages whose butterfly span is below
//     a register (t = 4, 2, 1).
//   - Scalar C: every other case — primes ≥ 2^51 (CKKSN14's 55-bit Q0 and
//     61-bit P, the 60/61-bit self-test primes), forward inputs with a word
//     ≥ 2^52, inverse inputs with a word ≥ 2q, and every polynomial on a CPU
//     without IFMA. It
//     is Lattigo's own lazy schedule, run through the same arithmetic header
//     as the OpenCL and Metal kernels (fhe/engine/kernels/ntt_arith.h:
//     MRedLazy, BRedAdd, the two butterflies, including wrap-around on 64-bit
//     overflow).
//   - Pure Go: without cgo (CGO_ENABLED=0) the package builds, Built is false
//     and New returns gpu.ErrNotBuilt; the cpu backend (Lattigo's Go NTT)
//     does the work, as it does for every batch the dispatcher keeps on the
//     CPU.
//
// All BGV preset primes (32…51 bits: BGVN14's Q0 is a 51-bit prime) and the
// CKKS presets' 40/45/50-bit primes take the IFMA path; CKKSN14's 55- and
// 61-bit primes take scalar C.
// Info().Device names the path in force; `fhegate gpu info` prints it.
// FHEGATE_NATIVE_PATH=scalar forces the scalar path.
//
// B > 1: the batch is spread over GOMAXPROCS goroutines, one cgo call per
// polynomial (Backend.Workers bounds it).
//
// # Sources
//
// The C lives in the kernels' one home, fhe/engine/kernels/native (scalar.c,
// ifma.c, emu.c, native.h, vec_kernel.h, on ../ntt_arith.h). This package
// compiles it: kernel_scalar.c, kernel_ifma.c and kernel_emu.c each include
// one of those files, as its own translation unit, because the Go side calls
// it with C types (C.fg_table) that only the package compiling the C can
// name, and that Go side needs gpu's types. native.go imports package
// kernels, whose NativeSources embeds those files, so that an edit to them
// rebuilds this package; TestCompilesEveryNativeSource keeps the
// kernel_*.c files in step with that directory.
//
// # Byte identity
//
// The vector path does not replay Lattigo's Montgomery schedule: it computes
// the exact transform of (a mod q) in 52-bit Shoup products (after Intel
// HEXL, WAHC 2021) and reduces it fully, and it runs only where Lattigo's
// output is that same fully reduced exact transform — q < 2^51, and inputs
// below 2^52 (forward) or 2q (inverse), reduced on load. Everything else takes
// the scalar path, which is Lattigo's schedule. The key switch's loops
// (gpu.KeySwitchBackend: gadget multiply-accumulate, exact basis extension,
// ModDown's and the rescale's last step) and BGV's products
// (gpu.ProductBackend: tensor product, multiply-add by an integer, linear
// combinations) compute the canonical residues Lattigo's consumers reduce
// to, check every input before writing an output, and hand inputs outside
// their bounds back to Lattigo's loop. Derivations of the kernels and of
// each identity: docs/derivations.md, "The native backend".
//
// # Tests
//
// native_test.go runs gpu/gputest (N = 2^10…2^16 × B ∈ {1, 3, 8, 64}, every
// cell with FHEGATE_GPU_FULL=1; 30- to 61-bit primes, the wide 51-bit
// butterflies included; raw and lazy-bounded inputs, poisoned outputs, in
// place and out of place), every preset prime at its own N, extreme inputs,
// SelfTest and the error cases on each path the host can run. The vector
// kernel source is also compiled against a portable C model of the
// eight-lane intrinsics (emu.c, PathEmulated), so the vector algorithm is
// proved byte-identical on any host; the IFMA build differs only in the
// intrinsic macros of ifma.c. On an IFMA host the dispatcher arms the backend
// only after gpu.SelfTest passes. TestGadgetMulAcc, TestModUp, TestScaleDiff,
// TestTensorKernel, TestMulAddKernel and TestLinCombKernel check the
// key-switch and product kernels against big.Int and Lattigo; test/fhecheck
// runs whole FHE evaluations and policies through them.
// BenchmarkNativeNTT and `fhegate calibrate --backend native` measure the
// paths; the numbers are in docs/LP-137.md.
package native
