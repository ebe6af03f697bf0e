// Package metal is the Apple Metal accelerator backend of fhegate's GPU gate
// (gpu.Backend), built on darwin with cgo: a small Objective-C bridge that
// compiles fhe/engine/kernels' ntt.metal (with the shared arithmetic header
// ntt_arith.h spliced in) at run time with newLibraryWithSource, and runs one
// batch of B polynomials as ONE command buffer: one compute encoder holding
// log2(N) stage dispatches over B·N/2 threads and one epilogue dispatch
// (serial dispatch order, so each stage sees the previous one's writes), one
// commit, one wait — the "fuse the stages into one submission" lesson of
// LP-137 and the WHIR-on-Metal study. Buffers are shared-storage (unified
// memory): the host copies the batch in and out, no blit.
//
// What is and is not exercised off Apple. On Linux (and in CI) this package
// builds as a stub (New returns gpu.ErrNotBuilt). Its tests compile the very
// ntt.metal source — kernel signatures, index map and the shared arithmetic —
// as C++ with a ~30-line shim (testdata/shim/metal_stdlib: address-space
// qualifiers, metal::mulhi, kernel attributes) and a host loop that plays the
// grid (testdata/mslhost.cpp), then run the full conformance suite on it
// against Lattigo. What runs only on a Mac: the Objective-C bridge
// (metal_darwin.go), the Metal compiler's acceptance of the source, GPU
// 64-bit integer emulation, and dispatch ordering; a Mac run of
// `go test ./gpu/metal` covers those with the same conformance suite.
package metal

// Name is the backend name.
const Name = "metal"
