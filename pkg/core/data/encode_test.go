package data

import (
	"fmt"
	"github.com/privopt/privopt/pkg/core/geom"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// encodeInput has its columns in another order than encodeSchema declares them; its rows
// exercise clipping, missing values, the other bucket and RestNegative. Their z (numeric
// scaled to [0, 1], then one-hot red, green, other) is encodeZ.
const encodeInput = "y, c, skip, n\n" +
	"yes, green, whatever, 12\n" +
	"maybe, blue, , 25\n" +
	"no, , \"quoted, text\", ?\n" +
	"no, red, x, 5\n"

var encodeZ = [][]float64{
	{0.2, 0, 1, 0},
	{1, 0, 0, 1},
	{0.5, 1, 0, 0},
	{0, 1, 0, 0},
}

func encodeSchema(norm string) string {
	return `{"privopt_schema": 1, "norm": ` + norm + `, "columns": [
	 {"name": "n", "kind": "numeric", "min": 10, "max": 20, "missing": {"replace": 15}},
	 {"name": "c", "kind": "categorical", "categories": ["red", "green"], "other": true, "missing": {"replace": "red"}},
	 {"name": "skip", "kind": "ignore"},
	 {"name": "y", "kind": "binary-label", "positive": ["yes"], "negative": ["no"], "rest_negative": true}]}`
}

func TestEncodeValues(t *testing.T) {
	r2 := math.Sqrt2
	tests := []struct {
		name    string
		norm    string
		p, r, b float64
		x       [][]float64 // the expected rows, without the bias
		clipped int
	}{
		{"l2 scale, no bias: z/sqrt(2)", `{"p": 2, "radius": 1, "fit": "scale"}`, 2, 1, 0,
			scaleRows(encodeZ, 1/r2), 0},
		{"l2 scale with bias: sqrt(3/2)·z, 1", `{"p": 2, "radius": 2, "bias": 1, "fit": "scale"}`, 2, 2, 1,
			scaleRows(encodeZ, math.Sqrt(1.5)), 0},
		{"l1 scale with bias: z/4", `{"p": 1, "radius": 1, "bias": 0.5, "fit": "scale"}`, 1, 1, 0.5,
			scaleRows(encodeZ, 0.25), 0},
		{"linf scale with bias: z", `{"p": "inf", "radius": 1, "bias": 0.5, "fit": "scale"}`, math.Inf(1), 1, 0.5,
			encodeZ, 0},
		{"l2 clip", `{"p": 2, "radius": 1, "fit": "clip"}`, 2, 1, 0,
			[][]float64{
				{0.2 / math.Sqrt(1.04), 0, 1 / math.Sqrt(1.04), 0},
				{1 / r2, 0, 0, 1 / r2},
				{0.5 / math.Sqrt(1.25), 1 / math.Sqrt(1.25), 0, 0},
				{0, 1, 0, 0},
			}, 3},
		{"l1 clip with bias: Rz = 1.5", `{"p": 1, "radius": 2.5, "bias": 1, "fit": "clip"}`, 1, 2.5, 1,
			[][]float64{{0.2, 0, 1, 0}, {0.75, 0, 0, 0.75}, {0.5, 1, 0, 0}, {0, 1, 0, 0}}, 1},
		{"l3 clip", `{"p": 3, "radius": 1, "fit": "clip"}`, 3, 1, 0,
			[][]float64{
				scaleRows(encodeZ[:1], 1/math.Cbrt(1.008))[0],
				scaleRows(encodeZ[1:2], 1/math.Cbrt(2))[0],
				scaleRows(encodeZ[2:3], 1/math.Cbrt(1.125))[0],
				{0, 1, 0, 0},
			}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds, diag, err := Encode(strings.NewReader(encodeInput), mustSchema(t, encodeSchema(tc.norm)))
			if err != nil {
				t.Fatal(err)
			}
			features := []string{"n", "c=red", "c=green", "c=(other)"}
			if tc.b > 0 {
				features = append(features, "(bias)")
			}
			if ds.N != 4 || ds.D != len(features) || !slices.Equal(ds.Features, features) {
				t.Fatalf("N = %d, D = %d, features %q; want 4, %d, %q", ds.N, ds.D, ds.Features, len(features), features)
			}
			if want := []int{1, 2, 3}; !slices.Equal(ds.Categorical, want) { // c's categories and (other)
				t.Errorf("categorical features %v, want %v", ds.Categorical, want)
			}
			for i, want := range tc.x {
				if tc.b > 0 {
					want = append(slices.Clone(want), tc.b)
				}
				for k := range want {
					if !closeTo(ds.Row(i, nil)[k], want[k], 1e-15) {
						t.Fatalf("row %d = %v, want %v", i, ds.Row(i, nil), want)
					}
				}
				if n := geom.Norm(ds.Row(i, nil), tc.p); n > tc.r {
					t.Errorf("row %d has norm %v > %v", i, n, tc.r)
				}
			}
			if want := []float64{1, -1, -1, -1}; !slices.Equal(ds.Y, want) {
				t.Errorf("Y = %v, want %v", ds.Y, want)
			}
			if ds.P != tc.p || ds.Radius != tc.r || ds.Bias != tc.b || !reflect.DeepEqual(ds.Label, Label{Name: "y", Kind: LabelBinary}) {
				t.Errorf("P, Radius, Bias, Label = %v, %v, %v, %+v", ds.P, ds.Radius, ds.Bias, ds.Label)
			}
			nonZero := 0
			for _, v := range denseX(ds) {
				if v != 0 {
					nonZero++
				}
			}
			wantDiag := &Diagnostics{Rows: 4, NonZero: nonZero, Delimiter: ',', ClippedRows: tc.clipped, Columns: []ColumnDiagnostics{
				{Name: "n", Missing: 1, Clipped: 2}, {Name: "c", Missing: 1, Other: 1}, {Name: "y", Other: 1}}}
			if !reflect.DeepEqual(diag, wantDiag) {
				t.Errorf("diagnostics %+v, want %+v", diag, wantDiag)
			}
		})
	}
}

