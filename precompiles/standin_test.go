package precompiles

import "github.com/fhegate/fhegate/precompiles/internal/standin"

// The stand-in backends for this package's own tests (package
// precompilestest wraps the same code for other packages; importing it here
// would be an import cycle).

type standInCompiler struct{}

func (standInCompiler) Compile(spec []byte) (PlanInfo, error) {
	p, err := standin.Compile(spec)
	if err != nil {
		return PlanInfo{}, err
	}
	return PlanInfo{PlanHash: Hash(p.PlanHash), Depth: p.Depth, Cost: p.Cost, Inputs: p.Inputs}, nil
}

type standInMerger struct{}

func (standInMerger) Validate(kind uint8, meta []byte) error          { return standin.Validate(meta) }
func (standInMerger) Merge(kind uint8, a, b []byte) ([]byte, error)   { return standin.Merge(a, b) }
func (standInMerger) Handles(kind uint8, meta []byte) ([]Hash, error) { return nil, nil }

// testOptions are suite options with the stand-ins.
func testOptions() Options { return Options{Compiler: standInCompiler{}, Merger: standInMerger{}} }

// EncodeVersionVector builds stand-in metadata (test helper).
func EncodeVersionVector(pairs ...[2]uint64) []byte { return standin.EncodeVersionVector(pairs...) }
