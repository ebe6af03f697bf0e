package gpu

import (
	"errors"
	"fmt"

	"github.com/tuneinsight/lattigo/v6/ring"
)

// Direction selects the forward (SubRing.NTT) or inverse (SubRing.INTT)
// transform.
type Direction uint8

const (
	// Forward is the negacyclic NTT, coefficients → evaluations.
	Forward Direction = iota
	// Inverse is the negacyclic inverse NTT, evaluations → coefficients.
	Inverse
)

func (d Direction) String() string {
	if d == Inverse {
		return "inverse"
	}
	return "forward"
}

// MarshalText writes "forward" or "inverse" (JSON of shapes and reports).
func (d Direction) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads "forward" or "inverse".
func (d *Direction) UnmarshalText(b []byte) error {
	switch string(b) {
	case "forward":
		*d = Forward
	case "inverse":
		*d = Inverse
	default:
		return fmt.Errorf("%w: direction %q", ErrBadBatch, b)
	}
	return nil
}

// MinN is the smallest ring degree the backends handle. Below it Lattigo uses
// a different (non-unrolled) lazy-reduction schedule; the dispatcher leaves
// such rings to Lattigo.
const MinN = 16

// MaxLogN bounds the ring degrees accepted by the backends and the table.
const MaxLogN = 17

// Errors returned by backends.
var (
	// ErrUnsupported: the parameters are outside what the backend handles.
	ErrUnsupported = errors.New("gpu: unsupported parameters")
	// ErrBadBatch: the batch is malformed (lengths, nil slices).
	ErrBadBatch = errors.New("gpu: malformed batch")
	// ErrNotBuilt: the backend is not compiled into this binary.
	ErrNotBuilt = errors.New("gpu: backend not built into this binary")
	// ErrNoDevice: the backend is built but found no usable device.
	ErrNoDevice = errors.New("gpu: no device")
	// ErrClosed: the backend was closed.
	ErrClosed = errors.New("gpu: backend closed")
)

// Params are the constants of one (N, q) NTT, taken from a Lattigo SubRing.
// The slices are shared with the SubRing and must not be modified.
type Params struct {
	N             int
	Q             uint64
	MRedConstant  uint64
	BRedConstant  [2]uint64
	NInv          uint64 // N^{-1} mod q, Montgomery form
	PrimitiveRoot uint64
	RootsForward  []uint64 // Montgomery form, bit-reversed order
	RootsBackward []uint64 // Montgomery form, bit-reversed order
}

// Key identifies the twiddle tables of a Params; backends cache device-side
// tables by it.
type Key struct {
	N    int
	Q    uint64
	Root uint64
}

// Key returns the cache key of p.
func (p *Params) Key() Key { return Key{N: p.N, Q: p.Q, Root: p.PrimitiveRoot} }

// LogN returns log2(N).
func (p *Params) LogN() int {
	l := 0
	for n := p.N; n > 1; n >>= 1 {
		l++
	}
	return l
}

// ParamsOf extracts the NTT constants of a standard (negacyclic) SubRing.
// Conjugate-invariant subrings and degrees below MinN are ErrUnsupported.
func ParamsOf(s *ring.SubRing) (*Params, error) {
	if s == nil || s.NTTTable == nil {
		return nil, fmt.Errorf("%w: nil subring or NTT table", ErrUnsupported)
	}
	if s.Type() != ring.Standard {
		return nil, fmt.Errorf("%w: conjugate-invariant ring", ErrUnsupported)
	}
	p := &Params{
		N:             s.N,
		Q:             s.Modulus,
		MRedConstant:  s.MRedConstant,
		BRedConstant:  s.BRedConstant,
		NInv:          s.NInv,
		PrimitiveRoot: s.PrimitiveRoot,
		RootsForward:  s.RootsForward,
		RootsBackward: s.RootsBackward,
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// Validate checks the shape of p (not the number theory, which Lattigo did).
func (p *Params) Validate() error {
	if p.N < MinN || p.N > 1<<MaxLogN || p.N&(p.N-1) != 0 {
		return fmt.Errorf("%w: N=%d (want a power of two in [%d, 2^%d])", ErrUnsupported, p.N, MinN, MaxLogN)
	}
	if p.Q < 3 || p.Q>>62 != 0 {
		return fmt.Errorf("%w: modulus %d (want an odd prime < 2^62)", ErrUnsupported, p.Q)
	}
	if len(p.RootsForward) < p.N || len(p.RootsBackward) < p.N {
		return fmt.Errorf("%w: twiddle tables shorter than N", ErrUnsupported)
	}
	return nil
}

// DeviceInfo describes where a backend runs; it is the device part of the
// crossover table's fingerprint.
type DeviceInfo struct {
	Backend string `json:"backend"`
	Device  string `json:"device"`
	Driver  string `json:"driver"`
	HostCPU string `json:"host_cpu"`
}

// Backend is a batched negacyclic NTT engine for one (N, q) at a time.
//
// NTT transforms the B = len(src) polynomials src[i] (each exactly p.N
// coefficients) into dst[i], forward or inverse, with output byte-identical to
// Lattigo's SubRing.NTT / SubRing.INTT. dst[i] may alias src[i] (in place);
// distinct i must not overlap. On error neither src nor dst has been
// modified. Implementations are safe for concurrent use.
type Backend interface {
	Name() string
	Info() DeviceInfo
	NTT(dir Direction, p *Params, src, dst [][]uint64) error
	Close() error
}

// Exclusive is implemented by a backend whose calls run one at a time on
// one device queue (OpenCL): the dispatcher then hands it a call only when
// it is idle and runs a call that finds it busy on the CPU
// (Dispatcher.claim).
type Exclusive interface {
	Exclusive() bool
}

// CheckBatch validates a batch against p; backends call it first.
func CheckBatch(p *Params, src, dst [][]uint64) error {
	if p == nil {
		return fmt.Errorf("%w: nil params", ErrBadBatch)
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if len(src) == 0 || len(src) != len(dst) {
		return fmt.Errorf("%w: len(src)=%d len(dst)=%d", ErrBadBatch, len(src), len(dst))
	}
	for i := range src {
		if len(src[i]) != p.N || len(dst[i]) != p.N {
			return fmt.Errorf("%w: polynomial %d has len %d→%d, want %d", ErrBadBatch, i, len(src[i]), len(dst[i]), p.N)
		}
	}
	return nil
}
