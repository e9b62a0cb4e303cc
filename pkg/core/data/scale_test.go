package data

import (
	"encoding/json"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/geom"
)

// TestScaleSchemaErrors checks every error of the members transform, scale and private_range.
func TestScaleSchemaErrors(t *testing.T) {
	label := func(col string) string {
		return `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "scale"}, "columns": [
		 {"name": "a", "kind": "numeric", "min": 0, "max": 1}, ` + col + `]}`
	}
	tests := []struct {
		name, js, want string
	}{
		{"transform on a label", label(`{"name": "y", "kind": "numeric-label", "min": 0, "max": 1, "transform": "log1p"}`),
			`data: schema: column "y": "transform" does not apply to a "numeric-label" column`},
		{"transform on a categorical column", schemaWith("", `{"name": "b", "kind": "categorical", "categories": ["x"], "transform": "log1p"}`),
			`data: schema: column "b": "transform" does not apply to a "categorical" column`},
		{"unknown transform", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "transform": "log"}`),
			`data: schema: column "b": unknown transform "log" (the transform is "log1p", or none)`},
		{"log1p at min -1", schemaWith("", `{"name": "b", "kind": "numeric", "min": -1, "max": 1, "transform": "log1p"}`),
			`data: schema: column "b": transform "log1p" needs min > −1 (log(1 + v) is undefined for v ≤ −1), and min is -1`},
		{"log1p of a range too narrow", schemaWith("", `{"name": "b", "kind": "numeric", "min": 1e20, "max": 1.000000000000001e20, "transform": "log1p"}`),
			`data: schema: column "b": the range [1e+20, 1.000000000000001e+20] is too narrow for transform "log1p" in float64: log(1 + min) and log(1 + max) are equal`},
		{"unknown scale", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "scale": "private"}`),
			`data: schema: column "b": scale "private" is not "declared" (leave it out to let a fit scale the column privately)`},
		{"scale on a categorical column", schemaWith("", `{"name": "b", "kind": "categorical", "categories": ["x"], "scale": "declared"}`),
			`data: schema: column "b": "scale" does not apply to a "categorical" column`},
		{"range on a categorical column", schemaWith("", `{"name": "b", "kind": "categorical", "categories": ["x"], "private_range": {"lo": 0, "hi": 1}}`),
			`data: schema: column "b": "private_range" does not apply to a "categorical" column`},
		{"range on a binary label", `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "scale"}, "columns": [
		   {"name": "a", "kind": "numeric", "min": 0, "max": 1},
		   {"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"], "private_range": {"lo": 0, "hi": 1}}]}`,
			`data: schema: column "y": "private_range" does not apply to a "binary-label" column`},
		{"range without hi", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "private_range": {"lo": 0}}`),
			`data: schema: column "b": private_range: "lo" and "hi" are both required`},
		{"range with another member", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "private_range": {"lo": 0, "hi": 1, "mid": 0.5}}`),
			`data: schema: line 1: unknown member "mid" (did you mean "min"?)`},
		{"empty range", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "private_range": {"lo": 0.5, "hi": 0.5}}`),
			`data: schema: column "b": private_range [0.5, 0.5]: the ends are fractions of the declared scale with 0 ≤ lo < hi ≤ 1`},
		{"range below 0", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "private_range": {"lo": -0.1, "hi": 0.5}}`),
			`data: schema: column "b": private_range [-0.1, 0.5]: the ends are fractions of the declared scale with 0 ≤ lo < hi ≤ 1`},
		{"range above 1", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "private_range": {"lo": 0.5, "hi": 1.5}}`),
			`data: schema: column "b": private_range [0.5, 1.5]: the ends are fractions of the declared scale with 0 ≤ lo < hi ≤ 1`},
		{"range on a declared column", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "scale": "declared", "private_range": {"lo": 0, "hi": 0.5}}`),
			`data: schema: column "b": a private_range on a column whose scale is "declared"`},
		{"label range too narrow in units", label(`{"name": "y", "kind": "numeric-label", "min": 1, "max": 1.0000000000000002, "private_range": {"lo": 0.25, "hi": 0.5}}`),
			`data: schema: column "y": private_range [0.25, 0.5] is too narrow for the declared range [1, 1.0000000000000002] in float64: its ends are equal in the label's units`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := LoadSchema(strings.NewReader(tc.js))
			if err == nil {
				t.Fatalf("LoadSchema succeeded: %+v; want the error %s", s, tc.want)
			}
			if err.Error() != tc.want {
				t.Fatalf("error\n got: %s\nwant: %s", err, tc.want)
			}
		})
	}
}

