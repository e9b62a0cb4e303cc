package loss

// The row kernels: dot products and axpys on dense rows and on rows held sparse (the full
// passes of Mean and MeanClippedGrad, the per-example queries), and the scans that build the
// sparse rows. Natively they are the Go loops below; under WebAssembly they are written in
// Go's WebAssembly assembly (kernels_wasm.s) with the same operations in the same order, so
// the same bits, and each runs as one structured WebAssembly loop: the loops that Go's compiler
// emits for WebAssembly go through a resumable dispatch on every branch and run about three
// times slower than native code, while the assembly runs at native speed
// (BenchmarkSparseKernels). TestKernelsMatchGo compares the two under WebAssembly.
//
// The assembly does not check bounds. Every caller passes slices that satisfy the kernels'
// stated preconditions; sparseRows establishes them when it is built and its methods check
// the lengths before each call.

// The sparse kernels read the rows of a block of data.Sparse rows: row r has the value val[k]
// in column col[k] for k in [start[r], start[r+1]), and when hots > 0 the value hot[r] in the
// columns hotCol[r·hots : (r+1)·hots] (its one-hot entries). They need len(start) ≥ rows + 1,
// start non-decreasing, start[rows] ≤ len(col) ≤ len(val), len(hotCol) ≥ rows·hots, len(hot) ≥
// rows when hots > 0, and every column in [0, len(w)) (w: the weights, or y).

// sparseDotsGo writes ⟨x_r, w⟩ into z[r] for every r < len(z): the sum of val[k]·w[col[k]] over
// the row's entries that are not one-hot, in k order into one accumulator that starts at +0,
// plus, when hots > 0, hot[r] times the sum of w over its one-hot columns, in order into
// another.
func sparseDotsGo(z []float64, start []int, col []int32, val, w []float64, hotCol []int32, hot []float64, hots int) {
	for r := range z {
		lo, hi := start[r], start[r+1]
		if hots == 0 {
			z[r] = rowDot(col[lo:hi], val[lo:hi], nil, 0, w)
		} else {
			z[r] = rowDot(col[lo:hi], val[lo:hi], hotCol[r*hots:(r+1)*hots], hot[r], w)
		}
	}
}

// rowDot returns Σ_k vals[k]·w[cols[k]] in k order, plus, when hotCols is not empty,
// hot·Σ_k w[hotCols[k]] in k order: a function of its own so that its loops' few variables
// stay in registers. The two sums run side by side as far as both go (two chains of additions
// the processor overlaps), each in its own order.
//
//go:noinline
func rowDot(cols []int32, vals []float64, hotCols []int32, hot float64, w []float64) float64 {
	vals = vals[:len(cols)]
	var s, u float64
	n := min(len(cols), len(hotCols))
	for k, j := range hotCols[:n] {
		s += vals[k] * w[cols[k]]
		u += w[j]
	}
	for k, j := range cols[n:] {
		s += vals[n+k] * w[j]
	}
	if len(hotCols) == 0 {
		return s
	}
	for _, j := range hotCols[n:] {
		u += w[j]
	}
	return s + hot*u
}

// sparseAxpysGo adds c[r]·x_r to y for every r < len(c) whose c[r] is not zero, in r order:
// y[col[k]] += c[r]·val[k] in k order, then y[j] += c[r]·hot[r] over the one-hot columns j in
// order (each column once a row, so each y[j] gets the bits it would in column order).
func sparseAxpysGo(y, c []float64, start []int, col []int32, val []float64, hotCol []int32, hot []float64, hots int) {
	for r, cr := range c {
		if cr == 0 {
			continue
		}
		lo, hi := start[r], start[r+1]
		if hots == 0 {
			rowAxpy(y, cr, col[lo:hi], val[lo:hi], nil, 0)
		} else {
			rowAxpy(y, cr, col[lo:hi], val[lo:hi], hotCol[r*hots:(r+1)*hots], cr*hot[r])
		}
	}
}

