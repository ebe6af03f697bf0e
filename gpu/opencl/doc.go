// Package opencl is the OpenCL accelerator backend of fhegate's GPU gate
// (gpu.Backend). It is compiled only with the build tag `opencl` and cgo
// (OpenCL headers and ICD loader via pkg-config "OpenCL"); without them New
// returns gpu.ErrNotBuilt and the package is pure Go.
//
// The program is gpu/kernels' ntt.cl with the shared arithmetic header
// ntt_arith.h spliced in, built at run time for the chosen device. One batch
// of B polynomials is one call into C: a blocking upload of the B·N words,
// log2(N) stage launches over B·N/2 work items each (the host-side schedule
// kernels.ForwardStages / InverseStages mirrors Lattigo's lazy-reduction
// pattern), one epilogue launch (Barrett reduction, or multiplication by
// N^{-1}), all on one in-order queue, and one blocking read-back. Twiddle
// tables stay resident on the device per (N, q).
//
// Any OpenCL 1.2+ device with 64-bit integers works. CI runs it on PoCL
// (Debian pocl-opencl-icd), which executes the kernels on the host CPU: that
// proves correctness and routing, not GPU speed. Device choice: the first GPU,
// else the first device; FHEGATE_OPENCL_DEVICE=<platform>:<device> overrides.
package opencl

// Name is the backend name.
const Name = "opencl"
