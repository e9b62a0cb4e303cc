package loss

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
)

// kernelCase returns sparse rows built from n random rows of dimension d (empty rows, rows
// with one entry and full rows among them), each with hots one-hot entries in random columns
// whose value is the row's (of any sign, and −0 in places); weights of both signs with some
// zeros; and coefficients among which are +0, −0, a NaN, huge and tiny values.
func kernelCase(rng *rand.Rand, n, d, hots int) (*data.Sparse, []float64, []float64) {
	x := make([]float64, n*d)
	hot, hotVal := make([]bool, n*d), make([]float64, n)
	blk := data.SparseBlock{Start: make([]int, n+1)}
	for i := range n {
		row := x[i*d : (i+1)*d]
		switch i % 7 {
		case 0: // empty
		case 1:
			row[rng.IntN(d)] = rng.NormFloat64()
		case 2:
			for j := range row {
				row[j] = rng.NormFloat64()
			}
		default:
			for j := range row {
				if rng.IntN(10) == 0 {
					row[j] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
				}
			}
		}
		if hots > 0 {
			v := rng.NormFloat64()
			if i%5 == 0 {
				v = math.Copysign(0, -1)
			}
			for _, j := range rng.Perm(d)[:hots] {
				row[j], hot[i*d+j] = v, true
			}
			hotVal[i] = v
		}
	}
	for i := range n {
		for j, v := range x[i*d : (i+1)*d] {
			switch {
			case hot[i*d+j]:
				blk.HotCol = append(blk.HotCol, int32(j))
			case v != 0:
				blk.Col, blk.Val = append(blk.Col, int32(j)), append(blk.Val, v)
			}
		}
		blk.Start[i+1] = len(blk.Col)
		if hots > 0 {
			blk.HotVal = append(blk.HotVal, hotVal[i])
		}
	}
	s := &data.Sparse{Blocks: []data.SparseBlock{blk}, Hots: hots}
	if err := s.Check(n, d); err != nil {
		panic(err)
	}
	w := randVec(rng, d, 3)
	for j := range w {
		if rng.IntN(6) == 0 {
			w[j] = 0
		}
	}
	c := randVec(rng, n, 2)
	for r := range c {
		switch rng.IntN(12) {
		case 0:
			c[r] = 0
		case 1:
			c[r] = math.Copysign(0, -1)
		case 2:
			c[r] *= 1e300
		case 3:
			c[r] *= 1e-300
		}
	}
	c[n/2] = math.NaN()
	return s, w, c
}

