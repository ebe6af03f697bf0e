//go:build opencl && cgo

package opencl

/*
#cgo pkg-config: OpenCL
#cgo CFLAGS: -DCL_TARGET_OPENCL_VERSION=120 -O2
#include "clprog.h"

typedef struct {
	cl_program prog;
	cl_kernel mac, modup, sd, lincomb, tensor;
} fg_ks;

// A device buffer and a pinned host staging buffer of the same size
// (CL_MEM_ALLOC_HOST_PTR, mapped once for the buffer's life: the transfer
// pattern NVIDIA's OpenCL guide recommends for full-bandwidth copies).
typedef struct {
	cl_mem dev, host;
	void *ptr;
	size_t bytes;
} fg_ks_buf;

static int fg_ks_build(fg_ks *k, cl_context ctx, cl_device_id dev, const char *src, char *eb, size_t ebn) {
	static const char *const names[] = {"fg_ks_gadget_mac", "fg_ks_modup", "fg_ks_scalediff", "fg_pr_lincomb", "fg_pr_tensor"};
	cl_kernel ks[5] = {0};
	int rc = fg_cl_program(ctx, dev, src, "key switch", &k->prog, names, ks, 5, eb, ebn);
	k->mac = ks[0], k->modup = ks[1], k->sd = ks[2], k->lincomb = ks[3], k->tensor = ks[4];
	return rc;
}

static void fg_ks_release(fg_ks *k) {
	if (k->mac) clReleaseKernel(k->mac);
	if (k->modup) clReleaseKernel(k->modup);
	if (k->sd) clReleaseKernel(k->sd);
	if (k->lincomb) clReleaseKernel(k->lincomb);
	if (k->tensor) clReleaseKernel(k->tensor);
	if (k->prog) clReleaseProgram(k->prog);
	memset(k, 0, sizeof *k);
}

static void fg_ks_buf_free(cl_command_queue q, fg_ks_buf *b) {
	if (b->ptr) {
		clEnqueueUnmapMemObject(q, b->host, b->ptr, 0, NULL, NULL);
		clFinish(q);
	}
	if (b->host) clReleaseMemObject(b->host);
	if (b->dev) clReleaseMemObject(b->dev);
	memset(b, 0, sizeof *b);
}

static int fg_ks_buf_alloc(cl_context ctx, cl_command_queue q, fg_ks_buf *b, size_t bytes, char *eb, size_t ebn) {
	cl_int rc;
	b->dev = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
	if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clCreateBuffer (key switch)", rc);
	b->host = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &rc);
	if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clCreateBuffer (pinned staging)", rc);
	b->ptr = clEnqueueMapBuffer(q, b->host, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &rc);
	if (rc != CL_SUCCESS || b->ptr == NULL) {
		b->ptr = NULL;
		return fg_err(eb, ebn, "clEnqueueMapBuffer (pinned staging)", rc);
	}
	b->bytes = bytes;
	return 0;
}

// fg_ks_run: upload meta and in (their first meta_words/in_words words),
// then nups key limbs from the in staging area into the arena (ups holds
// triples: staging offset, arena offset, words), one launch of k over
// (n, jobs) work items, read back out_words of out and meta's flag word,
// one wait (the last read blocks; the queue is in order). kind: 0 the
// multiply-accumulate (argument 4: the key arena), 1 the extension
// (argument 4: nt_max), 2 the scale-difference, 3 and 4 the products
// (no argument 4).
static int fg_ks_run(cl_command_queue q, cl_kernel k, int kind, fg_ks_buf *in, fg_ks_buf *out, fg_ks_buf *meta,
                     cl_mem arena, size_t in_words, size_t out_words, size_t meta_words, const size_t *ups, size_t nups,
                     cl_ulong n, cl_ulong nt_max, size_t jobs, cl_ulong *flag, char *eb, size_t ebn) {
	cl_int rc = clEnqueueWriteBuffer(q, meta->dev, CL_FALSE, 0, meta_words * 8, meta->ptr, 0, NULL, NULL);
	if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clEnqueueWriteBuffer meta", rc);
	if (in_words > 0) {
		rc = clEnqueueWriteBuffer(q, in->dev, CL_FALSE, 0, in_words * 8, in->ptr, 0, NULL, NULL);
		if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clEnqueueWriteBuffer inputs", rc);
	}
	for (size_t u = 0; u < nups; u++) {
		const size_t *t = ups + 3 * u;
		rc = clEnqueueWriteBuffer(q, arena, CL_FALSE, t[1] * 8, t[2] * 8, (const char *)in->ptr + t[0] * 8, 0, NULL, NULL);
		if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clEnqueueWriteBuffer key limb", rc);
	}
	rc = clSetKernelArg(k, 0, sizeof(cl_mem), &in->dev);
	rc |= clSetKernelArg(k, 1, sizeof(cl_mem), &out->dev);
	rc |= clSetKernelArg(k, 2, sizeof(cl_mem), &meta->dev);
	rc |= clSetKernelArg(k, 3, sizeof(cl_ulong), &n);
	if (kind == 0) rc |= clSetKernelArg(k, 4, sizeof(cl_mem), &arena);
	if (kind == 1) rc |= clSetKernelArg(k, 4, sizeof(cl_ulong), &nt_max);
	if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clSetKernelArg (key switch)", rc);
	size_t g[2] = {(size_t)n, jobs};
	rc = clEnqueueNDRangeKernel(q, k, 2, NULL, g, NULL, 0, NULL, NULL);
	if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clEnqueueNDRangeKernel (key switch)", rc);
	rc = clEnqueueReadBuffer(q, out->dev, CL_FALSE, 0, out_words * 8, out->ptr, 0, NULL, NULL);
	if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clEnqueueReadBuffer outputs", rc);
	rc = clEnqueueReadBuffer(q, meta->dev, CL_TRUE, 0, 8, flag, 0, NULL, NULL);
	if (rc != CL_SUCCESS) return fg_err(eb, ebn, "clEnqueueReadBuffer flag", rc);
	return 0;
}

static cl_mem fg_ks_arena(cl_context ctx, size_t bytes, cl_int *rc) {
	return clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, rc);
}

static void fg_ks_arena_free(cl_mem m) {
	if (m) clReleaseMemObject(m);
}
*/
import "C"