// rowAxpy adds c·vals[k] to y[cols[k]] in k order, then ch to y[j] for the columns j of
// hotCols in order (a function of its own, as rowDot).
//
//go:noinline
func rowAxpy(y []float64, c float64, cols []int32, vals []float64, hotCols []int32, ch float64) {
	vals = vals[:len(cols)]
	for k, j := range cols {
		y[j] += c * vals[k]
	}
	for _, j := range hotCols {
		y[j] += ch
	}
}

// nonZerosGo returns the number of entries of x that are not zero (NaNs count).
func nonZerosGo(x []float64) int {
	nnz := 0
	for _, v := range x {
		if v != 0 {
			nnz++
		}
	}
	return nnz
}

// compressRowGo writes the entries of row that are not zero into val and their indices into
// col, from index 0 in index order, and returns their number. It needs len(col) and len(val)
// at least len(row), and len(row) ≤ 2³¹.
func compressRowGo(col []int32, val, row []float64) int {
	k := 0
	for j, v := range row {
		if v != 0 {
			col[k], val[k] = int32(j), v
			k++
		}
	}
	return k
}

// checkRoom panics unless col and val have room for every entry of row, which compressRow
// writes to unchecked under WebAssembly.
func checkRoom(col []int32, val, row []float64) {
	if len(col) < len(row) || len(val) < len(row) || len(row) > 1<<31 {
		panic("loss: no room for a row's entries")
	}
}

// value is the type of the values of rows held dense: float64, or float32 (data.Sparse.Float32),
// which the kernels read as the float64 each is, so that a row of float32 values gives the
// bits of the float64 row of the same values.
type value interface{ float32 | float64 }

// dotGo returns Σ a_i·b_i over the first len(a) entries: eight entries per iteration into four
// accumulators (so the additions pipeline), s0 += a_0·b_0 + a_4·b_4 and so on, then the tail
// into s0, and (s0 + s1) + (s2 + s3); through array pointers (*[8]V), so that the compiler
// checks bounds once per block. It panics if len(b) < len(a).
func dotGo[V value](a []V, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	for len(a) >= 8 {
		x, y := (*[8]V)(a), (*[8]float64)(b)
		s0 += float64(x[0])*y[0] + float64(x[4])*y[4]
		s1 += float64(x[1])*y[1] + float64(x[5])*y[5]
		s2 += float64(x[2])*y[2] + float64(x[6])*y[6]
		s3 += float64(x[3])*y[3] + float64(x[7])*y[7]
		a, b = a[8:], b[8:]
	}
	for i, v := range a {
		s0 += float64(v) * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpyGo adds c·x to y over the first len(x) entries, y_i += c·x_i, eight per iteration through
// array pointers (one bounds check per block). It panics if len(y) < len(x).
func axpyGo[V value](y []float64, c float64, x []V) {
	y = y[:len(x)]
	for len(x) >= 8 {
		u, v := (*[8]V)(x), (*[8]float64)(y)
		v[0] += c * float64(u[0])
		v[1] += c * float64(u[1])
		v[2] += c * float64(u[2])
		v[3] += c * float64(u[3])
		v[4] += c * float64(u[4])
		v[5] += c * float64(u[5])
		v[6] += c * float64(u[6])
		v[7] += c * float64(u[7])
		x, y = x[8:], y[8:]
	}
	for i, v := range x {
		y[i] += c * float64(v)
	}
}

// dotsGo writes dotGo(x_k, w) into z[k] for every k < len(z), the rows x_k = x[k·d:(k+1)·d]
// of d = len(w) values one after the other in x. It panics if len(x) < len(z)·d.
func dotsGo[V value](z []float64, x []V, w []float64) {
	d := len(w)
	x = x[:len(z)*d]
	for k := range z {
		z[k] = dotGo(x[k*d:(k+1)*d], w)
	}
}

// axpysGo does axpyGo(y, c[k], x_k) for every k < len(c) whose c[k] is not zero, in k order,
// the rows x_k = x[k·d:(k+1)·d] of d = len(y) values one after the other in x. It panics if
// len(x) < len(c)·d.
func axpysGo[V value](y, c []float64, x []V) {
	d := len(y)
	x = x[:len(c)*d]
	for k, ck := range c {
		if ck != 0 {
			axpyGo(y, ck, x[k*d:(k+1)*d])
		}
	}
}
