package loss

// sparseRows holds the non-zero entries of a row-major n×d matrix by row: row i's are
// val[start[i]:start[i+1]], in columns col[start[i]:start[i+1]] (increasing).
//
// Its dot adds the non-zero terms in column order, one accumulator: the same value as the dense
// dot up to rounding (an error of order d·2⁻⁵³·‖x‖‖w‖ for both), not the same bits; the
// bits are the same natively on amd64 and in wasm (TestSparseReleasesIdenticalEverywhere in
// package mech pins them).
type sparseRows struct {
	start []int
	col   []int32
	val   []float64
}

// newSparseRows returns the non-zero entries of x by row, or nil when more than a quarter of
// the entries are non-zero (the dense loops are then as fast) or d does not fit an int32.
func newSparseRows(x []float64, n, d int) *sparseRows {
	if d > 1<<30 {
		return nil
	}
	nnz := 0
	for _, v := range x[:n*d] {
		if v != 0 {
			nnz++
		}
	}
	if 4*nnz > n*d {
		return nil
	}
	s := &sparseRows{start: make([]int, n+1), col: make([]int32, 0, nnz), val: make([]float64, 0, nnz)}
	for i := range n {
		for j, v := range x[i*d : (i+1)*d] {
			if v != 0 {
				s.col, s.val = append(s.col, int32(j)), append(s.val, v)
			}
		}
		s.start[i+1] = len(s.col)
	}
	return s
}

// dot returns ⟨x_i, w⟩.
func (s *sparseRows) dot(i int, w []float64) float64 {
	lo, hi := s.start[i], s.start[i+1]
	cols, vals := s.col[lo:hi], s.val[lo:hi:hi]
	var s0 float64
	for k, j := range cols {
		s0 += vals[k] * w[j]
	}
	return s0
}

// axpy adds c·x_i to y, with the bits of axpy(y, c, x_i) (a zero entry would add a signed
// zero, which changes no sum that is not −0, and a coordinate that starts at +0 never becomes
// −0 under rounding to nearest).
func (s *sparseRows) axpy(y []float64, c float64, i int) {
	cols, vals := s.col[s.start[i]:s.start[i+1]], s.val[s.start[i]:s.start[i+1]]
	for k, j := range cols {
		y[j] += c * vals[k]
	}
}