func scaleRows(z [][]float64, c float64) [][]float64 {
	out := make([][]float64, len(z))
	for i, row := range z {
		for _, v := range row {
			out[i] = append(out[i], c*v)
		}
	}
	return out
}

func TestEncodeLabels(t *testing.T) {
	tests := []struct {
		name, schema, input string
		y                   []float64
		label               Label
		diag                ColumnDiagnostics
	}{
		{"class indices", classSchema, "a,y\n1,dog\n2,cat\n3,dog\n", []float64{1, 0, 1},
			Label{Name: "y", Kind: LabelClass, Classes: []string{"cat", "dog"}}, ColumnDiagnostics{Name: "y"}},
		{"numeric target, clipped to [-5, 5]", targetSchema, "a,y\n1,-7.5\n2,2.25\n3,1e3\n", []float64{-5, 2.25, 5},
			Label{Name: "y", Kind: LabelNumeric, Min: -5, Max: 5, Unit: 1}, ColumnDiagnostics{Name: "y", Clipped: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds, diag, err := Encode(strings.NewReader(tc.input), mustSchema(t, tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ds.Y, tc.y) || !reflect.DeepEqual(ds.Label, tc.label) {
				t.Errorf("Y = %v, label %+v; want %v, %+v", ds.Y, ds.Label, tc.y, tc.label)
			}
			if got := diag.Columns[len(diag.Columns)-1]; got != tc.diag {
				t.Errorf("label diagnostics %+v, want %+v", got, tc.diag)
			}
		})
	}
}

// TestEncodeScaleIsTight encodes rows that reach the largest possible ‖z‖ (every numeric
// value at its max) under FitScale, for several norms, biases and column counts: the row's
// computed norm must not exceed the radius and must reach it to within rounding (1e-12), so
// the a-priori factor is exactly the largest that is safe.
func TestEncodeScaleIsTight(t *testing.T) {
	for _, p := range []string{"1", "1.5", "2", "3", `"inf"`} {
		for _, bias := range []string{"0", "0.3", "0.7071067811865476"} {
			for _, m := range []int{1, 3, 12} {
				var cols, header, row []string
				for k := range m {
					if k%2 == 0 {
						cols = append(cols, fmt.Sprintf(`{"name": "n%d", "kind": "numeric", "min": 0, "max": 7}`, k))
						row = append(row, "7")
					} else {
						cols = append(cols, fmt.Sprintf(`{"name": "n%d", "kind": "categorical", "categories": ["u", "v"]}`, k))
						row = append(row, "v")
					}
					header = append(header, fmt.Sprintf("n%d", k))
				}
				cols = append(cols, `{"name": "y", "kind": "numeric-label", "min": 0, "max": 1}`)
				js := `{"privopt_schema": 1, "norm": {"p": ` + p + `, "radius": 1, "bias": ` + bias + `, "fit": "scale"}, "columns": [` + strings.Join(cols, ",") + `]}`
				input := strings.Join(append(header, "y"), ",") + "\n" + strings.Join(append(row, "0"), ",") + "\n"
				s := mustSchema(t, js)
				ds, _, err := Encode(strings.NewReader(input), s)
				if err != nil {
					t.Fatal(err)
				}
				n := geom.Norm(ds.Row(0, nil), s.Norm.P)
				if n > 1 || n < 1-1e-12 {
					t.Errorf("p = %s, bias %s, m = %d: the largest row has norm %v; want 1 within 1e-12, not above", p, bias, m, n)
				}
			}
		}
	}
}

func TestEncodeColumnOrderIrrelevant(t *testing.T) {
	s := mustSchema(t, encodeSchema(`{"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"}`))
	a, _, err := Encode(strings.NewReader(encodeInput), s)
	if err != nil {
		t.Fatal(err)
	}
	reordered := "n;skip;c;y\r\n12;w;green;yes\r\n25;;blue;maybe\r\n?;;;no\r\n5;x;red;no\r\n"
	b, _, err := Encode(strings.NewReader(reordered), s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the same data in another column order and dialect encodes differently:\n%+v\n%+v", a, b)
	}
}

// TestEncodeForPrediction checks that rows read without the label and the ignored column
// encode exactly as Encode encodes them, with NaN labels; that a file with the label encodes
// it; and that a missing feature column is still an error.
func TestEncodeForPrediction(t *testing.T) {
	for _, norm := range []string{`{"p": 2, "radius": 2, "bias": 1, "fit": "scale"}`, `{"p": 2, "radius": 1, "fit": "clip"}`} {
		s := mustSchema(t, encodeSchema(norm))
		want, _, err := Encode(strings.NewReader(encodeInput), s)
		if err != nil {
			t.Fatal(err)
		}
		unlabelled := "c, n\ngreen, 12\nblue, 25\n, ?\nred, 5\n"
		got, diag, err := EncodeForPrediction(strings.NewReader(unlabelled), s)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(denseX(got), denseX(want)) || got.D != want.D || got.N != want.N {
			t.Errorf("%s: rows %v, want %v", norm, denseX(got), denseX(want))
		}
		for i, y := range got.Y {
			if !math.IsNaN(y) {
				t.Errorf("%s: label %d is %g, want NaN", norm, i, y)
			}
		}
		if last := diag.Columns[len(diag.Columns)-1]; last.Name != "y" || last != (ColumnDiagnostics{Name: "y"}) {
			t.Errorf("%s: the label's diagnostics %+v", norm, last)
		}
		// A label column is not read: its values, empty or not a label, change nothing.
		labelled, _, err := EncodeForPrediction(strings.NewReader(encodeInput), s)
		if err != nil || slices.IndexFunc(labelled.Y, func(y float64) bool { return !math.IsNaN(y) }) >= 0 ||
			!slices.Equal(denseX(labelled), denseX(want)) {
			t.Errorf("%s: a labelled file: %v, %v", norm, labelled, err)
		}
		odd := "c, n, y\ngreen, 12,\nblue, 25, maybe\n, ?, ?\nred, 5, 1\n"
		if got, _, err := EncodeForPrediction(strings.NewReader(odd), s); err != nil || !slices.Equal(denseX(got), denseX(want)) {
			t.Errorf("%s: a label column of empty and unknown values: %v, %v", norm, got, err)
		}
		sc := s.Scaling()
		if x := denseX(want); s.Norm.Fit == FitScale && !closeTo(x[0]/encodeZ[0][0], sc.Scale, 1e-15) {
			t.Errorf("%s: Scaling %+v, but the first feature is %g·z", norm, sc, x[0]/encodeZ[0][0])
		}
		if s.Norm.Fit == FitClip && (sc.Scale != 1 || sc.FeatureRadius != 1) {
			t.Errorf("%s: Scaling %+v, want 1 and the radius", norm, sc)
		}
	}
	s := mustSchema(t, encodeSchema(`{"p": 2, "radius": 1, "fit": "scale"}`))
	if _, _, err := EncodeForPrediction(strings.NewReader("n, y\n12, yes\n"), s); err == nil || !strings.Contains(err.Error(), `"c" is not in the header`) {
		t.Errorf("a missing feature column: error %v", err)
	}
	if _, _, err := EncodeForPrediction(strings.NewReader("n, c, extra\n12, red, 1\n"), s); err == nil {
		t.Error("an undeclared column: no error")
	}
}

// TestCategoryLookup checks that every declared category, class and binary label value is
// found, whether the column's texts are compared one by one (up to scanKeys) or hashed, and that
// a text outside them is not: a categorical column of k categories puts row c's one in feature
// c, a class label gives its index, a binary label ±1.
func TestCategoryLookup(t *testing.T) {
	for _, k := range []int{1, scanKeys, scanKeys + 1, 41} {
		names := make([]string, k)
		for c := range names {
			names[c] = fmt.Sprintf(`"v%d"`, c)
		}
		list := strings.Join(names, ",")
		s := mustSchema(t, `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "scale"}, "columns": [`+
			`{"name": "c", "kind": "categorical", "categories": [`+list+`]},`+
			`{"name": "y", "kind": "class-label", "classes": [`+list+`]}]}`)
		var text strings.Builder
		text.WriteString("c,y\n")
		for c := range k {
			fmt.Fprintf(&text, "v%d,v%d\n", c, k-1-c)
		}
		ds, _, err := Encode(strings.NewReader(text.String()), s)
		if err != nil {
			t.Fatalf("%d categories: %v", k, err)
		}
		row := make([]float64, ds.D)
		for i := range k {
			row = ds.Row(i, row)
			for j := range k {
				if (row[j] != 0) != (j == i) {
					t.Fatalf("%d categories: row %d has feature %d = %g", k, i, j, row[j])
				}
			}
			if ds.Y[i] != float64(k-1-i) {
				t.Fatalf("%d classes: row %d has the label %g, want %d", k, i, ds.Y[i], k-1-i)
			}
		}
		if _, _, err := Encode(strings.NewReader("c,y\nv0,w\n"), s); err == nil {
			t.Errorf("%d classes: a label outside them is accepted", k)
		}
		if _, _, err := Encode(strings.NewReader(fmt.Sprintf("c,y\nv%d,v0\n", k)), s); err == nil {
			t.Errorf("%d categories: a category outside them is accepted", k)
		}
	}
	s := mustSchema(t, `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "scale"}, "columns": [`+
		`{"name": "x", "kind": "numeric", "min": 0, "max": 1},`+
		`{"name": "y", "kind": "binary-label", "positive": ["yes", "ok"], "negative": ["no"]}]}`)
	ds, _, err := Encode(strings.NewReader("x,y\n0.5,yes\n0.5,no\n0.5,ok\n"), s)
	if err != nil || !slices.Equal(ds.Y, []float64{1, -1, 1}) {
		t.Errorf("binary labels %v (%v), want [1 -1 1]", ds.Y, err)
	}
}

// TestEncodeDecimalComma: a file whose numbers have a decimal comma, under a schema that
// declares it, encodes to the same dataset, bit for bit, as the file written with points
// (the missing value's replacement, declared as a JSON number, included).
func TestEncodeDecimalComma(t *testing.T) {
	const js = `{"privopt_schema": 1,%s "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"},
	 "columns": [{"name": "a", "kind": "numeric", "min": -1.5, "max": 2.25, "missing": {"replace": 0.75}},
	  {"name": "c", "kind": "categorical", "categories": ["1,5", "x"]},
	  {"name": "y", "kind": "numeric-label", "min": 0, "max": 1.5}]}`
	point := "a;c;y\n0.1;1,5;0.3\n-1.25;x;1.4\n;x;.5\n2e-1;1,5;1\n"
	comma := "a;c;y\n0,1;1,5;0,3\n-1,25;x;1,4\n;x;,5\n2e-1;1,5;1\n"
	want, _, err := Encode(strings.NewReader(point), mustSchema(t, fmt.Sprintf(js, "")))
	if err != nil {
		t.Fatal(err)
	}
	s := mustSchema(t, fmt.Sprintf(js, ` "decimal": ",",`))
	got, diag, err := Encode(strings.NewReader(comma), s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || diag.Columns[0].Missing != 1 {
		t.Fatalf("with a decimal comma: %+v (missing %d)\nwith a point: %+v", got, diag.Columns[0].Missing, want)
	}
	b, err := s.MarshalJSON()
	if err != nil || !strings.Contains(string(b), `"decimal":","`) {
		t.Fatalf("the schema's JSON %s, %v: no decimal comma", b, err)
	}
}

// TestEncodeMissingNumbers: in a numeric column (feature or label) NA, #N/A, N/A, NaN, NULL,
// None and "." in any case are missing values, replaced and counted; in a categorical column
// they are texts, and "NaN" among numbers or "Inf" are not missing.
func TestEncodeMissingNumbers(t *testing.T) {
	s := mustSchema(t, `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "clip"},
	 "columns": [{"name": "a", "kind": "numeric", "min": 0, "max": 10, "missing": {"replace": 5}},
	  {"name": "c", "kind": "categorical", "categories": ["NA", "b"]},
	  {"name": "y", "kind": "numeric-label", "min": 0, "max": 1, "missing": {"replace": 0.5}}]}`)
	marks := []string{"NA", "na", "#N/A", "n/a", "NaN", "nan", "NULL", "null", "None", "NONE", "."}
	var b strings.Builder
	b.WriteString("a,c,y\n")
	for _, m := range marks {
		fmt.Fprintf(&b, "%s,NA,%s\n", m, m)
	}
	ds, diag, err := Encode(strings.NewReader(b.String()), s)
	if err != nil {
		t.Fatal(err)
	}
	if diag.Columns[0].Missing != len(marks) || diag.Columns[2].Missing != len(marks) || diag.Columns[1].Missing != 0 {
		t.Fatalf("missing values counted %+v; want %d in a and y, none in c", diag.Columns, len(marks))
	}
	replaced, _, err := Encode(strings.NewReader("a,c,y\n5,NA,0.5\n"), s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ds.N {
		if x := ds.Row(i, nil); !slices.Equal(x, replaced.Row(0, nil)) || ds.Y[i] != 0.5 {
			t.Fatalf("row %d (%s): %v, label %v; want %v, 0.5", i, marks[i], x, ds.Y[i], replaced.Row(0, nil))
		}
	}
	for _, text := range []string{"Inf", "N.A.", "nil", "-", "NAN1"} {
		if _, _, err := Encode(strings.NewReader("a,c,y\n"+text+",b,1\n"), s); err == nil {
			t.Errorf("%q in a numeric column: encoded", text)
		}
	}
}
