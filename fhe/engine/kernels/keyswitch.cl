/*
 * keyswitch.cl — OpenCL C kernels of the key switch's loops other than the
 * NTT (fhe/engine's KeySwitchRouter jobs), for gpu/opencl's
 * gpu.KeySwitchBackend, and of BGV's coefficient-wise products
 * (ProductRouter, LinCombRouter jobs: gpu.LinCombBackend). Arithmetic: ntt_arith.h (spliced in by the host)
 * plus a Shoup product. Every kernel writes the canonical residue in
 * [0, q), so its bytes equal Lattigo's (whose lazy schedules end in a full
 * reduction) and the native backend's Go/C model word for word.
 *
 * Launch shape of all three: a 2-D range, dimension 0 the word x < N,
 * dimension 1 the job. The gadget keys stay resident in a device arena
 * (the host re-uploads a limb whose words changed). Per-job constants and
 * offsets live in a small "meta" buffer of 64-bit words whose word 0 is a flag the host zeroes
 * before the launch; a work item that reads an input outside the kernel's
 * bounds sets it to 1 (every writer stores the same value, so the race is
 * benign) and the host then discards every output.
 *
 * Bounds: moduli odd and < 2^62 (checked by the host); GadgetMulAcc keys
 * < q and digits < 2q; ModUp sources < 2q_i; ScaleDiff inputs < 2q.
 */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#define FG_U64 ulong
#define FG_MULHI(a, b) mul_hi((ulong)(a), (ulong)(b))
#define FG_INLINE inline
#define FG_PRIV __private
#include "ntt_arith.h"

/* The most source moduli of one basis extension (private y_i array). */
#define FG_KS_MAX_SOURCES 32

/*
 * a*w mod q in [0, q) for any a < 2^64, w < q < 2^63, wp = floor(w*2^64/q)
 * (Shoup): a*w - floor(a*wp/2^64)*q lies in [0, 2q).
 */
FG_INLINE ulong fg_shoup(ulong a, ulong w, ulong wp, ulong q)
{
	ulong r = a * w - mul_hi(a, wp) * q;
	return r >= q ? r - q : r;
}

/*
 * Gadget multiply-accumulate (engine.MulAccJob): out0 = sum_i k0_i*d_i*2^-64,
 * out1 likewise with k1, mod q in [0, q). Each product by Lattigo's MRed
 * (k < q and d < 2q keep k*d < q*2^64), the sum reduced after every add.
 * meta per job j at 1 + 5j: q, mredc = q^-1 mod 2^64, digits, the offset of
 * the job's digits in `in` (d[digits][N]), the offset in meta of its key
 * limbs' offsets in the key arena `keys` (k0 of digit i at meta[kOff + i],
 * k1 at meta[kOff + digits + i]); its outputs are out[2jN .. 2jN+N) and
 * out[2jN+N .. 2jN+2N).
 */
__kernel void fg_ks_gadget_mac(__global const ulong *in, __global ulong *out, __global ulong *meta, const ulong n,
                               __global const ulong *keys)
{
	size_t x = get_global_id(0), j = get_global_id(1);
	if (x >= n) {
		return;
	}
	__global const ulong *m = meta + 1 + 5 * j;
	ulong q = m[0], mredc = m[1], digits = m[2];
	__global const ulong *d = in + m[3], *ko = meta + m[4];
	ulong a0 = 0, a1 = 0, bad = 0;
	for (ulong i = 0; i < digits; i++) {
		ulong u = keys[ko[i] + x], v = keys[ko[digits + i] + x], w = d[i * n + x];
		bad |= (ulong)(u >= q) | (ulong)(v >= q) | (ulong)(w >= (q << 1));
		a0 += fg_mred(u, w, q, mredc);
		a0 = a0 >= q ? a0 - q : a0;
		a1 += fg_mred(v, w, q, mredc);
		a1 = a1 >= q ? a1 - q : a1;
	}
	if (bad != 0) {
		meta[0] = 1;
	}
	out[2 * j * n + x] = a0;
	out[2 * j * n + n + x] = a1;
}

/*
 * Fast exact basis extension (engine.ModUpJob and its Reference, word for
 * word): y_i = (x_i + add_i)*inv_i mod q_i; v = floor(sum_i double(y_i) /
 * double(q_i)) summed in i order (IEEE double: OpenCL's double conversion
 * and division round correctly, FP_CONTRACT is off), capped at ns;
 * out_t = vtab[t][v] + sum_i y_i*qhat[t][i] mod p_t.
 * meta per job j at 1 + 4j: ns, nt, the offset of the job's sources in `in`
 * (ns limbs of N words), the offset of its constants in meta: srcQ[ns],
 * add[ns], inv[ns], invP[ns], then per target t: p, qhat[ns], qhatP[ns],
 * vtab[ns+1]. Target limb t of job j lands at out[(j*nt_max + t)*N]
 * (nt_max: the largest target count of the call).
 */
