package data

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/rng"
)

// mixedSchema has numeric columns with values at their minimum (encoded +0), categorical
// columns with an other bucket and missing values, and a binary label; the norm and fit vary.
const mixedSchema = `{"privopt_schema": 1, "norm": {"p": %s, "radius": 1, "bias": %s, "fit": %q},
 "columns": [
  {"name": "a", "kind": "numeric", "min": 0, "max": 10},
  {"name": "c", "kind": "categorical", "categories": ["u", "v", "w", "x", "y"], "other": true},
  {"name": "b", "kind": "numeric", "min": -1, "max": 1, "missing": {"replace": 0}},
  {"name": "e", "kind": "categorical", "categories": ["p", "q", "r", "s", "t", "z"], "missing": {"replace": "p"}},
  {"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"]}]}`

// mixedRows returns a file of n rows of mixedSchema's columns with repeated rows among them.
func mixedRows(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("a,c,b,e,y\n")
	var rows []string
	for range n {
		if len(rows) > 0 && rng.IntN(5) == 0 {
			b.WriteString(rows[rng.IntN(len(rows))])
			continue
		}
		a := fmt.Sprint(rng.IntN(11))
		if rng.IntN(3) == 0 {
			a = "0" // at the column's minimum: the feature is +0
		}
		bv := fmt.Sprintf("%.3f", 2*rng.Float64()-1)
		if rng.IntN(6) == 0 {
			bv = "?"
		}
		e := string("pqrstz"[rng.IntN(6)])
		if rng.IntN(7) == 0 {
			e = ""
		}
		row := fmt.Sprintf("%s,%s,%s,%s,%d\n", a, string("uvwxyo"[rng.IntN(6)]), bv, e, rng.IntN(2))
		rows = append(rows, row)
		b.WriteString(row)
	}
	return b.String()
}

