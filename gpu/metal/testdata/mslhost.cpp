// mslhost — runs the MSL kernels of ntt.metal, compiled as C++ through the
// shim, the way the Metal host (metal_darwin.go) dispatches them: every stage
// over B*N/2 thread ids, then the epilogue over B*N ids, in order.
//
// Protocol (stdin → stdout, native little-endian uint64 words), repeated
// until EOF:
//   request:  inverse logN B q mredc bred0 ninv nstages,
//             nstages × (logT reduce), N roots, B*N coefficients
//   response: B*N coefficients
#include "ntt.metal"

#include <cstdio>
#include <vector>

static bool readw(void *p, size_t n) { return fread(p, 8, n, stdin) == n; }

int main() {
	for (;;) {
		uint64_t h[8];
		if (!readw(h, 8)) return 0;
		const uint64_t inverse = h[0], logN = h[1], B = h[2], nst = h[7];
		std::vector<uint64_t> st(2 * nst), roots(1ull << logN), a(B << logN);
		if (!readw(st.data(), st.size()) || !readw(roots.data(), roots.size()) || !readw(a.data(), a.size())) return 1;
		fg_params P = {h[3], h[4], h[5], h[6], (uint)logN, 0, 0, (uint)(a.size() / 2)};
		for (uint64_t s = 0; s < nst; s++) {
			P.logT = (uint)st[2 * s];
			P.reduce = (uint)st[2 * s + 1];
			for (uint gid = 0; gid < P.total; gid++) {
				if (inverse) {
					fg_ntt_inv_stage(a.data(), roots.data(), P, gid);
				} else {
					fg_ntt_fwd_stage(a.data(), roots.data(), P, gid);
				}
			}
		}
		P.total = (uint)a.size();
		for (uint gid = 0; gid < P.total; gid++) {
			if (inverse) {
				fg_ntt_inv_final(a.data(), P, gid);
			} else {
				fg_ntt_fwd_final(a.data(), P, gid);
			}
		}
		if (fwrite(a.data(), 8, a.size(), stdout) != a.size()) return 1;
		fflush(stdout);
	}
}
