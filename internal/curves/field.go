package curves

import (
	"math"
	"strconv"
	"strings"
)

// Field is a numeric input as typed, with its parsed value and the reason it is invalid. The
// widget's μ, ε and δ are Fields, and so are the page's other numeric inputs (ui.Field).
type Field struct {
	// Text is the field as typed.
	Text string
	// Err explains why Text is not valid; empty when it is.
	Err string
	// Value is the last valid value.
	Value float64
}

// Set parses text and checks it; check returns the reason a number is not acceptable, or "".
// An invalid text keeps the last valid Value.
func (f *Field) Set(text string, check func(float64) string) {
	f.Text = text
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	switch {
	case err != nil && strings.Contains(text, ","):
		// A decimal comma, or a thousands separator: reading either would guess.
		f.Err = "Enter a number with a point for its decimals (1.5) and no thousands separators."
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

// CheckMu accepts a Gaussian-DP parameter μ in (0, 100].
func CheckMu(v float64) string {
	switch {
	case v <= 0:
		return "μ must be positive."
	case v > 100:
		return "μ above 100 gives no meaningful privacy; enter at most 100."
	}
	return ""
}

// CheckEps accepts a target ε in (0, 50]; the page's budget ε is checked the same way.
func CheckEps(v float64) string {
	switch {
	case v <= 0:
		return "ε must be positive."
	case v > 50:
		return "ε above 50 gives no meaningful privacy; enter at most 50."
	}
	return ""
}

// CheckDelta accepts a target δ in [10⁻³⁰⁰, 1).
func CheckDelta(v float64) string {
	if !(v > 0 && v < 1) {
		return "δ must be between 0 and 1 (exclusive)."
	}
	if v < 1e-300 {
		return "δ below 10⁻³⁰⁰ is not supported."
	}
	return ""
}
