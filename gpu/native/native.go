//go:build cgo

package native

/*
#cgo CFLAGS: -O3 -I${SRCDIR}/../../fhe/engine/kernels
#include "native/native.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	// The C compiled here (kernel_*.c) is the kernels package's
	// NativeSources: importing it rebuilds this package when they change.
	_ "github.com/fhegate/fhegate/fhe/engine/kernels"
	"github.com/fhegate/fhegate/gpu"
)

// Built reports whether the native backend is compiled in (it needs cgo).
const Built = true

// Features are the CPU capabilities the backend detected (cpuid + XGETBV).
type Features struct {
	AVX512F, AVX512DQ, AVX512IFMA, AVX512VL, AVX512BW, AVX512VBMI bool
	// OSZMM: the OS saves the opmask and zmm state (XCR0 bits 5–7).
	OSZMM bool
	// IFMABuilt: the IFMA kernels are compiled in (x86-64 with GCC or Clang).
	IFMABuilt bool
}

// IFMA reports whether the IFMA path can run here.
func (f Features) IFMA() bool {
	return f.IFMABuilt && f.AVX512F && f.AVX512DQ && f.AVX512IFMA && f.OSZMM
}

func (f Features) String() string {
	var s []string
	for _, x := range []struct {
		ok   bool
		name string
	}{{f.AVX512F, "avx512f"}, {f.AVX512DQ, "avx512dq"}, {f.AVX512IFMA, "avx512ifma"}, {f.AVX512VL, "avx512vl"},
		{f.AVX512BW, "avx512bw"}, {f.AVX512VBMI, "avx512vbmi"}, {f.OSZMM, "os-zmm"}} {
		if x.ok {
			s = append(s, x.name)
		}
	}
	if len(s) == 0 {
		return "no avx512"
	}
	return strings.Join(s, ",")
}

// DetectFeatures reads the CPU features.
var DetectFeatures = sync.OnceValue(func() Features {
	b := uint(C.fg_cpu_features())
	bit := func(i uint) bool { return b>>i&1 == 1 }
	return Features{AVX512F: bit(0), AVX512DQ: bit(1), AVX512IFMA: bit(2), AVX512VL: bit(3), AVX512BW: bit(4),
		AVX512VBMI: bit(5), OSZMM: bit(6), IFMABuilt: C.fg_ifma_built() == 1}
})

// Backend is the native NTT backend. It is safe for concurrent use.
type Backend struct {
	path Path
	// Workers bounds the goroutines for B > 1; 0 means GOMAXPROCS.
	Workers int

	mu     sync.RWMutex
	closed bool
	tables map[gpu.Key]*C.fg_table

	vecPolys, scalarPolys atomic.Uint64
	mulAccMods, modUps    atomic.Uint64
	scaleDiffs            atomic.Uint64
	tensors, mulAdds      atomic.Uint64 // BGV tensor and multiply-add limbs the kernels ran
	linCombs              atomic.Uint64 // linear-combination limbs the kernels ran
	productTail           atomic.Uint64 // words of those finished in Go (ProductTailWords)
}

// New opens the backend on the best path for this CPU (PathAuto).
func New() (gpu.Backend, error) { return NewPath(PathAuto) }

// NewPath opens the backend on path p; PathIFMA on a CPU without IFMA is
// gpu.ErrNoDevice.
func NewPath(p Path) (*Backend, error) {
	f := DetectFeatures()
	switch p {
	case PathAuto:
		p = PathScalar
		if f.IFMA() && os.Getenv(PathEnv) != "scalar" {
			p = PathIFMA
		}
	case PathIFMA:
		if !f.IFMA() {
			return nil, fmt.Errorf("%w: native ifma path: CPU/OS lacks it (%s)", gpu.ErrNoDevice, f)
		}
	case PathScalar, PathEmulated:
	default:
		return nil, fmt.Errorf("%w: native path %d", gpu.ErrUnsupported, p)
	}
	return &Backend{path: p, tables: map[gpu.Key]*C.fg_table{}}, nil
}

// Path returns the path the backend runs.
func (b *Backend) Path() Path { return b.path }

// Name implements gpu.Backend.
func (*Backend) Name() string { return Name }

// Info implements gpu.Backend.
func (b *Backend) Info() gpu.DeviceInfo {
	f := DetectFeatures()
	var dev string
	switch b.path {
	case PathIFMA:
		dev = "x86-64 AVX-512 IFMA for q < 2^51 (inputs reduced on load: forward < 2^52, inverse < 2q); scalar C otherwise"
	case PathEmulated:
		dev = "emulated IFMA kernels (test model) for q < 2^51; scalar C otherwise"
	default:
		dev = "scalar C, Lattigo schedule (" + f.String() + ")"
	}
	return gpu.DeviceInfo{Backend: Name, Device: dev, Driver: runtime.Version() + " cgo " + runtime.GOARCH, HostCPU: gpu.HostCPU()}
}

// Close implements gpu.Backend; it frees the twiddle tables.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		for k, t := range b.tables {
			C.fg_table_free(t)
			delete(b.tables, k)
		}
		b.closed = true
	}
	return nil
}

// PathCounts returns how many polynomials ran on the vector path and on the
// scalar path since the backend was opened.
func (b *Backend) PathCounts() (vector, scalar uint64) {
	return b.vecPolys.Load(), b.scalarPolys.Load()
}

func (b *Backend) table(p *gpu.Params) (*C.fg_table, error) {
	k := p.Key()
	if t, ok := b.tables[k]; ok {
		return t, nil
	}
	t := C.fg_table_new(C.uint32_t(p.LogN()), C.uint64_t(p.Q), C.uint64_t(p.MRedConstant), C.uint64_t(p.BRedConstant[0]),
		C.uint64_t(p.NInv), (*C.uint64_t)(unsafe.Pointer(&p.RootsForward[0])), (*C.uint64_t)(unsafe.Pointer(&p.RootsBackward[0])))
	if t == nil {
		return nil, fmt.Errorf("%w: native: out of memory for N=%d tables", gpu.ErrUnsupported, p.N)
	}
	b.tables[k] = t
	return t, nil
}

// tableOf returns the twiddle tables of p, building them on first use.
// Called with b.mu not held.
func (b *Backend) tableOf(p *gpu.Params) (*C.fg_table, error) {
	b.mu.RLock()
	closed := b.closed
	t, ok := b.tables[p.Key()]
	b.mu.RUnlock()
	if closed {
		return nil, gpu.ErrClosed
	}
	if ok {
		return t, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, gpu.ErrClosed
	}
	return b.table(p)
}

func (b *Backend) cpath() C.int {
	switch b.path {
	case PathIFMA:
		return C.FG_PATH_IFMA
	case PathEmulated:
		return C.FG_PATH_EMU
	}
	return C.FG_PATH_SCALAR
}

// one transforms one polynomial; it cannot fail once the tables exist.
func (b *Backend) one(dir gpu.Direction, cpath C.int, t *C.fg_table, src, dst []uint64) {
	cdir := C.int(0)
	if dir == gpu.Inverse {
		cdir = 1
	}
	ran := C.fg_ntt(cdir, cpath, t, (*C.uint64_t)(unsafe.Pointer(&src[0])), (*C.uint64_t)(unsafe.Pointer(&dst[0])))
	if ran == C.FG_PATH_SCALAR {
		b.scalarPolys.Add(1)
	} else {
		b.vecPolys.Add(1)
	}
}

// NTT implements gpu.Backend.
func (b *Backend) NTT(dir gpu.Direction, p *gpu.Params, src, dst [][]uint64) error {
	return gpu.NTTAsMulti(b, dir, p, src, dst)
}

// NTTMulti implements gpu.MultiBackend: the tables of every modulus are
// resolved first (the only step that can fail), then every (modulus,
// polynomial) of the batch runs on the worker pool at once. The output is
// always reduced, which also serves lazy batches.
func (b *Backend) NTTMulti(batch *gpu.Batch) error {
	if err := gpu.CheckMulti(batch); err != nil {
		return err
	}
	ts := make([]*C.fg_table, len(batch.Limbs))
	for i, l := range batch.Limbs {
		t, err := b.tableOf(l.P)
		if err != nil {
			return err
		}
		ts[i] = t
	}
	b.mu.RLock() // Close waits for the batch
	defer b.mu.RUnlock()
	if b.closed {
		return gpu.ErrClosed
	}
	cpath := b.cpath()
	gpu.ParallelJobs(batch, b.Workers, func(i, k int) {
		l := batch.Limbs[i]
		b.one(batch.Dir, cpath, ts[i], l.Src[k], l.Dst[k])
	})
	return nil
}
