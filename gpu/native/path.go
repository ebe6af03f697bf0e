package native

import "github.com/fhegate/fhegate/fhe/engine/kernels/muladd"

// Name is the backend name.
const Name = "native"

// Path selects the implementation the backend runs.
type Path int

const (
	// PathAuto: IFMA when the CPU and OS support it, else scalar C.
	PathAuto Path = iota
	// PathScalar: Lattigo's exact lazy schedule in scalar C, every q and input.
	PathScalar
	// PathIFMA: AVX-512 IFMA vectors for q < 2^51 and inputs within the
	// reduce-on-load bounds (doc.go), scalar C otherwise.
	PathIFMA
	// PathEmulated: the IFMA kernels on a portable C model of the intrinsics
	// (tests only: proves the vector algorithm on hosts without AVX-512).
	PathEmulated
)

func (p Path) String() string {
	switch p {
	case PathScalar:
		return "scalar"
	case PathIFMA:
		return "ifma"
	case PathEmulated:
		return "emulated-ifma"
	}
	return "auto"
}

// PathEnv, set to "scalar", makes New choose the scalar C path even where
// IFMA is available (comparison runs, suspected CPU trouble); the slot
// packer's multiply-add (fhe/engine/kernels/muladd) reads the same switch.
const PathEnv = muladd.PathEnv

// VecQBound is the exclusive bound on q for the narrow vector butterflies
// (4q < 2^52).
const VecQBound = 1 << 50

// NTTQBound is the exclusive bound on q for the vector NTT (2q < 2^52):
// 2^50 ≤ q < 2^51 runs the wide butterflies (see doc.go).
const NTTQBound = 1 << 51
