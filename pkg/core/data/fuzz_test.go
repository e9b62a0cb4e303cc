package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/privopt/privopt/pkg/core/geom"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fuzzSchemas are the schemas FuzzEncode encodes with, chosen by the fuzzer: every column
// kind, missing policy and fit, several norms.
var fuzzSchemas = []string{
	`{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"}, "columns": [
	 {"name": "a", "kind": "numeric", "min": -1, "max": 1, "missing": {"replace": 0}},
	 {"name": "b", "kind": "categorical", "categories": ["x", "y", "?"], "other": true, "missing": {"replace": "?"}},
	 {"name": "c", "kind": "ignore"},
	 {"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"], "rest_negative": true}]}`,
	`{"privopt_schema": 1, "norm": {"p": 1, "radius": 3, "bias": 1, "fit": "clip"}, "columns": [
	 {"name": "a", "kind": "numeric", "min": 0, "max": 100},
	 {"name": "b", "kind": "categorical", "categories": ["x", "y"]},
	 {"name": "c", "kind": "numeric", "min": -5, "max": 5, "missing": {"replace": 1}},
	 {"name": "y", "kind": "class-label", "classes": ["p", "q", "r"]}]}`,
	`{"privopt_schema": 1, "norm": {"p": "inf", "radius": 0.5, "fit": "clip"}, "columns": [
	 {"name": "a", "kind": "numeric", "min": -1e6, "max": 1e6},
	 {"name": "b", "kind": "ignore"},
	 {"name": "c", "kind": "categorical", "categories": ["x"], "other": true},
	 {"name": "y", "kind": "numeric-label", "min": -10, "max": 10, "missing": {"replace": 0}}]}`,
	`{"privopt_schema": 1, "delimiter": ";", "norm": {"p": 3.5, "radius": 2, "bias": 1.5, "fit": "clip"}, "columns": [
	 {"name": "a", "kind": "numeric", "min": 0, "max": 1},
	 {"name": "b", "kind": "numeric", "min": 0, "max": 1},
	 {"name": "c", "kind": "categorical", "categories": ["x", "y", "z"], "other": true},
	 {"name": "y", "kind": "binary-label", "positive": ["+"], "negative": ["-"]}]}`,
}

// checkEncoded fails the test unless err is an *Error with a line, or ds is a dataset of
// finite values whose rows satisfy the declared bound and whose labels fit their kind.
func checkEncoded(t *testing.T, ds *Dataset, diag *Diagnostics, err error) {
	t.Helper()
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.Line < 1 || !strings.HasPrefix(err.Error(), "data: line ") {
			t.Fatalf("error %q is not an *Error with a line", err)
		}
		return
	}
	if ds.N < 1 || len(denseX(ds)) != ds.N*ds.D || len(ds.Y) != ds.N || len(ds.Features) != ds.D || diag.Rows != ds.N || diag.ClippedRows > ds.N {
		t.Fatalf("inconsistent dataset: N = %d, D = %d, %d values, %d labels, %d features, diagnostics %+v",
			ds.N, ds.D, len(denseX(ds)), len(ds.Y), len(ds.Features), diag)
	}
	for i := range ds.N {
		row := ds.Row(i, nil)
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("row %d = %v is not finite", i, row)
			}
		}
		if n := geom.Norm(row, ds.P); !(n <= ds.Radius) {
			t.Fatalf("row %d = %v has norm %v > %v", i, row, n, ds.Radius)
		}
		y := ds.Y[i]
		ok := false
		switch ds.Label.Kind {
		case LabelBinary:
			ok = y == 1 || y == -1
		case LabelClass:
			ok = y >= 0 && y < float64(len(ds.Label.Classes)) && y == math.Trunc(y)
		case LabelNumeric:
			ok = y >= ds.Label.Min && y <= ds.Label.Max
		}
		if !ok {
			t.Fatalf("label %v of row %d does not fit %+v", y, i, ds.Label)
		}
	}
}

