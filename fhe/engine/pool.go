package engine

import (
	"sync"

	"github.com/tuneinsight/lattigo/v6/ring"
)

// limbPools recycles N-coefficient scratch limbs (one sync.Pool per N) so
// that the engine's ModDown and rescale allocate no more than Lattigo's
// pooled versions do. Scratch limbs are always fully overwritten before
// they are read.
var limbPools sync.Map // int → *sync.Pool of *[]uint64

func limbPool(n int) *sync.Pool {
	if p, ok := limbPools.Load(n); ok {
		return p.(*sync.Pool)
	}
	p, _ := limbPools.LoadOrStore(n, &sync.Pool{New: func() any { s := make([]uint64, n); return &s }})
	return p.(*sync.Pool)
}

// scratch hands out pooled limbs of n coefficients; release returns them.
type scratch struct {
	pool  *sync.Pool
	limbs []*[]uint64
}

func newScratch(n int) *scratch { return &scratch{pool: limbPool(n)} }

func (s *scratch) limb() []uint64 {
	l := s.pool.Get().(*[]uint64)
	s.limbs = append(s.limbs, l)
	return *l
}

// poly returns a pooled polynomial with level+1 limbs.
func (s *scratch) poly(level int) ring.Poly {
	c := make([][]uint64, level+1)
	for i := range c {
		c[i] = s.limb()
	}
	return ring.Poly{Coeffs: c}
}

func (s *scratch) release() {
	for _, l := range s.limbs {
		s.pool.Put(l)
	}
	s.limbs = nil
}
