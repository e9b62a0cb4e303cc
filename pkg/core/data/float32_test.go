package data

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// float32File returns a schema of six numeric columns (rows held dense, fit "scale", bias 1/√2,
// which no float32 is) and a file of n rows for it, every twentieth row a copy of the one
// before.
func float32File(t *testing.T, n int) (*Schema, string) {
	t.Helper()
	s := mustSchema(t, `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.7071067811865476, "fit": "scale"}, "columns": [
	 {"name": "a", "kind": "numeric", "min": 0, "max": 1000}, {"name": "b", "kind": "numeric", "min": -3, "max": 7},
	 {"name": "c", "kind": "numeric", "min": 0, "max": 1}, {"name": "d", "kind": "numeric", "min": 1, "max": 1e6, "transform": "log1p"},
	 {"name": "e", "kind": "numeric", "min": -1, "max": 1}, {"name": "f", "kind": "numeric", "min": 0, "max": 9},
	 {"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"]}]}`)
	var b strings.Builder
	b.WriteString("a,b,c,d,e,f,y\n")
	line := ""
	for i := range n {
		if i%20 != 19 {
			line = fmt.Sprintf("%.7g,%.5g,%.9g,%d,%.3g,%d,%d\n", float64(i%997)*1.0137, float64(i%13)*0.77-3, math.Mod(float64(i)*0.618034, 1),
				1+i*37%999983, math.Sin(float64(i)), i%10, i/7%2)
		}
		b.WriteString(line)
	}
	return s, b.String()
}

// TestNarrow: narrow rounds toward zero to the nearest float32 no larger in magnitude, beyond
// the float32 range too; a float32 stays as it is and a NaN a NaN.
func TestNarrow(t *testing.T) {
	for _, v := range []float64{1 / math.Sqrt2, -1 / math.Sqrt2, 0.1, -0.1, 1.0 / 3, 0.5, 1e-50, -1e-50, 1e-40, 1e300, -1e300,
		math.MaxFloat32, math.Inf(1), math.Copysign(0, -1), 0x1.fffffffp-1} {
		f := narrow(v)
		if math.Abs(float64(f)) > math.Abs(v) || math.Signbit(float64(f)) != math.Signbit(v) && f != 0 {
			t.Errorf("narrow(%v) = %v: larger in magnitude, or of another sign", v, f)
		}
		if up := math.Nextafter32(f, float32(math.Copysign(math.Inf(1), v))); math.Abs(float64(up)) <= math.Abs(v) && !math.IsInf(v, 0) {
			t.Errorf("narrow(%v) = %v: %v is nearer and no larger", v, f, up)
		}
		if v32 := float32(v); float64(v32) == v && math.Float32bits(f) != math.Float32bits(v32) {
			t.Errorf("narrow(%v) = %v, not the float32 it is", v, f)
		}
	}
	if f := narrow(math.NaN()); f == f {
		t.Errorf("narrow(NaN) = %v", f)
	}
}