import (
	"bytes"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/fhegate/fhegate/fhe/engine/kernels"
	"github.com/fhegate/fhegate/gpu"
)

// MaxKeySwitchModulus bounds the moduli the key-switch kernels take (odd,
// below 2^62: the Shoup and Montgomery products and the sums x + H stay in
// 64 bits). Larger moduli are declined, not errors.
const MaxKeySwitchModulus = 1 << 62

// maxKeySwitchWords bounds one call's inputs plus outputs (2 GiB); a larger
// call is declined (the engine's calls are a few MiB).
const maxKeySwitchWords = 1 << 28

// keySwitch is the backend's key-switch state: the program (built on first
// use), the device buffers and pinned staging areas (grown to the largest
// call, kept across calls) and the counters. Guarded by Backend.mu.
type keySwitch struct {
	*ksObjects
	built         bool
	buildErr      error
	reportedBuild bool
	mulAccs       uint64
	modUps        uint64
	scaleDiffs    uint64
	linCombs      uint64 // linear-combination limbs (a multiply-add counts as one)
	tensors       uint64

	// The key arena: gadget-key limbs resident on the device, with a host
	// copy each (a limb is reused only while its words equal the copy).
	keys      map[keyID]*keyEntry
	used, cap int // arena words in use, capacity
	keyHits   uint64
	ups       []C.size_t // this call's key uploads: staging offset, arena offset, words
}

// keyID locates a key limb: its first word's address (a lookup hint only,
// never dereferenced or trusted: the words are compared), length and
// modulus.
type keyID struct {
	addr uintptr
	n    int
	q    uint64
}

type keyEntry struct {
	off  int      // arena offset (words)
	copy []uint64 // the words uploaded there
}

// DefaultKeyArenaWords is the key arena's default capacity: 2^26 words
// (512 MiB of device memory, and as much host memory for the copies), room
// for BGVN14's relinearisation key and some 30 rotation keys.
const DefaultKeyArenaWords = 1 << 26

