package precompiles

import (
	"errors"
	"fmt"
)

// ErrOutOfGas is returned when the supplied gas does not cover the charge; the
// host maps it to its out-of-gas error (all gas consumed).
var ErrOutOfGas = errors.New("out of gas")

// RevertError is a revert with a human-readable reason; the host returns
// EncodeRevert(Reason) as revert data and refunds the gas not yet charged.
type RevertError struct {
	Reason string
	// Err, when set, is the sentinel the revert stands for (errors.Is
	// finds it: ErrQueueFull).
	Err error
}

func (e *RevertError) Error() string { return "execution reverted: " + e.Reason }

// Unwrap returns the sentinel behind the revert (nil for most reverts).
func (e *RevertError) Unwrap() error { return e.Err }

// ErrQueueFull is the revert of FHEPolicy.evaluate when the block already
// holds MaxRequestsPerBlock requests: the request is not queued, no state
// changes, and the caller may retry in a later block.
var ErrQueueFull = errors.New("request queue full for this block")

// ErrDeposit is the revert of FHEPolicy's evaluations when the call value
// is not exactly the policy's deposit (FHEPolicy.depositOf; deposit.go).
var ErrDeposit = errors.New("wrong deposit")

// revertWith is a revert standing for sentinel: method, sentinel's text,
// then the details.
func revertWith(sentinel error, method, format string, args ...any) error {
	return &RevertError{Reason: method + ": " + sentinel.Error() + ": " + fmt.Sprintf(format, args...), Err: sentinel}
}

func revertf(format string, args ...any) error {
	return &RevertError{Reason: fmt.Sprintf(format, args...)}
}

// errorSelector is bytes4(keccak256("Error(string)")).
var errorSelector = [4]byte{0x08, 0xc3, 0x79, 0xa0}

// EncodeRevert ABI-encodes reason as Solidity's Error(string), the revert data
// Solidity surfaces as the reason string.
func EncodeRevert(reason string) []byte {
	n := len(reason)
	padded := (n + 31) / 32 * 32
	out := make([]byte, 4+32+32+padded)
	copy(out, errorSelector[:])
	out[4+31] = 0x20
	w := u64Word(uint64(n))
	copy(out[36:68], w[:])
	copy(out[68:], reason)
	return out
}

// DecodeRevert returns the reason from Error(string) revert data.
func DecodeRevert(data []byte) (string, bool) {
	if len(data) < 68 || [4]byte(data[:4]) != errorSelector {
		return "", false
	}
	n := new(Hash)
	copy(n[:], data[36:68])
	for _, b := range n[:24] {
		if b != 0 {
			return "", false
		}
	}
	l := int(uint64(n[24])<<56 | uint64(n[25])<<48 | uint64(n[26])<<40 | uint64(n[27])<<32 | uint64(n[28])<<24 | uint64(n[29])<<16 | uint64(n[30])<<8 | uint64(n[31]))
	if l < 0 || 68+l > len(data) {
		return "", false
	}
	return string(data[68 : 68+l]), true
}
