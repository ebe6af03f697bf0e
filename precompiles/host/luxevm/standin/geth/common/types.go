// Package common is a stand-in for github.com/luxfi/geth/common (go-ethereum's
// common package): the Address and Hash types, shapes only.
package common

import (
	"encoding/hex"
	"errors"
	"fmt"
)

// Lengths of hashes and addresses in bytes.
const (
	HashLength    = 32
	AddressLength = 20
)

// Hash is a 32-byte word (storage keys and values, log topics).
type Hash [HashLength]byte

// Bytes returns the hash's bytes.
func (h Hash) Bytes() []byte { return h[:] }

// Address is a 20-byte account address.
type Address [AddressLength]byte

// Bytes returns the address's bytes.
func (a Address) Bytes() []byte { return a[:] }

// BytesToAddress keeps the last 20 bytes of b (left-padded when shorter).
func BytesToAddress(b []byte) Address {
	var a Address
	if len(b) > len(a) {
		b = b[len(b)-AddressLength:]
	}
	copy(a[AddressLength-len(b):], b)
	return a
}

// HexToAddress parses hex (0x-prefixed or not) into an address; bad hex gives
// the zero address, as go-ethereum's does.
func HexToAddress(s string) Address {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	if len(s)%2 == 1 {
		s = "0" + s
	}
	b, _ := hex.DecodeString(s)
	return BytesToAddress(b)
}

// MarshalText renders a as 0x-prefixed lowercase hex.
func (a Address) MarshalText() ([]byte, error) {
	return []byte("0x" + hex.EncodeToString(a[:])), nil
}

// UnmarshalText reads 0x-prefixed hex of exactly 20 bytes.
func (a *Address) UnmarshalText(in []byte) error { return unmarshalFixed(in, a[:]) }

// MarshalText renders h as 0x-prefixed lowercase hex.
func (h Hash) MarshalText() ([]byte, error) {
	return []byte("0x" + hex.EncodeToString(h[:])), nil
}

// UnmarshalText reads 0x-prefixed hex of exactly 32 bytes.
func (h *Hash) UnmarshalText(in []byte) error { return unmarshalFixed(in, h[:]) }

func unmarshalFixed(in, out []byte) error {
	if len(in) < 2 || in[0] != '0' || (in[1] != 'x' && in[1] != 'X') {
		return errors.New("hex string without 0x prefix")
	}
	if len(in)-2 != 2*len(out) {
		return fmt.Errorf("hex string has length %d, want %d", len(in)-2, 2*len(out))
	}
	_, err := hex.Decode(out, in[2:])
	return err
}
