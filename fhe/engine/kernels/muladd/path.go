package muladd

import (
	"os"
	"sync"

	"golang.org/x/sys/cpu"
)

// Path is the implementation a multiply-add runs on.
type Path int

const (
	// PathGo: no kernel here; the caller runs its Go loop.
	PathGo Path = iota
	// PathIFMA: the AVX-512 IFMA kernel (x86-64, cgo).
	PathIFMA
	// PathEmulated: the same lane arithmetic in portable C (tests only:
	// proves the vector algorithm on hosts without AVX-512).
	PathEmulated
)

func (p Path) String() string {
	switch p {
	case PathIFMA:
		return "ifma"
	case PathEmulated:
		return "emulated-ifma"
	}
	return "go"
}

// PathEnv, set to "scalar", makes the native code paths — this kernel and
// gpu/native's NTT backend — choose scalar code even where IFMA is
// available (comparison runs, suspected CPU trouble).
const PathEnv = "FHEGATE_NATIVE_PATH"

// QBound is the exclusive bound on q: the Shoup product lies in [0, 2q),
// exact in 52 bits for q < 2^51 (BGVN14's 51-bit Q0 included).
const QBound = 1 << 51

// Best is the path slot packing's multiply-add runs on in this process:
// PathIFMA where the kernel is built, the CPU has AVX-512F, DQ and IFMA and
// the OS saves their state (golang.org/x/sys/cpu), and PathEnv is not
// "scalar"; else PathGo.
var Best = sync.OnceValue(func() Path {
	if ifmaBuilt() && cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512IFMA && os.Getenv(PathEnv) != "scalar" {
		return PathIFMA
	}
	return PathGo
})

// Runnable reports whether MulAdd can run on path here: PathIFMA where
// Best is PathIFMA, PathEmulated on any little-endian cgo build (MulAdd
// reads c as little-endian words in place).
func Runnable(path Path) bool {
	switch path {
	case PathIFMA:
		return Best() == PathIFMA
	case PathEmulated:
		return emulatedBuilt && littleEndian
	}
	return false
}
