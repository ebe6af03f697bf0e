//go:build !cgo

package muladd

import "errors"

// MulAdd is not available without cgo: Runnable reports false for every
// path, and fhe.SlotPacker runs its Go loop.
func MulAdd(Path, []uint64, []byte, []uint64, []uint64, uint64, bool) (bool, error) {
	return false, errors.New("muladd: built without cgo")
}

func ifmaBuilt() bool { return false }

const emulatedBuilt = false

const littleEndian = false
