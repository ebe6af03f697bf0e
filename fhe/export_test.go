package fhe

import "github.com/fhegate/fhegate/fhe/engine/kernels/muladd"

// UsePackPath makes SlotPackers created from now on multiply-add on path
// (PathGo: the Go loop; PathEmulated: the vector kernel's C model;
// PathIFMA: the kernel) and returns the function that undoes it.
func UsePackPath(p muladd.Path) func() {
	packPathOverride.Store(int32(p))
	return func() { packPathOverride.Store(-1) }
}

// PackPath is the multiply-add path of sp.
func (sp *SlotPacker) PackPath() muladd.Path { return sp.vec }

// SetPackBudget sets sp's additions between lazy reductions (tests reach
// the reduction points with a few requests).
func (sp *SlotPacker) SetPackBudget(b uint64) { sp.budget = b }

// LazyWithin reports whether every accumulator word is below q·(1+2·budget),
// the bound of at most budget lazy additions (each < 2q) since the last
// reduction (which leaves words < q).
func (sp *SlotPacker) LazyWithin(budget uint64) bool {
	for _, a := range append(sp.acc[:len(sp.acc):len(sp.acc)], sp.accUp...) {
		for k := 0; k < 2; k++ {
			for i := 0; i <= sp.level; i++ {
				q := sp.p.Q()[i]
				for _, x := range a.Value[k].Coeffs[i] {
					if x >= q*(1+2*budget) {
						return false
					}
				}
			}
		}
	}
	return true
}
