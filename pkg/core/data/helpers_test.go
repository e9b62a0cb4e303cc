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

// denseX returns the rows of ds dense, row-major, however they are held (through Row).
func denseX(ds *Dataset) []float64 {
	out := make([]float64, 0, ds.N*ds.D)
	x := make([]float64, ds.D)
	for i := range ds.N {
		x = ds.Row(i, x)
		out = append(out, x...)
	}
	return out
}

// values returns the storage of the first feature value ds holds (of X, or of its first block
// of sparse rows), to tell whether two datasets share it.
func values(ds *Dataset) *float64 {
	if ds.Sparse != nil {
		return &ds.Sparse.Blocks[0].Val[0]
	}
	return &ds.X[0]
}