// TestKernelsMatchGo: the kernels the loss runs (under WebAssembly, the assembly of
// kernels_wasm.s) give the bits of the Go loops of kernels.go, on every block of rows of
// several shapes, with and without one-hot entries, from any first row, including empty
// blocks; and the Go loops give the bits of the sums they state: the dot of a row's entries
// that are not one-hot in order, plus its one-hot value times the sum of the weights of its
// one-hot columns; and the axpy of its entries in column order (data.Sparse.Entries). Natively
// the kernels are the Go loops and the test checks the wrappers. A kernel that adds in another
// order, skips a zero coefficient differently, or reads a row's bounds, values or one-hot
// columns wrong fails.
func TestKernelsMatchGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	for _, tc := range []struct{ d, hots int }{{1, 0}, {5, 0}, {92, 0}, {1, 1}, {5, 2}, {92, 10}} {
		d := tc.d
		s, w, c := kernelCase(rng, 200, d, tc.hots)
		blk := &s.Blocks[0]
		n := len(blk.Start) - 1
		var cols []int32
		var vals []float64
		for _, lo := range []int{0, 1, 63, 150, n} {
			for _, m := range []int{0, 1, 13, 50} {
				m = min(m, n-lo)
				got, want := make([]float64, m), make([]float64, m)
				sparseDotsAt(s, lo, d, got, w)
				b := sparseBlock(s, lo, m, d, w)
				sparseDotsGo(want, b.start, b.col, b.val, w, b.hotCol, b.hot, b.hots)
				for r := range got {
					i := lo + r
					var sum, u float64
					for k := blk.Start[i]; k < blk.Start[i+1]; k++ {
						sum += blk.Val[k] * w[blk.Col[k]]
					}
					if tc.hots > 0 {
						for _, j := range blk.HotCol[i*tc.hots : (i+1)*tc.hots] {
							u += w[j]
						}
						sum += blk.HotVal[i] * u
					}
					if math.Float64bits(want[r]) != math.Float64bits(sum) {
						t.Fatalf("d = %d, %d one-hot: Go's dot of row %d is %v, want %v", d, tc.hots, i, want[r], sum)
					}
					if math.Float64bits(got[r]) != math.Float64bits(want[r]) {
						t.Fatalf("d = %d, %d one-hot, rows %d+%d: dot %d is %v, want %v", d, tc.hots, lo, m, r, got[r], want[r])
					}
				}
				y, yGo, ySum := randVec(rng, d, 1), make([]float64, d), make([]float64, d)
				y[0] = math.Copysign(0, -1)
				copy(yGo, y)
				copy(ySum, y)
				sparseAxpysAt(s, lo, d, y, c[lo:lo+m])
				sparseAxpysGo(yGo, c[lo:lo+m], b.start, b.col, b.val, b.hotCol, b.hot, b.hots)
				for r, cr := range c[lo : lo+m] {
					if cr != 0 {
						cols, vals = s.Entries(lo+r, cols, vals)
						for k, j := range cols {
							ySum[j] += cr * vals[k]
						}
					}
				}
				for j := range y {
					if !same(yGo[j], ySum[j]) {
						t.Fatalf("d = %d, %d one-hot, rows %d+%d: Go's axpys entry %d is %v, want %v", d, tc.hots, lo, m, j, yGo[j], ySum[j])
					}
					if !same(y[j], yGo[j]) {
						t.Fatalf("d = %d, %d one-hot, rows %d+%d: axpys entry %d is %v, want %v", d, tc.hots, lo, m, j, y[j], yGo[j])
					}
				}
			}
		}
	}
}

// TestBuildKernelsMatchGo: the kernels that build the sparse rows count and gather the
// non-zero entries as the Go loops do (NaNs and infinities count, −0 does not), on rows of
// every length up to 30 and of several densities; natively the two are the same code.
func TestBuildKernelsMatchGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(65, 66))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 5e-324, -1e300}
	for d := range 31 {
		for _, density := range []float64{0, 0.1, 0.5, 1} {
			row := make([]float64, d)
			for j := range row {
				if rng.Float64() < density {
					row[j] = rng.NormFloat64()
					if rng.IntN(4) == 0 {
						row[j] = special[rng.IntN(len(special))]
					}
				}
			}
			if a, b := nonZeros(row), nonZerosGo(row); a != b {
				t.Fatalf("d = %d: %d non-zero entries, want %d", d, a, b)
			}
			col, val := make([]int32, d+2), make([]float64, d+2)
			colGo, valGo := make([]int32, d+2), make([]float64, d+2)
			k, kGo := compressRow(col, val, row), compressRowGo(colGo, valGo, row)
			if k != kGo {
				t.Fatalf("d = %d: %d entries gathered, want %d", d, k, kGo)
			}
			for i := range col {
				if col[i] != colGo[i] || math.Float64bits(val[i]) != math.Float64bits(valGo[i]) {
					t.Fatalf("d = %d: entry %d is (%d, %v), want (%d, %v)", d, i, col[i], val[i], colGo[i], valGo[i])
				}
			}
		}
	}
}

