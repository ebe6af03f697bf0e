//go:build opencl && cgo

package opencl

/*
#cgo pkg-config: OpenCL
#cgo CFLAGS: -DCL_TARGET_OPENCL_VERSION=120 -O2
#include "clprog.h"

#define FG_MAX_LOGL 11

typedef struct {
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;
	cl_program prog;
	cl_kernel kfs, kis, kff, kif, kft, kih;
	cl_uint max_logl; // largest fused block (log2 coefficients) the device takes
} fg_cl;

static int fg_cl_open(fg_cl *c, int want_plat, int want_dev, const char *src, char *info, size_t infon, char *eb, size_t ebn) {
	cl_platform_id plats[16];
	cl_uint np = 0;
	cl_int rc = clGetPlatformIDs(16, plats, &np);
	if (rc != CL_SUCCESS || np == 0) {
		return fg_err(eb, ebn, "clGetPlatformIDs (no OpenCL platform)", rc);
	}
	cl_device_id chosen = NULL;
	cl_platform_id chosen_p = NULL;
	for (int pass = 0; pass < 2 && chosen == NULL; pass++) {
		for (cl_uint p = 0; p < np && chosen == NULL; p++) {
			if (want_plat >= 0 && (cl_uint)want_plat != p) continue;
			cl_device_id devs[16];
			cl_uint nd = 0;
			cl_device_type ty = (pass == 0 && want_plat < 0) ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL;
			if (clGetDeviceIDs(plats[p], ty, 16, devs, &nd) != CL_SUCCESS) continue;
			for (cl_uint d = 0; d < nd; d++) {
				if (want_dev >= 0 && (cl_uint)want_dev != d) continue;
				chosen = devs[d];
				chosen_p = plats[p];
				break;
			}
		}
	}
	if (chosen == NULL) {
		snprintf(eb, ebn, "no OpenCL device");
		return -2;
	}
	c->dev = chosen;
	char name[256] = {0}, drv[128] = {0}, pname[128] = {0};
	clGetDeviceInfo(chosen, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
	clGetDeviceInfo(chosen, CL_DRIVER_VERSION, sizeof drv - 1, drv, NULL);
	clGetPlatformInfo(chosen_p, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
	snprintf(info, infon, "%s\n%s %s", name, pname, drv);

	c->ctx = clCreateContext(NULL, 1, &chosen, NULL, NULL, &rc);
	if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clCreateContext", rc);
	c->q = clCreateCommandQueue(c->ctx, chosen, 0, &rc);
	if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clCreateCommandQueue", rc);
	static const char *const names[] = {"fg_ntt_fwd_stage", "fg_ntt_inv_stage", "fg_ntt_fwd_final", "fg_ntt_inv_final", "fg_ntt_fwd_tail", "fg_ntt_inv_head"};
	cl_kernel ks[6] = {0};
	rc = fg_cl_program(c->ctx, chosen, src, "NTT", &c->prog, names, ks, 6, eb, ebn);
	c->kfs = ks[0], c->kis = ks[1], c->kff = ks[2], c->kif = ks[3], c->kft = ks[4], c->kih = ks[5];
	if (rc != 0) return rc;
	// Fused block size: L/2 work items per group and L words of local memory.
	size_t wg = 0, wg1 = 0, wg2 = 0;
	cl_ulong lmem = 0;
	clGetDeviceInfo(chosen, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
	clGetKernelWorkGroupInfo(c->kft, chosen, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg1, &wg1, NULL);
	clGetKernelWorkGroupInfo(c->kih, chosen, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg2, &wg2, NULL);
	clGetDeviceInfo(chosen, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
	if (wg1 > 0 && wg1 < wg) wg = wg1;
	if (wg2 > 0 && wg2 < wg) wg = wg2;
	cl_uint l = 0;
	while (l < FG_MAX_LOGL && ((size_t)1 << l) <= wg && ((cl_ulong)16 << l) <= lmem) l++;
	c->max_logl = l; // 2^(l-1) work items, 2^l words; 0 or 1: no fusion
	return 0;
}

static void fg_cl_close(fg_cl *c) {
	if (c->kfs) clReleaseKernel(c->kfs);
	if (c->kis) clReleaseKernel(c->kis);
	if (c->kff) clReleaseKernel(c->kff);
	if (c->kif) clReleaseKernel(c->kif);
	if (c->kft) clReleaseKernel(c->kft);
	if (c->kih) clReleaseKernel(c->kih);
	if (c->prog) clReleaseProgram(c->prog);
	if (c->q) clReleaseCommandQueue(c->q);
	if (c->ctx) clReleaseContext(c->ctx);
	memset(c, 0, sizeof *c);
}

static cl_mem fg_cl_alloc(fg_cl *c, size_t bytes, const void *init, cl_int *rc) {
	cl_mem m = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, bytes, NULL, rc);
	if (*rc != CL_SUCCESS) return NULL;
	if (init != NULL) {
		*rc = clEnqueueWriteBuffer(c->q, m, CL_TRUE, 0, bytes, init, 0, NULL, NULL);
		if (*rc != CL_SUCCESS) {
			clReleaseMemObject(m);
			return NULL;
		}
	}
	return m;
}

static void fg_cl_free(cl_mem m) {
	if (m) clReleaseMemObject(m);
}

static int fg_cl_stages(fg_cl *c, cl_kernel ks, cl_mem data, cl_mem roots, cl_uint logN, const cl_uint *stages,
                        cl_uint nstages, cl_ulong q, cl_ulong mredc, cl_uint half_total, char *eb, size_t ebn) {
	size_t g = half_total;
	for (cl_uint s = 0; s < nstages; s++) {
		cl_uint logT = stages[2 * s], red = stages[2 * s + 1];
		cl_int rc = clSetKernelArg(ks, 0, sizeof(cl_mem), &data);
		rc |= clSetKernelArg(ks, 1, sizeof(cl_mem), &roots);
		rc |= clSetKernelArg(ks, 2, sizeof(cl_uint), &logN);
		rc |= clSetKernelArg(ks, 3, sizeof(cl_uint), &logT);
		rc |= clSetKernelArg(ks, 4, sizeof(cl_uint), &red);
		rc |= clSetKernelArg(ks, 5, sizeof(cl_ulong), &q);
		rc |= clSetKernelArg(ks, 6, sizeof(cl_ulong), &mredc);
		rc |= clSetKernelArg(ks, 7, sizeof(cl_uint), &half_total);
		if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clSetKernelArg stage", rc);
		rc = clEnqueueNDRangeKernel(c->q, ks, 1, NULL, &g, NULL, 0, NULL, NULL);
		if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clEnqueueNDRangeKernel stage", rc);
	}
	return 0;
}

// fg_cl_run transforms B polys in host[0 .. B<<logN) in place: upload, the
// global stages (stages[2*s] = logT, stages[2*s+1] = fold flag), the fused
// local-memory block of 2^logL (logL >= 2; forward: last, with the Barrett
// epilogue; inverse: first), the inverse epilogue if not fused, read-back, one
// wait. logL == 0 means no fusion: every stage is in stages.
static int fg_cl_run(fg_cl *c, int inverse, cl_mem data, cl_mem roots, uint64_t *host, cl_uint logN, cl_uint B,
                     const cl_uint *stages, cl_uint nstages, cl_uint logL, cl_uint reduce_mask, cl_ulong q,
                     cl_ulong mredc, cl_ulong bred0, cl_ulong ninv, char *eb, size_t ebn) {
	size_t words = (size_t)B << logN;
	cl_int rc = clEnqueueWriteBuffer(c->q, data, CL_FALSE, 0, words * 8, host, 0, NULL, NULL);
	if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clEnqueueWriteBuffer", rc);
	cl_uint half_total = (cl_uint)(words / 2);
	size_t gh = half_total, lh = logL > 0 ? ((size_t)1 << (logL - 1)) : 0;
	size_t lbytes = (size_t)8 << logL;
	int r;
	if (inverse && logL > 0) {
		cl_uint fin = (logL == logN);
		rc = clSetKernelArg(c->kih, 0, sizeof(cl_mem), &data);
		rc |= clSetKernelArg(c->kih, 1, sizeof(cl_mem), &roots);
		rc |= clSetKernelArg(c->kih, 2, lbytes, NULL);
		rc |= clSetKernelArg(c->kih, 3, sizeof(cl_uint), &logN);
		rc |= clSetKernelArg(c->kih, 4, sizeof(cl_uint), &logL);
		rc |= clSetKernelArg(c->kih, 5, sizeof(cl_ulong), &q);
		rc |= clSetKernelArg(c->kih, 6, sizeof(cl_ulong), &mredc);
		rc |= clSetKernelArg(c->kih, 7, sizeof(cl_ulong), &ninv);
		rc |= clSetKernelArg(c->kih, 8, sizeof(cl_uint), &fin);
		if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clSetKernelArg inv_head", rc);
		rc = clEnqueueNDRangeKernel(c->q, c->kih, 1, NULL, &gh, &lh, 0, NULL, NULL);
		if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clEnqueueNDRangeKernel inv_head", rc);
	}
	if ((r = fg_cl_stages(c, inverse ? c->kis : c->kfs, data, roots, logN, stages, nstages, q, mredc, half_total, eb, ebn)) != 0) {
		return r;
	}
	if (!inverse && logL > 0) {
		rc = clSetKernelArg(c->kft, 0, sizeof(cl_mem), &data);
		rc |= clSetKernelArg(c->kft, 1, sizeof(cl_mem), &roots);
		rc |= clSetKernelArg(c->kft, 2, lbytes, NULL);
		rc |= clSetKernelArg(c->kft, 3, sizeof(cl_uint), &logN);
		rc |= clSetKernelArg(c->kft, 4, sizeof(cl_uint), &logL);
		rc |= clSetKernelArg(c->kft, 5, sizeof(cl_uint), &reduce_mask);
		rc |= clSetKernelArg(c->kft, 6, sizeof(cl_ulong), &q);
		rc |= clSetKernelArg(c->kft, 7, sizeof(cl_ulong), &mredc);
		rc |= clSetKernelArg(c->kft, 8, sizeof(cl_ulong), &bred0);
		if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clSetKernelArg fwd_tail", rc);
		rc = clEnqueueNDRangeKernel(c->q, c->kft, 1, NULL, &gh, &lh, 0, NULL, NULL);
		if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clEnqueueNDRangeKernel fwd_tail", rc);
	}
	int need_final = logL == 0 || (inverse && logL < logN);
	if (need_final) {
		cl_uint total = (cl_uint)words;
		size_t gf = words;
		if (inverse) {
			rc = clSetKernelArg(c->kif, 0, sizeof(cl_mem), &data);
			rc |= clSetKernelArg(c->kif, 1, sizeof(cl_ulong), &ninv);
			rc |= clSetKernelArg(c->kif, 2, sizeof(cl_ulong), &q);
			rc |= clSetKernelArg(c->kif, 3, sizeof(cl_ulong), &mredc);
			rc |= clSetKernelArg(c->kif, 4, sizeof(cl_uint), &total);
			if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clSetKernelArg inv_final", rc);
			rc = clEnqueueNDRangeKernel(c->q, c->kif, 1, NULL, &gf, NULL, 0, NULL, NULL);
		} else {
			rc = clSetKernelArg(c->kff, 0, sizeof(cl_mem), &data);
			rc |= clSetKernelArg(c->kff, 1, sizeof(cl_ulong), &q);
			rc |= clSetKernelArg(c->kff, 2, sizeof(cl_ulong), &bred0);
			rc |= clSetKernelArg(c->kff, 3, sizeof(cl_uint), &total);
			if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clSetKernelArg fwd_final", rc);
			rc = clEnqueueNDRangeKernel(c->q, c->kff, 1, NULL, &gf, NULL, 0, NULL, NULL);
		}
		if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clEnqueueNDRangeKernel final", rc);
	}
	rc = clEnqueueReadBuffer(c->q, data, CL_TRUE, 0, words * 8, host, 0, NULL, NULL);
	if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clEnqueueReadBuffer", rc);
	return 0;
}
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/fhegate/fhegate/fhe/engine/kernels"
	"github.com/fhegate/fhegate/gpu"
)

// Built reports whether the OpenCL backend is compiled in.
const Built = true

// maxWords bounds one batch (B·N words) so that indices fit the kernels'
// 32-bit work-item ids.
const maxWords = 1 << 31

type roots struct{ fwd, bwd C.cl_mem }

// Backend is the OpenCL gpu.Backend.
type Backend struct {
	// NoFusion disables the local-memory kernels (one launch per stage);
	// set before first use, for tests and comparison.
	NoFusion bool
	// KeyArenaWords is the capacity of the device arena that keeps the key
	// switch's gadget-key limbs resident (0: DefaultKeyArenaWords); set
	// before first use.
	KeyArenaWords int
	// KeySwitch selects the key-switch loops the backend takes (New: all,
	// or FHEGATE_OPENCL_KEYSWITCH); set before first use.
	KeySwitch KeySwitchOps
	// Products makes the backend run BGV's coefficient-wise products
	// (LinComb, MulAdd, Tensor; products.go) instead of declining them
	// (New: FHEGATE_OPENCL_PRODUCTS=1); set before first use.
	Products bool

	mu     sync.Mutex
	c      C.fg_cl
	info   gpu.DeviceInfo
	roots  map[gpu.Key]roots
	data   C.cl_mem
	words  int
	stage  []uint64 // host staging area of a batch (outputs land here before dst)
	ks     keySwitch
	closed bool
}

func cerr(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}

// New opens the first GPU (else the first OpenCL device) and builds the
// kernels. FHEGATE_OPENCL_DEVICE=<platform>:<device> selects another;
// FHEGATE_OPENCL_KEYSWITCH (ParseKeySwitchOps) limits the key-switch loops
// it takes, for comparisons in one run; FHEGATE_OPENCL_PRODUCTS=1 makes it
// run BGV's products too (Backend.Products).
func New() (gpu.Backend, error) {
	plat, dev := -1, -1
	if v := os.Getenv("FHEGATE_OPENCL_DEVICE"); v != "" {
		if _, err := fmt.Sscanf(v, "%d:%d", &plat, &dev); err != nil {
			return nil, fmt.Errorf("opencl: FHEGATE_OPENCL_DEVICE=%q: want <platform>:<device>", v)
		}
	}
	ops, err := ParseKeySwitchOps(os.Getenv("FHEGATE_OPENCL_KEYSWITCH"))
	if err != nil {
		return nil, err
	}
	src := C.CString(kernels.OpenCLSource())
	defer C.free(unsafe.Pointer(src))
	info := make([]byte, 1024)
	eb := make([]byte, 8192)
	products := false
	switch v := os.Getenv("FHEGATE_OPENCL_PRODUCTS"); v {
	case "", "0":
	case "1":
		products = true
	default:
		return nil, fmt.Errorf("opencl: FHEGATE_OPENCL_PRODUCTS=%q: want 0 or 1", v)
	}
	b := &Backend{roots: map[gpu.Key]roots{}, KeySwitch: ops, Products: products}
	rc := C.fg_cl_open(&b.c, C.int(plat), C.int(dev), src, (*C.char)(unsafe.Pointer(&info[0])), C.size_t(len(info)),
		(*C.char)(unsafe.Pointer(&eb[0])), C.size_t(len(eb)))
	if rc != 0 {
		C.fg_cl_close(&b.c)
		if rc == -2 || strings.Contains(cerr(eb), "no OpenCL platform") {
			return nil, fmt.Errorf("%w: opencl: %s", gpu.ErrNoDevice, cerr(eb))
		}
		return nil, fmt.Errorf("opencl: %s", cerr(eb))
	}
	dev0, drv, _ := strings.Cut(cerr(info), "\n")
	b.info = gpu.DeviceInfo{Backend: Name, Device: dev0, Driver: drv, HostCPU: gpu.HostCPU()}
	return b, nil
}

// Name implements gpu.Backend.
func (b *Backend) Name() string { return Name }

// Exclusive implements gpu.Exclusive: the backend runs one call at a time
// on its device's one command queue (b.mu), so the dispatcher sends a call
// only when the device is idle.
func (b *Backend) Exclusive() bool { return true }

// FusedLogL is log2 of the largest coefficient block the device runs in
// local memory (0 or 1: no fusion).
func (b *Backend) FusedLogL() int { return min(int(b.c.max_logl), kernels.MaxFusedLogL) }

// Info implements gpu.Backend.
func (b *Backend) Info() gpu.DeviceInfo { return b.info }

// Close releases the device objects.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	for _, r := range b.roots {
		C.fg_cl_free(r.fwd)
		C.fg_cl_free(r.bwd)
	}
	C.fg_cl_free(b.data)
	b.closeKeySwitch()
	C.fg_cl_close(&b.c)
	return nil
}

// NTT implements gpu.Backend.
func (b *Backend) NTT(dir gpu.Direction, p *gpu.Params, src, dst [][]uint64) error {
	return gpu.NTTAsMulti(b, dir, p, src, dst)
}

// NTTMulti implements gpu.MultiBackend. Under one lock it resolves the
// device-resident twiddles of every modulus, sizes the device buffer once
// for the largest limb (the buffer and the twiddles stay on the device
// across calls, i.e. across the stages of a key switch), runs the limbs one
// launch sequence each (the modulus is a kernel argument) into a host
// staging area, and copies to dst only when every limb succeeded: on error
// neither src nor dst has been modified. The output is always reduced,
// which also serves lazy batches.
func (b *Backend) NTTMulti(batch *gpu.Batch) error {
	if err := gpu.CheckMulti(batch); err != nil {
		return err
	}
	words, most := 0, 0
	for _, l := range batch.Limbs {
		w := len(l.Src) * l.P.N
		words += w
		most = max(most, w)
	}
	if words > maxWords {
		return fmt.Errorf("%w: batch of %d words exceeds %d", gpu.ErrUnsupported, words, maxWords)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return gpu.ErrClosed
	}
	rs := make([]roots, len(batch.Limbs))
	for i, l := range batch.Limbs {
		r, err := b.rootsFor(l.P)
		if err != nil {
			return err
		}
		rs[i] = r
	}
	if err := b.reserve(most, words); err != nil {
		return err
	}
	off := 0
	for i, l := range batch.Limbs {
		stage := b.stage[off : off+len(l.Src)*l.P.N]
		for k := range l.Src {
			copy(stage[k*l.P.N:], l.Src[k])
		}
		if err := b.runLimb(batch.Dir, l.P, rs[i], len(l.Src), stage); err != nil {
			return err
		}
		off += len(stage)
	}
	off = 0
	for _, l := range batch.Limbs {
		for k := range l.Dst {
			copy(l.Dst[k], b.stage[off:off+l.P.N])
			off += l.P.N
		}
	}
	return nil
}

// reserve grows the device buffer to at least most words and the host
// staging area to at least words. Called with b.mu held.
func (b *Backend) reserve(most, words int) error {
	if most > b.words {
		C.fg_cl_free(b.data)
		b.data, b.words = nil, 0
		var rc C.cl_int
		m := C.fg_cl_alloc(&b.c, C.size_t(most*8), nil, &rc)
		if rc != C.CL_SUCCESS {
			return fmt.Errorf("opencl: clCreateBuffer %d bytes: error %d", most*8, int(rc))
		}
		b.data, b.words = m, most
	}
	if words > len(b.stage) {
		b.stage = make([]uint64, words)
	}
	return nil
}

// runLimb transforms the bsz polynomials of one modulus, packed in host,
// in place through the device buffer. Called with b.mu held.
func (b *Backend) runLimb(dir gpu.Direction, p *gpu.Params, r roots, bsz int, host []uint64) error {
	eb := make([]byte, 512)
	ebp, ebn := (*C.char)(unsafe.Pointer(&eb[0])), C.size_t(len(eb))
	logN := p.LogN()
	// Fused block: the largest the device takes, at most N; stages inside it
	// run in local memory, the others one launch each.
	logL := min(int(b.c.max_logl), kernels.MaxFusedLogL, logN)
	if b.NoFusion || logL < 2 {
		logL = 0
	}
	var st []kernels.Stage
	rts, inv := r.fwd, C.int(0)
	if dir == gpu.Inverse {
		st, rts, inv = kernels.InverseStages(logN), r.bwd, 1
	} else {
		st = kernels.ForwardStages(logN)
	}
	flat := make([]C.cl_uint, 0, 2*len(st)+2)
	for _, s := range st {
		if logL > 0 && int(s.LogT) < logL {
			continue // inside the fused block
		}
		flat = append(flat, C.cl_uint(s.LogT), C.cl_uint(s.Reduce))
	}
	flat = append(flat, 0, 0) // never empty (cgo needs an element to point at)
	rc := C.fg_cl_run(&b.c, inv, b.data, rts, (*C.uint64_t)(unsafe.Pointer(&host[0])), C.cl_uint(logN),
		C.cl_uint(bsz), &flat[0], C.cl_uint(len(flat)/2-1), C.cl_uint(logL), C.cl_uint(kernels.ReduceMask(logN)),
		C.cl_ulong(p.Q), C.cl_ulong(p.MRedConstant), C.cl_ulong(p.BRedConstant[0]), C.cl_ulong(p.NInv), ebp, ebn)
	if rc != 0 {
		return fmt.Errorf("opencl: %s", cerr(eb))
	}
	return nil
}

func (b *Backend) rootsFor(p *gpu.Params) (roots, error) {
	if r, ok := b.roots[p.Key()]; ok {
		return r, nil
	}
	var rc C.cl_int
	f := C.fg_cl_alloc(&b.c, C.size_t(p.N*8), unsafe.Pointer(&p.RootsForward[0]), &rc)
	if rc != C.CL_SUCCESS {
		return roots{}, fmt.Errorf("opencl: twiddle upload: error %d", int(rc))
	}
	w := C.fg_cl_alloc(&b.c, C.size_t(p.N*8), unsafe.Pointer(&p.RootsBackward[0]), &rc)
	if rc != C.CL_SUCCESS {
		C.fg_cl_free(f)
		return roots{}, fmt.Errorf("opencl: twiddle upload: error %d", int(rc))
	}
	r := roots{fwd: f, bwd: w}
	b.roots[p.Key()] = r
	return r, nil
}
