// Package usage marks errors in a command line — an unknown command or flag,
// a wrong number of arguments, a bad flag value or combination — so that the
// fhegate CLI exits with status 2 on them and 1 on every other error. The
// benchmarks under bench/ validate their own options and return the same
// marker, so one type serves the CLI and every package it drives.
package usage

import (
	"errors"
	"fmt"
)

// Error marks Err as a command-line error.
type Error struct{ Err error }

func (e Error) Error() string { return e.Err.Error() }
func (e Error) Unwrap() error { return e.Err }

// Errorf is fmt.Errorf marked as a usage Error.
func Errorf(format string, args ...any) error {
	return Error{fmt.Errorf(format, args...)}
}

// Is reports whether err is, or wraps, a usage Error.
func Is(err error) bool {
	var ue Error
	return errors.As(err, &ue)
}
