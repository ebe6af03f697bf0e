/*
 * vec_kernel.h — the eight-lane vector NTT of the native backend, written
 * once against a handful of lane operations and included by ifma.c (AVX-512
 * IFMA intrinsics) and emu.c (a portable C model of the same intrinsics, for
 * testing on hosts without AVX-512). Not an ordinary header: it defines the
 * kernels, once per includer. It is named .h because the go command hashes
 * a package's .h files into its build cache key and ignores other
 * extensions: as vec_kernel.inc, an edit to it left stale kernels in cached
 * test binaries. gpu/native compiles it from here and imports package
 * kernels, whose NativeSources embeds it, for the same reason. The includer
 * defines:
 *
 *   VT                  the vector type (eight unsigned 64-bit lanes)
 *   VFN(name)           the suffixed function name
 *   VATTR               function attributes (the target ISA)
 *   v_load(p) v_store(p, x) v_set1(x)
 *   v_add(a, b) v_sub(a, b) v_min(a, b) v_max(a, b) v_and(a, b)  (64-bit lanes, min/max unsigned)
 *   v_any(a)                                            (nonzero iff some lane of a is nonzero)
 *   v_madd52lo(a, b, c) v_madd52hi(a, b, c)             (vpmadd52luq / vpmadd52huq)
 *   v_perm2(a, idx, b)                                  (vpermt2q: lane i = idx_i < 8 ? a[idx_i] : b[idx_i - 8])
 *   VDT vd_set1(x) vd_add(a, b) vd_div(a, b)             (eight IEEE doubles, round to nearest)
 *   vd_from_u64(x) vd_to_u64(x)                         (vcvtuqq2pd; vcvttpd2uqq: truncation)
 *
 * Arithmetic (HEXL, Boemer et al. 2021), q < 2^51: Shoup multiplication
 * with w' = floor(w·2^52/q): for y < 2^52, Q = hi52(y·w'),
 * r = (w·y − Q·q) mod 2^52 ∈ [0, 2q) and r ≡ w·y (mod q) (2q < 2^52, so the
 * mod 2^52 loses nothing). For q < 2^50 ("narrow") forward Cooley–Tukey
 * butterflies keep values in [0, 4q) (4q < 2^52); for 2^50 ≤ q < 2^51
 * ("wide") both outputs are reduced once more into [0, 2q), so that every
 * Shoup operand stays below 2^52. Inverse Gentleman–Sande butterflies keep
 * values in [0, 2q) (wide: the difference X + 2q − Y ∈ (0, 4q) is reduced
 * into [0, 2q) before its Shoup product). The epilogues reduce into [0, q).
 */

#define M52 ((1ULL << 52) - 1)

/* w·y mod q, result in [0, 2q); y < 2^52. */
VATTR static inline VT VFN(shoup)(VT y, VT w, VT wp, VT negq, VT mask, VT zero)
{
	VT qh = v_madd52hi(zero, y, wp);
	VT r = v_madd52lo(zero, w, y);
	r = v_madd52lo(r, qh, negq);
	return v_and(r, mask);
}

/* x mod-reduce by c: x ∈ [0, 2c) → [0, c) (x − c wraps above x when x < c). */
VATTR static inline VT VFN(red)(VT x, VT c) { return v_min(x, v_sub(x, c)); }

/* Forward butterfly on X, Y ∈ [0, 4q): X ← X' + T, Y ← X' + 2q − T with
 * X' = X mod 2q ∈ [0, 2q) and T = w·Y mod q ∈ [0, 2q); both stay in [0, 4q). */
#define FWD_BFLY(X, Y, W, WP)                                                   \
	do {                                                                    \
		VT x_ = VFN(red)(X, q2);                                        \
		VT t_ = VFN(shoup)(Y, W, WP, negq, mask, zero);                 \
		X = v_add(x_, t_);                                              \
		Y = v_sub(v_add(x_, q2), t_);                                   \
		if (wide) { /* [0, 4q) → [0, 2q) */                             \
			X = VFN(red)(X, q2);                                    \
			Y = VFN(red)(Y, q2);                                    \
		}                                                               \
	} while (0)

