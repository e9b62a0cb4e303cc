package data

import (
	"math"
	"strings"
	"testing"
)

// mustSchema loads a schema from its JSON text or fails the test.
func mustSchema(t testing.TB, js string) *Schema {
	t.Helper()
	s, err := LoadSchema(strings.NewReader(js))
	if err != nil {
		t.Fatalf("LoadSchema: %v", err)
	}
	return s
}

// closeTo reports whether got is within tol of want, relative to max(1, |want|).
func closeTo(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}
