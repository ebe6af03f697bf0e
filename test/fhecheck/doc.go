// Package fhecheck is the GPU gate's byte-identity suite: it proves that
// routing work to an accelerator never changes an output byte of the
// evaluations fhegate runs. Its checks run FHE multiplies and rotations
// through package fhe (RunFHE), every encrypted workload of bench/workloads
// (RunWorkloads) and the committee's policy evaluation through policy/eval
// (RunPolicy). Each run evaluates once with no dispatcher and once with the
// backend armed and forced on at threshold 1, requires byte-identical
// canonical ciphertexts, and decrypts the accelerated outputs against the
// plaintext reference.
//
// Its own tests run those checks on the kernel emulator in the default
// build, on the native backend with cgo, on OpenCL with `-tags opencl`
// (cgo) and on Metal on darwin with cgo. They also hold fhe/engine's
// byte-identity tests on every preset of package fhe (the routed key
// switch, ModDown, rescale, BGV's tensor product, multiply-add and linear
// combinations against Lattigo, through stand-in routers) and the
// dispatcher's overhead on the workloads (BenchmarkWorkloadsOverhead).
//
// It lives under test/ (layer "test") because it imports fhe, bench/workloads
// and policy: in gpu/ it would lift the GPU gate above the packages it serves,
// and fhe/engine's tests would import fhe, one layer above the seam. gpu/gputest
// (the NTT conformance suite) depends on package gpu alone.
//
// Inputs are fresh random values each run; every run logs its seed, and
// FHEGATE_TEST_SEED=<seed> replays it (internal/testseed).
package fhecheck
