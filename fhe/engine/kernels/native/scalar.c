/*
 * scalar.c — tables, the scalar (Lattigo-schedule) transform, the path
 * choice and CPU feature detection of the native backend.
 */
#include <stdlib.h>
#include <string.h>

#include "native.h"

#define FG_U64 uint64_t
#define FG_MULHI(a, b) ((uint64_t)(((unsigned __int128)(a) * (unsigned __int128)(b)) >> 64))
#define FG_INLINE static inline
#define FG_PRIV
#include "ntt_arith.h"

/* floor(w * 2^52 / q) for w < q < 2^51: the Shoup constant of w. */
static uint64_t shoup52(uint64_t w, uint64_t q)
{
	return (uint64_t)(((unsigned __int128)w << 52) / q);
}

static void *xalloc(size_t n)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, n ? n : 64) != 0) {
		return NULL;
	}
	return p;
}

void fg_table_free(fg_table *t)
{
	if (t == NULL) {
		return;
	}
	free(t->rootsF);
	free(t->rootsB);
	free(t->wF);
	free(t->wpF);
	free(t->wB);
	free(t->wpB);
	for (int k = 0; k < 3; k++) {
		free(t->lF[k]);
		free(t->lpF[k]);
		free(t->lB[k]);
		free(t->lpB[k]);
	}
	free(t);
}

/* Lane tables of the stages with t = 4, 2, 1: block b (16 coefficients),
 * lane l owns the pair (X index, X index + t) of group 16b/2t + l/t, whose
 * twiddle is w[N/2t + group]. */
static void lanes(uint32_t logN, const uint64_t *w, const uint64_t *wp, uint64_t *lw[3], uint64_t *lwp[3])
{
	size_t n = (size_t)1 << logN;
	for (int k = 0; k < 3; k++) {
		size_t t = (size_t)4 >> k;
		size_t m = n / (2 * t);
		for (size_t b = 0; b < n / 16; b++) {
			for (size_t l = 0; l < 8; l++) {
				size_t g = 16 * b / (2 * t) + l / t;
				lw[k][8 * b + l] = w[m + g];
				lwp[k][8 * b + l] = wp[m + g];
			}
		}
	}
}

fg_table *fg_table_new(uint32_t logN, uint64_t q, uint64_t mredc, uint64_t bred0, uint64_t ninvMont,
		       const uint64_t *rootsF, const uint64_t *rootsB)
{
	fg_table *t = calloc(1, sizeof(*t));
	if (t == NULL) {
		return NULL;
	}
	t->logN = logN;
	t->q = q;
	t->mredc = mredc;
	t->bred0 = bred0;
	t->ninvMont = ninvMont;
	size_t n = (size_t)1 << logN, sz = n * sizeof(uint64_t);
	t->rootsF = xalloc(sz);
	t->rootsB = xalloc(sz);
	if (t->rootsF == NULL || t->rootsB == NULL) {
		fg_table_free(t);
		return NULL;
	}
	memcpy(t->rootsF, rootsF, sz);
	memcpy(t->rootsB, rootsB, sz);
	if (q >= FG_VEC_QBOUND || logN < 4) {
		return t;
	}
	t->wF = xalloc(sz);
	t->wpF = xalloc(sz);
	t->wB = xalloc(sz);
	t->wpB = xalloc(sz);
	int ok = t->wF && t->wpF && t->wB && t->wpB;
	for (int k = 0; k < 3; k++) {
		t->lF[k] = xalloc(sz / 2);
		t->lpF[k] = xalloc(sz / 2);
		t->lB[k] = xalloc(sz / 2);
		t->lpB[k] = xalloc(sz / 2);
		ok = ok && t->lF[k] && t->lpF[k] && t->lB[k] && t->lpB[k];
	}
	if (!ok) {
		fg_table_free(t);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		/* Montgomery form w·2^64 → plain w: MRed(w·2^64, 1) = w. */
		t->wF[i] = fg_mred(rootsF[i], 1, q, mredc);
		t->wpF[i] = shoup52(t->wF[i], q);
		t->wB[i] = fg_mred(rootsB[i], 1, q, mredc);
		t->wpB[i] = shoup52(t->wB[i], q);
	}
	lanes(logN, t->wF, t->wpF, t->lF, t->lpF);
	lanes(logN, t->wB, t->wpB, t->lB, t->lpB);
	t->ninv = fg_mred(ninvMont, 1, q, mredc);
	t->ninvp = shoup52(t->ninv, q);
	t->onep = shoup52(1, q);
	t->vec = 1;
	return t;
}

/* One forward stage; red is a constant at each call site, so the compiler
 * emits a folding and a non-folding loop. */
static inline __attribute__((always_inline)) void fwd_stage(uint64_t *a, size_t m, size_t h, const uint64_t *roots,
							    uint64_t q, uint64_t mc, unsigned red)
{
	for (size_t i = 0; i < m; i++) {
		uint64_t psi = roots[m + i];
		uint64_t *x = a + 2 * i * h, *y = x + h;
		for (size_t j = 0; j < h; j++) {
			fg_fwd_butterfly(&x[j], &y[j], psi, q, mc, red);
		}
	}
}

