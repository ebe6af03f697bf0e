// Package fhecheck proves that routing NTTs to a gpu.Backend never changes an
// output byte of the evaluations fhegate runs: FHE multiplies and rotations
// through package fhe (RunFHE), every encrypted workload of bench/workloads
// (RunWorkloads) and the committee's policy evaluation through policy/eval
// (RunPolicy). Each run evaluates once with no dispatcher and once with the
// backend armed and forced on at threshold 1, requires byte-identical
// canonical ciphertexts, and decrypts the accelerated outputs against the
// plaintext reference.
//
// It is separate from gpu/gputest (the NTT conformance suite, which depends
// on package gpu alone) so that gpu and its backends' conformance tests do
// not depend on bench/workloads, policy or policy/eval. Its own tests run the
// checks on the kernel emulator in the default build, on OpenCL with
// `-tags opencl` (cgo) and on Metal on darwin with cgo.
//
// Inputs are fresh random values each run; every run logs its seed, and
// FHEGATE_TEST_SEED=<seed> replays it (internal/testseed).
package fhecheck