/* Inverse butterfly on X, Y ∈ [0, 2q): X ← (X + Y) mod 2q, Y ← w·(X + 2q − Y)
 * mod q ∈ [0, 2q). */
#define INV_BFLY(X, Y, W, WP)                                                   \
	do {                                                                    \
		VT d_ = v_sub(v_add(X, q2), Y);                                 \
		if (wide) { /* (0, 4q) → [0, 2q): a Shoup operand < 2^52 */     \
			d_ = VFN(red)(d_, q2);                                  \
		}                                                               \
		X = VFN(red)(v_add(X, Y), q2);                                  \
		Y = VFN(shoup)(d_, W, WP, negq, mask, zero);                    \
	} while (0)

/* Lane maps of the stages with half-span t = 4, 2, 1 over a block of 16
 * coefficients held in two vectors (lo = 0…7, hi = 8…15): ix/iy gather the
 * X/Y operands, o0/o1 scatter them back. */
VATTR static void VFN(lanemaps)(int k, VT *ix, VT *iy, VT *o0, VT *o1)
{
	uint64_t x[8], y[8], out[16];
	unsigned t = 4u >> k;
	for (unsigned l = 0; l < 8; l++) {
		x[l] = (l / t) * 2 * t + l % t;
		y[l] = x[l] + t;
		out[x[l]] = l;     /* from the first operand (X) */
		out[y[l]] = 8 + l; /* from the second operand (Y) */
	}
	*ix = v_load(x);
	*iy = v_load(y);
	*o0 = v_load(out);
	*o1 = v_load(out + 8);
}

/* The transforms are written once with a constant `wide` flag and
 * instantiated twice (the compiler drops the dead branch). */
#define VINL static inline __attribute__((always_inline))

