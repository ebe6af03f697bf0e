package policy

import (
	"errors"
	"fmt"
)

// Error kinds. Every error returned by Compile wraps exactly one of them, so
// callers can branch with errors.Is; the *Error value carries the position.
var (
	// ErrSyntax: the document is not valid YAML/JSON or an expression does not parse.
	ErrSyntax = errors.New("policy: syntax error")
	// ErrSchema: a field is missing, unknown, duplicated or of the wrong type.
	ErrSchema = errors.New("policy: schema error")
	// ErrUndeclared: an expression names an input, constant or let that is not declared (before use).
	ErrUndeclared = errors.New("policy: undeclared name")
	// ErrType: a boolean is used where an integer is required, or the reverse.
	ErrType = errors.New("policy: type error")
	// ErrRange: a declared range or a derived value set cannot be represented
	// exactly modulo t = 65537 (span above 65536, magnitude above 2^40, an
	// output outside its declared bounds, …).
	ErrRange = errors.New("policy: range error")
	// ErrTooDeep: a comparison or membership polynomial has a degree that no
	// preset can evaluate from a fresh ciphertext, even with refreshes.
	ErrTooDeep = errors.New("policy: too deep for every preset")
	// ErrInput: EvalPlain / PackInputs got the wrong number of inputs, ragged
	// batches, or (PackInputs, EvalSpec) an out-of-range value.
	ErrInput = errors.New("policy: bad input")
)

// Error is a compile error with its position in the policy document.
type Error struct {
	Kind  error  // one of the Err* kinds above
	Line  int    // 1-based line in the document (0 if unknown)
	Col   int    // 1-based column (0 if unknown)
	Field string // path of the field, e.g. "inputs[2].max" or "output.expr"
	Msg   string
}

func (e *Error) Error() string {
	pos := ""
	if e.Line > 0 {
		pos = fmt.Sprintf("line %d", e.Line)
		if e.Col > 0 {
			pos += fmt.Sprintf(" col %d", e.Col)
		}
		pos += ": "
	}
	field := ""
	if e.Field != "" {
		field = e.Field + ": "
	}
	return fmt.Sprintf("%s: %s%s%s", e.Kind, pos, field, e.Msg)
}

// Unwrap returns the error kind.
func (e *Error) Unwrap() error { return e.Kind }

func errAt(kind error, line, col int, field, format string, args ...any) *Error {
	return &Error{Kind: kind, Line: line, Col: col, Field: field, Msg: fmt.Sprintf(format, args...)}
}