// sameBits reports whether a and b hold the same bits.
func sameBits(a, b []float64) bool {
	return len(a) == len(b) && slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// sameDataset fails the test unless got and want describe the same rows with the same bits,
// whichever way each holds them.
func sameDataset(t *testing.T, what string, got, want *Dataset) {
	t.Helper()
	if got.N != want.N || got.D != want.D || !slices.Equal(got.Features, want.Features) || !slices.Equal(got.Categorical, want.Categorical) ||
		got.P != want.P || got.Radius != want.Radius || got.Bias != want.Bias || !reflect.DeepEqual(got.Label, want.Label) {
		t.Fatalf("%s: described as %d×%d %+v, want %d×%d %+v", what, got.N, got.D, got.Label, want.N, want.D, want.Label)
	}
	if !sameBits(got.Y, want.Y) {
		t.Fatalf("%s: labels differ", what)
	}
	a, b := denseX(got), denseX(want)
	for i := range got.N {
		if x, y := a[i*got.D:(i+1)*got.D], b[i*got.D:(i+1)*got.D]; !sameBits(x, y) {
			t.Fatalf("%s: row %d is %v, want %v", what, i, x, y)
		}
	}
}

// TestSparseEncoding: rows held sparse give, through Row, the bits of the same rows
// held dense, for every norm and fit (rows shrunk onto the ball among them), with the same
// labels and diagnostics; they store one entry per column (none for a numeric +0) and pass
// Sparse.Check; and splits, rescaling, column values and copy indices give the same bits either
// way. The file has more rows than a block, and repeated rows.
func TestSparseEncoding(t *testing.T) {
	file := mixedRows(rand.New(rand.NewPCG(81, 82)), BlockRows+517)
	for _, norm := range []struct{ p, bias, fit string }{{"2", "0.5", "scale"}, {"2", "0", "clip"}, {"1", "0.25", "clip"}, {"\"inf\"", "0", "scale"}} {
		name := fmt.Sprintf("p=%s bias=%s %s", norm.p, norm.bias, norm.fit)
		t.Run(name, func(t *testing.T) {
			s := mustSchema(t, fmt.Sprintf(mixedSchema, norm.p, norm.bias, norm.fit))
			sparse, sdiag, err := encode(strings.NewReader(file), s, false, heldSparse, Options{})
			if err != nil {
				t.Fatal(err)
			}
			dense, ddiag, err := encode(strings.NewReader(file), s, false, heldDense, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if sparse.Sparse == nil || sparse.Sparse.Dense || sparse.X != nil || dense.X != nil || dense.Sparse == nil || !dense.Sparse.Dense {
				t.Fatal("the rows are not held as asked")
			}
			if err := sparse.Sparse.Check(sparse.N, sparse.D); err != nil {
				t.Fatal(err)
			}
			if err := dense.Sparse.Check(dense.N, dense.D); err != nil {
				t.Fatal(err)
			}
			sameDataset(t, "encoded", sparse, dense)
			if !reflect.DeepEqual(sdiag, ddiag) {
				t.Errorf("diagnostics %+v, dense %+v", sdiag, ddiag)
			}
			if norm.fit == "clip" && sdiag.ClippedRows == 0 {
				t.Error("no row was shrunk onto the ball: the test does not cover it")
			}
			zeros := 0
			for i := range sparse.N {
				col, val := sparse.Entries(i, nil, nil)
				want := 4 // a, c, b, e
				if norm.bias != "0" {
					want++
				}
				for k := range col {
					if math.Float64bits(val[k]) == 0 {
						t.Fatalf("row %d stores a +0 entry", i)
					}
				}
				if len(col) < want {
					zeros++
				}
				if len(col) > want || len(col) < want-2 {
					t.Fatalf("row %d stores %d entries, want %d (or fewer for +0 values)", i, len(col), want)
				}
			}
			if zeros == 0 {
				t.Error("no numeric +0 was left out: the test does not cover it")
			}

			// The rows held dense in blocks, and in one slice as a dataset built by hand.
			flat := *dense
			flat.X, flat.Sparse = denseX(dense), nil
			for _, dense := range []*Dataset{dense, &flat} {
				for _, fraction := range []float64{0.2, 0.5} {
					st, ss, err := Split(sparse, fraction, rng.Seeded(3))
					if err != nil {
						t.Fatal(err)
					}
					dt, dt2, err := Split(dense, fraction, rng.Seeded(3))
					if err != nil {
						t.Fatal(err)
					}
					sameDataset(t, "training rows of Split", st, dt)
					sameDataset(t, "test rows of Split", ss, dt2)
					ct, cs, err := SplitByContent(sparse, fraction, 11)
					if err != nil {
						t.Fatal(err)
					}
					dct, dcs, err := SplitByContent(dense, fraction, 11)
					if err != nil {
						t.Fatal(err)
					}
					sameDataset(t, "training rows of SplitByContent", ct, dct)
					sameDataset(t, "test rows of SplitByContent", cs, dcs)
					if err := ct.Sparse.Check(ct.N, ct.D); err != nil {
						t.Fatal(err)
					}
				}
				if a, b := sparse.copyIndices(), dense.copyIndices(); !slices.Equal(a, b) || slices.Max(a) == 0 {
					t.Errorf("copy indices differ, or no row is repeated (largest %d)", slices.Max(a))
				}
				if norm.fit == "scale" {
					for _, name := range []string{"a", "b"} {
						a, err := ColumnValues(sparse, s, name)
						if err != nil {
							t.Fatal(err)
						}
						if b, _ := ColumnValues(dense, s, name); !sameBits(a, b) {
							t.Errorf("column %s's values differ", name)
						}
					}
					used, err := s.WithRanges(map[string]Range{"a": {0.25, 0.75}, "b": {0, 0.5}})
					if err != nil {
						t.Fatal(err)
					}
					rs, err := Rescale(sparse, s, used)
					if err != nil {
						t.Fatal(err)
					}
					rd, err := Rescale(dense, s, used)
					if err != nil {
						t.Fatal(err)
					}
					sameDataset(t, "rescaled", rs, rd)
					if err := rs.Sparse.Check(rs.N, rs.D); err != nil {
						t.Fatal(err)
					}
					sameDataset(t, "the rescaled rows' input", sparse, dense)
				}
			}
		})
	}
}

// TestDivideMoves: Divide gives the sets that Split and SplitByContent copy, and leaves its
// dataset with no rows, held sparse or dense.
func TestDivideMoves(t *testing.T) {
	file := mixedRows(rand.New(rand.NewPCG(83, 84)), 2*BlockRows+5)
	s := mustSchema(t, fmt.Sprintf(mixedSchema, "2", "0.5", "scale"))
	for _, held := range []holding{heldSparse, heldDense} {
		load := func() *Dataset {
			ds, _, err := encode(strings.NewReader(file), s, false, held, Options{})
			if err != nil {
				t.Fatal(err)
			}
			return ds
		}
		ds := load()
		train, test, err := Split(ds, 0.3, rng.Seeded(5))
		if err != nil {
			t.Fatal(err)
		}
		moved := load()
		inTest, err := RandomHoldout(moved.N, 0.3, rng.Seeded(5))
		if err != nil {
			t.Fatal(err)
		}
		mt, ms := moved.Divide(inTest)
		sameDataset(t, "training rows", mt, train)
		sameDataset(t, "test rows", ms, test)
		if moved.N != 0 || moved.X != nil || moved.Sparse != nil || moved.Y != nil {
			t.Errorf("held %d: Divide left rows behind", held)
		}
		train, test, err = SplitByContent(ds, 0.3, 7)
		if err != nil {
			t.Fatal(err)
		}
		moved = load()
		if inTest, err = ContentHoldout(moved, 0.3, 7); err != nil {
			t.Fatal(err)
		}
		mt, ms = moved.Divide(inTest)
		sameDataset(t, "training rows by content", mt, train)
		sameDataset(t, "test rows by content", ms, test)
	}
}

// TestDivideOneHot: Divide gives rows with more one-hot entries than others (4 categorical
// columns and the bias) back bit for bit, each in its set in order.
func TestDivideOneHot(t *testing.T) {
	const n = 2*BlockRows + 5
	s := mustSchema(t, oneHotSchema)
	load := func() *Dataset {
		ds, _, err := Encode(&oneHotGenerated{generatedRows{n: n}}, s)
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	ds, moved := load(), load()
	if ds.Sparse == nil || ds.Sparse.Hots != 4 {
		t.Fatalf("held sparse: %v, want 4 one-hot entries a row", ds.Sparse != nil)
	}
	inTest, err := RandomHoldout(n, 0.3, rng.Seeded(9))
	if err != nil {
		t.Fatal(err)
	}
	train, test := moved.Divide(inTest)
	if err := train.Sparse.Check(train.N, train.D); err != nil {
		t.Fatal(err)
	}
	if err := test.Sparse.Check(test.N, test.D); err != nil {
		t.Fatal(err)
	}
	k := [2]int{}
	for i := range n {
		set, j := train, 0
		if inTest[i] {
			set, j = test, 1
		}
		if got, want := set.Row(k[j], nil), ds.Row(i, nil); !sameBits(got, want) {
			t.Fatalf("row %d: %v in its set, want %v", i, got, want)
		}
		k[j]++
	}
}

// TestSparseRowsBits: a row's entries that are −0 or +0 come back as they are, and rows that
// differ only there compare as their dense bits do.
func TestSparseRowsBits(t *testing.T) {
	negZero := math.Copysign(0, -1)
	b := newSparseBuilder(3, 0)
	b.add([]int32{0, 2}, []float64{negZero, 1})
	b.add([]int32{2}, []float64{1})
	b.add([]int32{0, 2}, []float64{0, 1})
	b.add(nil, nil)
	ds := &Dataset{N: 4, D: 3, Sparse: b.done(), Y: make([]float64, 4)}
	if err := ds.Sparse.Check(ds.N, ds.D); err != nil {
		t.Fatal(err)
	}
	if x := ds.Row(0, nil); math.Float64bits(x[0]) != math.Float64bits(negZero) || x[2] != 1 {
		t.Errorf("row 0 is %v, want [-0 0 1]", x)
	}
	dense := &Dataset{N: 4, D: 3, X: denseX(ds), Y: ds.Y}
	for i := range ds.N {
		for j := range ds.N {
			if a := ds.Sparse.compare(i, j); a != cmpDense(dense, i, j) {
				t.Errorf("rows %d and %d compare %d, their dense bits %d", i, j, a, cmpDense(dense, i, j))
			}
		}
	}
	if got := ds.copyIndices(); !slices.Equal(got, []int{0, 0, 1, 0}) {
		t.Errorf("copy indices %v, want [0 0 1 0] (rows 1 and 2 are the same bits, row 0 has −0)", got)
	}
}

// cmpDense compares rows i and j of a dataset held dense as copyIndices does.
func cmpDense(ds *Dataset, i, j int) int {
	a, b := ds.X[i*ds.D:(i+1)*ds.D], ds.X[j*ds.D:(j+1)*ds.D]
	for k := range a {
		if x, y := math.Float64bits(a[k]), math.Float64bits(b[k]); x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// TestSparseCheck: Check refuses blocks of the wrong size or count, inconsistent starts and
// columns out of order or range.
func TestSparseCheck(t *testing.T) {
	good := func() *Sparse {
		b := newSparseBuilder(3, 1)
		for range BlockRows + 2 {
			b.add([]int32{0, 1, ^3}, []float64{1, 2, 5})
		}
		return b.done()
	}
	if err := good().Check(BlockRows+2, 4); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		change func(s *Sparse)
		n, d   int
	}{
		"rows":         {func(*Sparse) {}, BlockRows + 3, 4},
		"blocks":       {func(s *Sparse) { s.Blocks = s.Blocks[:1] }, BlockRows + 2, 4},
		"width":        {func(*Sparse) {}, BlockRows + 2, 3},
		"order":        {func(s *Sparse) { s.Blocks[1].Col[1] = 0 }, BlockRows + 2, 4},
		"negative":     {func(s *Sparse) { s.Blocks[0].Col[0] = -1 }, BlockRows + 2, 4},
		"start":        {func(s *Sparse) { s.Blocks[0].Start[0] = 1 }, BlockRows + 2, 4},
		"end":          {func(s *Sparse) { s.Blocks[1].Col = s.Blocks[1].Col[:3] }, BlockRows + 2, 4},
		"values":       {func(s *Sparse) { s.Blocks[1].Val = s.Blocks[1].Val[:1] }, BlockRows + 2, 4},
		"one-hot":      {func(s *Sparse) { s.Blocks[1].HotVal = s.Blocks[1].HotVal[:1] }, BlockRows + 2, 4},
		"one-hot cols": {func(s *Sparse) { s.Blocks[1].HotCol = s.Blocks[1].HotCol[:1] }, BlockRows + 2, 4},
		"same column":  {func(s *Sparse) { s.Blocks[0].HotCol[0] = 1 }, BlockRows + 2, 4},
		"hots":         {func(s *Sparse) { s.Hots = 2 }, BlockRows + 2, 4},
		"no hots":      {func(s *Sparse) { s.Hots = 0 }, BlockRows + 2, 4},
		"one-hot past": {func(s *Sparse) { s.Blocks[0].HotCol[1] = 4 }, BlockRows + 2, 4},
		"numeric past": {func(s *Sparse) { s.Blocks[0].Col[1] = 4 }, BlockRows + 2, 4},
		"decreasing":   {func(s *Sparse) { s.Blocks[0].Start[5] = 0 }, BlockRows + 2, 4},
		"past the end": {func(s *Sparse) { s.Blocks[0].Start[1] = 1 << 20 }, BlockRows + 2, 4},
		"row count":    {func(s *Sparse) { s.Blocks[0].Start = s.Blocks[0].Start[:10] }, BlockRows + 2, 4},
		"int32 width":  {func(*Sparse) {}, BlockRows + 2, math.MaxInt32 + 1},
	} {
		s := good()
		tc.change(s)
		if err := s.Check(tc.n, tc.d); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// oneHotGenerated is an io.Reader of a file of n rows of 4 categorical columns of 10 levels
// and a binary label (D = 41 with the bias): rows Encode holds sparse.
type oneHotGenerated struct {
	generatedRows
}

func (g *oneHotGenerated) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.i > g.n {
			return 0, io.EOF
		}
		b := g.buf[:0]
		if g.i == 0 {
			b = append(b, "p,q,r,s,y\n"...)
		} else {
			r := g.i - 1
			for k := range 4 {
				b = append(b, byte('a'+(r>>k)%10), ',')
			}
			b = append(b, byte('0'+r%2), '\n')
		}
		g.buf, g.pending = b, b
		g.i++
	}
	k := copy(p, g.pending)
	g.pending = g.pending[k:]
	return k, nil
}

// TestSummarize: Summarize reads a file as Encode does, with the same diagnostics (its
// non-zero features counted) and the same description of the rows, and keeps none of them.
func TestSummarize(t *testing.T) {
	file := mixedRows(rand.New(rand.NewPCG(85, 86)), BlockRows+3)
	s := mustSchema(t, fmt.Sprintf(mixedSchema, "2", "0.5", "clip"))
	ds, diag, err := Encode(strings.NewReader(file), s)
	if err != nil {
		t.Fatal(err)
	}
	sum, sdiag, err := Summarize(strings.NewReader(file), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	nonZero := 0
	for _, v := range denseX(ds) {
		if v != 0 {
			nonZero++
		}
	}
	if !reflect.DeepEqual(sdiag, diag) || diag.NonZero != nonZero {
		t.Errorf("diagnostics %+v, Encode's %+v (%d non-zero features)", sdiag, diag, nonZero)
	}
	if sum.X != nil || sum.Sparse != nil || sum.Y != nil {
		t.Error("Summarize kept rows")
	}
	sum.X, sum.Sparse, sum.Y = ds.X, ds.Sparse, ds.Y
	if !reflect.DeepEqual(sum, ds) {
		t.Errorf("Summarize describes %+v, Encode %+v", sum, ds)
	}
	if _, _, err := Summarize(strings.NewReader(file+"x,u,1,p,1\n"), s, Options{}); err == nil || !strings.Contains(err.Error(), `line 4101, column "a"`) {
		t.Errorf("a bad value: %v, want its error", err)
	}
}

// TestSummarizeLimit: Summarize stores nothing, yet counts the entries Encode would store
// against MaxCells as Encode does, for rows held sparse and dense.
func TestSummarizeLimit(t *testing.T) {
	for _, md := range [][2]int{{20, 91}, {20, 30}} {
		m, d := md[0], md[1]
		s1, c1 := heldBySchema.rows(m, d)
		s2, c2 := heldNone.rows(m, d)
		if s1 != s2 || c1 != c2 {
			t.Errorf("m = %d, d = %d: Encode holds rows sparse %v, %d entries; Summarize counts %v, %d", m, d, s1, c1, s2, c2)
		}
	}
}

// TestEncodePart: the rows a part keeps have the bits of the training rows that Encode and
// Divide give, block by block, with every training row's label; the blocks it leaves out are
// absent, and the rows pass Sparse.Check, held sparse or dense; the diagnostics are Encode's; a
// file with another number of rows than the held-out flags is refused.
func TestEncodePart(t *testing.T) {
	const n = 3*BlockRows + 517
	file := mixedRows(rand.New(rand.NewPCG(83, 84)), n)
	s := mustSchema(t, fmt.Sprintf(mixedSchema, "2", "0.5", "scale"))
	heldOut, err := RandomHoldout(n, 0.2, rng.Seeded(7))
	if err != nil {
		t.Fatal(err)
	}
	for _, held := range []holding{heldSparse, heldDense} {
		all, diag, err := encode(strings.NewReader(file), s, false, held, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, out := range [][]bool{nil, heldOut} {
			want := all
			if out != nil {
				want, _ = all.divide(out, false)
			}
			blocks := (want.N + BlockRows - 1) / BlockRows
			for _, r := range [][2]int{{0, 1}, {1, blocks}, {0, blocks}, {2, 3}} {
				what := fmt.Sprintf("held %d, held out %t, blocks %v", held, out != nil, r)
				got, gotDiag, err := encode(strings.NewReader(file), s, false, held, Options{Part: &Part{HeldOut: out, First: r[0], Last: r[1]}})
				if err != nil {
					t.Fatal(what, err)
				}
				if !reflect.DeepEqual(gotDiag, diag) {
					t.Errorf("%s: diagnostics %+v, want %+v", what, gotDiag, diag)
				}
				if got.N != want.N || !sameBits(got.Y, want.Y) {
					t.Fatalf("%s: %d rows, want %d, or other labels", what, got.N, want.N)
				}
				if err := got.Sparse.Check(got.N, got.D); err != nil {
					t.Fatal(what, err)
				}
				for i := range got.N {
					b := i / BlockRows
					if keep := b >= r[0] && b < r[1]; got.Holds(i) != keep {
						t.Fatalf("%s: row %d held %t, want %t", what, i, got.Holds(i), keep)
					} else if !keep {
						continue
					}
					gc, gv := got.Entries(i, nil, nil)
					wc, wv := want.Entries(i, nil, nil)
					if !slices.Equal(gc, wc) || !sameBits(gv, wv) {
						t.Fatalf("%s: row %d stores %v %v, want %v %v", what, i, gc, gv, wc, wv)
					}
				}
			}
		}
	}
	if _, _, err := EncodeWith(strings.NewReader(file), s, Options{Part: &Part{HeldOut: heldOut[:n-1], Last: 1}}); err == nil {
		t.Error("a file with more rows than the held-out flags was read")
	}
	if _, _, err := EncodeWith(strings.NewReader(file), s, Options{Part: &Part{HeldOut: append(slices.Clone(heldOut), false), Last: 1}}); err == nil {
		t.Error("a file with fewer rows than the held-out flags was read")
	}
}
