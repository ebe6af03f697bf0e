/*
 * muladd.c — slot packing's multiply-add (fhe.SlotPacker): acc[j] += r_j,
 * or acc[j] −= r_j when sub, with r_j = w[j]·c[j] − ⌊c[j]·wp[j]/2^52⌋·q ∈
 * [0, 2q) (Shoup in 52-bit limbs, wp[j] = ⌊w[j]·2^52/q⌋, q < 2^51), for
 * j < n (n a multiple of 8; c may be unaligned). r_j is a function of
 * (c[j], w[j], wp[j], q) only, so a sub undoes an add exactly (the sums are
 * 64-bit wrapping). Returns 1 iff every c[j] < q; for c[j] ≥ q r_j is still
 * a well-defined function of the low 52 bits (the caller undoes the call).
 *
 * Two builds of one lane computation: fg_muladd_ifma on AVX-512 IFMA
 * (VPMADD52LUQ/HUQ, eight lanes), fg_muladd_emu on a portable C model of the
 * same instructions (Intel SDM: the low 52 bits of each operand, 104-bit
 * product, low resp. high 52 bits added to the 64-bit accumulator), so the
 * vector algorithm is tested byte for byte on any host.
 */
#include <string.h>

#include "muladd.h"

#define M52 ((1ULL << 52) - 1)

static inline uint64_t madd52(uint64_t a, uint64_t b, uint64_t c, int hi)
{
	unsigned __int128 p = (unsigned __int128)(b & M52) * (c & M52);
	return a + (hi ? (uint64_t)(p >> 52) & M52 : (uint64_t)p & M52);
}

int fg_muladd_emu(uint64_t *acc, const uint64_t *c, const uint64_t *w, const uint64_t *wp, uint64_t q, size_t n,
		  int sub)
{
	int ok = 1;
	for (size_t j = 0; j < n; j++) {
		uint64_t y;
		memcpy(&y, c + j, sizeof y);
		ok &= y < q;
		uint64_t qh = madd52(0, y, wp[j], 1);
		uint64_t r = madd52(madd52(0, w[j], y, 0), qh, 0 - q, 0) & M52;
		acc[j] = sub ? acc[j] - r : acc[j] + r;
	}
	return ok;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

int fg_muladd_ifma_built(void) { return 1; }

__attribute__((target("avx512f,avx512dq,avx512ifma"))) int
fg_muladd_ifma(uint64_t *acc, const uint64_t *c, const uint64_t *w, const uint64_t *wp, uint64_t q, size_t n, int sub)
{
	const __m512i zero = _mm512_setzero_si512(), mask = _mm512_set1_epi64((long long)M52),
		      negq = _mm512_set1_epi64((long long)(0 - q)), qm1 = _mm512_set1_epi64((long long)(q - 1));
	__m512i bad = zero;
	for (size_t j = 0; j < n; j += 8) {
		__m512i y = _mm512_loadu_si512((const void *)(c + j));
		bad = _mm512_max_epu64(bad, _mm512_sub_epi64(y, _mm512_min_epu64(y, qm1))); /* 0 iff y < q */
		__m512i qh = _mm512_madd52hi_epu64(zero, y, _mm512_loadu_si512((const void *)(wp + j)));
		__m512i r = _mm512_madd52lo_epu64(zero, _mm512_loadu_si512((const void *)(w + j)), y);
		r = _mm512_and_si512(_mm512_madd52lo_epu64(r, qh, negq), mask);
		__m512i a = _mm512_loadu_si512((const void *)(acc + j));
		_mm512_storeu_si512((void *)(acc + j), sub ? _mm512_sub_epi64(a, r) : _mm512_add_epi64(a, r));
	}
	return _mm512_test_epi64_mask(bad, bad) == 0;
}

#else
int fg_muladd_ifma_built(void) { return 0; }
int fg_muladd_ifma(uint64_t *acc, const uint64_t *c, const uint64_t *w, const uint64_t *wp, uint64_t q, size_t n,
		   int sub)
{
	(void)acc; (void)c; (void)w; (void)wp; (void)q; (void)n; (void)sub;
	return 0;
}
#endif
