package loss

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
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
			if a, b := sparse.rowDot(i, w), dot(row, w); !near(a, b, dot(abs(row), abs(w))) {
				t.Fatalf("d = %d, row %d: sparse dot %v, dense %v", d, i, a, b)
			}
		}
		ys, yd := randVec(rng, d, 1), make([]float64, d)
		copy(yd, ys)
		for i := range ds.N {
			sparse.addRows(ys, []float64{-0.7}, i)
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
		if got := RowWidth(ds, nil); got != want || got.Sparse != (l.sparse != nil) {
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

// heldSparse returns ds (rows held dense) with its rows held sparse as Encode and Rescale hold
// them: every entry whose bits are not +0 (−0 included), and, with zeros set, every third +0
// entry too.
func heldSparse(ds *data.Dataset, zeros bool) *data.Dataset {
	out := *ds
	out.X, out.Sparse = nil, &data.Sparse{}
	for lo := 0; lo < ds.N; lo += data.BlockRows {
		blk := data.SparseBlock{Start: []int{0}}
		for i := lo; i < min(ds.N, lo+data.BlockRows); i++ {
			for j, v := range ds.X[i*ds.D : (i+1)*ds.D] {
				if math.Float64bits(v) != 0 || zeros && (i+j)%3 == 0 {
					blk.Col, blk.Val = append(blk.Col, int32(j)), append(blk.Val, v)
				}
			}
			blk.Start = append(blk.Start, len(blk.Col))
		}
		out.Sparse.Blocks = append(out.Sparse.Blocks, blk)
	}
	return &out
}

// TestRowsHeldSparse: the losses over rows held sparse read them in place (no copy) and give
// the bits of the same rows held dense: a linear loss's passes, values, gradients and accuracy
// (the sparse kernels either way; Grad the dense loops' either way), and the multinomial and
// robust losses' (dense loops either way); with −0 entries and stored +0 entries, over several
// blocks of rows with two workers, and one block.
func TestRowsHeldSparse(t *testing.T) {
	defer SetWorkers(SetWorkers(2))
	rng := rand.New(rand.NewPCG(71, 72))
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	sameVec := func(a, b []float64) bool {
		for j := range a {
			if !same(a[j], b[j]) {
				return false
			}
		}
		return true
	}
	for _, n := range []int{700, 2*data.BlockRows + 77} {
		dense := oneHotData(rng, n, 23, 0.15)
		for i := 0; i < n; i += 5 {
			dense.X[i*23+(i%23)] = math.Copysign(0, -1)
		}
		for _, zeros := range []bool{false, true} {
			sparse := heldSparse(dense, zeros)
			name := fmt.Sprintf("n = %d, stored zeros %v", n, zeros)
			ls := mustLinear(t, Logistic{}, sparse, Bounds{X: 1, XNorm: 2})
			ld := mustLinear(t, Logistic{}, dense, Bounds{X: 1, XNorm: 2})
			if ls.sparse != sparse.Sparse || ls.x.held() || ld.sparse == nil {
				t.Fatalf("%s: the rows held sparse were copied, or the dense ones not read sparse", name)
			}
			if a, b := RowWidth(sparse, nil), RowWidth(dense, nil); a != b {
				t.Errorf("%s: width %+v, dense %+v", name, a, b)
			}
			w := randVec(rng, 23, 2)
			gs, gd := make([]float64, 23), make([]float64, 23)
			if a, b := ls.Mean(gs, w), ld.Mean(gd, w); !same(a, b) || !sameVec(gs, gd) {
				t.Errorf("%s: Mean %v %v, dense %v %v", name, a, gs, b, gd)
			}
			ls.MeanClippedGrad(gs, w, 0.1)
			ld.MeanClippedGrad(gd, w, 0.1)
			if !sameVec(gs, gd) || ls.SignAccuracy(w) != ld.SignAccuracy(w) {
				t.Errorf("%s: clipped gradient or accuracy differ", name)
			}
			for _, i := range []int{0, 1, 5, n - 1} {
				va, vb := ls.Grad(gs, w, i), ld.Grad(gd, w, i)
				if !same(va, vb) || !sameVec(gs, gd) || !same(ls.Value(w, i), ld.Value(w, i)) {
					t.Errorf("%s, row %d: Grad %v %v, dense %v %v", name, i, va, gs, vb, gd)
				}
			}
			labels := make([]float64, n)
			for i := range labels {
				labels[i] = float64(rng.IntN(3))
			}
			ms, md := *sparse, *dense
			ms.Y, md.Y = labels, labels
			mls, err := NewMultinomial(&ms, 3, Bounds{X: 1, XNorm: 2})
			if err != nil {
				t.Fatal(err)
			}
			mld, err := NewMultinomial(&md, 3, Bounds{X: 1, XNorm: 2})
			if err != nil {
				t.Fatal(err)
			}
			wm := randVec(rng, 3*23, 1)
			hs, hd := make([]float64, 3*23), make([]float64, 3*23)
			if a, b := mls.Mean(hs, wm), mld.Mean(hd, wm); !same(a, b) || !sameVec(hs, hd) {
				t.Errorf("%s: multinomial Mean %v, dense %v", name, a, b)
			}
			if a, b := mls.Grad(hs, wm, 5), mld.Grad(hd, wm, 5); !same(a, b) || !sameVec(hs, hd) || !same(mls.Value(wm, 7), mld.Value(wm, 7)) {
				t.Errorf("%s: multinomial Grad %v, dense %v", name, a, b)
			}
			rs, err := NewRobust(Logistic{}, 0.3, 2, sparse, Bounds{X: 1, XNorm: 2})
			if err != nil {
				t.Fatal(err)
			}
			rd, err := NewRobust(Logistic{}, 0.3, 2, dense, Bounds{X: 1, XNorm: 2})
			if err != nil {
				t.Fatal(err)
			}
			if a, b := rs.Mean(gs, w), rd.Mean(gd, w); !same(a, b) || !sameVec(gs, gd) {
				t.Errorf("%s: robust Mean %v, dense %v", name, a, b)
			}
			if a, b := rs.Grad(gs, w, 3), rd.Grad(gd, w, 3); !same(a, b) || !sameVec(gs, gd) || !same(rs.Value(w, 9), rd.Value(w, 9)) {
				t.Errorf("%s: robust Grad %v, dense %v", name, a, b)
			}
		}
	}
}

// TestRowsHeldSparseChecked: NewLinear refuses rows held sparse that are malformed (which the
// kernels would read past), held both ways, or whose last entry is not the declared bias.
func TestRowsHeldSparseChecked(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	good := func() *data.Dataset { return heldSparse(oneHotData(rng, 50, 9, 0.3), false) }
	for name, change := range map[string]func(ds *data.Dataset){
		"column":     func(ds *data.Dataset) { ds.Sparse.Blocks[0].Col[0] = 9 },
		"start":      func(ds *data.Dataset) { ds.Sparse.Blocks[0].Start[50] = 1 << 20 },
		"both":       func(ds *data.Dataset) { ds.X = make([]float64, 50*9) },
		"rows":       func(ds *data.Dataset) { ds.N = 51; ds.Y = append(ds.Y, 1) },
		"not finite": func(ds *data.Dataset) { ds.Sparse.Blocks[0].Val[3] = math.Inf(1) },
	} {
		ds := good()
		change(ds)
		if _, err := NewLinear(Logistic{}, ds, Bounds{X: 1, XNorm: 2}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	ds := good()
	if _, err := NewLinear(Logistic{}, ds, Bounds{X: 1, XNorm: 2, Bias: 0.1}); err == nil || !strings.Contains(err.Error(), "bias") {
		t.Errorf("rows without the declared bias: %v", err)
	}
}

// TestSparseBlocksOfDenseRows: of rows held dense, a linear-model loss reads each block sparse
// or dense by that block's non-zero entries alone, so that a worker holding some blocks of a
// file (data.Part, as the page's helpers do) reads them as a worker holding all: its
// chunks' sums have the same bits. The file's first block has every value non-zero, its second
// mostly zeros, and its rows are held dense (all numeric).
func TestSparseBlocksOfDenseRows(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,c,d,e,f,g,y\n")
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 2*data.BlockRows + 300 {
		for j := range 7 {
			v := 1 + r.IntN(9)
			if i >= data.BlockRows && j > 0 {
				v = 0 // the minimum: 0 once scaled
			}
			fmt.Fprintf(&b, "%d,", v)
		}
		fmt.Fprintf(&b, "%d\n", r.IntN(2))
	}
	var cols strings.Builder
	for _, c := range "abcdefg" {
		fmt.Fprintf(&cols, `{"name": "%c", "kind": "numeric", "min": 0, "max": 9}, `, c)
	}
	s, err := data.LoadSchema(strings.NewReader(`{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"}, "columns": [` +
		cols.String() + `{"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	all, _, err := data.Encode(strings.NewReader(b.String()), s)
	if err != nil {
		t.Fatal(err)
	}
	part, _, err := data.EncodeWith(strings.NewReader(b.String()), s, data.Options{Part: &data.Part{First: 1, Last: 3}})
	if err != nil {
		t.Fatal(err)
	}
	bounds := Bounds{X: 1, XNorm: 2, Bias: 0.5}
	la, lp := mustLinear(t, Logistic{}, all, bounds), mustLinear(t, Logistic{}, part, bounds)
	if !all.Sparse.Dense || la.readSparse(0) || !la.readSparse(data.BlockRows) || !la.readSparse(2*data.BlockRows) || !lp.readSparse(data.BlockRows) {
		t.Fatal("the blocks are not read as their non-zero entries say")
	}
	w := randVec(r, all.D, 1)
	for _, op := range []Op{OpMean, OpValue, OpClippedGrad} {
		pa, pp := &Pass{Loss: la, Op: op, Clip: 0.3, W: w}, &Pass{Loss: lp, Op: op, Clip: 0.3, W: w}
		sa, va := make([]float64, 3), make([]float64, 3*pa.Width())
		sp, vp := make([]float64, 2), make([]float64, 2*pp.Width())
		pa.Sums(0, 3, sa, va)
		pp.Sums(1, 3, sp, vp)
		if !slices.EqualFunc(sa[1:], sp, sameFloat) || !slices.EqualFunc(va[pa.Width():], vp, sameFloat) {
			t.Errorf("op %d: the part's chunks' sums %v %v, the whole file's %v %v", op, sp, vp, sa[1:], va[pa.Width():])
		}
	}
}

// sameFloat reports whether a and b have the same bits.
func sameFloat(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