// keyArenaFor makes room for a call whose key limbs total words: it
// allocates the arena on first use (Backend.KeyArenaWords, at least words)
// and empties it when the call might not fit. Called with b.mu held.
func (b *Backend) keyArenaFor(words int) error {
	ks := &b.ks
	if ks.arena != nil && words > ks.cap {
		C.fg_ks_arena_free(ks.arena)
		ks.arena, ks.keys, ks.used = nil, nil, 0
	}
	if ks.arena == nil {
		capWords := b.KeyArenaWords
		if capWords <= 0 {
			capWords = DefaultKeyArenaWords
		}
		capWords = max(capWords, words)
		var rc C.cl_int
		m := C.fg_ks_arena(b.c.ctx, C.size_t(capWords*8), &rc)
		if rc != C.CL_SUCCESS {
			return fmt.Errorf("opencl: key arena of %d bytes: error %d", capWords*8, int(rc))
		}
		ks.arena, ks.cap, ks.used = m, capWords, 0
	}
	if ks.keys == nil || ks.used+words > ks.cap {
		ks.keys, ks.used = map[keyID]*keyEntry{}, 0
	}
	return nil
}

// keySlot returns the arena offset of limb (N words, modulus q): a cached
// copy when its words are unchanged, else a slot whose upload from the
// staging area at stageOff is queued (true: the caller staged the words
// there). keyArenaFor reserved room for every limb of the call. Called
// with b.mu held.
func (b *Backend) keySlot(limb []uint64, q uint64, stage []uint64, stageOff int) (off int, staged bool) {
	ks := &b.ks
	n := len(limb)
	id := keyID{uintptr(unsafe.Pointer(&limb[0])), n, q}
	e := ks.keys[id]
	if e != nil && wordsEqual(e.copy, limb) {
		ks.keyHits++
		return e.off, false
	}
	if e == nil {
		e = &keyEntry{off: ks.used, copy: make([]uint64, n)}
		ks.used += n
		ks.keys[id] = e
	}
	copy(e.copy, limb)
	copy(stage[stageOff:], limb)
	ks.ups = append(ks.ups, C.size_t(stageOff), C.size_t(e.off), C.size_t(n))
	return e.off, true
}

// wordsEqual compares two limbs with the runtime's vectorised memequal.
func wordsEqual(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 8*len(a)), unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), 8*len(b)))
}

func oddBelow(q uint64) bool { return q&1 == 1 && q >= 3 && q < MaxKeySwitchModulus }

// shoup is ⌊w·2^64/q⌋ (w < q).
func shoup(w, q uint64) uint64 {
	s, _ := bits.Div64(w, 0, q)
	return s
}

// montInv is q^{-1} mod 2^64 (q odd): Lattigo's MRedConstant.
func montInv(q uint64) uint64 {
	inv := q // q·q ≡ 1 (mod 8): 3 bits, doubled by each Newton step
	for range 5 {
		inv *= 2 - q*inv
	}
	return inv
}

// ksObjects are the C objects of the key-switch state, in an allocation
// of their own that holds no Go pointers (cgo checks the whole allocation a
// pointer argument points into).
type ksObjects struct {
	k             C.fg_ks
	in, out, meta C.fg_ks_buf
	arena         C.cl_mem
}

// ksKernel selects a kernel of keyswitch.cl.
type ksKernel int

const (
	ksMulAcc ksKernel = iota
	ksModUp
	ksScaleDiff
	ksLinComb
	ksTensor
)

// ksCall is one launch: the words of its inputs, outputs and meta, the
// kernel, the range, and fill, which writes inputs and meta into the
// staging areas (meta[0], the flag, is zeroed by ksRun).
type ksCall struct {
	what           string
	kernel         ksKernel
	in, out, meta  int
	n, ntMax, jobs int
	keyWords       int // the multiply-accumulate's key words (the arena must hold them)
	// fill stages the inputs and meta (meta[0], the flag, is zeroed by
	// ksRun) and returns how many words of in go to the device's input
	// buffer; key limbs staged after them go to the arena (b.ks.ups).
	fill    func(in, meta []uint64) int
	counter *uint64
}

