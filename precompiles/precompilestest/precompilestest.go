// Package precompilestest provides the deterministic stand-in policy compiler
// and CRDT metadata merger for tests of packages that build the precompiles
// (host adapters, devchain, consensus). precompiles.NewSuite refuses nil
// backends, so a chain can only run the stand-ins if a test installs them
// from here on purpose; validators use precompiles/corebackends.
package precompilestest

import (
	"github.com/fhegate/fhegate/precompiles"
	"github.com/fhegate/fhegate/precompiles/internal/standin"
)

// Compiler is the stand-in policy compiler: plan hash =
// keccak256("fhegate/standin-plan/v1" || spec), depth = number of '*' bytes,
// cost = 1000 + 10 per byte, inputs = the digit after "inputs=" (0 = any); a
// spec starting with "fail" is rejected.
type Compiler struct{}

var _ precompiles.PolicyCompiler = Compiler{}

// Compile implements precompiles.PolicyCompiler.
func (Compiler) Compile(spec []byte) (precompiles.PlanInfo, error) {
	p, err := standin.Compile(spec)
	if err != nil {
		return precompiles.PlanInfo{}, err
	}
	return precompiles.PlanInfo{PlanHash: precompiles.Hash(p.PlanHash), Depth: p.Depth, Cost: p.Cost, Inputs: p.Inputs}, nil
}

// Merger is the stand-in CRDT metadata merger: version vectors of 16-byte
// (replica, version) entries; merge takes the per-replica maximum. Its
// metadata references no handles.
type Merger struct{}

var _ precompiles.CRDTMerger = Merger{}

// Validate implements precompiles.CRDTMerger.
func (Merger) Validate(kind uint8, meta []byte) error { return standin.Validate(meta) }

// Merge implements precompiles.CRDTMerger.
func (Merger) Merge(kind uint8, a, b []byte) ([]byte, error) { return standin.Merge(a, b) }

// Handles implements precompiles.CRDTMerger.
func (Merger) Handles(kind uint8, meta []byte) ([]precompiles.Hash, error) { return nil, nil }

// Options returns suite options with the stand-ins.
func Options() precompiles.Options {
	return precompiles.Options{Compiler: Compiler{}, Merger: Merger{}}
}

// NewSuite builds a suite on the stand-ins.
func NewSuite() (*precompiles.Suite, error) { return precompiles.NewSuite(Options()) }

// EncodeVersionVector builds stand-in metadata from (replica, version) pairs
// (sorted by replica).
func EncodeVersionVector(pairs ...[2]uint64) []byte { return standin.EncodeVersionVector(pairs...) }
