package configs

import "github.com/ava-labs/avalanchego/ids"

// VMName is the short name the fhegate VM ID is derived from. avalanchego finds
// a VM plugin by the CB58 form of its ID: the file <plugin-dir>/<VMID()>.
const VMName = "fhegatevm"

// VMID returns the fhegate VM's ID: VMName's bytes, zero-padded to 32 bytes
// (the same construction as subnet-evm's "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy").
func VMID() ids.ID {
	var id ids.ID
	copy(id[:], VMName)
	return id
}
