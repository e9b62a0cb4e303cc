package data

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Error is an error in a CSV input, located by its line and column. Its message has the
// form
//
//	data: line 12, column "age": "abc" is not a number
//
// with "column 3" (the 1-based position of the field in its line) when the column has no
// name, and no column part when the error is about a whole line.
type Error struct {
	// Line is the 1-based physical line where the record or field in error starts (the
	// header is line 1), counting every line ending, including those inside quoted fields.
	Line int
	// Column is the name of the column from the header, or "" when it has none.
	Column string
	// Index is the 1-based position of the field in its record, or 0 when the error is
	// about the whole line.
	Index int
	// Err is the reason.
	Err error
}

// Error formats the error as described on the type.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "data: line %d", e.Line)
	switch {
	case e.Column != "":
		fmt.Fprintf(&b, ", column %q", e.Column)
	case e.Index > 0:
		fmt.Fprintf(&b, ", column %d", e.Index)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the reason, so errors.Is and errors.As see through an Error.
func (e *Error) Unwrap() error { return e.Err }

// lineError returns an *Error about a whole line.
func lineError(line int, format string, args ...any) *Error {
	return &Error{Line: line, Err: fmt.Errorf(format, args...)}
}

// fieldError returns an *Error about the field at 1-based position index; the caller that
// knows the header fills in Column.
func fieldError(line, index int, format string, args ...any) *Error {
	return &Error{Line: line, Index: index, Err: fmt.Errorf(format, args...)}
}

// maxQuoted is the longest value, in bytes, that an error message quotes whole.
const maxQuoted = 64

// quote returns b as a Go-quoted string for an error message, shortened to maxQuoted bytes
// (at a character boundary) with "…" when longer.
func quote(b []byte) string {
	if len(b) <= maxQuoted {
		return fmt.Sprintf("%q", b)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…", b[:cut])
}
