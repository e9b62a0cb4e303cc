package loss

import "github.com/privopt/privopt/pkg/core/data"

// sparseRows holds the non-zero entries of a row-major n×d matrix by row: row i's are
// val[start[i]:start[i+1]], in columns col[start[i]:start[i+1]] (increasing).
//
// Its dot adds the non-zero terms in column order, one accumulator: the same value as the dense
// dot up to rounding (an error of order d·2⁻⁵³·‖x‖‖w‖ for both), not the same bits; the
// bits are the same natively on amd64 and in wasm (TestSparseReleasesIdenticalEverywhere in
// package mech pins them).
//
// The kernels (kernels.go) rely on what newSparseRows establishes: start is non-decreasing from
// start[0] = 0 to start[n] = len(col) = len(val), and every col[k] is in [0, d).
type sparseRows struct {
	start []int
	col   []int32
	val   []float64
	d     int
}

// SparseRows reports whether a linear-model loss (NewLinear) holds n rows of d entries, nnz of
// them non-zero, sparse: when at most a quarter of the entries are non-zero (otherwise the
// dense loops are as fast) and d fits an int32.
func SparseRows(n, d, nnz int) bool {
	return d <= 1<<30 && 4*nnz <= n*d
}

// Width is what one per-example query reads of its row, on average: Entries entries, which are
// the non-zero entries of rows held sparse when Sparse is set, and every entry of dense rows
// (one per parameter) otherwise. Predicted run times scale the cost of a query with it.
type Width struct {
	Entries float64 `json:"entries"`
	Sparse  bool    `json:"sparse"`
}

// RowWidth returns the Width of a query of a linear-model loss over ds: the mean number of
// non-zero entries per row when NewLinear holds the rows sparse (SparseRows), every one of the D
// entries otherwise. It reads the data: it serves the run times predicted for the data's owner
// on their own machine, never a plan (plans use public quantities only) or a release.
func RowWidth(ds *data.Dataset) Width {
	nnz := nonZeros(ds.X[:ds.N*ds.D])
	if ds.N < 1 || !SparseRows(ds.N, ds.D, nnz) {
		return Width{Entries: float64(ds.D)}
	}
	return Width{Entries: float64(nnz) / float64(ds.N), Sparse: true}
}

// newSparseRows returns the non-zero entries of x by row, or nil when SparseRows says the rows
// are better held dense.
func newSparseRows(x []float64, n, d int) *sparseRows {
	nnz := nonZeros(x[:n*d])
	if !SparseRows(n, d, nnz) {
		return nil
	}
	// d spare entries at the end: compressRow may be given a whole row's worth of room.
	col, val := make([]int32, nnz+d), make([]float64, nnz+d)
	s := &sparseRows{start: make([]int, n+1), d: d}
	k := 0
	for i := range n {
		k += compressRow(col[k:], val[k:], x[i*d:(i+1)*d])
		s.start[i+1] = k
	}
	s.col, s.val = col[:k:k], val[:k:k]
	return s
}

// dots writes ⟨x_{lo+r}, w⟩ into z[r] for every r < len(z): the non-zero terms in column
// order, one accumulator.
func (s *sparseRows) dots(z, w []float64, lo int) {
	s.checkWidth(w)
	sparseDots(z, s.start[lo:lo+len(z)+1], s.col, s.val, w)
}

// dot returns ⟨x_i, w⟩, dots's bits.
func (s *sparseRows) dot(i int, w []float64) float64 {
	var z [1]float64
	s.dots(z[:], w, i)
	return z[0]
}

// axpys adds c[r]·x_{lo+r} to y for every r < len(c) whose c[r] is not zero, in r order, with
// the bits of axpy(y, c[r], x_{lo+r}) (a zero entry would add a signed zero, which changes no
// sum that is not −0, and a coordinate that starts at +0 never becomes −0 under rounding to
// nearest).
func (s *sparseRows) axpys(y, c []float64, lo int) {
	s.checkWidth(y)
	sparseAxpys(y, c, s.start[lo:lo+len(c)+1], s.col, s.val)
}

// checkWidth panics when v is shorter than the rows, which the kernels, unchecked under
// WebAssembly, would read or write past.
func (s *sparseRows) checkWidth(v []float64) {
	if len(v) < s.d {
		panic("loss: a vector shorter than the rows")
	}
}
