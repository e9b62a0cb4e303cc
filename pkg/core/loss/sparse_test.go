package loss

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
)

// oneHotData returns n rows of dimension d with about density·d non-zero entries of either
// sign (some of them in the tail after the last block of eight), scaled to ‖x‖₂ ≤ 1, and ±1
// labels.
func oneHotData(rng *rand.Rand, n, d int, density float64) *data.Dataset {
	ds := &data.Dataset{N: n, D: d, X: make([]float64, n*d), Y: make([]float64, n), Radius: 1, P: 2}
	for i := range n {
		row := ds.X[i*d : (i+1)*d]
		norm := 0.0
		for j := range row {
			if rng.Float64() < density {
				row[j] = rng.NormFloat64()
				norm += row[j] * row[j]
			}
		}
		if norm > 1 {
			for j := range row {
				row[j] /= math.Sqrt(norm)
			}
		}
		ds.Y[i] = 1
		if rng.IntN(2) == 0 {
			ds.Y[i] = -1
		}
	}
	return ds
}

// TestSparseRows: on sparse data in several dimensions (multiples of eight and not, below
// eight), with weights that are zero in places and of both signs, the sparse axpy gives the bits
// of the dense one, and the sparse dot and the loss's Value, Mean and MeanGrad agree with the
// dense loops to 1e-13 relative (both are within d·2⁻⁵³ of the exact sums).
func TestSparseRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, d := range []int{3, 8, 13, 92, 97} {
		ds := oneHotData(rng, 300, d, 0.2)
		sparse, err := NewLinear(Logistic{}, ds, Bounds{X: 1, XNorm: 2})
		if err != nil {
			t.Fatal(err)
		}
		if sparse.sparse == nil {
			t.Fatalf("d = %d: the data is not held sparse", d)
		}
		dense := *sparse
		dense.sparse = nil
		w := randVec(rng, d, 3)
		for j := range w {
			if rng.IntN(5) == 0 {
				w[j] = 0
			}
		}
		for i := range ds.N {
			row := ds.X[i*d : (i+1)*d]
			if a, b := sparse.sparse.dot(i, w), dot(row, w); !near(a, b, dot(abs(row), abs(w))) {
				t.Fatalf("d = %d, row %d: sparse dot %v, dense %v", d, i, a, b)
			}
		}
		ys, yd := randVec(rng, d, 1), make([]float64, d)
		copy(yd, ys)
		for i := range ds.N {
			sparse.sparse.axpys(ys, []float64{-0.7}, i)
			axpy(yd, -0.7, ds.X[i*d:(i+1)*d])
		}
		gs, gd := make([]float64, d), make([]float64, d)
		vs, vd := sparse.Mean(gs, w), dense.Mean(gd, w)
		hs, hd := make([]float64, d), make([]float64, d)
		sparse.MeanGrad(hs, w)
		dense.MeanGrad(hd, w)
		if !near(vs, vd, vd) || !near(sparse.Value(w, 5), dense.Value(w, 5), 1) {
			t.Errorf("d = %d: values %v and %v", d, vs, vd)
		}
		for j := range d {
			if math.Float64bits(ys[j]) != math.Float64bits(yd[j]) || !near(gs[j], gd[j], 1) || !near(hs[j], hd[j], 1) {
				t.Fatalf("d = %d, coordinate %d: axpy %v/%v, Mean gradient %v/%v, MeanGrad %v/%v", d, j, ys[j], yd[j], gs[j], gd[j], hs[j], hd[j])
			}
		}
	}
	if l, _ := NewLinear(Logistic{}, oneHotData(rng, 50, 10, 0.9), Bounds{X: 1, XNorm: 2}); l.sparse != nil {
		t.Error("dense data is held sparse")
	}
}

// near reports whether a and b differ by at most 1e-13·scale.
func near(a, b, scale float64) bool { return math.Abs(a-b) <= 1e-13*math.Abs(scale) }

// abs returns the absolute values of x.
func abs(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Abs(v)
	}
	return out
}

// TestRowWidth: RowWidth says sparse exactly when NewLinear holds the rows sparse (at most a
// quarter of the entries non-zero, here on both sides of the threshold), with the mean
// non-zero entries per row; dense rows read all D entries.
func TestRowWidth(t *testing.T) {
	for _, nnzPerRow := range []int{1, 3, 4, 5, 16} {
		ds := &data.Dataset{N: 8, D: 16, X: make([]float64, 8*16), Y: make([]float64, 8)}
		for i := range ds.N {
			for j := range nnzPerRow - i%2 { // rows alternate nnzPerRow and nnzPerRow − 1
				ds.X[i*ds.D+(3*j+i)%ds.D] = 0.2
			}
			ds.Y[i] = 1
		}
		l, err := NewLinear(Logistic{}, ds, Bounds{X: 1, XNorm: 2})
		if err != nil {
			t.Fatal(err)
		}
		mean := float64(nnzPerRow) - 0.5
		want := Width{Entries: mean, Sparse: true}
		if 4*mean > float64(ds.D) {
			want = Width{Entries: float64(ds.D)}
		}
		if got := RowWidth(ds); got != want || got.Sparse != (l.sparse != nil) {
			t.Errorf("%d non-zeros per row: width %+v (held sparse: %v), want %+v", nnzPerRow, got, l.sparse != nil, want)
		}
	}
}

// TestSignAccuracy: the accuracy through the row kernels counts the rows a plain dense loop
// counts, on rows held sparse and dense (n not a multiple of the block), for weights that put
// predictions on both sides and at exactly 0 (the zero weight vector: every row counts as
// positive).
func TestSignAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	ds := oneHotData(rng, 1000, 13, 0.2)
	sparse, err := NewLinear(Logistic{}, ds, Bounds{X: 1, XNorm: 2})
	if err != nil {
		t.Fatal(err)
	}
	dense := *sparse
	dense.sparse = nil
	for _, w := range [][]float64{randVec(rng, 13, 3), make([]float64, 13)} {
		right := 0
		for i := range ds.N {
			s := 0.0
			for j, v := range ds.X[i*13 : (i+1)*13] {
				s += w[j] * v
			}
			if (s >= 0) == (ds.Y[i] > 0) {
				right++
			}
		}
		want := float64(right) / float64(ds.N)
		if a, b := sparse.SignAccuracy(w), dense.SignAccuracy(w); a != want || b != want {
			t.Errorf("accuracy %v (sparse), %v (dense), want %v", a, b, want)
		}
	}
}