/* Lattigo's forward schedule (kernels.ForwardStages): stage s has m = 2^s
 * groups of half-span t = N/2m; it folds iff s > 0 and (t == 1 or s even). */
static void scalar_fwd(const fg_table *t, uint64_t *a)
{
	const uint32_t logN = t->logN;
	const size_t n = (size_t)1 << logN;
	const uint64_t q = t->q, mc = t->mredc;
	for (uint32_t s = 0; s < logN; s++) {
		size_t m = (size_t)1 << s, h = n / (2 * m);
		if (s > 0 && (h == 1 || s % 2 == 0)) {
			fwd_stage(a, m, h, t->rootsF, q, mc, 1u);
		} else {
			fwd_stage(a, m, h, t->rootsF, q, mc, 0u);
		}
	}
	for (size_t j = 0; j < n; j++) {
		a[j] = fg_bred_add(a[j], q, t->bred0);
	}
}

/* Lattigo's inverse schedule: t = 1, 2, …, N/2, h = N/2t groups, every stage
 * the same invbutterfly, then MRed by N^-1 (Montgomery form). */
static void scalar_inv(const fg_table *t, uint64_t *a)
{
	const uint32_t logN = t->logN;
	const size_t n = (size_t)1 << logN;
	const uint64_t q = t->q, mc = t->mredc;
	for (size_t h = 1; h < n; h <<= 1) {
		size_t groups = n / (2 * h);
		for (size_t i = 0; i < groups; i++) {
			uint64_t psi = t->rootsB[groups + i];
			uint64_t *x = a + 2 * i * h, *y = x + h;
			for (size_t j = 0; j < h; j++) {
				fg_inv_butterfly(&x[j], &y[j], psi, q, mc);
			}
		}
	}
	for (size_t j = 0; j < n; j++) {
		a[j] = fg_mred(a[j], t->ninvMont, q, mc);
	}
}

/* Reduce on load (doc.go, "Lazy inputs"): Lattigo's forward schedule is the
 * exact transform of (a mod q) for every word below 2^63 when q < 2^51, the
 * vector kernels reduce words below 2^52; its inverse schedule is exact for
 * words below 2q. */
int fg_load_mode(int dir, uint64_t mx, uint64_t q)
{
	if (mx < q) {
		return FG_LOAD_NONE;
	}
	if (mx - q < q) {
		return FG_LOAD_2Q;
	}
	if (dir == 0 && mx < (1ULL << 52)) {
		return FG_LOAD_52;
	}
	return -1;
}

int fg_ntt(int dir, int path, const fg_table *t, const uint64_t *src, uint64_t *dst)
{
	const size_t n = (size_t)1 << t->logN;
	if (path == FG_PATH_IFMA && !fg_ifma_built()) {
		path = FG_PATH_SCALAR;
	}
	if (path != FG_PATH_SCALAR && t->vec) {
		const int ifma = path == FG_PATH_IFMA;
		const int mode = fg_load_mode(dir, ifma ? fg_vec_max_ifma(src, n) : fg_vec_max_emu(src, n), t->q);
		if (mode >= 0) {
			if (mode != FG_LOAD_NONE) {
				if (ifma) {
					fg_vec_load_ifma(t, src, dst, mode);
				} else {
					fg_vec_load_emu(t, src, dst, mode);
				}
			} else if (dst != src) {
				memcpy(dst, src, n * sizeof(uint64_t));
			}
			if (ifma) {
				if (dir == 0) {
					fg_vec_fwd_ifma(t, dst);
				} else {
					fg_vec_inv_ifma(t, dst);
				}
			} else {
				if (dir == 0) {
					fg_vec_fwd_emu(t, dst);
				} else {
					fg_vec_inv_emu(t, dst);
				}
			}
			return path;
		}
	}
	if (dst != src) {
		memcpy(dst, src, n * sizeof(uint64_t));
	}
	if (dir == 0) {
		scalar_fwd(t, dst);
	} else {
		scalar_inv(t, dst);
	}
	return FG_PATH_SCALAR;
}

#if defined(__x86_64__)
#include <cpuid.h>

unsigned fg_cpu_features(void)
{
	unsigned a, b, c, d, f = 0;
	if (!__get_cpuid(1, &a, &b, &c, &d)) {
		return 0;
	}
	if (c & (1u << 27)) { /* OSXSAVE: XGETBV is usable */
		uint32_t lo, hi;
		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		/* XCR0: SSE (1), AVX (2), opmask (5), ZMM_Hi256 (6), Hi16_ZMM (7). */
		if ((lo & 0xE6u) == 0xE6u) {
			f |= 1u << 6;
		}
	}
	if (__get_cpuid_max(0, NULL) < 7) {
		return f;
	}
	__cpuid_count(7, 0, a, b, c, d);
	f |= ((b >> 16) & 1u) << 0; /* avx512f */
	f |= ((b >> 17) & 1u) << 1; /* avx512dq */
	f |= ((b >> 21) & 1u) << 2; /* avx512ifma */
	f |= ((b >> 31) & 1u) << 3; /* avx512vl */
	f |= ((b >> 30) & 1u) << 4; /* avx512bw */
	f |= ((c >> 1) & 1u) << 5;  /* avx512vbmi */
	return f;
}
#else
unsigned fg_cpu_features(void) { return 0; }
#endif
