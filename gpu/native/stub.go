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
