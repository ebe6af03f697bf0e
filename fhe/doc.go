// Package fhe is fhegate's only door to Lattigo (github.com/luxfi/lattice/v7):
// parameter presets, the canonical wire format, keys, client-side
// encryption/decryption and a deterministic evaluator facade.
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
