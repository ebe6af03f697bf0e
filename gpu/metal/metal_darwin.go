//go:build darwin && cgo

package metal

/*
#cgo CFLAGS: -x objective-c -fobjc-arc -O2
#cgo LDFLAGS: -framework Metal -framework Foundation
#import <Foundation/Foundation.h>
#import <Metal/Metal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Must match struct fg_params in ntt.metal.
typedef struct {
	uint64_t q, mredc, bred0, ninv;
	uint32_t logN, logT, reduce, total;
} fg_params;

typedef struct {
	void *dev, *queue, *pfs, *pis, *pff, *pif;
} fg_mtl;

static void fg_msg(char *eb, size_t n, NSString *s) {
	snprintf(eb, n, "%s", s ? [s UTF8String] : "unknown error");
}

static void *fg_pipeline(id<MTLDevice> dev, id<MTLLibrary> lib, const char *name, char *eb, size_t ebn) {
	id<MTLFunction> f = [lib newFunctionWithName:[NSString stringWithUTF8String:name]];
	if (f == nil) {
		snprintf(eb, ebn, "kernel %s not found", name);
		return NULL;
	}
	NSError *err = nil;
	id<MTLComputePipelineState> p = [dev newComputePipelineStateWithFunction:f error:&err];
	if (p == nil) {
		fg_msg(eb, ebn, [err localizedDescription]);
		return NULL;
	}
	return (__bridge_retained void *)p;
}

static int fg_mtl_open(fg_mtl *m, const char *src, char *info, size_t infon, char *eb, size_t ebn) {
	@autoreleasepool {
		id<MTLDevice> dev = MTLCreateSystemDefaultDevice();
		if (dev == nil) {
			snprintf(eb, ebn, "no Metal device");
			return -2;
		}
		NSOperatingSystemVersion v = [[NSProcessInfo processInfo] operatingSystemVersion];
		snprintf(info, infon, "%s\nmacOS %ld.%ld.%ld", [[dev name] UTF8String], (long)v.majorVersion, (long)v.minorVersion, (long)v.patchVersion);
		NSError *err = nil;
		id<MTLLibrary> lib = [dev newLibraryWithSource:[NSString stringWithUTF8String:src] options:nil error:&err];
		if (lib == nil) {
			fg_msg(eb, ebn, [err localizedDescription]);
			return -1;
		}
		m->dev = (__bridge_retained void *)dev;
		m->queue = (__bridge_retained void *)[dev newCommandQueue];
		if ((m->pfs = fg_pipeline(dev, lib, "fg_ntt_fwd_stage", eb, ebn)) == NULL) return -1;
		if ((m->pis = fg_pipeline(dev, lib, "fg_ntt_inv_stage", eb, ebn)) == NULL) return -1;
		if ((m->pff = fg_pipeline(dev, lib, "fg_ntt_fwd_final", eb, ebn)) == NULL) return -1;
		if ((m->pif = fg_pipeline(dev, lib, "fg_ntt_inv_final", eb, ebn)) == NULL) return -1;
		return 0;
	}
}

static void fg_release(void *p) {
	if (p != NULL) {
		id o = (__bridge_transfer id)p;
		o = nil;
	}
}

static void fg_mtl_close(fg_mtl *m) {
	fg_release(m->pfs); fg_release(m->pis); fg_release(m->pff); fg_release(m->pif);
	fg_release(m->queue); fg_release(m->dev);
	memset(m, 0, sizeof *m);
}

// fg_mtl_buffer returns a retained shared-storage buffer holding a copy of init.
static void *fg_mtl_buffer(fg_mtl *m, const void *init, size_t bytes) {
	id<MTLDevice> dev = (__bridge id<MTLDevice>)m->dev;
	id<MTLBuffer> b = [dev newBufferWithBytes:init length:bytes options:MTLResourceStorageModeShared];
	return b == nil ? NULL : (__bridge_retained void *)b;
}

static void fg_encode(id<MTLComputeCommandEncoder> enc, id<MTLComputePipelineState> p, uint32_t threads) {
	NSUInteger w = p.maxTotalThreadsPerThreadgroup;
	if (w > 256) w = 256;
	NSUInteger groups = (threads + w - 1) / w;
	[enc setComputePipelineState:p];
	[enc dispatchThreadgroups:MTLSizeMake(groups, 1, 1) threadsPerThreadgroup:MTLSizeMake(w, 1, 1)];
}

// fg_mtl_run transforms host[0 .. B<<logN) in place with one command buffer.
static int fg_mtl_run(fg_mtl *m, int inverse, void *roots, uint64_t *host, uint32_t logN, uint32_t B,
                      const uint32_t *stages, uint32_t nstages, uint64_t q, uint64_t mredc, uint64_t bred0,
                      uint64_t ninv, char *eb, size_t ebn) {
	@autoreleasepool {
		id<MTLDevice> dev = (__bridge id<MTLDevice>)m->dev;
		size_t words = (size_t)B << logN;
		id<MTLBuffer> data = [dev newBufferWithBytes:host length:words * 8 options:MTLResourceStorageModeShared];
		if (data == nil) {
			snprintf(eb, ebn, "newBuffer %zu bytes failed", words * 8);
			return -1;
		}
		id<MTLCommandBuffer> cb = [(__bridge id<MTLCommandQueue>)m->queue commandBuffer];
		id<MTLComputeCommandEncoder> enc = [cb computeCommandEncoder];
		fg_params P = {q, mredc, bred0, ninv, logN, 0, 0, (uint32_t)(words / 2)};
		[enc setBuffer:data offset:0 atIndex:0];
		[enc setBuffer:(__bridge id<MTLBuffer>)roots offset:0 atIndex:1];
		id<MTLComputePipelineState> ps = (__bridge id<MTLComputePipelineState>)(inverse ? m->pis : m->pfs);
		for (uint32_t s = 0; s < nstages; s++) {
			P.logT = stages[2 * s];
			P.reduce = stages[2 * s + 1];
			[enc setBytes:&P length:sizeof P atIndex:2];
			fg_encode(enc, ps, P.total);
		}
		P.total = (uint32_t)words;
		[enc setBytes:&P length:sizeof P atIndex:2];
		fg_encode(enc, (__bridge id<MTLComputePipelineState>)(inverse ? m->pif : m->pff), P.total);
		[enc endEncoding];
		[cb commit];
		[cb waitUntilCompleted];
		if (cb.status != MTLCommandBufferStatusCompleted) {
			fg_msg(eb, ebn, [[cb error] localizedDescription]);
			return -1;
		}
		memcpy(host, [data contents], words * 8);
		return 0;
	}
}
*/
import "C"

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/fhegate/fhegate/fhe/engine/kernels"
	"github.com/fhegate/fhegate/gpu"
)