VATTR VINL void VFN(vec_fwd_core)(const fg_table *t, uint64_t *a, const int wide)
{
	const size_t n = (size_t)1 << t->logN;
	const VT zero = v_set1(0), mask = v_set1(M52), negq = v_set1(0 - t->q);
	const VT q1 = v_set1(t->q), q2 = v_set1(2 * t->q);
	/* Stages with half-span h ≥ 16: whole vectors, two stages per pass
	 * (radix 4) while both have h ≥ 16. Every butterfly is the same
	 * function of the same operands as in the radix-2 order, and each
	 * coefficient meets the stages in the same order, so the bytes are
	 * the same; a pass loads and stores the polynomial once for two
	 * stages. */
	size_t m = 1;
	for (; n / (2 * m) >= 32; m <<= 2) {
		const size_t h = n / (2 * m), h2 = h / 2;
		for (size_t i = 0; i < m; i++) {
			const VT w = v_set1(t->wF[m + i]), wp = v_set1(t->wpF[m + i]);
			const VT w0 = v_set1(t->wF[2 * m + 2 * i]), wp0 = v_set1(t->wpF[2 * m + 2 * i]);
			const VT w1 = v_set1(t->wF[2 * m + 2 * i + 1]), wp1 = v_set1(t->wpF[2 * m + 2 * i + 1]);
			uint64_t *x0 = a + 2 * i * h, *x1 = x0 + h2, *x2 = x0 + h, *x3 = x2 + h2;
			for (size_t j = 0; j < h2; j += 8) {
				VT A = v_load(x0 + j), B = v_load(x1 + j), C = v_load(x2 + j), D = v_load(x3 + j);
				FWD_BFLY(A, C, w, wp);
				FWD_BFLY(B, D, w, wp);
				FWD_BFLY(A, B, w0, wp0);
				FWD_BFLY(C, D, w1, wp1);
				v_store(x0 + j, A);
				v_store(x1 + j, B);
				v_store(x2 + j, C);
				v_store(x3 + j, D);
			}
		}
	}
	for (; n / (2 * m) >= 16; m <<= 1) {
		const size_t h = n / (2 * m);
		for (size_t i = 0; i < m; i++) {
			const VT w = v_set1(t->wF[m + i]), wp = v_set1(t->wpF[m + i]);
			uint64_t *x = a + 2 * i * h, *y = x + h;
			for (size_t j = 0; j < h; j += 8) {
				VT X = v_load(x + j), Y = v_load(y + j);
				FWD_BFLY(X, Y, w, wp);
				v_store(x + j, X);
				v_store(y + j, Y);
			}
		}
	}
	/* h = 8, 4, 2, 1: each stage pairs words of one block of 16 (two
	 * vectors, lo = 0…7, hi = 8…15), so the four run block by block in
	 * registers: h = 8 on (lo, hi) with the block's twiddle, then h = 4,
	 * 2, 1 permuting within the block. */
	VT ix[3], iy[3], o0[3], o1[3];
	for (int k = 0; k < 3; k++) {
		VFN(lanemaps)(k, &ix[k], &iy[k], &o0[k], &o1[k]);
	}
	const size_t m8 = n / 16; /* the h = 8 stage's m */
	for (size_t b = 0; b < n / 16; b++) {
		VT lo = v_load(a + 16 * b), hi = v_load(a + 16 * b + 8);
		{
			const VT w = v_set1(t->wF[m8 + b]), wp = v_set1(t->wpF[m8 + b]);
			FWD_BFLY(lo, hi, w, wp);
		}
		for (int k = 0; k < 3; k++) {
			VT X = v_perm2(lo, ix[k], hi), Y = v_perm2(lo, iy[k], hi);
			VT w = v_load(t->lF[k] + 8 * b), wp = v_load(t->lpF[k] + 8 * b);
			FWD_BFLY(X, Y, w, wp);
			lo = v_perm2(X, o0[k], Y);
			hi = v_perm2(X, o1[k], Y);
		}
		/* epilogue: [0, 4q) → [0, q) */
		lo = VFN(red)(VFN(red)(lo, q2), q1);
		hi = VFN(red)(VFN(red)(hi, q2), q1);
		v_store(a + 16 * b, lo);
		v_store(a + 16 * b + 8, hi);
	}
}

/* The inverse transform's last step, x·N^-1 mod q into [0, q) for x in
 * [0, 2q): applied in the pass that runs a word's last butterfly. */
#define INV_FINAL(X) X = VFN(red)(VFN(shoup)(X, ni, nip, negq, mask, zero), q1)

