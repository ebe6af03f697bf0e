// Package fhe is fhegate's main door to Lattigo (github.com/tuneinsight/lattigo/v6,
// v6.2.0, Apache-2.0):
// parameter presets, the canonical wire format, keys, client-side
// encryption/decryption and a deterministic evaluator facade. Precompiles,
// policies, CRDTs and clients evaluate through it and never import Lattigo.
//
// # The other doors, and the Lattigo types fhe exposes
//
// fhe is not the only package that imports Lattigo:
//
//   - consensus/protocol is the second door: the committee's threshold
//     protocols (distributed key generation, threshold decryption, key
//     refresh) import Lattigo's multiparty, multiparty/mpbgv, schemes/bgv,
//     ring, core/rlwe and utils/sampling directly, because fhe has no
//     multiparty facade. It reaches fhe's objects through the wrappers below.
//   - fhe/engine is fhegate's own key switching and rescale over Lattigo's
//     exported ring and rlwe building blocks: relinearisation and rotation
//     (KeySwitcher.Relinearize / Automorphism), the hoisted decomposition of
//     rotations (DecomposeNTT), ModDown and the rescale
//     (DivRoundByLastModulusNTT), each byte-identical to Lattigo's. It
//     gathers their per-limb NTT/INTTs into batches for a Router;
//     Evaluator.Mul, Rotate, RotateMany, InnerProduct, SumSlots and the
//     polynomial evaluators (EvalPolyInts/Floats) use it. InnerSum,
//     encryption and decryption are still Lattigo's own.
//   - gpu imports Lattigo's ring package to run the engine's batches on an
//     accelerator (its Dispatcher is the engine's Router); it evaluates
//     nothing itself.
//
// For those callers, and for the Lattigo-level baselines of bench/workloads,
// fhe exposes raw Lattigo types on purpose: Params.RLWE, Params.BGV and
// Params.CKKS (rlwe/bgv/ckks.Parameters); Ciphertext.Lattigo and
// WrapCiphertext (*rlwe.Ciphertext); SecretKey, PublicKey, RelinKey and
// GaloisKeys .Lattigo with the Wrap… constructors (rlwe.SecretKey,
// PublicKey, RelinearizationKey, GaloisKey — the inputs and outputs of the
// multiparty protocols); and HoistedRotationSum, SumSlotsLattigo and
// NewRotationScratch (*rlwe.Evaluator, rlwe.Parameters — the fast rotation
// sums as building blocks for fhe subpackages). Objects returned by the
// Lattigo accessors must not be modified; results computed in Lattigo are
// wrapped again (WrapCiphertext checks level, degree and ring degree) before
// they are encoded in the wire format below.
//
// # Schemes
//
// BGV (Brakerski–Gentry–Vaikuntanathan, ePrint 2011/277) with plaintext
// modulus t = 65537 packs N integers mod t into the N "slots" of one
// ciphertext (t ≡ 1 mod 2N, so X^N+1 splits completely mod t and slot-wise
// arithmetic is exact). Policies, CRDT lanes and verdicts are BGV.
// CKKS (Cheon–Kim–Kim–Song, ePrint 2016/421) packs N/2 approximate reals; it is
// offered for the workload benchmarks and numeric dApps.
//
// Both are RLWE schemes over R_Q = Z_Q[X]/(X^N+1) with Q = q_0·…·q_L an RNS
// chain. A multiplication is followed by a rescale (CKKS: divide by q_ℓ;
// BGV: modulus switch q_ℓ → drop, scaling the plaintext scale by q_ℓ^-1 mod t),
// so a preset with L+1 primes supports multiplicative depth L without
// bootstrapping. Key switching (relinearisation, rotations) uses the special
// modulus P.
//
// # Presets and security
//
// Every public preset keeps log2(QP) within the HomomorphicEncryption.org
// standard's 128-bit bound for a ternary secret and σ = 3.2 (Albrecht et al.,
// "Homomorphic Encryption Security Standard", 2018, Table 1: N=2^13 → 218 bits,
// N=2^14 → 438 bits). The bound is checked by a test. Small, insecure presets for
// fast tests live only in fhe/fhetest and are named Insecure….
//
// # Wire format
//
// Every object crossing a process or chain boundary is encoded canonically:
//
//	header (12 bytes): "FHEG" | version | kind | scheme | preset | level | flags | degree | reserved(0)
//	ciphertext payload: scale | c0 | c1 [| c2]     (seeded: scale | c0 | seed[32])
//	key payload:        every coefficient of the key's fixed shape, in a fixed order
//
// Coefficients are little-endian uint64 and must be < their prime; the scale is
// a uint64 mod t (BGV) or an IEEE-754 float64 (CKKS). A fresh ciphertext made
// with a secret key may be seeded: its uniform component c1 is regenerated from
// a 32-byte seed by a keyed BLAKE2b XOF (Lattigo's KeyedPRNG), which halves its
// size. (Ciphertexts made under a public key have no uniform component and are
// never seeded.) A Handle is keccak256 of the canonical bytes. Decoding rejects
// every non-canonical input with a *DecodeError and never panics; decode then
// encode returns the same bytes.
//
// # Determinism
//
// Evaluation (add, multiply, relinearise, rescale, rotate, polynomial
// evaluation) is a deterministic function of its inputs: it reads no
// randomness, no clock and no map order, so every validator and every committee
// member computes the same bytes. Only key generation and encryption read
// crypto/rand.
package fhe
