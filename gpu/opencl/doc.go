// Package opencl is the OpenCL accelerator backend of fhegate's GPU gate
// (gpu.Backend). It is compiled only with the build tag `opencl` and cgo
// (OpenCL headers and ICD loader via pkg-config "OpenCL"); without them New
// returns gpu.ErrNotBuilt and the package is pure Go.
//
// The program is fhe/engine/kernels' ntt.cl with the shared arithmetic
// header ntt_arith.h spliced in, built at run time for the chosen device. One batch
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
// # The key switch
//
// Backend also implements gpu.KeySwitchBackend, so the dispatcher can hand
// it the key switch's loops other than the NTT (fhe/engine's
// KeySwitchRouter jobs; fhe/engine/kernels' keyswitch.cl, a second program
// built on first use; it needs cl_khr_fp64):
//
//   - GadgetMulAcc: out = Σ_i k_i·d_i·2^{-64} mod q for both key halves,
//     each product by Lattigo's MRed (k < q, d < 2q keep k·d < q·2^64), the
//     sum reduced after every add;
//   - ModUp: the fast exact basis extension of Halevi–Polyakov–Shoup
//     (CT-RSA 2019, §2.2) exactly as engine.ModUpJob defines it: y_i =
//     (x_i + H mod q_i)·(Q/q_i)^{-1} mod q_i by Shoup products, the overflow
//     count v = ⌊Σ double(y_i)/double(q_i)⌋ in IEEE double (correctly
//     rounded conversion and division in OpenCL C, FP_CONTRACT off, summed
//     in source order), out_t = Σ y_i·(Q/q_i mod p_t) − (v·Q + H) mod p_t;
//   - ScaleDiff: (x − y)·w mod q, ModDown's and the rescale's last step.
//
// Every kernel writes the canonical residue in [0, q), which is what
// Lattigo's lazy schedules end in once reduced, so the outputs are
// byte-identical with Lattigo and with gpu/native's model (the tests
// compare all three on BGVN13/BGVN14's moduli). A call is one upload of
// its inputs and per-job constants, one 2-D launch (word × job), one
// download; the device buffers and pinned (CL_MEM_ALLOC_HOST_PTR) staging
// areas grow to the largest call and are kept. An input word outside a
// kernel's bounds (keys ≥ q, digits or sources ≥ 2q) sets a flag, and the
// call reports false having written nothing; the engine then recomputes
// with Lattigo. Moduli must be odd and < 2^62, a basis extension has at
// most 32 sources, and one call's jobs share N; anything else is declined
// the same way. The dispatcher's first-use verification (gpu/keyswitch.go)
// checks every new modulus against the Go definition before trusting it.
//
// # BGV's products
//
// With Backend.Products (FHEGATE_OPENCL_PRODUCTS=1) it is also a
// gpu.LinCombBackend: the tensor of a ciphertext product, the multiply-add
// by an integer and a baby step's linear combination Out + Σ_k w_k·A_k
// (engine.TensorJob, MulAddJob, LinCombJob) run in the same program
// (fg_pr_tensor, fg_pr_lincomb), through the same staging and launch. Each
// word runs Lattigo's own sequence — c = MRed(a, t·2^128 mod q) then MRed,
// CRed for the tensor; o = CRed(o + MRed(a_k, w_k·2^64 mod q)) term by term
// — so the bytes are Lattigo's for every input word and no input is out of
// bounds. They are off by default: the step is bound by memory traffic, its
// operands cross the bus for it, and no GPU has measured whether that beats
// the CPU (gpu.ProductSwitch keeps the dispatcher from asking while off).
//
// Any OpenCL 1.2+ device with 64-bit integers works. CI runs it on PoCL
// (Debian pocl-opencl-icd), which executes the kernels on the host CPU: that
// proves correctness and routing, not GPU speed. Device choice: the first GPU,
// else the first device; FHEGATE_OPENCL_DEVICE=<platform>:<device> overrides.
package opencl

// Name is the backend name.
const Name = "opencl"
