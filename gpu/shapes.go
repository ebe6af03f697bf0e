package gpu

import (
	"sort"
	"sync"
)

// maxShapes bounds the distinct shapes the dispatcher counts; later new
// shapes are counted together as Other.
const maxShapes = 512

// ShapeCount is how often the engine handed over batches of one shape.
type ShapeCount struct {
	Shape
	Batches uint64 `json:"batches"`
}

// shapeCounter counts the multi-modulus shapes the engine produces — what
// `fhegate calibrate` must measure.
type shapeCounter struct {
	mu    sync.Mutex
	n     map[Shape]uint64
	other uint64
}

func (c *shapeCounter) record(s Shape) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[Shape]uint64{}
	}
	if _, ok := c.n[s]; !ok && len(c.n) >= maxShapes {
		c.other++
		return
	}
	c.n[s]++
}

func (c *shapeCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n, c.other = nil, 0
}

// Shapes returns the batch shapes the engine handed over since the
// dispatcher was made or ResetShapes was last called, most frequent first (ties: by N, moduli, B, direction),
// and the count of batches whose shape was not tracked (beyond maxShapes).
func (d *Dispatcher) Shapes() ([]ShapeCount, uint64) {
	c := &d.shapes
	c.mu.Lock()
	out := make([]ShapeCount, 0, len(c.n))
	for s, n := range c.n {
		out = append(out, ShapeCount{Shape: s, Batches: n})
	}
	other := c.other
	c.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Batches != b.Batches {
			return a.Batches > b.Batches
		}
		if a.LogN != b.LogN {
			return a.LogN < b.LogN
		}
		if a.Moduli != b.Moduli {
			return a.Moduli < b.Moduli
		}
		if a.B != b.B {
			return a.B < b.B
		}
		return a.Dir < b.Dir
	})
	return out, other
}