// Built reports whether the Metal backend is compiled in.
const Built = true

type roots struct{ fwd, bwd unsafe.Pointer }

// Backend is the Metal gpu.Backend.
type Backend struct {
	mu     sync.Mutex
	m      C.fg_mtl
	info   gpu.DeviceInfo
	roots  map[gpu.Key]roots
	host   []uint64
	closed bool
}

func cstr(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}

// New opens the system default Metal device and compiles the kernels.
func New() (gpu.Backend, error) {
	src := C.CString(kernels.MetalSource())
	defer C.free(unsafe.Pointer(src))
	info := make([]byte, 512)
	eb := make([]byte, 8192)
	b := &Backend{roots: map[gpu.Key]roots{}}
	rc := C.fg_mtl_open(&b.m, src, (*C.char)(unsafe.Pointer(&info[0])), C.size_t(len(info)),
		(*C.char)(unsafe.Pointer(&eb[0])), C.size_t(len(eb)))
	if rc != 0 {
		C.fg_mtl_close(&b.m)
		if rc == -2 {
			return nil, fmt.Errorf("%w: metal: %s", gpu.ErrNoDevice, cstr(eb))
		}
		return nil, fmt.Errorf("metal: %s", cstr(eb))
	}
	dev, drv, _ := strings.Cut(cstr(info), "\n")
	b.info = gpu.DeviceInfo{Backend: Name, Device: dev, Driver: drv, HostCPU: gpu.HostCPU()}
	return b, nil
}

// Name implements gpu.Backend.
func (b *Backend) Name() string { return Name }

// Info implements gpu.Backend.
func (b *Backend) Info() gpu.DeviceInfo { return b.info }

// Exclusive implements gpu.Exclusive: the backend runs one call at a time
// on its device's one command queue (b.mu), so the dispatcher sends a call
// only when the device is idle and runs one that finds it busy on the CPU.
func (b *Backend) Exclusive() bool { return true }

var _ gpu.Exclusive = (*Backend)(nil)

// Close releases the device objects.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	for _, r := range b.roots {
		C.fg_release(r.fwd)
		C.fg_release(r.bwd)
	}
	C.fg_mtl_close(&b.m)
	return nil
}

// NTT implements gpu.Backend.
func (b *Backend) NTT(dir gpu.Direction, p *gpu.Params, src, dst [][]uint64) error {
	if err := gpu.CheckBatch(p, src, dst); err != nil {
		return err
	}
	words := len(src) * p.N
	if words > 1<<31 {
		return fmt.Errorf("%w: batch of %d words", gpu.ErrUnsupported, words)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return gpu.ErrClosed
	}
	r, ok := b.roots[p.Key()]
	if !ok {
		r.fwd = C.fg_mtl_buffer(&b.m, unsafe.Pointer(&p.RootsForward[0]), C.size_t(p.N*8))
		r.bwd = C.fg_mtl_buffer(&b.m, unsafe.Pointer(&p.RootsBackward[0]), C.size_t(p.N*8))
		if r.fwd == nil || r.bwd == nil {
			C.fg_release(r.fwd)
			C.fg_release(r.bwd)
			return fmt.Errorf("metal: twiddle buffers for N=%d", p.N)
		}
		b.roots[p.Key()] = r
	}
	if cap(b.host) < words {
		b.host = make([]uint64, words)
	}
	host := b.host[:words]
	for i := range src {
		copy(host[i*p.N:], src[i])
	}
	st, rt, inv := kernels.ForwardStages(p.LogN()), r.fwd, C.int(0)
	if dir == gpu.Inverse {
		st, rt, inv = kernels.InverseStages(p.LogN()), r.bwd, 1
	}
	flat := make([]C.uint32_t, 2*len(st))
	for i, s := range st {
		flat[2*i], flat[2*i+1] = C.uint32_t(s.LogT), C.uint32_t(s.Reduce)
	}
	eb := make([]byte, 512)
	if C.fg_mtl_run(&b.m, inv, rt, (*C.uint64_t)(unsafe.Pointer(&host[0])), C.uint32_t(p.LogN()), C.uint32_t(len(src)),
		&flat[0], C.uint32_t(len(st)), C.uint64_t(p.Q), C.uint64_t(p.MRedConstant), C.uint64_t(p.BRedConstant[0]),
		C.uint64_t(p.NInv), (*C.char)(unsafe.Pointer(&eb[0])), C.size_t(len(eb))) != 0 {
		return fmt.Errorf("metal: %s", cstr(eb))
	}
	for i := range dst {
		copy(dst[i], host[i*p.N:(i+1)*p.N])
	}
	return nil
}
