/*
 * ntt.cl — OpenCL C kernels of fhegate's batched negacyclic NTT.
 * Arithmetic: ntt_arith.h (spliced in by the host at the include line).
 * One launch per butterfly stage over B*N/2 work items (all polynomials of the
 * batch at once), then one launch for the final reduction, all enqueued on one
 * in-order queue with a single wait per batch. The stage schedule (which
 * stages reduce) is chosen by the host, mirroring Lattigo's unrolled NTT.
 */
#define FG_U64 ulong
#define FG_MULHI(a, b) mul_hi((ulong)(a), (ulong)(b))
#define FG_INLINE inline
#define FG_PRIV __private
#include "ntt_arith.h"

__kernel void fg_ntt_fwd_stage(__global ulong *a, __global const ulong *roots, const uint logN, const uint logT,
                               const uint reduce, const ulong q, const ulong mredc, const uint total)
{
	uint gid = (uint)get_global_id(0);
	if (gid >= total) {
		return;
	}
	uint poly = gid >> (logN - 1u);
	uint k = gid & ((1u << (logN - 1u)) - 1u);
	uint x = fg_pair_x(k, logT);
	__global ulong *p = a + ((size_t)poly << logN);
	ulong u = p[x];
	ulong v = p[x + (1u << logT)];
	fg_fwd_butterfly(&u, &v, roots[fg_root_index(k, logN, logT)], q, mredc, reduce);
	p[x] = u;
	p[x + (1u << logT)] = v;
}

__kernel void fg_ntt_inv_stage(__global ulong *a, __global const ulong *roots, const uint logN, const uint logT,
                               const uint reduce, const ulong q, const ulong mredc, const uint total)
{
	uint gid = (uint)get_global_id(0);
	if (gid >= total) {
		return;
	}
	uint poly = gid >> (logN - 1u);
	uint k = gid & ((1u << (logN - 1u)) - 1u);
	uint x = fg_pair_x(k, logT);
	__global ulong *p = a + ((size_t)poly << logN);
	ulong u = p[x];
	ulong v = p[x + (1u << logT)];
	fg_inv_butterfly(&u, &v, roots[fg_root_index(k, logN, logT)], q, mredc);
	p[x] = u;
	p[x + (1u << logT)] = v;
}

/* Forward epilogue: BRedAdd every word into [0, q). */
__kernel void fg_ntt_fwd_final(__global ulong *a, const ulong q, const ulong bred0, const uint total)
{
	uint gid = (uint)get_global_id(0);
	if (gid < total) {
		a[gid] = fg_bred_add(a[gid], q, bred0);
	}
}

/* Inverse epilogue: multiply by N^-1 (Montgomery form) with MRed. */
__kernel void fg_ntt_inv_final(__global ulong *a, const ulong ninv, const ulong q, const ulong mredc, const uint total)
{
	uint gid = (uint)get_global_id(0);
	if (gid < total) {
		a[gid] = fg_mred(a[gid], ninv, q, mredc);
	}
}
