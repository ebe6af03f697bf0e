// Package gpu is fhegate's GPU gate: it decides, per batch, whether the
// negacyclic number-theoretic transforms (NTTs) that fhegate's engine
// (fhe/engine) gathers from a key switch run on the CPU or on an
// accelerator, without ever changing one output byte.
//
// # The math
//
// Lattigo (github.com/tuneinsight/lattigo/v6, ring package) represents a polynomial
// of Z_q[X]/(X^N+1) by its N coefficients and multiplies polynomials in the
// evaluation domain. SubRing.NTT maps coefficients a_0..a_{N-1} to the
// evaluations a(ψ^{2·brv(i)+1}) where ψ is a primitive 2N-th root of unity mod
// q and brv is the log2(N)-bit reversal: a Cooley–Tukey decimation-in-time
// butterfly network of log2(N) stages with the twiddles ψ^{brv(k)} stored in
// Montgomery form (RootsForward), Montgomery multiplication MRedLazy, lazy
// reduction into [0, 4q) at alternating stages, and a final Barrett reduction
// into [0, q). SubRing.INTT is the Gentleman–Sande inverse with the inverse
// twiddles (RootsBackward), lazy reduction into [0, 2q) at every stage and a
// final Montgomery multiplication by N^{-1} (NInv). Every backend here executes
// the same integer operations in the same order per coefficient (the stage
// schedule of nttUnrolled16Lazy / inttLazyUnrolled16), so its output is
// byte-identical to Lattigo's for every input, not only for reduced ones.
//
// # Why a gate
//
// Lux's LP-137 ("FHE Performance — Cross-Cutting Analysis"; a copy sits
// outside this repository in ../shared/reference/000_*.txt, and this
// repository's own measurements are in docs/LP-137.md) measured on an M1 Max
// that a single Metal NTT is slower than Go at every N (a ~470 µs
// command-queue floor) and that only batches of B polynomials win, above a
// crossover B = 8…32 that depends on N. The study "GPU-Accelerated WHIR
// Proving on Apple Silicon" (../shared/reference/001_*.txt) adds: submit all
// stages of a batch in one command buffer, keep data resident, batch. So:
//
//   - Backend is a batched forward/inverse NTT of B polynomials for one
//     (N, q). The cpu backend (this package) runs Lattigo's own NTT, in
//     parallel across cores when B > 1. gpu/opencl and gpu/metal are the
//     accelerators, gpu/native the C backend (AVX-512 IFMA where the CPU has
//     it, else scalar C); with fhe/engine/kernels/muladd they are the only
//     packages that import "C", and their kernel sources live in
//     fhe/engine/kernels.
//   - Dispatcher is the router behind fhegate's engine seam (engine.Router;
//     Install calls engine.SetRouter — upstream Lattigo has no ring hook, and
//     a per-limb hook never formed a batch). The engine hands it whole
//     batches: every per-limb transform of one key-switch step, all
//     decomposition digits × all moduli of Q∪P. The dispatcher groups a
//     batch by modulus into one multi-modulus Batch (B polynomials × L
//     moduli; Backend.NTT is one modulus, MultiBackend.NTTMulti the whole
//     batch, NTTMulti adapts any backend) and sends it whole to the
//     accelerator iff the accelerator is armed and B ≥ the crossover the
//     Table gives for its shape (N, L, direction); otherwise it runs
//     Lattigo's own per-limb transform (NTTLazy/INTTLazy where the engine
//     asked for lazy ones). No caller ever waits for a batch
//     that will not form. RouterStats counts transforms seen and routed and
//     the median and p95 batch size.
//   - Lazy batches: the engine consumes them only through lazy Montgomery
//     multiply-accumulates that end in a full reduction, so the reduced
//     output of an accelerator gives the same bytes as Lattigo's NTTLazy
//     (fhe/engine's tests prove it on every preset and level).
//   - Beyond the transforms, the dispatcher is an engine.KeySwitchRouter
//     (the key switch's multiply-accumulate, basis extensions and
//     ModDown/rescale step: KeySwitchBackend) and an engine.ProductRouter
//     (BGV's tensor product and multiply-add by an integer:
//     ProductBackend) and an engine.LinCombRouter (a baby step's
//     multiply-adds as one linear combination per limb: LinCombBackend;
//     without one the terms go to MulAdd one by one). Each goes to the accelerator when it implements the
//     operation and the Table routes the forward-NTT batch of the same
//     moduli; each computes the canonical residue Lattigo's loops leave,
//     and each new (N, q) is checked against the CPU on first use.
//   - An exclusive accelerator (Exclusive: OpenCL and Metal, one command queue) is
//     handed a routed call only when it is idle; a call that finds it busy
//     runs Lattigo's loop on the caller's core and is counted as shed
//     (Dispatcher.claim; FHEGATE_GPU_QUEUE=1 waits instead). Members or
//     evaluations sharing one device then keep both the device and the
//     cores busy, so the gate is never slower than no gate for lack of a
//     free device (docs/LP-137.md, the H200 committee rows).
//   - An accelerator is armed only after SelfTest proved it byte-identical to
//     Lattigo on random vectors; the first accelerated batch of every new
//     (N, q) is additionally checked against the CPU before its result is used.
//   - The Table (configs/crossover.json, written by `fhegate calibrate`) holds
//     the device fingerprint and, per shape (N, moduli, direction), the
//     measured speedup ladder over B and the crossover. A missing, invalid or foreign table means CPU only.
//
// Because every route produces the same bytes, routing never affects
// consensus: it is a pure performance decision.
package gpu
