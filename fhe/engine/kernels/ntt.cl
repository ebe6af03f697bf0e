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

/*
 * Fused stages in local memory (the WHIR-on-Metal lesson: fewer passes over
 * global memory, fewer launches). A work group of L/2 work items owns one
 * aligned block of L = 2^logL coefficients of one polynomial; every stage with
 * hw-span t < L stays inside such a block, so those stages run back to back
 * in local memory with a barrier between them. The per-stage fold flags come
 * from the host schedule as a bit mask indexed by logT.
 */

/* Forward tail: the stages logT = logL-1 … 0, then the Barrett epilogue. */
__kernel void fg_ntt_fwd_tail(__global ulong *a, __global const ulong *roots, __local ulong *sh, const uint logN,
                              const uint logL, const uint reduceMask, const ulong q, const ulong mredc, const ulong bred0)
{
	uint lid = (uint)get_local_id(0);
	uint grp = (uint)get_group_id(0);
	uint hw = 1u << (logL - 1u);
	uint blk = grp & ((1u << (logN - logL)) - 1u);
	__global ulong *p = a + ((size_t)(grp >> (logN - logL)) << logN) + ((size_t)blk << logL);
	sh[lid] = p[lid];
	sh[lid + hw] = p[lid + hw];
	barrier(CLK_LOCAL_MEM_FENCE);
	uint k = (blk << (logL - 1u)) + lid;
	for (int lt = (int)logL - 1; lt >= 0; lt--) {
		uint logT = (uint)lt;
		uint x = fg_pair_x(k, logT) - (blk << logL);
		ulong u = sh[x];
		ulong v = sh[x + (1u << logT)];
		fg_fwd_butterfly(&u, &v, roots[fg_root_index(k, logN, logT)], q, mredc, (reduceMask >> logT) & 1u);
		sh[x] = u;
		sh[x + (1u << logT)] = v;
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	p[lid] = fg_bred_add(sh[lid], q, bred0);
	p[lid + hw] = fg_bred_add(sh[lid + hw], q, bred0);
}

/* Inverse head: the stages logT = 0 … logL-1; with fin != 0 (N == L) also
 * the N^-1 epilogue. */
__kernel void fg_ntt_inv_head(__global ulong *a, __global const ulong *roots, __local ulong *sh, const uint logN,
                              const uint logL, const ulong q, const ulong mredc, const ulong ninv, const uint fin)
{
	uint lid = (uint)get_local_id(0);
	uint grp = (uint)get_group_id(0);
	uint hw = 1u << (logL - 1u);
	uint blk = grp & ((1u << (logN - logL)) - 1u);
	__global ulong *p = a + ((size_t)(grp >> (logN - logL)) << logN) + ((size_t)blk << logL);
	sh[lid] = p[lid];
	sh[lid + hw] = p[lid + hw];
	barrier(CLK_LOCAL_MEM_FENCE);
	uint k = (blk << (logL - 1u)) + lid;
	for (uint logT = 0u; logT < logL; logT++) {
		uint x = fg_pair_x(k, logT) - (blk << logL);
		ulong u = sh[x];
		ulong v = sh[x + (1u << logT)];
		fg_inv_butterfly(&u, &v, roots[fg_root_index(k, logN, logT)], q, mredc);
		sh[x] = u;
		sh[x + (1u << logT)] = v;
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (fin != 0u) {
		p[lid] = fg_mred(sh[lid], ninv, q, mredc);
		p[lid + hw] = fg_mred(sh[lid + hw], ninv, q, mredc);
	} else {
		p[lid] = sh[lid];
		p[lid + hw] = sh[lid + hw];
	}
}
