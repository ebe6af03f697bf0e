//go:build !cgo

package native

import (
	"fmt"

	"github.com/fhegate/fhegate/gpu"
)

// Built reports whether the native backend is compiled in (it needs cgo).
const Built = false

// New reports that this binary was built without cgo.
func New() (gpu.Backend, error) {
	return nil, fmt.Errorf("%w: native (rebuild with cgo and a C compiler)", gpu.ErrNotBuilt)
}

// MulAddPath reports PathScalar: without cgo there is no vector
// multiply-add (fhe.SlotPacker uses its Go loop).
func MulAddPath() Path { return PathScalar }

// MulAddRunnable reports false: without cgo there is no vector
// multiply-add.
func MulAddRunnable(Path) bool { return false }

// MulAdd is not available without cgo.
func MulAdd(Path, []uint64, []byte, []uint64, []uint64, uint64, bool) (bool, error) {
	return false, fmt.Errorf("%w: native multiply-add (rebuild with cgo)", gpu.ErrNotBuilt)
}
