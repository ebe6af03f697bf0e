/*
 * native.h — C side of fhegate's native NTT backend (gpu/native compiles
 * the files of this directory through cgo).
 *
 * Three implementations of the same batched transform, one polynomial per
 * call:
 *   scalar  Lattigo's exact lazy schedule (../ntt_arith.h, the
 *           arithmetic every fhegate kernel shares), any q < 2^62, any input;
 *   ifma    AVX-512 IFMA (vpmadd52luq/huq) Shoup butterflies in 52-bit limbs,
 *           q < 2^51, inputs reduced on load where Lattigo's schedule is
 *           provably exact (forward: words < 2^52; inverse: words < 2q; see
 *           gpu/native's doc.go for why the bytes are Lattigo's);
 *   emu     the ifma kernel source compiled against a portable C model of the
 *           eight-lane intrinsics, for testing the vector algorithm on hosts
 *           without AVX-512.
 */
#ifndef FHEGATE_NATIVE_H
#define FHEGATE_NATIVE_H

#include <stddef.h>
#include <stdint.h>

enum { FG_PATH_SCALAR = 0, FG_PATH_IFMA = 1, FG_PATH_EMU = 2 };

/* Largest modulus (exclusive) of the vector NTT: 2q must fit in 52 bits
 * (q < 2^50 runs the "narrow" butterflies with values in [0, 4q)). */
#define FG_VEC_QBOUND (1ULL << 51)

/* Reduce-on-load modes of the vector NTT (fg_vec_load). */
enum { FG_LOAD_NONE = 0, FG_LOAD_2Q = 1, FG_LOAD_52 = 2 };

typedef struct fg_table {
	uint32_t logN;
	uint64_t q, mredc, bred0, ninvMont;
	uint64_t *rootsF; /* [N] copy of Lattigo's RootsForward (Montgomery form) */
	uint64_t *rootsB; /* [N] copy of Lattigo's RootsBackward (Montgomery form) */
	/* Vector tables (only when q < FG_VEC_QBOUND), plain form and Shoup
	 * precomputations floor(w * 2^52 / q). */
	int vec;
	uint64_t *wF, *wpF;    /* [N] forward twiddles by Lattigo root index */
	uint64_t *wB, *wpB;    /* [N] inverse twiddles by Lattigo root index */
	uint64_t *lF[3], *lpF[3]; /* [N/2] lane-expanded forward twiddles, t = 4, 2, 1 */
	uint64_t *lB[3], *lpB[3]; /* [N/2] lane-expanded inverse twiddles, t = 4, 2, 1 */
	uint64_t ninv, ninvp;  /* plain N^-1 and its Shoup constant */
	uint64_t onep;         /* floor(2^52 / q): Shoup constant of 1 (reduce on load) */
} fg_table;

fg_table *fg_table_new(uint32_t logN, uint64_t q, uint64_t mredc, uint64_t bred0, uint64_t ninvMont,
		       const uint64_t *rootsF, const uint64_t *rootsB);
void fg_table_free(fg_table *t);

/*
 * One polynomial: dst = NTT(src) (dir 0) or INTT(src) (dir 1); dst may equal
 * src. path selects the vector implementation to try; the scalar schedule
 * runs when path is FG_PATH_SCALAR, q ≥ 2^51, or the largest src word is
 * ≥ 2^52 (forward) or ≥ 2q (inverse). Returns the path that ran.
 */
int fg_ntt(int dir, int path, const fg_table *t, const uint64_t *src, uint64_t *dst);

/* CPU features: bit 0 avx512f, 1 avx512dq, 2 avx512ifma, 3 avx512vl,
 * 4 avx512bw, 5 avx512vbmi, 6 OS saves zmm/opmask state (XCR0). */
unsigned fg_cpu_features(void);
/* 1 iff the ifma kernels were compiled into this binary (x86-64). */
int fg_ifma_built(void);

/* Internal: the vector kernels, in place on a reduced polynomial. */
void fg_vec_fwd_ifma(const fg_table *t, uint64_t *a);
void fg_vec_inv_ifma(const fg_table *t, uint64_t *a);
void fg_vec_fwd_emu(const fg_table *t, uint64_t *a);
void fg_vec_inv_emu(const fg_table *t, uint64_t *a);
uint64_t fg_vec_max_ifma(const uint64_t *a, size_t n);
uint64_t fg_vec_max_emu(const uint64_t *a, size_t n);
void fg_vec_load_ifma(const fg_table *t, const uint64_t *src, uint64_t *dst, int mode);
void fg_vec_load_emu(const fg_table *t, const uint64_t *src, uint64_t *dst, int mode);
/* The load mode for inputs whose largest word is mx, or -1: scalar path. */
int fg_load_mode(int dir, uint64_t mx, uint64_t q);