// scaledSchema has a log1p column, a column that keeps its declared scale, a column and a
// numeric label with private ranges, and a categorical column.
const scaledSchema = `{"privopt_schema": 1, "norm": {"p": "inf", "radius": 1, "fit": "scale"}, "columns": [
 {"name": "g", "kind": "numeric", "min": 0, "max": 999, "transform": "log1p"},
 {"name": "d", "kind": "numeric", "min": 0, "max": 10, "scale": "declared"},
 {"name": "a", "kind": "numeric", "min": 0, "max": 100, "private_range": {"lo": 0.25, "hi": 0.75}, "missing": {"replace": 10}},
 {"name": "c", "kind": "categorical", "categories": ["p", "q"]},
 {"name": "y", "kind": "numeric-label", "min": 0, "max": 200, "private_range": {"lo": 0.25, "hi": 0.75}}]}`

func TestScaleRoundTrip(t *testing.T) {
	s := mustSchema(t, scaledSchema)
	out, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"transform":"log1p"`, `"scale":"declared"`, `"private_range":{"lo":0.25,"hi":0.75}`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%s does not contain %s", out, want)
		}
	}
	back := mustSchema(t, string(out))
	if !reflect.DeepEqual(s, back) {
		t.Fatalf("round trip changed the schema:\n%+v\n%+v", s, back)
	}
	if c := s.Columns; c[0].Transform != Log1p || c[1].Scale != ScaleDeclared || *c[2].Range != (Range{0.25, 0.75}) || *c[4].Range != (Range{0.25, 0.75}) {
		t.Fatalf("decoded %+v", c)
	}
}

// TestEncodeScaled checks the encoding of a log1p column, a private range on a feature and on
// the label, exactly, and their diagnostics; c = 1 (p = ∞), so the rows are the z's.
func TestEncodeScaled(t *testing.T) {
	const input = "g,d,a,c,y\n" +
		"0,5,50,p,100\n" + // z_a = 0.5 → 0.5; y at the middle of its range → 0
		"999,5,10,q,150\n" + // a below its private range → 0; y at the range's top → 1
		"9,5,80,p,0\n" + // a above its range → 1; y below → −1
		"5000,5,-5,q,75\n" + // g above the declared range → 1; a below → 0 (declared clip); y → −0.5
		"3,5,30,p,300\n" + // y above the declared range → 1
		"0,5,?,p,100\n" // a missing, replaced by 10 → 0
	s := mustSchema(t, scaledSchema)
	ds, diag, err := Encode(strings.NewReader(input), s)
	if err != nil {
		t.Fatal(err)
	}
	g := func(v float64) float64 { return math.Log1p(v) / math.Log1p(999) }
	a := func(z float64) float64 { return (z - 0.25) / 0.5 } // at run time: 0.3 − 0.25 rounds
	want := [][]float64{
		{0, 0.5, 0.5, 1, 0},
		{1, 0.5, 0, 0, 1},
		{g(9), 0.5, 1, 1, 0},
		{1, 0.5, 0, 0, 1},
		{g(3), 0.5, a(0.3), 1, 0},
		{0, 0.5, 0, 1, 0},
	}
	for i, w := range want {
		if !slices.Equal(ds.Row(i, nil), w) {
			t.Errorf("row %d = %v, want %v", i, ds.Row(i, nil), w)
		}
	}
	if wantY := []float64{0, 1, -1, -0.5, 1, 0}; !slices.Equal(ds.Y, wantY) {
		t.Errorf("Y = %v, want %v", ds.Y, wantY)
	}
	if want := (Label{Name: "y", Kind: LabelNumeric, Min: -1, Max: 1, Offset: 100, Unit: 50}); !reflect.DeepEqual(ds.Label, want) {
		t.Errorf("label %+v, want %+v", ds.Label, want)
	}
	for y, raw := range map[float64]float64{0: 100, 1: 150, -1: 50, -0.5: 75} {
		if got := ds.Label.Raw(y); got != raw {
			t.Errorf("Raw(%v) = %v, want %v", y, got, raw)
		}
	}
	wantDiag := []ColumnDiagnostics{{Name: "g", Clipped: 1}, {Name: "d"}, {Name: "a", Missing: 1, Clipped: 1, ClippedToRange: 2},
		{Name: "c"}, {Name: "y", Clipped: 1, ClippedToRange: 1}}
	if !slices.Equal(diag.Columns, wantDiag) {
		t.Errorf("diagnostics %+v, want %+v", diag.Columns, wantDiag)
	}

	// EncodeForPrediction encodes the features the same way.
	var unlabelled strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		unlabelled.WriteString(line[:strings.LastIndexByte(line, ',')] + "\n")
	}
	pred, _, err := EncodeForPrediction(strings.NewReader(unlabelled.String()), s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(denseX(pred), denseX(ds)) || !math.IsNaN(pred.Y[0]) || !reflect.DeepEqual(pred.Label, ds.Label) {
		t.Errorf("EncodeForPrediction: X = %v, Y = %v, label %+v", denseX(pred), pred.Y, pred.Label)
	}
}

// TestLabelRaw checks that the map is the identity, bit for bit, without a range and for the
// zero Label.
func TestLabelRaw(t *testing.T) {
	for _, l := range []Label{{}, {Kind: LabelNumeric, Min: -5, Max: 5, Unit: 1}} {
		for _, y := range []float64{math.Copysign(0, -1), 0.1, -3, 1e300} {
			if got := l.Raw(y); math.Float64bits(got) != math.Float64bits(y) {
				t.Errorf("%+v: Raw(%v) = %v", l, y, got)
			}
		}
	}
	if got := (Label{Offset: 7, Unit: 0.5}).Raw(-2); got != 6 {
		t.Errorf("Raw(−2) = %v, want 6", got)
	}
}

func TestPrivatelyScaledAndWithRanges(t *testing.T) {
	s := mustSchema(t, `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "scale"}, "columns": [
	 {"name": "g", "kind": "numeric", "min": 0, "max": 999, "transform": "log1p"},
	 {"name": "d", "kind": "numeric", "min": 0, "max": 10, "scale": "declared"},
	 {"name": "c", "kind": "categorical", "categories": ["p", "q"]},
	 {"name": "i", "kind": "ignore"},
	 {"name": "a", "kind": "numeric", "min": 0, "max": 100},
	 {"name": "y", "kind": "numeric-label", "min": 0, "max": 200}]}`)
	if got := s.PrivatelyScaled(); !slices.Equal(got, []string{"g", "a", "y"}) {
		t.Fatalf("PrivatelyScaled = %q", got)
	}
	before := s.clone()
	used, err := s.WithRanges(map[string]Range{"g": {0, 0.5}, "y": {0.125, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, before) {
		t.Fatal("WithRanges changed its schema")
	}
	if *used.Columns[0].Range != (Range{0, 0.5}) || *used.Columns[5].Range != (Range{0.125, 1}) || used.Columns[4].Range != nil {
		t.Fatalf("ranges %+v", used.Columns)
	}
	if got := used.PrivatelyScaled(); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("PrivatelyScaled after WithRanges = %q", got)
	}
	clip := s.clone()
	clip.Norm.Fit = FitClip
	if got := clip.PrivatelyScaled(); !slices.Equal(got, []string{"y"}) {
		t.Fatalf("PrivatelyScaled under clip = %q, want the label only", got)
	}
	used.Columns[2].Categories[0] = "changed"
	if s.Columns[2].Categories[0] != "p" {
		t.Fatal("WithRanges's schema shares memory with its input")
	}
	for _, c := range []struct {
		r    map[string]Range
		want string
	}{
		{map[string]Range{"zz": {0, 1}, "a": {0, 1}}, `data: schema: column "zz": a private range for a column the schema does not have`},
		{map[string]Range{"c": {0, 1}}, `data: schema: column "c": a private range applies to numeric columns only, and the column is "categorical"`},
		{map[string]Range{"i": {0, 1}}, `data: schema: column "i": a private range applies to numeric columns only, and the column is "ignore"`},
		{map[string]Range{"d": {0, 1}}, `data: schema: column "d": a private range on a column whose scale is "declared"`},
		{map[string]Range{"a": {0.5, 0.25}}, `data: schema: column "a": private_range [0.5, 0.25]: the ends are fractions of the declared scale with 0 ≤ lo < hi ≤ 1`},
	} {
		if _, err := s.WithRanges(c.r); err == nil || err.Error() != c.want {
			t.Errorf("WithRanges(%v): %v, want %s", c.r, err, c.want)
		}
	}
}

// adultVariants returns the adult-lr schema with log1p on capital-gain, and its variant with
// hours-per-week as a numeric label (income ignored), each with the ranges to set.
func adultVariants(t *testing.T) map[string]struct {
	declared *Schema
	ranges   map[string]Range
} {
	base := loadAdultSchema(t)
	gain := slices.IndexFunc(base.Columns, func(c Column) bool { return c.Name == "capital-gain" })
	base.Columns[gain].Transform = Log1p
	features := map[string]Range{"age": {0.0625, 0.59375}, "education-num": {0.25, 0.875},
		"capital-gain": {0, 0.0078125}, "capital-loss": {0.0001, 0.25}}
	regression := base.clone()
	for i := range regression.Columns {
		switch c := &regression.Columns[i]; c.Name {
		case "hours-per-week":
			c.Kind, c.Missing = NumericLabel, Missing{}
		case "Y":
			*c = Column{Name: "Y", Kind: Ignore}
		}
	}
	withLabel := maps(features, map[string]Range{"hours-per-week": {0.1875, 0.5}})
	if err := base.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := regression.Validate(); err != nil {
		t.Fatal(err)
	}
	return map[string]struct {
		declared *Schema
		ranges   map[string]Range
	}{"classification": {base, features}, "regression": {regression, withLabel}}
}

func maps(a, b map[string]Range) map[string]Range {
	out := map[string]Range{}
	for _, m := range []map[string]Range{a, b} {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// TestRescaleAdult checks on adult.data that Rescale gives what a fresh Encode with the schema
// as used gives: features of ranged columns within 4 units of 2⁻⁵²·c/(Hi − Lo), the others and
// the labels bit-identical, rows within the norm bound, and its input unchanged.
func TestRescaleAdult(t *testing.T) {
	raw, err := io.ReadAll(openAdult(t, "adult.data"))
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range adultVariants(t) {
		t.Run(name, func(t *testing.T) {
			used, err := v.declared.WithRanges(v.ranges)
			if err != nil {
				t.Fatal(err)
			}
			ds, _, err := Encode(strings.NewReader(string(raw)), v.declared)
			if err != nil {
				t.Fatal(err)
			}
			fresh, diag, err := Encode(strings.NewReader(string(raw)), used)
			if err != nil {
				t.Fatal(err)
			}
			if ds.Sparse == nil {
				t.Fatal("adult's one-hot rows are not held sparse")
			}
			keep, keepY := denseX(ds), slices.Clone(ds.Y)
			got, err := Rescale(ds, v.declared, used)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(denseX(ds), keep) || !slices.Equal(ds.Y, keepY) {
				t.Fatal("Rescale changed its input")
			}
			if values(got) == values(ds) || &got.Y[0] == &ds.Y[0] {
				t.Fatal("Rescale's result shares values with its input")
			}
			if got.N != fresh.N || got.D != fresh.D || !slices.Equal(got.Features, fresh.Features) || !slices.Equal(got.Categorical, fresh.Categorical) ||
				got.P != fresh.P || got.Radius != fresh.Radius || got.Bias != fresh.Bias || got.PublicRows != fresh.PublicRows || !reflect.DeepEqual(got.Label, fresh.Label) {
				t.Fatalf("description %+v, want %+v", got.Label, fresh.Label)
			}
			if !slices.Equal(got.Y, fresh.Y) {
				t.Error("labels differ from a fresh encoding's")
			}
			c := used.Scaling().Scale
			tol := make([]float64, got.D) // 0: bit-identical
			off := 0
			for _, col := range used.Columns {
				if col.Kind == Numeric && col.Range != nil {
					tol[off] = 4 * 0x1p-52 * c / (col.Range.Hi - col.Range.Lo)
				}
				if col.Kind.isFeature() {
					off += col.width()
				}
			}
			worst := 0.0
			for i := range got.N {
				a, b := got.Row(i, nil), fresh.Row(i, nil)
				for j := range a {
					if d := math.Abs(a[j] - b[j]); d > tol[j] {
						t.Fatalf("row %d, %s: %v, a fresh encoding gives %v (tolerance %v)", i, got.Features[j], a[j], b[j], tol[j])
					} else if tol[j] > 0 {
						worst = max(worst, d/tol[j]*4)
					}
				}
				if n := geom.Norm(a, got.P); n > got.Radius {
					t.Fatalf("row %d has norm %v > %v", i, n, got.Radius)
				}
			}
			clipped := 0
			for _, cd := range diag.Columns {
				clipped += cd.ClippedToRange
			}
			t.Logf("%d rows; largest difference %.2g units of 2⁻⁵²·c/(Hi − Lo); %d values clipped to the private ranges", got.N, worst, clipped)
			if clipped == 0 {
				t.Error("no value was clipped to a private range: the test ranges exercise nothing")
			}
		})
	}
}

// TestColumnValuesAdult checks that ColumnValues reads back each numeric column's z: for a
// feature within 2 units of 2⁻⁵² of z as a p = ∞, radius 1 encoding gives it (x = z there),
// for the label exactly.
func TestColumnValuesAdult(t *testing.T) {
	raw, err := io.ReadAll(openAdult(t, "adult.data"))
	if err != nil {
		t.Fatal(err)
	}
	s := adultVariants(t)["regression"].declared
	ds, _, err := Encode(strings.NewReader(string(raw)), s)
	if err != nil {
		t.Fatal(err)
	}
	unit := s.clone()
	unit.Norm = Norm{P: math.Inf(1), Radius: 1, Fit: FitScale}
	z, _, err := Encode(strings.NewReader(string(raw)), unit)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range s.PrivatelyScaled() {
		got, err := ColumnValues(ds, s, name)
		if err != nil {
			t.Fatal(err)
		}
		j := slices.Index(z.Features, name)
		for i, v := range got {
			want := 0.0
			if j < 0 {
				want = (ds.Y[i] - 1) / 98
			} else {
				want = z.Row(i, nil)[j]
			}
			if d := math.Abs(v - want); d > 2*0x1p-52 || (j < 0 && d != 0) || v < 0 || v > 1 {
				t.Fatalf("%s, row %d: %v, want %v", name, i, v, want)
			}
		}
	}
}

func TestColumnValuesAndRescaleErrors(t *testing.T) {
	const input = "g,d,a,c,y\n0,5,50,p,100\n999,5,10,q,150\n"
	s := mustSchema(t, scaledSchema)
	s.Columns[2].Range, s.Columns[4].Range = nil, nil
	ds, _, err := Encode(strings.NewReader(input), s)
	if err != nil {
		t.Fatal(err)
	}
	clip := s.clone()
	clip.Norm.Fit = FitClip
	dsClip, _, err := Encode(strings.NewReader(input), clip)
	if err != nil {
		t.Fatal(err)
	}
	other := mustSchema(t, schemaWith("", ""))
	for _, c := range []struct {
		ds   *Dataset
		s    *Schema
		name string
		want string
	}{
		{ds, s, "zz", `data: the schema has no column "zz"`},
		{ds, s, "c", `data: column "c" is "categorical", not numeric`},
		{ds, mustSchema(t, scaledSchema), "a", `data: column "a" already has a private range`},
		{ds, other, "a", `data: the dataset's features are not the schema's: it was not encoded with this schema`},
		{dsClip, clip, "g", `data: column "g": private scaling needs "fit": "scale" in the schema's norm (under "clip" each row's factor depends on the row, so a column's values cannot be read back from the encoded rows)`},
	} {
		if _, err := ColumnValues(c.ds, c.s, c.name); err == nil || err.Error() != c.want {
			t.Errorf("ColumnValues(%q): %v, want %s", c.name, err, c.want)
		}
	}
	if v, err := ColumnValues(dsClip, clip, "y"); err != nil || !slices.Equal(v, []float64{0.5, 0.75}) {
		t.Errorf("ColumnValues of the label under clip: %v, %v", v, err)
	}

	used, err := s.WithRanges(map[string]Range{"a": {0.25, 0.75}})
	if err != nil {
		t.Fatal(err)
	}
	usedClip, err := clip.WithRanges(map[string]Range{"a": {0.25, 0.75}})
	if err != nil {
		t.Fatal(err)
	}
	moved, err := used.WithRanges(map[string]Range{"a": {0, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	norm := used.clone()
	norm.Norm.Radius = 2
	for _, c := range []struct {
		ds             *Dataset
		declared, used *Schema
		want           string
	}{
		{ds, s, norm, `data: rescale: the schema as used must be the declared schema with private ranges added`},
		{ds, used, moved, `data: rescale: column "a": the declared schema already has a private range, and the schema as used another`},
		{ds, used, s, `data: rescale: column "a": the declared schema already has a private range, and the schema as used another`},
		{ds, other, other, `data: the dataset's features are not the schema's: it was not encoded with this schema`},
		{dsClip, clip, usedClip, `data: rescale: private scaling needs "fit": "scale" in the schema's norm (under "clip" each row's factor depends on the row, so a column's values cannot be read back from the encoded rows)`},
	} {
		if _, err := Rescale(c.ds, c.declared, c.used); err == nil || err.Error() != c.want {
			t.Errorf("Rescale: %v, want %s", err, c.want)
		}
	}
	// A range on the label alone rescales rows fitted by "clip".
	labelOnly, err := clip.WithRanges(map[string]Range{"y": {0.25, 0.75}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Rescale(dsClip, clip, labelOnly)
	if err != nil || !slices.Equal(got.Y, []float64{0, 1}) || !slices.Equal(denseX(got), denseX(dsClip)) {
		t.Errorf("Rescale of the label under clip: %+v, %v", got, err)
	}
}

func TestDescribeScale(t *testing.T) {
	s := mustSchema(t, `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "scale"}, "columns": [
	 {"name": "capital-gain", "kind": "numeric", "min": 0, "max": 99999, "transform": "log1p", "private_range": {"lo": 0, "hi": 0.5}},
	 {"name": "age", "kind": "numeric", "min": 17, "max": 90},
	 {"name": "loss", "kind": "numeric", "min": 0, "max": 100000, "private_range": {"lo": 0.25, "hi": 0.5}},
	 {"name": "c", "kind": "categorical", "categories": ["p"]},
	 {"name": "price", "kind": "numeric-label", "min": 0, "max": 1000, "private_range": {"lo": 0, "hi": 0.0625}}]}`)
	for i, want := range []string{
		"clipped to [0, 315.228] (a private estimate, inside the declared [0, 99,999]), then log(1 + v) scaled to [0, 1]",
		"clipped to the declared [17, 90], then scaled to [0, 1]",
		"clipped to [25,000, 50,000] (a private estimate, inside the declared [0, 100,000]), then scaled to [0, 1]",
		"",
		"clipped to [0, 62.5] (a private estimate, inside the declared [0, 1,000]), then mapped to [−1, 1]",
	} {
		if got := s.Columns[i].DescribeScale(); got != want {
			t.Errorf("column %d:\n got %s\nwant %s", i, got, want)
		}
	}
	for c, want := range map[*Column]string{
		{Kind: NumericLabel, Min: 0, Max: 10}:                      "clipped to the declared [0, 10], in its own units",
		{Kind: NumericLabel, Min: 0, Max: 10, Range: &Range{0, 1}}: "clipped to the declared [0, 10], then mapped to [−1, 1]",
		{Kind: Numeric, Min: 0, Max: 10, Range: &Range{0, 1}}:      "clipped to the declared [0, 10], then scaled to [0, 1]",
	} {
		if got := c.DescribeScale(); got != want {
			t.Errorf("%+v:\n got %s\nwant %s", c, got, want)
		}
	}
	// The log1p range's upper end is expm1(log1p(99999)/2) = √100000 − 1.
	if got, want := s.Columns[0].Unscale(0.5), math.Sqrt(100000)-1; !closeTo(got, want, 1e-13) {
		t.Errorf("Unscale(0.5) = %v, want %v", got, want)
	}
	for v, want := range map[float64]string{0: "0", math.Copysign(0, -1): "0", 99999: "99,999", -1234567: "-1,234,567", 15023.7: "15,023.7",
		0.00123456789: "0.00123457", 1.5e20: "1.5e+20", 1e-7: "1e-07", 999999.7: "1,000,000", 0.5: "0.5"} {
		if got := formatNumber(v); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestRangeSuggestion(t *testing.T) {
	gain := Column{Name: "capital-gain", Kind: Numeric, Min: 0, Max: 100000}
	want := `capital-gain's private range [0, 150] is 0.15 % of its declared range, and its values span orders of magnitude: declaring "transform": "log1p" may help`
	if got := RangeSuggestion(gain, Range{0, 0.0015}); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	logged := gain
	logged.Transform = Log1p
	negative := gain
	negative.Min = -10
	small := gain
	small.Max = 50
	// A range as narrow that log1p cannot spread: the column's declared scale keeps the sizes.
	const declared = `"scale": "declared" for the column keeps their sizes`
	for _, c := range []struct {
		c    Column
		r    Range
		want string
	}{
		{gain, Range{0, 0.01}, ""},                   // the range is not below 1 % of the declared one
		{gain, Range{0.5, 0.6}, ""},                  // nor is this one
		{logged, Range{0, 0.0015}, declared},         // already transformed
		{negative, Range{0, 0.0015}, declared},       // not a non-negative column
		{small, Range{0, 0.005}, declared},           // the range ends at 0.25: log(1 + v) is close to v
		{gain, Range{0.5, 0.5 + 1.0/1024}, declared}, // narrow, in the middle
		{Column{Name: "c", Kind: Categorical, Categories: []string{"x"}}, Range{0, 0.001}, ""},
	} {
		if got := RangeSuggestion(c.c, c.r); c.want == "" && got != "" || !strings.HasSuffix(got, c.want) || strings.Contains(got, "log1p") {
			t.Errorf("%+v, %v: %s", c.c, c.r, got)
		}
	}
	want = `small's private range [0, 0.25] is 0.5 % of its declared range: the values outside it are read as its nearer end, so the model sees little more than on which side of it a value lies; declaring "scale": "declared" for the column keeps their sizes`
	small.Name = "small"
	if got := RangeSuggestion(small, Range{0, 0.005}); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestSameBesidesRange changes each field of a Column in turn (reflect finds them all, so a
// field added later is covered) and checks that sameBesidesRange sees every change but the
// Range's.
func TestSameBesidesRange(t *testing.T) {
	base := Column{Name: "a", Kind: Numeric, Min: 0, Max: 1, Categories: []string{"x"}, Positive: []string{"p"},
		Negative: []string{"n"}, Classes: []string{"c"}, Derived: []string{"min"}}
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		changed := base
		f := reflect.ValueOf(&changed).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "!")
		case reflect.Float64:
			f.SetFloat(f.Float() + 0.5)
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{"other"}))
		case reflect.Pointer:
			f.Set(reflect.ValueOf(&Range{Lo: 0, Hi: 0.5}))
		case reflect.Struct:
			f.Set(reflect.ValueOf(Missing{Replace: true, Value: "0"}))
		default:
			t.Fatalf("field %s of kind %s: extend the test", typ.Field(i).Name, f.Kind())
		}
		if same := sameBesidesRange(base, changed); same != (typ.Field(i).Name == "Range") {
			t.Errorf("a change of %s: sameBesidesRange = %v", typ.Field(i).Name, same)
		}
	}
}