__kernel void fg_ks_modup(__global const ulong *in, __global ulong *out, __global ulong *meta, const ulong n,
                          const ulong nt_max)
{
	size_t x = get_global_id(0), j = get_global_id(1);
	if (x >= n) {
		return;
	}
	__global const ulong *m = meta + 1 + 4 * j;
	ulong ns = m[0], nt = m[1];
	__global const ulong *src = in + m[2];
	__global const ulong *c = meta + m[3];
	__global const ulong *srcQ = c, *add = c + ns, *inv = c + 2 * ns, *invP = c + 3 * ns;
	ulong y[FG_KS_MAX_SOURCES];
	double vi = 0.0;
	ulong bad = 0;
	for (ulong i = 0; i < ns; i++) {
		ulong q = srcQ[i], a = src[i * n + x];
		bad |= (ulong)(a >= (q << 1));
		a = a >= q ? a - q : a;
		a = a >= q ? a - q : a; /* a out of bounds: any value, discarded */
		a += add[i];
		a = a >= q ? a - q : a;
		y[i] = fg_shoup(a, inv[i], invP[i], q);
		vi += (double)y[i] / (double)q;
	}
	if (bad != 0) {
		meta[0] = 1;
	}
	ulong v = (ulong)vi;
	v = v > ns ? ns : v;
	__global const ulong *tc = c + 4 * ns;
	for (ulong t = 0; t < nt; t++, tc += 3 * ns + 2) {
		ulong p = tc[0];
		__global const ulong *qhat = tc + 1, *qhatP = tc + 1 + ns, *vtab = tc + 1 + 2 * ns;
		ulong s = vtab[v];
		for (ulong i = 0; i < ns; i++) {
			s += fg_shoup(y[i], qhat[i], qhatP[i], p);
			s = s >= p ? s - p : s;
		}
		out[(j * nt_max + t) * n + x] = s;
	}
}

/*
 * ModDown's and the rescale's last step (engine.ScaleDiffJob):
 * out = (x - y)*w mod q in [0, q), x, y < 2q, w < q plain with its Shoup
 * constant wp. meta per job j at 1 + 4j: q, w, wp, the offset of the job's
 * x (N words, then y) in `in`; its output is out[jN .. jN+N).
 */
__kernel void fg_ks_scalediff(__global const ulong *in, __global ulong *out, __global ulong *meta, const ulong n)
{
	size_t x = get_global_id(0), j = get_global_id(1);
	if (x >= n) {
		return;
	}
	__global const ulong *m = meta + 1 + 4 * j;
	ulong q = m[0], w = m[1], wp = m[2];
	ulong a = in[m[3] + x], b = in[m[3] + n + x];
	if (a >= (q << 1) || b >= (q << 1)) {
		meta[0] = 1;
	}
	a = a >= q ? a - q : a;
	b = b >= q ? b - q : b;
	ulong d = a >= b ? a - b : a + q - b;
	out[j * n + x] = fg_shoup(d, w, wp, q);
}

/*
 * BGV's products outside the key switch (engine.LinCombJob, MulAddJob as a
 * one-term combination, TensorJob): each word runs Lattigo's own per-word
 * sequence (MRed, CRed, the jobs' Finish), so the bytes equal Lattigo's for
 * every input word, and no input is out of bounds (no flag).
 *
 * Linear combination: o = out; for each term k, o = CRed(o + MRed(a_k, wm_k))
 * with wm_k = w_k*2^64 mod q. meta per job j at 1 + 5j: q, mredc, terms,
 * the offset of the job's words in `in` (out's N words, then each term's
 * N), the offset in meta of wm_0 … wm_{terms-1}. Its output is
 * out[jN .. jN+N).
 */
__kernel void fg_pr_lincomb(__global const ulong *in, __global ulong *out, __global ulong *meta, const ulong n)
{
	size_t x = get_global_id(0), j = get_global_id(1);
	if (x >= n) {
		return;
	}
	__global const ulong *m = meta + 1 + 5 * j;
	ulong q = m[0], mredc = m[1], terms = m[2];
	__global const ulong *src = in + m[3], *wm = meta + m[4];
	ulong o = src[x];
	for (ulong k = 0; k < terms; k++) {
		o += fg_mred(src[(k + 1) * n + x], wm[k], q, mredc);
		o = o >= q ? o - q : o;
	}
	out[j * n + x] = o;
}

/*
 * Tensor (engine.TensorJob.Finish): c00 = MRed(a0, tMont), c01 = MRed(a1,
 * tMont); out0 = MRed(c00, b0), out2 = MRed(c01, b1), out1 = CRed(MRed(c00,
 * b1) + MRed(c01, b0)). meta per job j at 1 + 4j: q, mredc, tMont, the
 * offset of a0 in `in` (a0, a1, b0, b1: N words each); its outputs are
 * out[3jN + {0, N, 2N} + x].
 */
__kernel void fg_pr_tensor(__global const ulong *in, __global ulong *out, __global ulong *meta, const ulong n)
{
	size_t x = get_global_id(0), j = get_global_id(1);
	if (x >= n) {
		return;
	}
	__global const ulong *m = meta + 1 + 4 * j;
	ulong q = m[0], mredc = m[1], tm = m[2];
	__global const ulong *s = in + m[3];
	ulong c00 = fg_mred(s[x], tm, q, mredc), c01 = fg_mred(s[n + x], tm, q, mredc);
	ulong b0 = s[2 * n + x], b1 = s[3 * n + x];
	ulong o1 = fg_mred(c00, b1, q, mredc) + fg_mred(c01, b0, q, mredc);
	out[3 * j * n + x] = fg_mred(c00, b0, q, mredc);
	out[3 * j * n + n + x] = o1 >= q ? o1 - q : o1;
	out[3 * j * n + 2 * n + x] = fg_mred(c01, b1, q, mredc);
}
