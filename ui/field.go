package ui

import (
	"strconv"

	"github.com/privopt/privopt/internal/curves"
)

// Field is a numeric input as typed, with its parsed value and the reason it is invalid
// (curves.Field, which the privacy-curve widget's fields are too). The page keeps using a
// field's last valid Value while its Text is invalid.
type Field = curves.Field

// positive accepts a positive number.
func positive(v float64) string {
	if v <= 0 {
		return "Enter a positive number."
	}
	return ""
}

// exactText writes v in the shortest form that reads back exactly, for a field's text.
func exactText(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
