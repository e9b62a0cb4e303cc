package loss

import "github.com/privopt/privopt/pkg/core/data"

// A linear-model loss reads rows held sparse (data.Sparse) through the sparse kernels: its
// dots add the stored terms that are not one-hot in column order into one accumulator, and a
// row's one-hot value times the sum of the weights of its one-hot columns to that; the same
// value as the dense dot up to rounding (an error of order d·2⁻⁵³·‖x‖‖w‖ for both), not the
// same bits; the bits are the same natively on amd64 and in wasm (in package mech,
// TestSparseReleasesIdenticalEverywhere and TestOneHotReleasesIdenticalEverywhere pin them). Its axpys
// give every coordinate the bits of the dense axpy. A stored entry that is ±0 changes neither a
// dot nor an axpy when the weights are finite (the accumulator starts at +0 and is never −0
// under rounding to nearest), so rows held with their zeros or without them give the same bits.
//
// The kernels (kernels.go) rely on what data.Sparse.Check establishes when the loss is built:
// in every block, Start is non-decreasing from 0 to len(Col) = len(Val), HotCol and HotVal have
// Hots columns and one value a row, and every column is in [0, d); and the rows of a pass's
// block of rowBlock rows lie in one data block (chunkRows is data.BlockRows, a multiple of
// rowBlock).

// SparseRows reports whether a linear-model loss (NewLinear) holds n rows of d entries held
// dense, nnz of them non-zero, sparse: when at most a quarter of the entries are non-zero
// (otherwise the dense loops are as fast) and d fits an int32. It is the rule by which Encode
// holds rows sparse (data.SparseRows), applied to the entries that are not zero.
func SparseRows(n, d, nnz int) bool { return data.SparseRows(n, d, nnz) }

// Width is what one per-example query reads of its row, on average: Entries entries, which are
// the non-zero entries of rows held sparse when Sparse is set, and every entry of dense rows
// (one per parameter) otherwise. Predicted run times scale the cost of a query with it.
type Width struct {
	Entries float64 `json:"entries"`
	Sparse  bool    `json:"sparse"`
}

// RowWidth returns the Width of a query of a linear-model loss over the rows of ds that are
// not left out (leftOut[i] set; leftOut may be nil): the mean number of non-zero entries per row
// when NewLinear holds those rows sparse (rows held sparse, or dense rows that SparseRows says
// to hold sparse), every one of the D entries otherwise. It reads the data: it serves the run
// times predicted for the data's owner on their own machine, never a plan (plans use public
// quantities only) or a release.
func RowWidth(ds *data.Dataset, leftOut []bool) Width {
	n, nnz := 0, 0
	var col []int32
	var val []float64
	for i := range ds.N {
		if leftOut == nil || !leftOut[i] {
			col, val = ds.Entries(i, col, val)
			n, nnz = n+1, nnz+nonZeros(val)
		}
	}
	if entriesOf(ds) != nil && n > 0 {
		return Width{Entries: float64(nnz) / float64(n), Sparse: true}
	}
	return WidthOf(n, ds.D, nnz)
}

// WidthOf returns the Width of a query of a linear-model loss over n rows of d entries held
// dense, nnz of them non-zero in all (RowWidth's, which it is for rows Encode holds sparse too:
// at most a quarter of their entries are stored, so SparseRows holds for them).
func WidthOf(n, d, nnz int) Width {
	if n < 1 || !SparseRows(n, d, nnz) {
		return Width{Entries: float64(d)}
	}
	return Width{Entries: float64(nnz) / float64(n), Sparse: true}
}

// sparseOf returns the rows of ds that a linear-model loss reads sparse: every row held by its
// stored entries (ds.Sparse), or of rows held dense the blocks of data.BlockRows rows of which
// SparseRows says they are better read so, by their non-zero entries (the other blocks absent),
// or nil when there are none. The choice is a block's own, so a worker that holds some blocks
// (data.Part) reads each as a worker holding all does.
func sparseOf(ds *data.Dataset) *data.Sparse {
	if s := entriesOf(ds); s != nil {
		return s
	}
	n, d, x := ds.N, ds.D, denseOf(ds)
	s := &data.Sparse{Blocks: make([]data.SparseBlock, (n+data.BlockRows-1)/data.BlockRows)}
	some := false
	var buf []float64 // a block of rows held as float32, as float64
	if x.float32() {
		buf = make([]float64, min(n, data.BlockRows)*d)
	}
	for b := range s.Blocks {
		lo := b * data.BlockRows
		if !ds.Holds(lo) {
			continue
		}
		rows := x.rows(lo, min(n-lo, data.BlockRows), buf)
		nnz := nonZeros(rows)
		if !SparseRows(len(rows)/d, d, nnz) {
			continue
		}
		some = true
		// d spare entries at the end: compressRow may be given a whole row's worth of room.
		col, val := make([]int32, nnz+d), make([]float64, nnz+d)
		start := make([]int, len(rows)/d+1)
		k := 0
		for r := range len(rows) / d {
			k += compressRow(col[k:], val[k:], rows[r*d:(r+1)*d])
			start[r+1] = k
		}
		s.Blocks[b] = data.SparseBlock{Start: start, Col: col[:k:k], Val: val[:k:k]}
	}
	if !some {
		return nil
	}
	return s
}

// sparseRows are the slices of some rows of a block of data.Sparse rows that the sparse
// kernels read (see kernels.go).
type sparseRows struct {
	start  []int
	col    []int32
	val    []float64
	hotCol []int32
	hot    []float64
	hots   int
}

// sparseBlock returns the slices of the rows lo to lo + rows − 1 of s, which lie in one block,
// for the sparse kernels: their starts (rows + 1 of them), the block's columns and values, and
// the rows' one-hot columns and values. It panics when v, a vector the kernels will read or
// write, is shorter than the rows' d entries, which the kernels, unchecked under WebAssembly,
// would read or write past.
//
//go:noinline
func sparseBlock(s *data.Sparse, lo, rows, d int, v []float64) sparseRows {
	checkWidth(v, d)
	blk := &s.Blocks[lo/data.BlockRows]
	r := lo % data.BlockRows
	b := sparseRows{start: blk.Start[r : r+rows+1], col: blk.Col, val: blk.Val, hots: s.Hots}
	if s.Hots > 0 {
		b.hotCol, b.hot = blk.HotCol[r*s.Hots:(r+rows)*s.Hots], blk.HotVal[r:r+rows]
	}
	return b
}

// sparseDotsAt writes ⟨x_{lo+r}, w⟩ into z[r] for the rows lo to lo + len(z) − 1 of s (d
// entries each), which lie in one block: sparseDots on their slices (sparseBlock).
func sparseDotsAt(s *data.Sparse, lo, d int, z, w []float64) {
	b := sparseBlock(s, lo, len(z), d, w)
	sparseDots(z, b.start, b.col, b.val, w, b.hotCol, b.hot, b.hots)
}

// sparseAxpysAt adds c[r]·x_{lo+r} to y for the rows lo to lo + len(c) − 1 of s (d entries
// each), which lie in one block: sparseAxpys on their slices (sparseBlock).
func sparseAxpysAt(s *data.Sparse, lo, d int, y, c []float64) {
	b := sparseBlock(s, lo, len(c), d, y)
	sparseAxpys(y, c, b.start, b.col, b.val, b.hotCol, b.hot, b.hots)
}

// checkWidth panics when v is shorter than the rows' d entries, which the kernels, unchecked
// under WebAssembly, would read or write past.
func checkWidth(v []float64, d int) {
	if len(v) < d {
		panic("loss: a vector shorter than the rows")
	}
}