VATTR VINL void VFN(vec_inv_core)(const fg_table *t, uint64_t *a, const int wide)
{
	const size_t n = (size_t)1 << t->logN;
	const VT zero = v_set1(0), mask = v_set1(M52), negq = v_set1(0 - t->q);
	const VT q1 = v_set1(t->q), q2 = v_set1(2 * t->q);
	const VT ni = v_set1(t->ninv), nip = v_set1(t->ninvp);
	/* h = 1, 2, 4, 8: each stage pairs words of one block of 16, so the
	 * four run block by block in registers (the forward transform's block
	 * pass, reversed). */
	VT ix[3], iy[3], o0[3], o1[3];
	for (int k = 0; k < 3; k++) {
		VFN(lanemaps)(k, &ix[k], &iy[k], &o0[k], &o1[k]);
	}
	const size_t g8 = n / 16; /* the h = 8 stage's groups */
	for (size_t b = 0; b < n / 16; b++) {
		VT lo = v_load(a + 16 * b), hi = v_load(a + 16 * b + 8);
		for (int k = 2; k >= 0; k--) {
			VT X = v_perm2(lo, ix[k], hi), Y = v_perm2(lo, iy[k], hi);
			VT w = v_load(t->lB[k] + 8 * b), wp = v_load(t->lpB[k] + 8 * b);
			INV_BFLY(X, Y, w, wp);
			lo = v_perm2(X, o0[k], Y);
			hi = v_perm2(X, o1[k], Y);
		}
		{
			const VT w = v_set1(t->wB[g8 + b]), wp = v_set1(t->wpB[g8 + b]);
			INV_BFLY(lo, hi, w, wp);
		}
		if (n == 16) { /* h = 8 was the last stage */
			INV_FINAL(lo);
			INV_FINAL(hi);
		}
		v_store(a + 16 * b, lo);
		v_store(a + 16 * b + 8, hi);
	}
	/* h ≥ 16: whole vectors, two stages (h, 2h) per pass while 2h < n
	 * (radix 4, the same butterflies on the same operands, in the same
	 * order per coefficient, as radix 2). */
	size_t h = 16;
	for (; 2 * h < n; h <<= 2) {
		const size_t groups = n / (4 * h); /* of the stage 2h */
		for (size_t i = 0; i < groups; i++) {
			const VT w0 = v_set1(t->wB[2 * groups + 2 * i]), wp0 = v_set1(t->wpB[2 * groups + 2 * i]);
			const VT w1 = v_set1(t->wB[2 * groups + 2 * i + 1]), wp1 = v_set1(t->wpB[2 * groups + 2 * i + 1]);
			const VT w = v_set1(t->wB[groups + i]), wp = v_set1(t->wpB[groups + i]);
			uint64_t *x0 = a + 4 * i * h, *x1 = x0 + h, *x2 = x1 + h, *x3 = x2 + h;
			for (size_t j = 0; j < h; j += 8) {
				VT A = v_load(x0 + j), B = v_load(x1 + j), C = v_load(x2 + j), D = v_load(x3 + j);
				INV_BFLY(A, B, w0, wp0);
				INV_BFLY(C, D, w1, wp1);
				INV_BFLY(A, C, w, wp);
				INV_BFLY(B, D, w, wp);
				if (4 * h == n) { /* 2h was the last stage */
					INV_FINAL(A);
					INV_FINAL(B);
					INV_FINAL(C);
					INV_FINAL(D);
				}
				v_store(x0 + j, A);
				v_store(x1 + j, B);
				v_store(x2 + j, C);
				v_store(x3 + j, D);
			}
		}
	}
	for (; h < n; h <<= 1) {
		const size_t groups = n / (2 * h);
		for (size_t i = 0; i < groups; i++) {
			const VT w = v_set1(t->wB[groups + i]), wp = v_set1(t->wpB[groups + i]);
			uint64_t *x = a + 2 * i * h, *y = x + h;
			for (size_t j = 0; j < h; j += 8) {
				VT X = v_load(x + j), Y = v_load(y + j);
				INV_BFLY(X, Y, w, wp);
				if (2 * h == n) { /* the last stage */
					INV_FINAL(X);
					INV_FINAL(Y);
				}
				v_store(x + j, X);
				v_store(y + j, Y);
			}
		}
	}
}

VATTR void VFN(fg_vec_fwd)(const fg_table *t, uint64_t *a)
{
	if (t->q >= (1ULL << 50)) {
		VFN(vec_fwd_core)(t, a, 1);
	} else {
		VFN(vec_fwd_core)(t, a, 0);
	}
}

VATTR void VFN(fg_vec_inv)(const fg_table *t, uint64_t *a)
{
	if (t->q >= (1ULL << 50)) {
		VFN(vec_inv_core)(t, a, 1);
	} else {
		VFN(vec_inv_core)(t, a, 0);
	}
}

/* The largest of a[0..n) (n a multiple of 8): it decides the load mode. */
VATTR uint64_t VFN(fg_vec_max)(const uint64_t *a, size_t n)
{
	VT m0 = v_set1(0), m1 = m0;
	size_t j = 0;
	for (; j + 16 <= n; j += 16) {
		m0 = v_max(m0, v_load(a + j));
		m1 = v_max(m1, v_load(a + j + 8));
	}
	for (; j < n; j += 8) {
		m0 = v_max(m0, v_load(a + j));
	}
	uint64_t b[8], mx = 0;
	v_store(b, v_max(m0, m1));
	for (int i = 0; i < 8; i++) {
		mx = b[i] > mx ? b[i] : mx;
	}
	return mx;
}

