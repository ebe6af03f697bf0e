/*
 * emu.c — the vector kernels (vec_kernel.h) on a portable C model of the
 * eight-lane AVX-512 operations they use, following the instruction
 * definitions in Intel's SDM (VPMADD52LUQ/HUQ: the low 52 bits of each
 * operand, 104-bit product, low resp. high 52 bits added to the 64-bit
 * accumulator; VPERMT2Q: index bit 3 selects the second table). It lets the
 * vector algorithm be tested byte for byte on any host; it is not fast.
 */
#include "native.h"

/* GCC 12.2 at -O3 (the package's CFLAGS) miscompiles the emulated forward
 * transform once vec_kernel.h holds the linear-combination kernel too: the
 * eight-lane structs' scalar replacement (-ftree-sra) yields words that
 * differ from the IFMA kernel's and Lattigo's (TestLazyInputs, N = 2^4 and
 * 2^5; valgrind and UBSan report nothing; -O2, -fno-tree-sra or
 * -fno-tree-dce each give the right bytes). This file is the test model,
 * not a fast path, so it is built without that pass. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-sra")
#endif

typedef struct {
	uint64_t l[8];
} emu_v;

#define EMU_OP(name, expr)                                \
	static inline emu_v name(emu_v a, emu_v b)         \
	{                                                  \
		emu_v r;                                   \
		for (int i = 0; i < 8; i++) {              \
			uint64_t x = a.l[i], y = b.l[i];   \
			r.l[i] = (expr);                   \
		}                                          \
		return r;                                  \
	}
EMU_OP(emu_add, x + y)
EMU_OP(emu_sub, x - y)
EMU_OP(emu_min, x < y ? x : y)
EMU_OP(emu_max, x > y ? x : y)
EMU_OP(emu_and, x &y)

static inline emu_v emu_load(const uint64_t *p)
{
	emu_v r;
	for (int i = 0; i < 8; i++) {
		r.l[i] = p[i];
	}
	return r;
}

static inline void emu_store(uint64_t *p, emu_v x)
{
	for (int i = 0; i < 8; i++) {
		p[i] = x.l[i];
	}
}

static inline emu_v emu_set1(uint64_t x)
{
	emu_v r;
	for (int i = 0; i < 8; i++) {
		r.l[i] = x;
	}
	return r;
}

static inline emu_v emu_madd52(emu_v a, emu_v b, emu_v c, int hi)
{
	const uint64_t m = (1ULL << 52) - 1;
	emu_v r;
	for (int i = 0; i < 8; i++) {
		unsigned __int128 p = (unsigned __int128)(b.l[i] & m) * (c.l[i] & m);
		uint64_t part = hi ? (uint64_t)(p >> 52) & m : (uint64_t)p & m;
		r.l[i] = a.l[i] + part;
	}
	return r;
}

static inline emu_v emu_perm2(emu_v a, emu_v idx, emu_v b)
{
	emu_v r;
	for (int i = 0; i < 8; i++) {
		uint64_t k = idx.l[i] & 15;
		r.l[i] = k < 8 ? a.l[k] : b.l[k - 8];
	}
	return r;
}

static inline int emu_any(emu_v a)
{
	uint64_t r = 0;
	for (int i = 0; i < 8; i++) {
		r |= a.l[i];
	}
	return r != 0;
}

typedef struct {
	double l[8];
} emu_vd;

static inline emu_vd emu_vd_set1(double x)
{
	emu_vd r;
	for (int i = 0; i < 8; i++) {
		r.l[i] = x;
	}
	return r;
}

/* volatile: one IEEE double operation per lane, as the vector unit does
 * (no contraction, no excess precision). */
static inline emu_vd emu_vd_add(emu_vd a, emu_vd b)
{
	emu_vd r;
	for (int i = 0; i < 8; i++) {
		volatile double s = a.l[i] + b.l[i];
		r.l[i] = s;
	}
	return r;
}

static inline emu_vd emu_vd_div(emu_vd a, emu_vd b)
{
	emu_vd r;
	for (int i = 0; i < 8; i++) {
		volatile double s = a.l[i] / b.l[i];
		r.l[i] = s;
	}
	return r;
}

static inline emu_vd emu_vd_from_u64(emu_v a)
{
	emu_vd r;
	for (int i = 0; i < 8; i++) {
		r.l[i] = (double)a.l[i];
	}
	return r;
}

/* Truncation toward zero; the kernels convert only values in [0, 16). */
static inline emu_v emu_vd_to_u64(emu_vd a)
{
	emu_v r;
	for (int i = 0; i < 8; i++) {
		r.l[i] = (uint64_t)a.l[i];
	}
	return r;
}

#define VT emu_v
#define VFN(name) name##_emu
#define VATTR
#define v_load emu_load
#define v_store emu_store
#define v_set1 emu_set1
#define v_add emu_add
#define v_sub emu_sub
#define v_min emu_min
#define v_max emu_max
#define v_and emu_and
#define v_any emu_any
#define v_madd52lo(a, b, c) emu_madd52(a, b, c, 0)
#define v_madd52hi(a, b, c) emu_madd52(a, b, c, 1)
#define v_perm2 emu_perm2
#define VDT emu_vd
#define vd_set1 emu_vd_set1
#define vd_add emu_vd_add
#define vd_div emu_vd_div
#define vd_from_u64 emu_vd_from_u64
#define vd_to_u64 emu_vd_to_u64
#include "vec_kernel.h"