// TestEncodeFloat32: rows held as float32 (Options.Float32) store each value of Encode's rows
// narrowed (rounded toward zero), and the dataset's Bias and Scale so narrowed; Row, Entries
// and at read them back as float64, every row within the radius; Divide, a Part, a content
// hold-out and Rescale keep them as float32 with the bits of the rows they read; Summarize
// describes them; rows held sparse keep their float64 values. A float32 block read at another row's offset, a value
// rounded to nearest (1/√2 rounds up), or a dataset whose Bias is not its rows' fails.
func TestEncodeFloat32(t *testing.T) {
	s, file := float32File(t, 2*BlockRows+900)
	ds64, _, err := Encode(strings.NewReader(file), s)
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := EncodeWith(strings.NewReader(file), s, Options{Float32: true})
	if err != nil {
		t.Fatal(err)
	}
	if !ds.Sparse.Dense || !ds.Sparse.Float32 || ds.Sparse.Check(ds.N, ds.D) != nil {
		t.Fatalf("rows held dense %v, as float32 %v", ds.Sparse.Dense, ds.Sparse.Float32)
	}
	if ds.Bias != float64(narrow(ds64.Bias)) || ds.Bias >= ds64.Bias || ds.Scale != float64(narrow(ds64.Scale)) {
		t.Fatalf("bias %v and scale %v, want %v and %v narrowed", ds.Bias, ds.Scale, ds64.Bias, ds64.Scale)
	}
	if !ds.Float32 || ds64.Float32 {
		t.Fatalf("the datasets say float32 %v and %v", ds.Float32, ds64.Float32)
	}
	if sum, _, err := Summarize(strings.NewReader(file), s, Options{Float32: true}); err != nil || sum.Bias != ds.Bias || sum.Scale != ds.Scale || !sum.Float32 {
		t.Fatalf("%v: Summarize describes bias %v and scale %v, EncodeWith %v and %v", err, sum.Bias, sum.Scale, ds.Bias, ds.Scale)
	}
	x, x64 := make([]float64, ds.D), make([]float64, ds.D)
	for i := range ds.N {
		ds.Row(i, x)
		ds64.Row(i, x64)
		norm := 0.0
		for j, v := range x64 {
			if math.Float64bits(x[j]) != math.Float64bits(float64(narrow(v))) || ds.at(i, j) != x[j] {
				t.Fatalf("row %d, feature %d: %v (at: %v), want %v narrowed", i, j, x[j], ds.at(i, j), v)
			}
			norm += x[j] * x[j]
		}
		if col, val := ds.Entries(i, nil, nil); col != nil || !slices.Equal(val, x) {
			t.Fatalf("row %d: entries %v %v, want the row %v", i, col, val, x)
		}
		if x[ds.D-1] != ds.Bias || math.Sqrt(norm) > ds.Radius {
			t.Fatalf("row %d: bias %v (want %v), norm %v (radius %v)", i, x[ds.D-1], ds.Bias, math.Sqrt(norm), ds.Radius)
		}
	}
	rows := func(d *Dataset) [][]float64 {
		out := make([][]float64, d.N)
		for i := range out {
			out[i] = d.Row(i, nil)
		}
		return out
	}
	all := rows(ds)

	flat := *ds
	flat.Sparse, flat.X = nil, slices.Concat(all...)
	if got, want := ds.copyIndices(), flat.copyIndices(); !slices.Equal(got, want) || slices.Max(got) == 0 {
		t.Fatalf("copy indices %v…, want those of the rows as float64 %v…", got[:40], want[:40])
	}

	inTest := make([]bool, ds.N)
	for i := range inTest {
		inTest[i] = i%3 == 1
	}
	part, _, err := EncodeWith(strings.NewReader(file), s, Options{Float32: true, Part: &Part{HeldOut: inTest, First: 1, Last: 2}})
	if err != nil {
		t.Fatal(err)
	}
	train, test := ds.divide(inTest, false)
	var trainRows, testRows [][]float64
	for i, r := range all {
		if inTest[i] {
			testRows = append(testRows, r)
		} else {
			trainRows = append(trainRows, r)
		}
	}
	for _, c := range []struct {
		name string
		got  *Dataset
		want [][]float64
	}{{"train", train, trainRows}, {"test", test, testRows}} {
		if !c.got.Sparse.Float32 || !slices.EqualFunc(rows(c.got), c.want, slices.Equal) {
			t.Fatalf("%s rows: float32 %v, or not the rows divided", c.name, c.got.Sparse.Float32)
		}
	}
	if !slices.Equal(part.Sparse.Blocks[1].Val32, train.Sparse.Blocks[1].Val32) || !part.Holds(BlockRows) || part.Holds(0) {
		t.Fatal("a part's block is not the training rows' block")
	}

	used, err := s.WithRanges(map[string]Range{"a": {Lo: 0.1, Hi: 0.6}, "f": {Lo: 0.25, Hi: 0.75}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Rescale(ds, s, used)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Rescale(ds64, s, used)
	if err != nil {
		t.Fatal(err)
	}
	wide, err := Rescale(&flat, s, used) // the float32 values, rescaled in float64
	if err != nil {
		t.Fatal(err)
	}
	if !got.Sparse.Float32 || !slices.EqualFunc(rows(ds), all, slices.Equal) {
		t.Fatal("Rescale's rows are not float32, or it changed its input")
	}
	for i := range got.N {
		got.Row(i, x)
		want.Row(i, x64)
		w := wide.Row(i, nil)
		norm := 0.0
		for j, v := range x {
			// x/c of a narrowed x is within 2⁻²³ of the float64 one's, and the range doubles it.
			if v != float64(narrow(w[j])) || math.Abs(v-x64[j]) > 6*0x1p-24*ds.Scale {
				t.Fatalf("row %d, feature %d: rescaled %v, want %v narrowed (float64 rows give %v)", i, j, v, w[j], x64[j])
			}
			norm += v * v
		}
		if math.Sqrt(norm) > got.Radius {
			t.Fatalf("row %d: rescaled norm %v exceeds %v", i, math.Sqrt(norm), got.Radius)
		}
	}

	sparse, _, err := EncodeWith(&oneHotGenerated{generatedRows{n: 100}}, mustSchema(t, oneHotSchema), Options{Float32: true})
	if err != nil || sparse.Sparse.Dense || sparse.Sparse.Float32 || sparse.Float32 || sparse.Bias != 0.5 {
		t.Fatalf("%v: rows held sparse as float32 %v, or dense %v", err, sparse.Sparse.Float32, sparse.Sparse.Dense)
	}
}
