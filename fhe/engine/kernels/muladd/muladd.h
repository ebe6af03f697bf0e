#ifndef FHEGATE_MULADD_H
#define FHEGATE_MULADD_H

#include <stddef.h>
#include <stdint.h>

/* Slot packing's multiply-add, q < 2^51, n a multiple of 8:
 * acc ±= w·c mod q in [0, 2q) (Shoup, wp = floor(w·2^52/q)); returns 1 iff
 * every c[j] < q. c may be unaligned. */
int fg_muladd_ifma(uint64_t *acc, const uint64_t *c, const uint64_t *w, const uint64_t *wp, uint64_t q, size_t n,
		   int sub);
int fg_muladd_emu(uint64_t *acc, const uint64_t *c, const uint64_t *w, const uint64_t *wp, uint64_t q, size_t n,
		  int sub);
/* 1 iff fg_muladd_ifma was compiled with the IFMA intrinsics (x86-64). */
int fg_muladd_ifma_built(void);

#endif
