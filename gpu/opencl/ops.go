package opencl

import (
	"fmt"
	"strings"
)

// KeySwitchOps selects the key-switch loops the backend takes; the others
// it declines (the engine runs Lattigo's).
type KeySwitchOps uint8

// The key-switch loops.
const (
	OpMulAcc KeySwitchOps = 1 << iota
	OpModUp
	OpScaleDiff
	AllKeySwitchOps = OpMulAcc | OpModUp | OpScaleDiff
)

// ParseKeySwitchOps parses FHEGATE_OPENCL_KEYSWITCH: "" or "all" (every
// loop), "none", or a comma-separated list of muladd, modup, scalediff.
func ParseKeySwitchOps(v string) (KeySwitchOps, error) {
	switch strings.TrimSpace(v) {
	case "", "all":
		return AllKeySwitchOps, nil
	case "none":
		return 0, nil
	}
	var ops KeySwitchOps
	for _, f := range strings.Split(v, ",") {
		switch strings.TrimSpace(f) {
		case "muladd":
			ops |= OpMulAcc
		case "modup":
			ops |= OpModUp
		case "scalediff":
			ops |= OpScaleDiff
		default:
			return 0, fmt.Errorf("opencl: FHEGATE_OPENCL_KEYSWITCH=%q: want all, none or a list of muladd, modup, scalediff", v)
		}
	}
	return ops, nil
}
