// Package muladd is the vector multiply-add of slot packing
// (fhe.SlotPacker): acc[j] ± w[j]·c[j] mod q over a limb of NTT-domain
// coefficients, with Shoup's precomputed quotient in 52-bit limbs (Shoup,
// "NTL: A library for doing number theory"; the 52-bit form is HEXL's,
// Boemer et al., "Intel HEXL", WAHC 2021): for y < 2^52 and
// wp = ⌊w·2^52/q⌋, Q = ⌊y·wp/2^52⌋ and r = (w·y − Q·q) mod 2^52 ∈ [0, 2q)
// with r ≡ w·y (mod q); 2q < 2^52 for q < 2^51 (QBound), so the mod 2^52
// loses nothing. AVX-512 IFMA computes it eight lanes at a time
// (VPMADD52LUQ for the low halves, VPMADD52HUQ for Q).
//
// It lives with the other kernels in fhe/engine/kernels, at the seam layer
// below fhe, so the Lattigo wrapper links no part of the GPU gate
// (gpu/native's NTT kernels use the same arithmetic and the same PathEnv
// switch). Its C is compiled here, beside its wrapper, which needs no type
// of the GPU gate. Paths: PathIFMA where Best finds the CPU support,
// PathEmulated (a portable C model of the instructions, for tests on any
// host), PathGo otherwise — the caller's Go loop, which computes the same
// sums (fhe's packing tests compare all three byte for byte).
package muladd
