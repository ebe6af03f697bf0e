// Package standin holds the deterministic stand-in policy compiler and CRDT
// metadata merger used by fhegate's tests. It does not import package
// precompiles, so precompiles' own (internal) tests and
// precompiles/precompilestest both wrap it. Never wire it into a chain: the
// real backends are in precompiles/corebackends.
package standin

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/fhegate/fhegate/internal/keccak"
)

// Plan is what Compile reports (the fields of precompiles.PlanInfo).
type Plan struct {
	PlanHash [32]byte
	Depth    uint32
	Cost     uint64
	Inputs   uint32
}

// Compile: plan hash = keccak256("fhegate/standin-plan/v1" || spec),
// depth = number of '*' bytes, cost = 1000 + 10 per byte, inputs = the digit
// after "inputs=" (0 = any). A spec starting with "fail" is rejected (to
// exercise the error path).
func Compile(spec []byte) (Plan, error) {
	if bytes.HasPrefix(spec, []byte("fail")) {
		return Plan{}, errors.New("stand-in: spec rejected")
	}
	inputs := uint32(0)
	if i := bytes.Index(spec, []byte("inputs=")); i >= 0 && i+7 < len(spec) {
		d := spec[i+7]
		if d >= '0' && d <= '9' {
			inputs = uint32(d - '0')
		}
	}
	return Plan{
		PlanHash: keccak.Sum([]byte("fhegate/standin-plan/v1"), spec),
		Depth:    uint32(bytes.Count(spec, []byte("*"))),
		Cost:     1000 + 10*uint64(len(spec)),
		Inputs:   inputs,
	}, nil
}

// Metadata is a sequence of 16-byte entries (replica id uint64, version
// uint64, big-endian) with strictly increasing replica ids; Merge takes the
// per-replica maximum version (a version-vector join: commutative,
// associative, idempotent).

func parseVV(meta []byte) ([][2]uint64, error) {
	if len(meta)%16 != 0 {
		return nil, fmt.Errorf("stand-in: metadata length %d not a multiple of 16", len(meta))
	}
	out := make([][2]uint64, len(meta)/16)
	for i := range out {
		out[i] = [2]uint64{binary.BigEndian.Uint64(meta[16*i:]), binary.BigEndian.Uint64(meta[16*i+8:])}
		if i > 0 && out[i][0] <= out[i-1][0] {
			return nil, errors.New("stand-in: replica ids not strictly increasing")
		}
	}
	return out, nil
}

func encodeVV(vv [][2]uint64) []byte {
	out := make([]byte, 16*len(vv))
	for i, e := range vv {
		binary.BigEndian.PutUint64(out[16*i:], e[0])
		binary.BigEndian.PutUint64(out[16*i+8:], e[1])
	}
	return out
}

// Validate checks stand-in metadata.
func Validate(meta []byte) error {
	_, err := parseVV(meta)
	return err
}

// Merge joins two version vectors.
func Merge(a, b []byte) ([]byte, error) {
	x, err := parseVV(a)
	if err != nil {
		return nil, err
	}
	y, err := parseVV(b)
	if err != nil {
		return nil, err
	}
	out := make([][2]uint64, 0, len(x)+len(y))
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case j >= len(y) || (i < len(x) && x[i][0] < y[j][0]):
			out = append(out, x[i])
			i++
		case i >= len(x) || y[j][0] < x[i][0]:
			out = append(out, y[j])
			j++
		default:
			v := x[i][1]
			if y[j][1] > v {
				v = y[j][1]
			}
			out = append(out, [2]uint64{x[i][0], v})
			i++
			j++
		}
	}
	return encodeVV(out), nil
}

// EncodeVersionVector builds stand-in metadata from (replica, version) pairs
// (sorted by replica).
func EncodeVersionVector(pairs ...[2]uint64) []byte { return encodeVV(pairs) }