// FuzzEncode encodes arbitrary input with one of fuzzSchemas: Encode must not panic and must
// return either an *Error with a line or a valid dataset within the declared bound.
// SuggestSchema must not panic on the same input, and its suggestion, confirmed, must be a
// schema that Encode accepts or refuses with an *Error.
func FuzzEncode(f *testing.F) {
	for k, in := range []string{
		"a,b,c,y\n0.5,x,hello,1\n-2,?,,0\n?,y,\"multi\nline\",2\n",
		"a,b,c,y\n100,x,3,p\n,y,?,r\n50,x,-9,q\n",
		"\xEF\xBB\xBFa;b;c;y\r\n1e5;\"q;r\";x;3\r\n-1e7;;z;-11\r\n",
		"a;b;c;y\n0.3;0.4;z;+\n1;1;w;-\n",
		"y, c, b, a\n1, x, x, 0.25\n",
		"a,b,c,y\n\"1\",\"x\"\"\",\"\",\"0\"\n",
		"a\tb\tc\ty\n0\tx\t\t1\n",
	} {
		f.Add([]byte(in), uint8(k))
	}
	schemas := make([]*Schema, len(fuzzSchemas))
	for k, js := range fuzzSchemas {
		schemas[k] = mustSchema(f, js)
	}
	f.Fuzz(func(t *testing.T, input []byte, which uint8) {
		s := schemas[int(which)%len(schemas)]
		ds, diag, err := Encode(bytes.NewReader(input), s)
		checkEncoded(t, ds, diag, err)

		suggested, ignored, err := SuggestSchema(bytes.NewReader(input), 1000)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "data: ") {
				t.Fatalf("SuggestSchema error %q has no context", err)
			}
			return
		}
		k := 0 // every ignored column is listed with its reason, in order
		for _, c := range suggested.Columns {
			if c.Kind == Ignore {
				if k >= len(ignored) || ignored[k].Column != c.Name || ignored[k].Reason == "" {
					t.Fatalf("ignored column %q not listed with a reason: %+v", c.Name, ignored)
				}
				k++
			}
		}
		if k != len(ignored) {
			t.Fatalf("%d ignored columns, %d listed", k, len(ignored))
		}
		confirmAll(t, suggested)
		ds, diag, err = Encode(bytes.NewReader(input), suggested)
		checkEncoded(t, ds, diag, err)
	})
}

// confirmAll confirms every derived field of s, as a person would after checking them.
func confirmAll(t *testing.T, s *Schema) {
	t.Helper()
	for _, c := range s.Columns {
		for _, field := range slices.Clone(c.Derived) {
			if err := s.Confirm(c.Name, field); err != nil {
				t.Fatal(err)
			}
		}
	}
	if u := s.Unconfirmed(); len(u) > 0 {
		t.Fatalf("still unconfirmed: %q", u)
	}
}

// csvField quotes a value for a CSV file, doubling the quotes inside it.
func csvField(v string) string {
	return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
}

// FuzzLoadSchema loads arbitrary JSON as a schema: LoadSchema must not panic and must
// return an error with context or a valid schema. A valid schema must survive MarshalJSON
// and LoadSchema unchanged, and, once its derived fields are confirmed, encode a one-row
// file made of declared values (every column's first value, numbers at Min) without error,
// within its norm bound.
func FuzzLoadSchema(f *testing.F) {
	for _, js := range append([]string{
		`{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "scale"}, "columns": [{"name": "a", "kind": "numeric", "min": 0, "max": 1, "derived": ["min"]}, {"name": "y", "kind": "numeric-label", "min": 0, "max": 1}]}`,
		`{"privopt_schema": 1, "delimiter": "\t", "norm": {"p": 1.5, "radius": 1e-3, "bias": 1e-4, "fit": "clip"}, "columns": [{"name": "a\"b", "kind": "categorical", "categories": ["x,y", "new\nline"], "other": true}, {"name": "y", "kind": "class-label", "classes": ["p"], "missing": {"replace": "p"}}]}`,
		`{"privopt_schema": 1}`,
		`[]`,
	}, fuzzSchemas...) {
		f.Add([]byte(js))
	}
	f.Fuzz(func(t *testing.T, js []byte) {
		s, err := LoadSchema(bytes.NewReader(js))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "data: schema: ") {
				t.Fatalf("error %q has no context", err)
			}
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("MarshalJSON of a loaded schema: %v", err)
		}
		back, err := LoadSchema(bytes.NewReader(out))
		if err != nil || !reflect.DeepEqual(back, s) {
			t.Fatalf("round trip: %v\n%+v\n%+v\n%s", err, s, back, out)
		}
		confirmAll(t, s)
		delim := ","
		if s.Delimiter != 0 {
			delim = string(rune(s.Delimiter))
		}
		var header, row []string
		for _, c := range s.Columns {
			header = append(header, csvField(c.Name))
			v := "ignored"
			switch c.Kind {
			case Numeric, NumericLabel:
				v = strconv.FormatFloat(c.Min, 'g', -1, 64)
			case Categorical:
				v = c.Categories[0]
			case BinaryLabel:
				v = c.Positive[0]
			case ClassLabel:
				v = c.Classes[0]
			}
			row = append(row, csvField(v))
		}
		input := strings.Join(header, delim) + "\n" + strings.Join(row, delim) + "\n"
		ds, diag, err := Encode(strings.NewReader(input), s)
		if err != nil {
			t.Fatalf("Encode of a file of declared values failed: %v\n%s", err, input)
		}
		checkEncoded(t, ds, diag, nil)
	})
}
