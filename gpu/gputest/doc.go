// Package gputest is the conformance suite every gpu.Backend runs: batched
// forward, inverse and round-trip negacyclic NTTs over a grid of ring degrees
// N = 2^10 … 2^16, batch sizes B ∈ {1, 3, 8, 64} and NTT-friendly primes of 30
// to 61 bits, with fresh random inputs (reduced words, fully random 64-bit
// words, and the lazy bounds an engine hands over: [0, 2q), [0, 2^52) and
// [2^52, 2^63), one polynomial each in batches of B ≥ 3 … 5) and output buffers poisoned with 0xFF…FF before every call, checked for byte
// equality with Lattigo's own SubRing NTT (gpu.LatticeNTT). It depends on
// package gpu and, for Emulator (the kernel emulator as a backend, run by the
// dispatcher's, calibration's and test/fhecheck's tests), on
// fhe/engine/kernels; the byte-identity checks of whole FHE, workload and
// policy evaluations with a backend routed in are in test/fhecheck.
//
// Grid size: `go test -short` runs a reduced grid; the default grid keeps
// every N but trims large batches at large N so that a 2-core machine stays
// within seconds; FHEGATE_GPU_FULL=1 runs the full N × B × prime grid.
//
// Inputs are fresh each run; the seed is logged, and FHEGATE_TEST_SEED=<seed>
// replays it (internal/testseed).
package gputest