// ksRun runs c under b.mu: the inputs staged by c.fill, one upload, one
// launch, one download; then, iff no input was outside the kernel's bounds,
// commit copies the staged outputs out (they are valid only during commit)
// and ksRun reports true. Otherwise nothing is written and it reports false.
func (b *Backend) ksRun(c ksCall, commit func(out []uint64)) (bool, error) {
	if c.in+c.out > maxKeySwitchWords || c.jobs == 0 {
		return false, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false, gpu.ErrClosed
	}
	ks := &b.ks
	if ks.ksObjects == nil {
		ks.ksObjects = new(ksObjects)
	}
	if !ks.built {
		if err := b.buildKeySwitch(); err != nil {
			if ks.reportedBuild {
				return false, nil
			}
			ks.reportedBuild = true
			return false, err
		}
	}
	for _, r := range []struct {
		buf   *C.fg_ks_buf
		words int
	}{{&ks.in, c.in}, {&ks.out, c.out}, {&ks.meta, c.meta}} {
		if err := b.ksReserve(r.buf, r.words); err != nil {
			return false, err
		}
	}
	if c.keyWords > 0 {
		if err := b.keyArenaFor(c.keyWords); err != nil {
			return false, err
		}
	}
	in := unsafe.Slice((*uint64)(ks.in.ptr), c.in)
	meta := unsafe.Slice((*uint64)(ks.meta.ptr), c.meta)
	meta[0] = 0
	ks.ups = ks.ups[:0]
	inWords := c.fill(in, meta)
	ups := append(ks.ups, 0) // never empty (cgo needs an element to point at)
	eb := make([]byte, 512)
	var flag C.cl_ulong
	k := ks.k.mac
	switch c.kernel {
	case ksModUp:
		k = ks.k.modup
	case ksScaleDiff:
		k = ks.k.sd
	case ksLinComb:
		k = ks.k.lincomb
	case ksTensor:
		k = ks.k.tensor
	}
	rc := C.fg_ks_run(b.c.q, k, C.int(c.kernel), &ks.in, &ks.out, &ks.meta, ks.arena, C.size_t(inWords), C.size_t(c.out),
		C.size_t(c.meta), &ups[0], C.size_t(len(ks.ups)/3), C.cl_ulong(c.n), C.cl_ulong(c.ntMax), C.size_t(c.jobs), &flag,
		(*C.char)(unsafe.Pointer(&eb[0])), C.size_t(len(eb)))
	if rc != 0 {
		ks.keys, ks.used = nil, 0 // an upload may not have happened: forget every cached limb
		return false, fmt.Errorf("opencl: %s: %s", c.what, cerr(eb))
	}
	if flag != 0 {
		return false, nil // an input outside the bounds: nothing written
	}
	commit(unsafe.Slice((*uint64)(ks.out.ptr), c.out))
	*c.counter += uint64(c.jobs)
	return true, nil
}

// buildKeySwitch builds the key-switch program once (an error is kept: the
// device cannot run it, e.g. no 64-bit floating point).
func (b *Backend) buildKeySwitch() error {
	ks := &b.ks
	if ks.buildErr != nil {
		return ks.buildErr
	}
	src := C.CString(kernels.OpenCLKeySwitchSource())
	defer C.free(unsafe.Pointer(src))
	eb := make([]byte, 8192)
	if rc := C.fg_ks_build(&ks.k, b.c.ctx, b.c.dev, src, (*C.char)(unsafe.Pointer(&eb[0])), C.size_t(len(eb))); rc != 0 {
		C.fg_ks_release(&ks.k)
		ks.buildErr = fmt.Errorf("opencl: key-switch kernels: %s", cerr(eb))
		return ks.buildErr
	}
	ks.built = true
	return nil
}

// ksReserve grows buf (device and pinned host) to at least words words.
func (b *Backend) ksReserve(buf *C.fg_ks_buf, words int) error {
	size := C.size_t(max(words, 1) * 8)
	if buf.bytes >= size {
		return nil
	}
	C.fg_ks_buf_free(b.c.q, buf)
	eb := make([]byte, 512)
	if rc := C.fg_ks_buf_alloc(b.c.ctx, b.c.q, buf, size, (*C.char)(unsafe.Pointer(&eb[0])), C.size_t(len(eb))); rc != 0 {
		C.fg_ks_buf_free(b.c.q, buf)
		return fmt.Errorf("opencl: %s", cerr(eb))
	}
	return nil
}

// closeKeySwitch releases the key-switch objects. Called with b.mu held.
func (b *Backend) closeKeySwitch() {
	ks := &b.ks
	if ks.ksObjects == nil {
		return
	}
	for _, buf := range []*C.fg_ks_buf{&ks.in, &ks.out, &ks.meta} {
		C.fg_ks_buf_free(b.c.q, buf)
	}
	C.fg_ks_release(&ks.k)
	C.fg_ks_arena_free(ks.arena)
	ks.arena, ks.keys = nil, nil
}
