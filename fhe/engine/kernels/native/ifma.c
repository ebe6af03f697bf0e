/*
 * ifma.c — the vector kernels (vec_kernel.h) on AVX-512F + AVX-512 IFMA
 * intrinsics (x86-64 only). The functions carry a target attribute, so the
 * rest of the package builds for any x86-64; they are called only after
 * fg_cpu_features reported avx512f, avx512dq, avx512ifma and OS zmm state.
 */
#include "native.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

int fg_ifma_built(void) { return 1; }

#define VT __m512i
#define VFN(name) name##_ifma
#define VATTR __attribute__((target("avx512f,avx512dq,avx512ifma")))
#define v_load(p) _mm512_loadu_si512((const void *)(p))
#define v_store(p, x) _mm512_storeu_si512((void *)(p), (x))
#define v_set1(x) _mm512_set1_epi64((long long)(x))
#define v_add _mm512_add_epi64
#define v_sub _mm512_sub_epi64
#define v_min _mm512_min_epu64
#define v_max _mm512_max_epu64
#define v_and _mm512_and_si512
#define v_any(x) (_mm512_test_epi64_mask((x), (x)) != 0)
#define v_madd52lo _mm512_madd52lo_epu64
#define v_madd52hi _mm512_madd52hi_epu64
#define v_perm2 _mm512_permutex2var_epi64
#define VDT __m512d
#define vd_set1 _mm512_set1_pd
#define vd_add _mm512_add_pd
#define vd_div _mm512_div_pd
#define vd_from_u64 _mm512_cvtepu64_pd
#define vd_to_u64 _mm512_cvttpd_epu64
#include "vec_kernel.h"

#else
int fg_ifma_built(void) { return 0; }
void fg_vec_fwd_ifma(const fg_table *t, uint64_t *a) { (void)t; (void)a; }
void fg_vec_inv_ifma(const fg_table *t, uint64_t *a) { (void)t; (void)a; }
uint64_t fg_vec_max_ifma(const uint64_t *a, size_t n) { (void)a; (void)n; return ~0ULL; }
void fg_vec_load_ifma(const fg_table *t, const uint64_t *src, uint64_t *dst, int mode)
{
	(void)t; (void)src; (void)dst; (void)mode;
}
int fg_vec_gadget_mac_ifma(uint64_t *out0, uint64_t *out1, const uint64_t *const *k0, const uint64_t *const *k1,
			   const uint64_t *const *d, size_t digits, size_t n, uint64_t q, uint64_t qinv52,
			   uint64_t corr, uint64_t corrp)
{
	(void)out0; (void)out1; (void)k0; (void)k1; (void)d; (void)digits; (void)n; (void)q; (void)qinv52;
	(void)corr; (void)corrp;
	return 0;
}
int fg_vec_modup_ifma(uint64_t *const *dst, const uint64_t *const *src, size_t ns, size_t nt, size_t n,
		      const uint64_t *srcq, const uint64_t *srcadd, const uint64_t *srcinv, const uint64_t *srcinvp,
		      const uint64_t *dstq, const uint64_t *qhat, const uint64_t *qhatp, const uint64_t *vtab)
{
	(void)dst; (void)src; (void)ns; (void)nt; (void)n; (void)srcq; (void)srcadd; (void)srcinv; (void)srcinvp;
	(void)dstq; (void)qhat; (void)qhatp; (void)vtab;
	return 0;
}
int fg_vec_scalediff_ifma(uint64_t *out, const uint64_t *x, const uint64_t *y, size_t n, uint64_t q, uint64_t w,
			  uint64_t wp, int check)
{
	(void)out; (void)x; (void)y; (void)n; (void)q; (void)w; (void)wp; (void)check;
	return 0;
}
size_t fg_vec_tensor_ifma(uint64_t *out0, uint64_t *out1, uint64_t *out2, const uint64_t *a0, const uint64_t *a1,
			  const uint64_t *b0, const uint64_t *b1, size_t n, uint64_t q, uint64_t qinv52, uint64_t w,
			  uint64_t wp)
{
	(void)out0; (void)out1; (void)out2; (void)a0; (void)a1; (void)b0; (void)b1; (void)n; (void)q; (void)qinv52;
	(void)w; (void)wp;
	return 0;
}
size_t fg_vec_muladd_ifma(uint64_t *out, const uint64_t *a, size_t n, uint64_t q, uint64_t w, uint64_t wp)
{
	(void)out; (void)a; (void)n; (void)q; (void)w; (void)wp;
	return 0;
}
size_t fg_vec_lincomb_ifma(uint64_t *out, const uint64_t *const *a, const uint64_t *w, const uint64_t *wp, size_t terms,
			   size_t n, uint64_t q)
{
	(void)out; (void)a; (void)w; (void)wp; (void)terms; (void)n; (void)q;
	return 0;
}
#endif
