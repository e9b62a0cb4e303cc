package ui

import (
	"math"
	"strconv"
	"strings"
)

// Field is a numeric input as typed, with its parsed value and the reason it is invalid.
type Field struct {
	// Text is the field as typed.
	Text string
	// Err explains why Text is not valid; empty when it is.
	Err string
	// Value is the last valid value; the page keeps using it while Text is invalid.
	Value float64
}

// set parses text and checks it; check returns the reason a number is not acceptable, or "".
// An invalid text keeps the last valid Value.
func (f *Field) set(text string, check func(float64) string) {
	f.Text = text
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	switch {
	case err != nil:
		f.Err = "Enter a number."
	case math.IsNaN(v) || math.IsInf(v, 0):
		f.Err = "Enter a finite number."
	default:
		f.Err = check(v)
	}
	if f.Err == "" {
		f.Value = v
	}
}

// Invalid is the aria-invalid state of the field: "true" when Err is set.
func (f *Field) Invalid() string { return strconv.FormatBool(f.Err != "") }

// positive accepts a positive number.
func positive(v float64) string {
	if v <= 0 {
		return "Enter a positive number."
	}
	return ""
}

// exactText writes v in the shortest form that reads back exactly, for a field's text.
func exactText(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
