//go:build !(darwin && cgo)

package metal

import (
	"fmt"

	"github.com/fhegate/fhegate/gpu"
)

// Built reports whether the Metal backend is compiled in.
const Built = false

// New reports that Metal exists only on darwin with cgo.
func New() (gpu.Backend, error) {
	return nil, fmt.Errorf("%w: metal (darwin with cgo only)", gpu.ErrNotBuilt)
}
