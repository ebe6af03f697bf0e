// Package workloads implements the six encrypted workloads of the H33
// article "Encrypted workloads, not primitives" (plus Opaque-Go's BGV dot
// product), each twice, so that fhegate's evaluation strategy is measured
// against the straightforward use of Lattigo in the same process:
//
//	mul_pipeline  a⊙b, a, b ∈ [-1,1]^4096 (CKKS N=2^13: mul + relin + rescale)
//	square        x⊙x
//	slot_sum_64   Σ_{i<64} x_i, result in slot 0
//	dot_64        Σ_{i<64} a_i b_i, both encrypted
//	dense_64x4    y = W·x + b, x encrypted, W ∈ R^{4×64}, b ∈ R^4 plaintext
//	bgv_dot_128   Σ_{i<128} q_i w_i, q encrypted (BGV N=2^13, t=65537), w plaintext
//
// # What is timed
//
// Case.Run is the timed region, identical in scope for both variants: it
// starts from fresh ciphertexts at the preset's top level (encrypted under
// the public key at setup) and ends with ciphertexts that decrypt to the
// result. Key generation, encryption, encoding of plaintext operands
// (weights, bias, w — encoded once at setup for both variants, each at the
// level it uses), decryption and the comparison are not timed.
//
// # Baseline
//
// What a first-time Lattigo user writes: MulRelinNew (or MulNew with a
// plaintext) and Rescale at the level the ciphertext arrives at, then a
// rotate-and-add tree of RotateNew + AddNew (log2 n rotations to sum n
// slots); the dense layer is four such dot products with four output
// ciphertexts.
//
// # Same level
//
// The baseline's plain Lattigo calls (MulRelinNew / MulNew + Rescale,
// RotateNew + AddNew trees) run on the inputs viewed at fhegate's input
// level, so they end at fhegate's output level: mul_pipeline and square
// multiply at level 1 and end at level 0 (the baseline: 3 → 2), the sums run
// at level 0, the dense rows are encoded at level 1, the BGV product is
// taken at level 1 and rescaled (modulus-switched) to 0. Baseline/SameLevel
// is then the gain of the level choice alone and SameLevel/Fhegate the gain
// of fhegate's algorithms at equal levels.
//
// # Fhegate
//
// The cost of a key switch (relinearisation or rotation) with one special
// prime is dominated by (ℓ+1) digits × (ℓ+2) NTTs at level ℓ, and every
// other operation is linear in ℓ+1. The results of these workloads are final
// (they are decrypted), so fhegate views its inputs at the lowest level the
// remaining circuit needs — a free truncation of the RNS rows, with no copy
// and without touching the input — before anything expensive:
//
//   - a ciphertext-ciphertext or ciphertext-plaintext product needs one level:
//     inputs are viewed at level 1, the product is rescaled to level 0;
//   - additions and rotations need none: sums run at level 0, where a key
//     switch has a single digit over one Q and one P prime;
//   - for a single CKKS product (mul_pipeline, square) the degree-2 tensor
//     is rescaled first and relinearised at level 0 (lazy relinearisation:
//     the cheapest order); for dot_64 it is relinearised at level 1 before
//     the rescale, because relinearising after the rescale leaves the key-
//     switch noise undivided by q_1 (≈1e-6 per slot) and the sum over 64
//     slots would bring it near the 1e-5 bound;
//   - the dense layer multiplies x — encoded by the client tiled with
//     period 64 — by ONE plaintext holding the four rows side by side, and a
//     single 6-step tree sums all four 64-blocks at once (6 rotations instead
//     of 4 × 6; y_j lands in slot 64·j). With only four generalised
//     diagonals, the BSGS diagonal method (Halevi–Shoup, GAZELLE's hybrid
//     variant) needs ≥ 4 giant-step rotations plus hoisted baby steps, and
//     is not cheaper than this 6-rotation tree at level 0;
//   - the BGV product is modulus-switched from level 1 to 0 right after the
//     plaintext product, which divides its noise by q_1 and lets the seven
//     rotations run at level 0;
//   - scratch ciphertexts are allocated at setup and reused.
//
// Rotation trees are not hoisted: a tree rotates a different ciphertext at
// each step, and the hoisted alternative (all 63 rotations of the input from
// one decomposition, or an 8×8 baby-step/giant-step split) costs as many NTTs
// as the 6-step tree at level 0. Hoisting pays when one ciphertext is rotated
// by many steps; fhe.Evaluator.RotateMany exposes it.
//
// # Packing
//
// A packed case fills the input ciphertexts with as many independent
// instances as fit (64 slot sums or dot products, 16 dense layers, 64 BGV
// dot products) and runs the same fhegate circuit. Its time divided by the
// number of instances is a throughput figure, reported separately
// (fhegate_amortized_ms), never as latency.
//
// # Correctness
//
// Every result is decrypted and compared with a plaintext reference: CKKS
// maximum absolute error ≤ 1e-5 on inputs in [-1, 1]; BGV exact (inputs in
// [-15, 15], so |q·w| ≤ 28800 < t/2 and the result is the integer, not only
// its residue).
//
// # The command
//
// Command is `fhegate bench workloads`: RunAll measures each workload's
// variants interleaved under GOMAXPROCS(1) with the NTT gate's columns
// (package bench), Print prints the table against the published anchors
// (H33-CKKS on Graviton4, Opaque-Go on an M4 Pro) and Check fails the run on
// a wrong result, never on a timing miss.
package workloads