/*
 * Reduce on load (see doc.go, "Lazy inputs"): dst[j] = src[j] mod q for
 * j < 2^logN. mode FG_LOAD_2Q: every word < 2q, one conditional
 * subtraction. mode FG_LOAD_52: every word < 2^52, Shoup's product by w = 1
 * (w' = ⌊2^52/q⌋: r = y − ⌊y·w'/2^52⌋·q ∈ [0, 2q)), then one conditional
 * subtraction. dst may equal src.
 */
VATTR void VFN(fg_vec_load)(const fg_table *t, const uint64_t *src, uint64_t *dst, int mode)
{
	const size_t n = (size_t)1 << t->logN;
	const VT zero = v_set1(0), mask = v_set1(M52), negq = v_set1(0 - t->q), q1 = v_set1(t->q);
	if (mode == FG_LOAD_2Q) {
		for (size_t j = 0; j < n; j += 8) {
			v_store(dst + j, VFN(red)(v_load(src + j), q1));
		}
		return;
	}
	const VT one = v_set1(1), onep = v_set1(t->onep);
	for (size_t j = 0; j < n; j += 8) {
		VT r = VFN(shoup)(v_load(src + j), one, onep, negq, mask, zero);
		v_store(dst + j, VFN(red)(r, q1));
	}
}

/*
 * Key switching (fhe/engine's gadget product), one modulus q < 2^51.
 *
 * mont52: Montgomery's product with R = 2^52 in IFMA limbs. For a < q and
 * b < 2q, T = a·b < 2q² < q·2^52; lo = T mod 2^52, hi = ⌊T/2^52⌋,
 * m = lo·q^{-1} mod 2^52 and t = ⌊m·q/2^52⌋. m·q ≡ lo (mod 2^52), so
 * T − m·q = (hi − t)·2^52 exactly, and hi − t ∈ (−q, q): the result
 * hi + q − t ∈ (0, 2q) is ≡ a·b·2^{-52} (mod q).
 */
VATTR static inline VT VFN(mont52)(VT a, VT b, VT q1, VT qinv, VT zero)
{
	VT lo = v_madd52lo(zero, a, b);
	VT hi = v_madd52hi(zero, a, b);
	VT m = v_madd52lo(zero, lo, qinv);
	VT t = v_madd52hi(zero, m, q1);
	return v_sub(v_add(hi, q1), t);
}

/* max(acc, x − min(x, lim)): nonzero iff some lane of x exceeded lim. */
#define FG_OVER(acc, x, lim) v_max((acc), v_sub((x), v_min((x), (lim))))

/*
 * The gadget product's multiply-accumulate (Lattigo's
 * MulCoeffsMontgomeryLazy(ThenAddLazy) over the digits, then Reduce):
 * out0[j] = Σ_i k0[i][j]·d[i][j]·2^{-64} mod q and out1 likewise with k1,
 * reduced into [0, q), for j < n (a multiple of 8). Each term is a mont52
 * product in (0, 2q); the sums stay in [0, 2q) by one conditional
 * subtraction per digit; the last step multiplies by corr = 2^{-12} mod q
 * (Shoup, corrp = ⌊corr·2^52/q⌋), turning 2^{-52} into Lattigo's 2^{-64},
 * and reduces into [0, q). The result is the canonical residue, which is
 * what Lattigo's lazy schedule ends in too, so the bytes agree. Returns 1
 * iff every k < q and every d < 2q (else the outputs are unspecified and the
 * caller recomputes them).
 */
