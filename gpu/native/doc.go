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
//     (forward) or 2q (inverse), reduced on load (see "Lazy inputs"). Eight
//     64-bit lanes per zmm register, vpmadd52luq/vpmadd52huq for the modular
//     products, vpermt2q for the three stages whose butterfly span is below
//     a register (t = 4, 2, 1).
//   - Scalar C: every other case — primes ≥ 2^51 (CKKSN14's 55-bit Q0 and
//     61-bit P, the 60/61-bit self-test primes), forward inputs with a word
//     ≥ 2^52, inverse inputs with a word ≥ 2q, and every polynomial on a CPU
//     without IFMA. It
//     is Lattigo's own lazy schedule, run through the same arithmetic header
//     as the OpenCL and Metal kernels (gpu/kernels/ntt_arith.h: MRedLazy,
//     BRedAdd, the two butterflies, including wrap-around on 64-bit overflow).
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
// # The math of the vector path
//
// The kernels (vec_kernel.h) follow Intel HEXL (F. Boemer, S. Kim, G.
// Seifu, F. de Souza, V. Gopal: "Intel HEXL: Accelerating Homomorphic
// Encryption with Intel AVX512-IFMA52", WAHC 2021): Shoup multiplication in
// 52-bit limbs. For a twiddle w < q < 2^50 the table holds w and
// w' = ⌊w·2^52/q⌋; for y < 2^52, Q = hi52(y·w') (vpmadd52huq) and
// r = (lo52(w·y) + lo52(Q·(−q))) mod 2^52 (two vpmadd52luq and a mask) is
// w·y − Q·q ∈ [0, 2q), ≡ w·y (mod q) (exact, since 2q < 2^52). The forward
// transform is the same Cooley–Tukey network as Lattigo (stage m = 1…N/2,
// pairs (j, j+t) with t = N/2m, twiddle of group i = RootsForward[m+i]
// converted out of Montgomery form by MRed(w, 1)), butterflies
// X ← (X mod 2q) + T, Y ← (X mod 2q) + 2q − T with T = w·Y mod q. For
// q < 2^50 ("narrow") words stay in [0, 4q) (4q < 2^52, so every Shoup
// operand is a valid y); for 2^50 ≤ q < 2^51 ("wide") both outputs are
// reduced once more into [0, 2q) (2q < 2^52), two extra vpminuq per
// butterfly. The epilogue reduces into [0, q). The inverse is the
// Gentleman–Sande network of Lattigo (t = 1…N/2, RootsBackward[N/2t + i]),
// X ← (X + Y) mod 2q, Y ← w·(X + 2q − Y) mod q (wide: X + 2q − Y ∈ (0, 4q)
// is first reduced into [0, 2q)), words in [0, 2q), then multiplication by
// N^{-1} (Shoup) and reduction into [0, q).
//
// Passes: the stages with span ≥ 16 run two per pass over the polynomial
// (radix 4, four vectors in registers), and the four stages that pair words
// of one 16-word block (span 8, 4, 2, 1) run block by block in registers
// together with the epilogue (forward) or before the span-16 stages
// (inverse, whose N^{-1} step rides in the pass of each word's last stage):
// 6 passes at N = 2^14 instead of one per stage. Each butterfly is the same
// function of the same operands and each word meets the stages in the same
// order as in the radix-2 network, so the order of passes changes no byte.
//
// # Why the bytes are Lattigo's
//
// The vector path does not replay Lattigo's Montgomery schedule; it computes
// the exact transform of (a mod q) and reduces it fully, and it only runs
// where Lattigo's output is that same fully reduced exact transform. Two
// facts about Lattigo v6.2.0's ring/ntt.go carry the proof:
//
//   - MRedLazy(x, y) = ahi − H + q, where x·y = ahi·2^64 + alo and
//     H = hi(m·q), m = alo·q^{-1} mod 2^64. Since m·q ≡ alo (mod 2^64),
//     x·y − m·q = (ahi − H)·2^64 exactly, so the result is
//     (x·y − m·q)/2^64 + q ∈ (0, 2q) — for every 64-bit x and y < q (every
//     twiddle and N^{-1} is < q) — and ≡ x·y·2^{-64} (mod q).
//   - BRedAdd(a) (the forward epilogue, reducevec) is an exact reduction for
//     every 64-bit a: its quotient estimate ⌊a·⌊2^64/q⌋/2^64⌋ is ⌊a/q⌋ or
//     one less, then one conditional subtraction. The inverse epilogue
//     MRed(a, N^{-1}) is MRedLazy plus one conditional subtraction: [0, q)
//     for every 64-bit a.
//
// Forward, q < 2^51, every input word < 2^63: the first stage writes
// U + V and U + 2q − V with V = MRedLazy(·) ∈ (0, 2q); every later butterfly
// first subtracts 4q from U if U ≥ 4q (on the stages that fold) and writes the
// same two sums. A word therefore grows by less than 2q per stage and never
// goes below zero (U + 2q − V > U ≥ 0), so after log2 N ≤ 17 stages every
// word is below 2^63 + 34q < 2^63 + 2^57 < 2^64: no operation wraps, every
// step is congruent mod q to the exact butterfly on (a mod q), and BRedAdd
// returns the exact NTT of (a mod q) in [0, q).
//
// Inverse, q < 2^51, every input word < 2q: the first stage writes
// X = U + V < 4q, minus 2q if ≥ 2q, so X ∈ [0, 2q), and
// Y = MRedLazy(U + 4q − V) with U + 4q − V ∈ (2q, 6q) (no wrap, V < 2q) in
// (0, 2q). Every word is again in [0, 2q) and the same holds at every later
// stage; the final MRed by N^{-1} lands in [0, q). Output: the exact INTT of
// (a mod q) in [0, q). Above 2q this fails: a first-stage X can reach 6q,
// and a second-stage U + 4q − V then wraps modulo 2^64, which is not a
// congruence mod q.
//
// # Lazy inputs
//
// Hence reduce on load: one vectorised max over the polynomial decides.
// Largest word < q: the kernels run on the words as they are. < 2q (both
// directions; Lattigo's lazy outputs, what the engine hands the gate for
// most forward transforms): one conditional subtraction per word on load.
// < 2^52 (forward only): Shoup's product by w = 1, w' = ⌊2^52/q⌋, gives
// y − ⌊y·w'/2^52⌋·q ∈ [0, 2q), then one conditional subtraction. The kernels
// then compute the exact transform of (a mod q), which by the above is
// Lattigo's output byte for byte. Everything else — forward words ≥ 2^52
// (exact in Lattigo too, but not reducible by a 52-bit product), inverse
// words ≥ 2q (where Lattigo's wrap-arounds make the output a function of
// the raw words), q ≥ 2^51 — takes the scalar path, which is Lattigo's
// schedule. Fully reduced representatives are unique, so all paths agree
// byte for byte; the conformance suite checks it against Lattigo on every
// bound (gputest's lazy polynomials, TestLazyInputs with path counters).
//
// # The key switch on the vector path
//
// Besides the NTT the backend implements gpu.KeySwitchBackend: the loops of
// fhe/engine's key switch that Lattigo runs in Go (engine.MulAccJob,
// ModUpJob, ScaleDiffJob). Each kernel computes the canonical residue in
// [0, q) of the quantity Lattigo computes with lazy Montgomery reductions;
// every consumer of Lattigo's lazy output reduces fully (or transforms with
// a reduced NTT), so the bytes agree whatever representative the lazy
// schedule held. All moduli < 2^51 (2q < 2^52); inputs outside the stated
// bounds are reported and the engine runs Lattigo's loop instead.
//
//   - Gadget multiply-accumulate, out = Σ_i k_i·d_i·2^{-64} mod q (k_i < q
//     the key in Montgomery form, d_i < 2q the digit): Montgomery's product
//     with R = 2^52 in four IFMA operations — lo/hi of k·d, m = lo·q^{-1}
//     mod 2^52, t = hi52(m·q); m·q ≡ lo (mod 2^52), so k·d − m·q =
//     (hi − t)·2^52 exactly with hi − t ∈ (−q, q) (k·d < 2q² < q·2^52) —
//     sums kept in [0, 2q) by one conditional subtraction per digit, and one
//     Shoup product by 2^{-12} mod q at the end (2^{-52}·2^{-12} = 2^{-64}).
//   - Fast exact basis extension (Lattigo's ModUpExact with its centring;
//     Halevi–Polyakov–Shoup, CT-RSA 2019, §2.2): y_i = (x_i + ⌊Q/2⌋)·(Q/q_i)^{-1}
//     mod q_i by Shoup, v = ⌊Σ_i y_i/q_i⌋ and out_t = Σ_i y_i·(Q/q_i) −
//     v·Q − ⌊Q/2⌋ mod p_t. v is Lattigo's float64 estimate bit for bit:
//     the same IEEE divisions and additions in the same order (vdivpd,
//     vaddpd; y_i < 2^53 converts exactly) and truncation (vcvttpd2uqq), so
//     even where the estimate is off by one at a boundary the result is
//     Lattigo's. The correction −v·Q − ⌊Q/2⌋ mod p_t is one vpermt2q from a
//     16-entry table per target (at most 15 sources).
//   - ModDown's and the rescale's last step, out = (x − y)·w mod q: both
//     operands reduced into [0, q), x + q − y ∈ (0, 2q) one Shoup operand.
//     Every job's inputs are checked before any output is written (the
//     engine works in place).
//
// The constants are computed from their definitions (math/big), not read
// from Lattigo's unexported tables; engine.ModUpJob.Reference is the word-
// by-word Go model. fhe/engine's tests prove the definitions byte-identical
// to Lattigo on every preset and level; TestGadgetMulAcc, TestModUp and
// TestScaleDiff prove the kernels against big.Int and the model on the
// emulated and real IFMA paths; test/fhecheck's TestNativeKeySwitchByteIdentical
// runs FHE evaluations and the kyc_aml policy through them end to end.
//
// # BGV's products on the vector path
//
// The backend also implements gpu.ProductBackend: the coefficient-wise
// products of Lattigo's BGV evaluator outside the key switch, which fhe's
// routed evaluator hands the engine (engine.TensorJob, MulAddJob). Lattigo
// reduces every one of them fully (MRed of a product below q·2^64, CRed of
// a sum below 2q), so its words are the canonical residues and a kernel
// that computes those is byte-identical.
//
//   - Tensor product of two degree-1 ciphertexts, out0 = t·a0·b0,
//     out1 = t·(a0·b1 + a1·b0), out2 = t·a1·b1 mod q (Lattigo's
//     tensorStandard: a scaled by tMontgomery = t·2^128 mod q, then
//     Montgomery products with b): a' = w·a by Shoup with w = t·2^52 mod q,
//     reduced into [0, q), then mont52(a', b) (above; a' < q, b < q) is
//     t·a·b mod q in (0, 2q); the cross sum in (0, 4q) is reduced twice. One
//     pass reads a0, a1, b0, b1 and writes out0, out1, out2 (Lattigo's
//     loop makes six passes over the limb with two scratch limbs).
//   - Multiply-add by an integer, out = out + w·a mod q (Lattigo's
//     MulScalarBigintThenAdd: the polynomial evaluator's baby steps, w the
//     coefficient's residue): Shoup, reduced, added, reduced.
//   - Linear combination, out = out + Σ_k w_k·a_k mod q (engine.LinCombJob:
//     a whole baby step, fhe's babyStep): the multiply-add's steps per
//     term, the sum kept canonical, so it equals Lattigo's term-by-term
//     multiply-adds. The step is bound by memory traffic: one pass reads
//     every a_k and out once and writes out once, where the multiply-adds
//     read and write out once per term (kyc_aml: about 8.6 terms per limb,
//     so three limb transfers per term fall to about 1.2).
//
// All take inputs < q (what ciphertexts hold). Each 8-word block is
// loaded and checked before it is stored, so an output may alias an input
// at the same index (Lattigo's Mul into an operand); at the first block
// holding a word ≥ q the kernel returns its index and the job's Finish
// (Lattigo's per-word MRed/CRed arithmetic) writes the rest, so any input
// gives Lattigo's bytes. TestTensorKernel, TestMulAddKernel and
// TestLinCombKernel check both paths against Lattigo's SubRing calls and
// big.Int (product, square, in place, 0–9 terms, words ≥ q); test/fhecheck's
// TestTensorBGVByteIdentical, TestMulScalarThenAddByteIdentical and
// TestLinCombByteIdentical check the engine's jobs against Lattigo's
// evaluator on every BGV preset, and fhe's
// TestEvalPolyGatheredBabyStepsByteIdentical whole polynomials.
//
// # Tests
//
// native_test.go runs gpu/gputest (N = 2^10…2^16 × B ∈ {1, 3, 8, 64} — every
// cell with FHEGATE_GPU_FULL=1, B·N ≤ 2^20 by default — × 30-,
// 36-, 50-bit (the largest NTT prime below 2^50), 51-bit (the largest below
// 2^51: the wide butterflies) and 61-bit primes; fresh
// random inputs with a logged seed (internal/testseed), one polynomial of
// raw 64-bit words and one of each lazy bound ([0, 2q), [0, 2^52),
// [2^52, 2^63)) per batch, poisoned outputs, in place and out of place,
// round trips), every prime of the four presets at its own N, extreme inputs
// (all q−1, zero, q, 2^64−1, N = 16 and 32), SelfTest and the error cases, on
// each path runnable on the host. The vector kernel source is also compiled
// against a portable C model of the eight-lane intrinsics (emu.c,
// PathEmulated), so the vector algorithm — lane maps, 52-bit Shoup products,
// lazy bounds — is proved byte-identical on any host; the IFMA build differs
// only in the one-line intrinsic macros of ifma.c. The development host of
// this package (AMD EPYC, AVX2, no AVX-512) could not execute the IFMA
// instructions: there the IFMA path was compiled but only its emulated
// model was run. On an IFMA host the same tests run the real kernels, and
// the dispatcher arms the backend only after gpu.SelfTest passes. The lazy
// inputs and the wide (51-bit) butterflies were developed on a 2-vCPU
// Intel Xeon with AVX-512 IFMA: there every test above (TestLazyInputs
// included, with its path counters) ran on PathIFMA and PathEmulated.
//
// # Measured
//
// BenchmarkNativeNTT (one 50-bit prime, the largest NTT prime below 2^50;
// reduced inputs; "go" is the cpu backend, i.e. Lattigo's NTTStandard /
// INTTStandard with goroutines over the batch):
//
//	go test -run '^$' -bench NativeNTT -benchtime 0.5s -count 6 ./gpu/native/
//
// Development host: AMD EPYC (AVX2, no AVX-512, so the automatic path is
// scalar C), 2 vCPUs shared with other builds (load average 2–10 during the
// runs). Minimum of the 6 runs per cell, commit 69c2799:
//
//	N=2^12 B=1  forward  go     52,818 ns/op  native-scalar     57,281 ns/op  go/native 0.92
//	N=2^12 B=1  inverse  go     71,907 ns/op  native-scalar     62,283 ns/op  go/native 1.15
//	N=2^12 B=16 forward  go    862,718 ns/op  native-scalar  1,570,681 ns/op  go/native 0.55
//	N=2^12 B=16 inverse  go    820,815 ns/op  native-scalar  1,827,816 ns/op  go/native 0.45
//	N=2^13 B=1  forward  go    151,274 ns/op  native-scalar    130,944 ns/op  go/native 1.16
//	N=2^13 B=1  inverse  go    104,036 ns/op  native-scalar    119,765 ns/op  go/native 0.87
//	N=2^13 B=16 forward  go    911,635 ns/op  native-scalar  1,767,414 ns/op  go/native 0.52
//	N=2^13 B=16 inverse  go  1,831,667 ns/op  native-scalar  2,178,201 ns/op  go/native 0.84
//	N=2^14 B=1  forward  go    574,294 ns/op  native-scalar    357,803 ns/op  go/native 1.61
//	N=2^14 B=1  inverse  go    458,157 ns/op  native-scalar    298,730 ns/op  go/native 1.53
//	N=2^14 B=16 forward  go  3,781,405 ns/op  native-scalar  5,036,219 ns/op  go/native 0.75
//	N=2^14 B=16 inverse  go  4,850,187 ns/op  native-scalar  5,034,496 ns/op  go/native 0.96
//	N=2^15 B=1  forward  go    702,600 ns/op  native-scalar    569,872 ns/op  go/native 1.23
//	N=2^15 B=1  inverse  go    679,166 ns/op  native-scalar    552,032 ns/op  go/native 1.23
//	N=2^15 B=16 forward  go 13,422,062 ns/op  native-scalar  7,212,967 ns/op  go/native 1.86
//	N=2^15 B=16 inverse  go 11,035,703 ns/op  native-scalar  8,852,756 ns/op  go/native 1.25
//	N=2^16 B=1  forward  go  1,110,016 ns/op  native-scalar  1,157,298 ns/op  go/native 0.96
//	N=2^16 B=1  inverse  go  2,487,114 ns/op  native-scalar  1,103,591 ns/op  go/native 2.25
//	N=2^16 B=16 forward  go 46,354,976 ns/op  native-scalar 39,961,637 ns/op  go/native 1.16
//	N=2^16 B=16 inverse  go 41,450,961 ns/op  native-scalar 42,254,901 ns/op  go/native 0.98
//
// Under that load single cells move by up to 2× between runs (an earlier run
// of the same benchmark, before the fold-flag specialisation, gave a
// geometric mean of 0.93× over the 20 cells; this one 1.03×): the scalar C
// path is at parity with Lattigo's Go NTT, as expected of the same algorithm
// (Lattigo's Go is already unrolled), and is not a reason to route batches.
// The IFMA path could not be timed here (no AVX-512 host); HEXL reports 4–7×
// over scalar code for q < 2^50. On an IFMA host this benchmark adds the
// native-ifma and native-scalar rows, and `fhegate calibrate --backend
// native` measures the crossover ladder that decides routing.
//
// On the 2-vCPU Intel Xeon with AVX-512 IFMA (shared with other builds,
// load average 8–25 during the runs, so single numbers move by 2× and
// only same-run ratios are quoted), `GOMAXPROCS=1 fhegate calibrate
// --backend native` on the engine's shapes and inputs (forward words in
// [0, 2q)) measured 1.3–8× Lattigo's Go NTT in every cell of N = 2^13/2^14,
// L = 1…12, B = 1…8 (most cells 3–5×), crossover B = 1 everywhere; before
// the lazy inputs the same engine inputs ran every polynomial on scalar C
// (0.85× per the IFMA-host report that motivated the change). The record
// is in docs/LP-137.md ("The native gate on an IFMA host").
package native
