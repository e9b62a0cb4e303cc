package data

import (
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

// schemaWith returns a valid schema text whose columns are a numeric "a", the given column
// (JSON), and a binary label "y"; with col empty, only a and y.
func schemaWith(norm, col string) string {
	if norm == "" {
		norm = `{"p": 2, "radius": 1, "fit": "clip"}`
	}
	cols := `{"name": "a", "kind": "numeric", "min": 0, "max": 1}, `
	if col != "" {
		cols += col + ", "
	}
	cols += `{"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"]}`
	return `{"privopt_schema": 1, "norm": ` + norm + `, "columns": [` + cols + `]}`
}

func TestLoadSchemaErrors(t *testing.T) {
	tests := []struct {
		name, js, want string
	}{
		{"empty", "", `data: schema: empty input`},
		{"syntax", "{\n\"privopt_schema\": 1,\n}", `data: schema: line 3: invalid character '}' looking for beginning of object key string`},
		{"wrong type", `{"privopt_schema": 1, "norm": {"p": 2, "radius": "one", "fit": "clip"}, "columns": []}`,
			`data: schema: line 1: "norm.radius" must be a JSON number, not string`},
		{"wrong type in a column", schemaWith("", `{"name": "b", "kind": "categorical", "categories": ["x"], "other": "yes"}`),
			`data: schema: line 1: "columns.other" must be a JSON boolean, not string`},
		{"unknown member", schemaWith("", `{"name": "b", "kind": "numeric", "mn": 0, "max": 1}`),
			`data: schema: line 1: unknown member "mn" (did you mean "min"?)`},
		{"misspelt member on its line", "{\"privopt_schema\": 1, \"norm\": {\"p\": 2, \"radius\": 1, \"fit\": \"clip\"},\n\"columns\": [\n" +
			`{"name": "c", "kind": "categorical", "categoris": ["x"]}]}`,
			`data: schema: line 3: unknown member "categoris" (did you mean "categories"?)`},
		{"misspelt format", `{"privopt_shema": 1}`, `data: schema: line 1: unknown member "privopt_shema" (did you mean "privopt_schema"?)`},
		{"unknown member, nothing close", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "colour": "red"}`),
			`data: schema: line 1: unknown member "colour"`},
		{"text after the object", schemaWith("", "") + "\n{}", `data: schema: line 2: text after the schema object`},
		{"no format", `{"norm": {"p": 2, "radius": 1, "fit": "clip"}, "columns": []}`,
			`data: schema: "privopt_schema" is missing (write "privopt_schema": 1)`},
		{"future format", `{"privopt_schema": 2}`, `data: schema: "privopt_schema" is 2; this version of privopt reads format 1`},
		{"no norm", `{"privopt_schema": 1, "columns": []}`, `data: schema: "norm" is missing`},
		{"public rows 0", `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "clip"}, "public_rows": 0, "columns": []}`,
			`data: schema: "public_rows" is 0; it must be a whole number of at least 1`},
		{"public rows not whole", `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "clip"}, "public_rows": 1.5, "columns": []}`,
			`data: schema: line 1: "public_rows" must be a whole number, not 1.5`},
		{"no radius", schemaWith(`{"p": 2, "fit": "clip"}`, ""), `data: schema: norm: "radius" is missing`},
		{"p below 1", schemaWith(`{"p": 0.5, "radius": 1, "fit": "clip"}`, ""),
			`data: schema: norm: p = 0.5; it must be at least 1, or "inf"`},
		{"p text", schemaWith(`{"p": "two", "radius": 1, "fit": "clip"}`, ""),
			`data: schema: norm: "p" is "two"; it must be a number at least 1, or "inf"`},
		{"radius 0", schemaWith(`{"p": 2, "radius": 0, "fit": "clip"}`, ""),
			`data: schema: norm: radius = 0; it must be in [1e-100, 1e100]`},
		{"bias at the radius", schemaWith(`{"p": 2, "radius": 1, "bias": 1, "fit": "scale"}`, ""),
			`data: schema: norm: bias = 1; it must be at least 0 and below the radius 1`},
		{"unknown fit", schemaWith(`{"p": 2, "radius": 1, "fit": "squash"}`, ""),
			`data: schema: norm: fit "squash" is neither "scale" nor "clip"`},
		{"bad delimiter", `{"privopt_schema": 1, "delimiter": "|"}`, `data: schema: delimiter "|" is not ",", ";" or "\t"`},
		{"no columns", `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "clip"}}`, `data: schema: "columns" is missing`},
		{"unnamed column", schemaWith("", `{"kind": "ignore"}`), `data: schema: column 2: "name" is missing`},
		{"unknown kind", schemaWith("", `{"name": "b", "kind": "text"}`),
			`data: schema: column "b": unknown kind "text" (numeric, categorical, ignore, binary-label, numeric-label or class-label)`},
		{"missing min", schemaWith("", `{"name": "b", "kind": "numeric", "max": 1}`), `data: schema: column "b": "min" is missing`},
		{"min not below max", schemaWith("", `{"name": "b", "kind": "numeric", "min": 3, "max": 3}`),
			`data: schema: column "b": the range [3, 3] must be finite with min < max`},
		{"range too wide", schemaWith("", `{"name": "b", "kind": "numeric", "min": -1e308, "max": 1e308}`),
			`data: schema: column "b": the range [-1e+308, 1e+308] is wider than float64 can hold`},
		{"member of another kind", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "categories": ["x"]}`),
			`data: schema: column "b": "categories" does not apply to a "numeric" column`},
		{"zero member of another kind", schemaWith("", `{"name": "b", "kind": "categorical", "categories": ["x"], "min": 0}`),
			`data: schema: column "b": "min" does not apply to a "categorical" column`},
		{"ignored column with a policy", schemaWith("", `{"name": "b", "kind": "ignore", "missing": "error"}`),
			`data: schema: column "b": "missing" does not apply to a "ignore" column`},
		{"empty categories", schemaWith("", `{"name": "b", "kind": "categorical", "categories": []}`),
			`data: schema: column "b": "categories" is missing or empty`},
		{"duplicate category", schemaWith("", `{"name": "b", "kind": "categorical", "categories": ["x", "x"]}`),
			`data: schema: column "b": categories: "x" is listed twice`},
		{"category with spaces", schemaWith("", `{"name": "b", "kind": "categorical", "categories": [" x"]}`),
			`data: schema: column "b": categories: " x" has surrounding spaces, which are removed from every field`},
		{"empty category", schemaWith("", `{"name": "b", "kind": "categorical", "categories": [""]}`),
			`data: schema: column "b": categories: an empty value (an empty field is a missing value)`},
		{"duplicate column", schemaWith("", `{"name": "a", "kind": "ignore"}`), `data: schema: column "a": declared twice`},
		{"two labels", schemaWith("", `{"name": "z", "kind": "class-label", "classes": ["p", "q"]}`),
			`data: schema: 2 label columns; exactly one column must be a binary-label, numeric-label or class-label`},
		{"no label", `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "clip"}, "columns": [{"name": "a", "kind": "numeric", "min": 0, "max": 1}]}`,
			`data: schema: 0 label columns; exactly one column must be a binary-label, numeric-label or class-label`},
		{"no features", `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "clip"}, "columns": [{"name": "y", "kind": "numeric-label", "min": 0, "max": 1}]}`,
			`data: schema: no numeric or categorical column: the rows would have no features`},
		{"no negatives", `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "clip"}, "columns": [{"name": "a", "kind": "numeric", "min": 0, "max": 1}, {"name": "y", "kind": "binary-label", "positive": ["1"]}]}`,
			`data: schema: column "y": "negative" is missing`},
		{"positive and negative", `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "clip"}, "columns": [{"name": "a", "kind": "numeric", "min": 0, "max": 1}, {"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0", "1"]}]}`,
			`data: schema: column "y": "1" is both positive and negative`},
		{"feature names collide", schemaWith("", `{"name": "a=x", "kind": "numeric", "min": 0, "max": 1}, {"name": "a", "kind": "ignore"}, {"name": "b", "kind": "categorical", "categories": ["x"]}`),
			`data: schema: column "a": declared twice`},
		{"feature names collide 2", `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "clip"}, "columns": [{"name": "b=x", "kind": "numeric", "min": 0, "max": 1}, {"name": "b", "kind": "categorical", "categories": ["x"]}, {"name": "y", "kind": "numeric-label", "min": 0, "max": 1}]}`,
			`data: schema: two features are named "b=x"`},
		{"bad policy", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "missing": "zero"}`),
			`data: schema: column "b": missing: "zero" is not a policy ("error", or {"replace": value})`},
		{"replacement outside the range", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "missing": {"replace": 2}}`),
			`data: schema: column "b": missing: the replacement 2 is outside [0, 1]`},
		{"numeric replacement as text", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "missing": {"replace": "0"}}`),
			`data: schema: column "b": missing: the replacement "0" is not a number`},
		{"replacement not a category", schemaWith("", `{"name": "b", "kind": "categorical", "categories": ["x"], "missing": {"replace": "z"}}`),
			`data: schema: column "b": missing: the replacement is not a value of the column: "z" is not a declared category (the column has no "other" bucket)`},
		{"replacement in the other bucket", schemaWith("", `{"name": "b", "kind": "categorical", "categories": ["x"], "other": true, "missing": {"replace": "z"}}`),
			`data: schema: column "b": missing: the replacement "z" is not one of the declared values`},
		{"unknown derived field", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "derived": ["categories"]}`),
			`data: schema: column "b": derived: "categories" is not a field of a "numeric" column that can be read from the data (min, max, missing)`},
		{"derived twice", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "derived": ["min", "min"]}`),
			`data: schema: column "b": derived: "min" is listed twice`},
		{"case-variant member", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 10, "MAX": 5}`),
			`data: schema: line 1: duplicate member "MAX" (the same as "max" on line 1: member names are compared ignoring case)`},
		{"member twice", "{\"privopt_schema\": 1,\n \"norm\": {\"p\": 2, \"radius\": 1, \"fit\": \"clip\"},\n \"norm\": {\"p\": 1, \"radius\": 9, \"fit\": \"scale\"}, \"columns\": []}",
			`data: schema: line 3: duplicate member "norm" (first on line 2)`},
		{"member twice in a policy", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "missing": {"replace": 0, "replace": 1}}`),
			`data: schema: line 1: duplicate member "replace" (first on line 1)`},
		{"member twice by Unicode case folding", schemaWith("", `{"name": "b", "kind": "ignore", "\u212Aind": "numeric"}`),
			"data: schema: line 1: duplicate member \"\u212aind\" (the same as \"kind\" on line 1: member names are compared ignoring case)"},
		{"number beyond float64", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1e999}`),
			`data: schema: line 1: "columns.max" 1e999 is out of range: numbers must be finite float64 values`},
		{"negative number beyond float64", schemaWith(`{"p": 2, "radius": -1e999, "fit": "clip"}`, ""),
			`data: schema: line 1: "norm.radius" -1e999 is out of range: numbers must be finite float64 values`},
		{"p beyond float64", schemaWith(`{"p": 1e999, "radius": 1, "fit": "clip"}`, ""),
			`data: schema: norm: "p" 1e999 is out of range: numbers must be finite float64 values`},
		{"replacement beyond float64", schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 1, "missing": {"replace": 1e400}}`),
			`data: schema: column "b": missing: the replacement 1e400 is out of range: numbers must be finite float64 values`},
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

// TestSchemaRoundTrip checks that MarshalJSON writes what UnmarshalJSON reads back to an
// equal schema, for the shipped adult schema and a schema using every member.
func TestSchemaRoundTrip(t *testing.T) {
	adult, err := os.ReadFile("../../../examples/adult-lr.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	every := `{"privopt_schema": 1, "delimiter": "\t", "norm": {"p": "inf", "radius": 3, "bias": 0.25, "fit": "clip"}, "public_rows": 5000,
	 "columns": [
	  {"name": "n", "kind": "numeric", "min": -1.5, "max": 2e10, "missing": {"replace": 0.125}, "derived": ["min"]},
	  {"name": "c", "kind": "categorical", "categories": ["p", "?"], "other": true, "missing": {"replace": "?"}},
	  {"name": "i", "kind": "ignore", "source": "a \"census\" weight"},
	  {"name": "y", "kind": "binary-label", "positive": ["yes"], "negative": ["no"], "rest_negative": true, "missing": {"replace": "no"}, "derived": ["positive", "missing"]}]}`
	for _, js := range []string{string(adult), every} {
		s := mustSchema(t, js)
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back := mustSchema(t, string(out))
		if !reflect.DeepEqual(s, back) {
			t.Fatalf("round trip changed the schema:\n%+v\n%+v\n%s", s, back, out)
		}
	}
	s := mustSchema(t, every)
	if !math.IsInf(s.Norm.P, 1) || s.Delimiter != '\t' || s.Columns[0].Missing != (Missing{Replace: true, Value: "0.125"}) || s.PublicRows != 5000 ||
		s.Columns[2].Source != `a "census" weight` {
		t.Fatalf("decoded %+v", s)
	}
}

func TestMarshalRefusesInvalid(t *testing.T) {
	s := mustSchema(t, schemaWith("", ""))
	s.Columns[0].Max = -1
	if _, err := json.Marshal(s); err == nil || !strings.Contains(err.Error(), `column "a": the range [0, -1]`) {
		t.Fatalf("Marshal of an invalid schema: %v", err)
	}
}

func TestConfirm(t *testing.T) {
	s := mustSchema(t, schemaWith("", `{"name": "b", "kind": "numeric", "min": 0, "max": 5, "derived": ["min", "max"]}`))
	input := "a,b,y\n0.5,3,1\n"
	want := `data: schema: column "b": min was read from the data and is not confirmed (and 1 more): check that it is public knowledge, then remove it from "derived"`
	if _, _, err := Encode(strings.NewReader(input), s); err == nil || err.Error() != want {
		t.Fatalf("Encode with unconfirmed fields: %v; want %s", err, want)
	}
	if got := s.Unconfirmed(); !reflect.DeepEqual(got, []string{`column "b": min`, `column "b": max`}) {
		t.Fatalf("Unconfirmed = %q", got)
	}
	for _, bad := range [][2]string{{"zz", "min"}, {"b", "categories"}, {"a", "min"}} {
		if err := s.Confirm(bad[0], bad[1]); err == nil {
			t.Errorf("Confirm(%q, %q) succeeded", bad[0], bad[1])
		}
	}
	if err := s.Confirm("b", "max"); err != nil {
		t.Fatal(err)
	}
	want = `data: schema: column "b": min was read from the data and is not confirmed: check that it is public knowledge, then remove it from "derived"`
	if _, _, err := Encode(strings.NewReader(input), s); err == nil || err.Error() != want {
		t.Fatalf("Encode with one unconfirmed field: %v; want %s", err, want)
	}
	if err := s.Confirm("b", "min"); err != nil {
		t.Fatal(err)
	}
	if s.Columns[1].Derived != nil {
		t.Fatalf("Derived = %q after confirming everything", s.Columns[1].Derived)
	}
	ds, _, err := Encode(strings.NewReader(input), s)
	if err != nil {
		t.Fatalf("Encode after confirming: %v", err)
	}
	if got := ds.Row(0, nil)[1]; got != 0.6 {
		t.Fatalf("b encoded as %v, want 3/5", got)
	}
}