VATTR int VFN(fg_vec_gadget_mac)(uint64_t *out0, uint64_t *out1, const uint64_t *const *k0,
				 const uint64_t *const *k1, const uint64_t *const *d, size_t digits, size_t n,
				 uint64_t q, uint64_t qinv52, uint64_t corr, uint64_t corrp)
{
	const VT zero = v_set1(0), mask = v_set1(M52), negq = v_set1(0 - q), q1 = v_set1(q), q2 = v_set1(2 * q);
	const VT qinv = v_set1(qinv52), qm1 = v_set1(q - 1), q2m1 = v_set1(2 * q - 1);
	const VT cw = v_set1(corr), cwp = v_set1(corrp);
	VT bad = zero;
	for (size_t j = 0; j < n; j += 8) {
		VT s0 = zero, s1 = zero;
		for (size_t i = 0; i < digits; i++) {
			VT b = v_load(d[i] + j), x = v_load(k0[i] + j), y = v_load(k1[i] + j);
			bad = FG_OVER(bad, b, q2m1);
			bad = FG_OVER(bad, x, qm1);
			bad = FG_OVER(bad, y, qm1);
			s0 = VFN(red)(v_add(s0, VFN(mont52)(x, b, q1, qinv, zero)), q2);
			s1 = VFN(red)(v_add(s1, VFN(mont52)(y, b, q1, qinv, zero)), q2);
		}
		v_store(out0 + j, VFN(red)(VFN(shoup)(s0, cw, cwp, negq, mask, zero), q1));
		v_store(out1 + j, VFN(red)(VFN(shoup)(s1, cw, cwp, negq, mask, zero), q1));
	}
	return !v_any(bad);
}

/*
 * Fast exact basis extension (Lattigo's ModUpExact with its centring, as
 * the key switch's decomposition and ModDown run it), for n words (a
 * multiple of 8), ns ≤ 15 source moduli q_i and nt targets p_t, all < 2^51:
 *
 *   y_i = (x_i + add_i)·inv_i mod q_i                    (x_i < 2q_i)
 *   v   = ⌊Σ_i fl(y_i) / fl(q_i)⌋, summed in i order in IEEE double, as
 *         Lattigo does (so v is Lattigo's v bit for bit)
 *   dst_t = Σ_i y_i·qhat_{t,i} + vtab_{t,v} mod p_t in [0, p_t)
 *
 * inv_i and qhat_{t,i} come with Shoup constants (…p). vtab holds 16 words
 * per target (v ≤ ns ≤ 15). Returns 1 iff every x_i < 2q_i.
 */
VATTR int VFN(fg_vec_modup)(uint64_t *const *dst, const uint64_t *const *src, size_t ns, size_t nt, size_t n,
			    const uint64_t *srcq, const uint64_t *srcadd, const uint64_t *srcinv,
			    const uint64_t *srcinvp, const uint64_t *dstq, const uint64_t *qhat,
			    const uint64_t *qhatp, const uint64_t *vtab)
{
	const VT zero = v_set1(0), mask = v_set1(M52), vmax = v_set1(ns);
	VT bad = zero;
	VT y[16];
	for (size_t j = 0; j < n; j += 8) {
		VDT vi = vd_set1(0.0);
		for (size_t i = 0; i < ns; i++) {
			const VT q1 = v_set1(srcq[i]);
			VT x = v_load(src[i] + j);
			bad = FG_OVER(bad, x, v_set1(2 * srcq[i] - 1));
			x = VFN(red)(x, q1);
			x = VFN(red)(v_add(x, v_set1(srcadd[i])), q1);
			x = VFN(shoup)(x, v_set1(srcinv[i]), v_set1(srcinvp[i]), v_set1(0 - srcq[i]), mask, zero);
			y[i] = VFN(red)(x, q1);
			vi = vd_add(vi, vd_div(vd_from_u64(y[i]), vd_set1((double)srcq[i])));
		}
		VT v = v_min(vd_to_u64(vi), vmax);
		for (size_t t = 0; t < nt; t++) {
			const uint64_t p = dstq[t];
			const VT p1 = v_set1(p), p2 = v_set1(2 * p), negp = v_set1(0 - p);
			VT acc = zero;
			for (size_t i = 0; i < ns; i++) {
				VT r = VFN(shoup)(y[i], v_set1(qhat[t * ns + i]), v_set1(qhatp[t * ns + i]), negp, mask, zero);
				acc = VFN(red)(v_add(acc, r), p2);
			}
			VT tv = v_perm2(v_load(vtab + 16 * t), v, v_load(vtab + 16 * t + 8));
			acc = VFN(red)(VFN(red)(v_add(acc, tv), p2), p1);
			v_store(dst[t] + j, acc);
		}
	}
	return !v_any(bad);
}

