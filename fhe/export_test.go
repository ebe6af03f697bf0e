package fhe

import "github.com/fhegate/fhegate/fhe/engine/muladd"

// UsePackPath makes SlotPackers created from now on multiply-add on path
// (PathGo: the Go loop; PathEmulated: the vector kernel's C model;
// PathIFMA: the kernel) and returns the function that undoes it.
func UsePackPath(p muladd.Path) func() {
	packPathOverride.Store(int32(p))
	return func() { packPathOverride.Store(-1) }
}

// PackPath is the multiply-add path of sp.
func (sp *SlotPacker) PackPath() muladd.Path { return sp.vec }
