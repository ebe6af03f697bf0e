/*
 * ntt_arith.h — the modular arithmetic of fhegate's NTT kernels.
 *
 * ONE source for every kernel dialect: the OpenCL C kernels (ntt.cl), the
 * Metal Shading Language kernels (ntt.metal) and, through a shim header, the
 * same MSL compiled as C++ for the byte-equality test on Linux. Every
 * function is the exact integer sequence of its Lattigo counterpart
 * (github.com/luxfi/math ntt/subring: MRedLazy, MRed, BRedAdd; ring/ntt.go:
 * butterfly, invbutterfly), including wrap-around on 64-bit overflow, so the
 * kernels are byte-identical to Lattigo for every input word.
 *
 * The including dialect defines:
 *   FG_U64          an unsigned 64-bit integer type
 *   FG_MULHI(a, b)  the high 64 bits of the 128-bit product a*b
 *   FG_INLINE       the inline function qualifier
 *   FG_PRIV         the address space of pointers to private variables
 */
#ifndef FHEGATE_NTT_ARITH_H
#define FHEGATE_NTT_ARITH_H

/* x*y*2^-64 mod q, result in [0, 2q). Lattigo MRedLazy. */
FG_INLINE FG_U64 fg_mred_lazy(FG_U64 x, FG_U64 y, FG_U64 q, FG_U64 mredc)
{
	FG_U64 ahi = FG_MULHI(x, y);
	FG_U64 alo = x * y;
	FG_U64 h = FG_MULHI(alo * mredc, q);
	return ahi - h + q;
}

/* x*y*2^-64 mod q, result in [0, q). Lattigo MRed. */
FG_INLINE FG_U64 fg_mred(FG_U64 x, FG_U64 y, FG_U64 q, FG_U64 mredc)
{
	FG_U64 r = fg_mred_lazy(x, y, q, mredc);
	if (r >= q) {
		r -= q;
	}
	return r;
}

/* a mod q by Barrett with bred0 = floor(2^128/q) >> 64. Lattigo BRedAdd. */
FG_INLINE FG_U64 fg_bred_add(FG_U64 a, FG_U64 q, FG_U64 bred0)
{
	FG_U64 mhi = FG_MULHI(a, bred0);
	FG_U64 r = a - mhi * q;
	if (r >= q) {
		r -= q;
	}
	return r;
}

/*
 * Forward (Cooley–Tukey) butterfly: X, Y = U + V*psi, U + 2q - V*psi with
 * V*psi by MRedLazy. reduce != 0 first folds U from [0, 8q) to [0, 4q)
 * (Lattigo butterfly); reduce == 0 is Lattigo's unrolled lazy step.
 */
FG_INLINE void fg_fwd_butterfly(FG_PRIV FG_U64 *u, FG_PRIV FG_U64 *v, FG_U64 psi, FG_U64 q, FG_U64 mredc, unsigned int reduce)
{
	FG_U64 U = *u;
	if (reduce != 0u && U >= (q << 2)) {
		U -= (q << 2);
	}
	FG_U64 V = fg_mred_lazy(*v, psi, q, mredc);
	*u = U + V;
	*v = U + (q << 1) - V;
}

/*
 * Inverse (Gentleman–Sande) butterfly: X, Y = U + V mod 2q, (U + 4q - V)*psi.
 * Lattigo invbutterfly.
 */
FG_INLINE void fg_inv_butterfly(FG_PRIV FG_U64 *u, FG_PRIV FG_U64 *v, FG_U64 psi, FG_U64 q, FG_U64 mredc)
{
	FG_U64 U = *u;
	FG_U64 V = *v;
	FG_U64 X = U + V;
	if (X >= (q << 1)) {
		X -= (q << 1);
	}
	*u = X;
	*v = fg_mred_lazy(U + (q << 2) - V, psi, q, mredc);
}

/*
 * Index map of one stage. Work item k in [0, N/2) of a stage with half-span
 * t = 2^logT owns the pair (x, x + t) and the twiddle roots[N/(2t) + k/t];
 * the same map serves forward (m = N/2t groups) and inverse (h = N/2t).
 */
FG_INLINE unsigned int fg_pair_x(unsigned int k, unsigned int logT)
{
	return ((k >> logT) << (logT + 1u)) + (k & ((1u << logT) - 1u));
}

FG_INLINE unsigned int fg_root_index(unsigned int k, unsigned int logN, unsigned int logT)
{
	return (1u << (logN - 1u - logT)) + (k >> logT);
}

#endif /* FHEGATE_NTT_ARITH_H */
