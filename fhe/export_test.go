package fhe

import "github.com/fhegate/fhegate/gpu/native"

// UsePackPath makes SlotPackers created from now on multiply-add on path
// (PathScalar: the Go loop; PathEmulated: the vector kernel's C model;
// PathIFMA: the kernel) and returns the function that undoes it.
func UsePackPath(p native.Path) func() {
	packPathOverride.Store(int32(p))
	return func() { packPathOverride.Store(-1) }
}

// PackPath is the multiply-add path of sp.
func (sp *SlotPacker) PackPath() native.Path { return sp.vec }
