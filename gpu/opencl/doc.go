// Package opencl is the OpenCL accelerator backend of fhegate's GPU gate
// (gpu.Backend). It is compiled only with the build tag `opencl` and cgo
// (OpenCL headers and ICD loader via pkg-config "OpenCL"); without them New
// returns gpu.ErrNotBuilt and the package is pure Go.
//
// The program is gpu/kernels' ntt.cl with the shared arithmetic header
// ntt_arith.h spliced in, built at run time for the chosen device. One batch
// of B polynomials is one call into C: a blocking upload of the B·N words;
// the stages whose half-span t is at least the fused block L = 2^logL
// (logL = min(11, log2 N, what the device's work-group size and local memory
// allow)) as one launch each over B·N/2 work items; the stages inside a block
// fused in one local-memory kernel (forward: the last logL stages plus the
// Barrett epilogue; inverse: the first logL stages, plus the N^{-1} epilogue
// when N = L); all on one in-order queue; one blocking read-back. The fold
// flags of every stage come from the host schedule (kernels.ForwardStages /
// ReduceMask), which mirrors Lattigo's lazy-reduction pattern. Twiddle tables
// stay resident on the device per (N, q). Backend.NoFusion selects the
// one-launch-per-stage path.
//
// Any OpenCL 1.2+ device with 64-bit integers works. CI runs it on PoCL
// (Debian pocl-opencl-icd), which executes the kernels on the host CPU: that
// proves correctness and routing, not GPU speed. Device choice: the first GPU,
// else the first device; FHEGATE_OPENCL_DEVICE=<platform>:<device> overrides.
package opencl

// Name is the backend name.
const Name = "opencl"