/*
 * The last step of ModDown and of the rescale, one limb: out = (x − y)·w mod
 * q in [0, q) for n words (a multiple of 8), q < 2^51, w < q with its Shoup
 * constant wp. x, y < 2q are reduced into [0, q), x + q − y ∈ (0, 2q) is a
 * Shoup operand, and the product is reduced once more. With check set it
 * only reports whether every x, y < 2q (out may alias y, so the caller
 * checks every job before writing any); else it computes, returning 1.
 */
VATTR int VFN(fg_vec_scalediff)(uint64_t *out, const uint64_t *x, const uint64_t *y, size_t n, uint64_t q,
				uint64_t w, uint64_t wp, int check)
{
	const VT zero = v_set1(0), mask = v_set1(M52), negq = v_set1(0 - q), q1 = v_set1(q);
	const VT q2m1 = v_set1(2 * q - 1), vw = v_set1(w), vwp = v_set1(wp);
	VT bad = zero;
	if (check) {
		for (size_t j = 0; j < n; j += 8) {
			bad = FG_OVER(bad, v_load(x + j), q2m1);
			bad = FG_OVER(bad, v_load(y + j), q2m1);
		}
		return !v_any(bad);
	}
	for (size_t j = 0; j < n; j += 8) {
		VT a = VFN(red)(v_load(x + j), q1), c = VFN(red)(v_load(y + j), q1);
		VT r = VFN(shoup)(v_sub(v_add(a, q1), c), vw, vwp, negq, mask, zero);
		v_store(out + j, VFN(red)(r, q1));
	}
	return 1;
}

/*
 * BGV's tensor product (fhe/engine.TensorJob), one modulus q < 2^51, n a
 * multiple of 8: out0 = t·a0·b0, out1 = t·(a0·b1 + a1·b0), out2 = t·a1·b1
 * mod q, in [0, q). As Lattigo does, the first operand is scaled first:
 * a' = w·a mod q with w = t·2^52 mod q (Shoup, wp = ⌊w·2^52/q⌋, reduced
 * into [0, q)); then mont52(a', b) = t·a·b mod q in (0, 2q) (a' < q, b < q
 * ≤ 2q: mont52's bounds), and the cross sum of two such products, in
 * (0, 4q), is reduced twice. Every word is the canonical residue, which is
 * also what Lattigo's MulRNSScalarMontgomery / MulCoeffsMontgomery(ThenAdd)
 * leave (see engine.TensorJob), so the bytes agree. An output may alias an
 * input at the same index: each 8-word block is loaded and checked (every
 * input < q) before it is stored. Returns the number of words written: n,
 * or the start of the first block holding a word ≥ q (the caller finishes
 * from there with Lattigo's arithmetic).
 */
VATTR size_t VFN(fg_vec_tensor)(uint64_t *out0, uint64_t *out1, uint64_t *out2, const uint64_t *a0,
				const uint64_t *a1, const uint64_t *b0, const uint64_t *b1, size_t n, uint64_t q,
				uint64_t qinv52, uint64_t w, uint64_t wp)
{
	const VT zero = v_set1(0), mask = v_set1(M52), negq = v_set1(0 - q), q1 = v_set1(q), q2 = v_set1(2 * q);
	const VT qinv = v_set1(qinv52), qm1 = v_set1(q - 1), vw = v_set1(w), vwp = v_set1(wp);
	for (size_t j = 0; j < n; j += 8) {
		VT x0 = v_load(a0 + j), x1 = v_load(a1 + j), y0 = v_load(b0 + j), y1 = v_load(b1 + j);
		VT over = FG_OVER(FG_OVER(FG_OVER(FG_OVER(zero, x0, qm1), x1, qm1), y0, qm1), y1, qm1);
		if (v_any(over)) {
			return j;
		}
		x0 = VFN(red)(VFN(shoup)(x0, vw, vwp, negq, mask, zero), q1);
		x1 = VFN(red)(VFN(shoup)(x1, vw, vwp, negq, mask, zero), q1);
		VT c0 = VFN(mont52)(x0, y0, q1, qinv, zero);
		VT c2 = VFN(mont52)(x1, y1, q1, qinv, zero);
		VT c1 = v_add(VFN(mont52)(x0, y1, q1, qinv, zero), VFN(mont52)(x1, y0, q1, qinv, zero));
		v_store(out0 + j, VFN(red)(c0, q1));
		v_store(out1 + j, VFN(red)(VFN(red)(c1, q2), q1));
		v_store(out2 + j, VFN(red)(c2, q1));
	}
	return n;
}

