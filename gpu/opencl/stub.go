//go:build !opencl || !cgo

package opencl

import (
	"fmt"

	"github.com/fhegate/fhegate/gpu"
)

// Built reports whether the OpenCL backend is compiled in.
const Built = false

// New reports that this binary was built without `-tags opencl` (or cgo).
func New() (gpu.Backend, error) {
	return nil, fmt.Errorf("%w: opencl (rebuild with -tags opencl and cgo)", gpu.ErrNotBuilt)
}