/* Key switching's gadget multiply-accumulate (vec_kernel.h), one modulus
 * q < 2^51, n a multiple of 8: out{0,1}[j] = Σ_i k{0,1}[i][j]·d[i][j]·2^-64
 * mod q in [0, q); returns 1 iff every k < q and every d < 2q. */
int fg_vec_gadget_mac_ifma(uint64_t *out0, uint64_t *out1, const uint64_t *const *k0, const uint64_t *const *k1,
			   const uint64_t *const *d, size_t digits, size_t n, uint64_t q, uint64_t qinv52,
			   uint64_t corr, uint64_t corrp);
int fg_vec_gadget_mac_emu(uint64_t *out0, uint64_t *out1, const uint64_t *const *k0, const uint64_t *const *k1,
			  const uint64_t *const *d, size_t digits, size_t n, uint64_t q, uint64_t qinv52,
			  uint64_t corr, uint64_t corrp);

/* Fast exact basis extension (vec_kernel.h), ns ≤ 15 sources, moduli
 * < 2^51, n a multiple of 8; returns 1 iff every source word < 2q_i. */
int fg_vec_modup_ifma(uint64_t *const *dst, const uint64_t *const *src, size_t ns, size_t nt, size_t n,
		      const uint64_t *srcq, const uint64_t *srcadd, const uint64_t *srcinv, const uint64_t *srcinvp,
		      const uint64_t *dstq, const uint64_t *qhat, const uint64_t *qhatp, const uint64_t *vtab);
int fg_vec_modup_emu(uint64_t *const *dst, const uint64_t *const *src, size_t ns, size_t nt, size_t n,
		     const uint64_t *srcq, const uint64_t *srcadd, const uint64_t *srcinv, const uint64_t *srcinvp,
		     const uint64_t *dstq, const uint64_t *qhat, const uint64_t *qhatp, const uint64_t *vtab);

/* ModDown's and the rescale's last step (vec_kernel.h): out = (x − y)·w
 * mod q in [0, q), q < 2^51, n a multiple of 8; returns 0, writing nothing,
 * unless every x, y < 2q. */
int fg_vec_scalediff_ifma(uint64_t *out, const uint64_t *x, const uint64_t *y, size_t n, uint64_t q, uint64_t w,
			  uint64_t wp, int check);
int fg_vec_scalediff_emu(uint64_t *out, const uint64_t *x, const uint64_t *y, size_t n, uint64_t q, uint64_t w,
			 uint64_t wp, int check);

/* BGV's tensor product and multiply-add by an integer (vec_kernel.h),
 * q < 2^51, n a multiple of 8: see fhe/engine.TensorJob and MulAddJob.
 * w = t·2^52 mod q (tensor) or the scalar (multiply-add), wp its Shoup
 * constant. Both return the number of words written: n, or the start of the
 * first 8-word block holding an input word ≥ q. */
size_t fg_vec_tensor_ifma(uint64_t *out0, uint64_t *out1, uint64_t *out2, const uint64_t *a0, const uint64_t *a1,
			  const uint64_t *b0, const uint64_t *b1, size_t n, uint64_t q, uint64_t qinv52, uint64_t w,
			  uint64_t wp);
size_t fg_vec_tensor_emu(uint64_t *out0, uint64_t *out1, uint64_t *out2, const uint64_t *a0, const uint64_t *a1,
			 const uint64_t *b0, const uint64_t *b1, size_t n, uint64_t q, uint64_t qinv52, uint64_t w,
			 uint64_t wp);
size_t fg_vec_muladd_ifma(uint64_t *out, const uint64_t *a, size_t n, uint64_t q, uint64_t w, uint64_t wp);
size_t fg_vec_muladd_emu(uint64_t *out, const uint64_t *a, size_t n, uint64_t q, uint64_t w, uint64_t wp);

/* A linear combination into one limb (vec_kernel.h, fhe/engine.LinCombJob):
 * out += Σ_k w_k·a_k mod q in [0, q); same return convention as muladd. */
size_t fg_vec_lincomb_ifma(uint64_t *out, const uint64_t *const *a, const uint64_t *w, const uint64_t *wp, size_t terms,
			   size_t n, uint64_t q);
size_t fg_vec_lincomb_emu(uint64_t *out, const uint64_t *const *a, const uint64_t *w, const uint64_t *wp, size_t terms,
			  size_t n, uint64_t q);

#endif