/*
 * BGV's multiply-add by an integer (fhe/engine.MulAddJob), one modulus
 * q < 2^51, n a multiple of 8: out = out + w·a mod q in [0, q), w < q plain
 * (Shoup, wp = ⌊w·2^52/q⌋). The canonical residue, as Lattigo's
 * CRed(out + MRed(a, w·2^64)) for out < q. out may alias a. Returns the
 * number of words written: n, or the start of the first 8-word block with
 * a word ≥ q in a or out (nothing of that block is stored).
 */
VATTR size_t VFN(fg_vec_muladd)(uint64_t *out, const uint64_t *a, size_t n, uint64_t q, uint64_t w, uint64_t wp)
{
	const VT zero = v_set1(0), mask = v_set1(M52), negq = v_set1(0 - q), q1 = v_set1(q);
	const VT qm1 = v_set1(q - 1), vw = v_set1(w), vwp = v_set1(wp);
	for (size_t j = 0; j < n; j += 8) {
		VT x = v_load(a + j), o = v_load(out + j);
		if (v_any(FG_OVER(FG_OVER(zero, x, qm1), o, qm1))) {
			return j;
		}
		VT r = VFN(red)(VFN(shoup)(x, vw, vwp, negq, mask, zero), q1);
		v_store(out + j, VFN(red)(v_add(o, r), q1));
	}
	return n;
}

/*
 * A linear combination into one limb (fhe/engine.LinCombJob, the
 * polynomial evaluator's baby step): out = out + Σ_k w_k·a_k mod q in
 * [0, q), q < 2^51, n a multiple of 8, each w_k < q with its Shoup
 * constant wp_k. Each term is a Shoup product reduced into [0, q), added
 * and reduced again, so every partial sum is the canonical residue, as
 * Lattigo's term-by-term multiply-adds leave it; out is read and written
 * once. Returns the number of words written: n, or the start of the first
 * 8-word block holding a word ≥ q in out or some a_k (nothing of that
 * block is stored).
 */
VATTR size_t VFN(fg_vec_lincomb)(uint64_t *out, const uint64_t *const *a, const uint64_t *w, const uint64_t *wp,
				 size_t terms, size_t n, uint64_t q)
{
	const VT zero = v_set1(0), mask = v_set1(M52), negq = v_set1(0 - q), q1 = v_set1(q), qm1 = v_set1(q - 1);
	for (size_t j = 0; j < n; j += 8) {
		VT acc = v_load(out + j);
		VT bad = FG_OVER(zero, acc, qm1);
		for (size_t k = 0; k < terms; k++) {
			VT x = v_load(a[k] + j);
			bad = FG_OVER(bad, x, qm1);
			VT r = VFN(red)(VFN(shoup)(x, v_set1(w[k]), v_set1(wp[k]), negq, mask, zero), q1);
			acc = VFN(red)(v_add(acc, r), q1);
		}
		if (v_any(bad)) {
			return j;
		}
		v_store(out + j, acc);
	}
	return n;
}

#undef FWD_BFLY
#undef INV_BFLY
#undef INV_FINAL
#undef M52
#undef FG_OVER
#undef VINL