// TestDenseKernelsMatchGo: the dense dot product and axpy (under WebAssembly, the assembly of
// kernels_wasm.s) give the bits of dotGo and axpyGo on every length up to 40 (blocks of eight
// and tails), with entries over many magnitudes, signed zeros and an infinity, and a b longer
// than a; natively the two are the same code. Their row-by-row forms (dots, axpys) give each
// row the bits of dotGo and axpyGo, on float64 rows and on float32 rows (dots32, axpys32) read
// as the float64 each value is, and skip a row whose coefficient is zero. A kernel that sums the
// blocks into other accumulators or the tail into another one, reads a float32 at a wrong
// offset, or moves to the next row wrongly, fails.
func TestDenseKernelsMatchGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(67, 68))
	for n := range 41 {
		for rep := range 20 {
			a, b := make([]float64, n), make([]float64, n+3)
			for i := range a {
				a[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(17)-8))
			}
			for i := range b {
				b[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(17)-8))
			}
			if n > 2 && rep == 0 {
				a[0], b[1], a[n-1] = math.Copysign(0, -1), math.Copysign(0, -1), math.Inf(1)
			}
			if x, y := dot(a, b), dotGo(a, b); math.Float64bits(x) != math.Float64bits(y) {
				t.Fatalf("n = %d: dot %v, want %v", n, x, y)
			}
			c := rng.NormFloat64()
			y, yGo := append([]float64(nil), b...), append([]float64(nil), b...)
			axpy(y, c, a)
			axpyGo(yGo, c, a)
			sameBits(t, "axpy", n, y, yGo)

			// Three rows of n values: their dot products with w = b[:n], and y += c_k·x_k
			// with c_1 = 0.
			x := make([]float64, 3*n+1)
			for i := range x {
				x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(17)-8))
			}
			x32, wide := make([]float32, len(x)), make([]float64, len(x))
			for i, v := range x {
				x32[i] = float32(v)
				wide[i] = float64(x32[i])
			}
			w, cs := b[:n], []float64{c, 0, rng.NormFloat64()}
			for _, rows := range []struct {
				name string
				x    []float64
				dots func(z []float64)
				axpy func(y []float64)
			}{
				{"", x, func(z []float64) { dots(z, x, w) }, func(y []float64) { axpys(y, cs, x) }},
				{"32", wide, func(z []float64) { dots32(z, x32, w) }, func(y []float64) { axpys32(y, cs, x32) }},
			} {
				z, zGo := make([]float64, 3), make([]float64, 3)
				rows.dots(z)
				y, yGo := append([]float64(nil), w...), append([]float64(nil), w...)
				rows.axpy(y)
				for k := range 3 {
					zGo[k] = dotGo(rows.x[k*n:(k+1)*n], w)
					if cs[k] != 0 {
						axpyGo(yGo, cs[k], rows.x[k*n:(k+1)*n])
					}
				}
				sameBits(t, "dots"+rows.name, n, z, zGo)
				sameBits(t, "axpys"+rows.name, n, y, yGo)
			}
		}
	}
}

// sameBits fails the test unless the vectors y and want of kernel's case n have the same bits
// (any NaN matching any NaN).
func sameBits(t *testing.T, kernel string, n int, y, want []float64) {
	t.Helper()
	for i := range y {
		if math.Float64bits(y[i]) != math.Float64bits(want[i]) && !(math.IsNaN(y[i]) && math.IsNaN(want[i])) {
			t.Fatalf("n = %d: %s entry %d is %v, want %v", n, kernel, i, y[i], want[i])
		}
	}
}

// TestKernelsCheckLengths: a vector shorter than the rows panics before a kernel runs.
func TestKernelsCheckLengths(t *testing.T) {
	s, w, _ := kernelCase(rand.New(rand.NewPCG(63, 64)), 10, 4, 1)
	for name, f := range map[string]func(){
		"short":   func() { sparseBlock(s, 0, 3, 4, w[:3]) },
		"rows":    func() { sparseBlock(s, 8, 3, 4, w) },
		"room":    func() { compressRow(make([]int32, 3), make([]float64, 4), w) },
		"dot":     func() { dot(w, make([]float64, 3)) },
		"axpy":    func() { axpy(make([]float64, 3), 1, w) },
		"dots":    func() { dots(make([]float64, 2), make([]float64, 7), make([]float64, 4)) },
		"dots32":  func() { dots32(make([]float64, 2), make([]float32, 7), make([]float64, 4)) },
		"axpys":   func() { axpys(make([]float64, 4), make([]float64, 2), make([]float64, 7)) },
		"axpys32": func() { axpys32(make([]float64, 4), make([]float64, 2), make([]float32, 7)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
