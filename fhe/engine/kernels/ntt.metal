/*
 * ntt.metal — Metal Shading Language kernels of fhegate's batched negacyclic
 * NTT. Arithmetic: ntt_arith.h (spliced in by the host at the include line;
 * found through -I by the C++ shim build on Linux). The host encodes one
 * dispatch per butterfly stage plus the epilogue into ONE compute encoder of
 * ONE command buffer per batch (serial dispatch type: each dispatch sees the
 * previous one's writes), and waits once. No threadgroup memory or barriers,
 * so the same source runs as plain C++ under the shim.
 */
#include <metal_stdlib>
using namespace metal;

#define FG_U64 ulong
#define FG_MULHI(a, b) mulhi((ulong)(a), (ulong)(b))
#define FG_INLINE inline
#define FG_PRIV thread
#include "ntt_arith.h"

struct fg_params {
	ulong q;
	ulong mredc;
	ulong bred0;
	ulong ninv;
	uint logN;
	uint logT;
	uint reduce;
	uint total;
};

kernel void fg_ntt_fwd_stage(device ulong *a [[buffer(0)]], device const ulong *roots [[buffer(1)]],
                             constant fg_params &P [[buffer(2)]], uint gid [[thread_position_in_grid]])
{
	if (gid >= P.total) {
		return;
	}
	uint poly = gid >> (P.logN - 1u);
	uint k = gid & ((1u << (P.logN - 1u)) - 1u);
	uint x = fg_pair_x(k, P.logT);
	device ulong *p = a + ((ulong)poly << P.logN);
	ulong u = p[x];
	ulong v = p[x + (1u << P.logT)];
	fg_fwd_butterfly(&u, &v, roots[fg_root_index(k, P.logN, P.logT)], P.q, P.mredc, P.reduce);
	p[x] = u;
	p[x + (1u << P.logT)] = v;
}

kernel void fg_ntt_inv_stage(device ulong *a [[buffer(0)]], device const ulong *roots [[buffer(1)]],
                             constant fg_params &P [[buffer(2)]], uint gid [[thread_position_in_grid]])
{
	if (gid >= P.total) {
		return;
	}
	uint poly = gid >> (P.logN - 1u);
	uint k = gid & ((1u << (P.logN - 1u)) - 1u);
	uint x = fg_pair_x(k, P.logT);
	device ulong *p = a + ((ulong)poly << P.logN);
	ulong u = p[x];
	ulong v = p[x + (1u << P.logT)];
	fg_inv_butterfly(&u, &v, roots[fg_root_index(k, P.logN, P.logT)], P.q, P.mredc);
	p[x] = u;
	p[x + (1u << P.logT)] = v;
}

kernel void fg_ntt_fwd_final(device ulong *a [[buffer(0)]], constant fg_params &P [[buffer(2)]],
                             uint gid [[thread_position_in_grid]])
{
	if (gid < P.total) {
		a[gid] = fg_bred_add(a[gid], P.q, P.bred0);
	}
}

kernel void fg_ntt_inv_final(device ulong *a [[buffer(0)]], constant fg_params &P [[buffer(2)]],
                             uint gid [[thread_position_in_grid]])
{
	if (gid < P.total) {
		a[gid] = fg_mred(a[gid], P.ninv, P.q, P.mredc);
	}
}
