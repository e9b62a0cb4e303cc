package release

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// testSchema declares every kind of column: a numeric column with a missing-value
// replacement, a categorical column with an other bucket, an ignored column and the label.
func testSchema(t *testing.T, label string) *data.Schema {
	t.Helper()
	s, err := data.LoadSchema(strings.NewReader(`{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"},
	  "columns": [
	    {"name": "age", "kind": "numeric", "min": 20, "max": 80, "missing": {"replace": 50}},
	    {"name": "smoker", "kind": "categorical", "categories": ["no", "yes"], "other": true},
	    {"name": "id", "kind": "ignore"},
	    ` + label + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const (
	binaryLabel     = `{"name": "outcome", "kind": "binary-label", "positive": ["sick"], "negative": ["well"]}`
	classLabel      = `{"name": "outcome", "kind": "class-label", "classes": ["a", "b", "c"]}`
	regressionLabel = `{"name": "outcome", "kind": "numeric-label", "min": 0, "max": 10}`
)

const trainCSV = "age,smoker,id,outcome\n30,no,1,%s\n,yes,2,%s\n70,maybe,3,%s\n"

// fitted returns a seeded noisy-gd fit of three rows with the given schema and labels, as a
// release file.
func fitted(t *testing.T, s *data.Schema, loss string, labels [3]string, nb privacy.Neighbouring) *File {
	t.Helper()
	ds, _, err := data.Encode(strings.NewReader(fmt.Sprintf(trainCSV, labels[0], labels[1], labels[2])), s)
	if err != nil {
		t.Fatal(err)
	}
	facts, err := fit.FactsOf(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := fit.Spec{Loss: loss, LossParam: 1, Domain: fit.Ball, Radius: 5, Mechanism: "noisy-gd", Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6, Neighbouring: nb}}
	if nb == privacy.AddRemove {
		spec.PublicN = 10
	}
	pl, err := fit.Plan(spec, facts)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := pl.Run(t.Context(), ds, rng.Seeded(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(s, spec, facts, nil, []Model{{Model: rel.Model, Report: rel.Report, Utility: rel.Utility, Parameters: rel.Parameters}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRoundTrip writes and reads back a release file of each label kind: the schema, the
// encoding and the model come back the same, and the encoding's constants are the schema's.
func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		label, loss string
		labels      [3]string
	}{
		{binaryLabel, "logistic", [3]string{"sick", "well", "sick"}},
		{classLabel, "multinomial", [3]string{"a", "b", "c"}},
		{regressionLabel, "squared", [3]string{"1", "9.5", "4"}},
	} {
		s := testSchema(t, c.label)
		f := fitted(t, s, c.loss, c.labels, privacy.ReplaceOne)
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			t.Fatal(err)
		}
		g, err := Read(&b)
		if err != nil {
			t.Fatalf("%s: %v", c.loss, err)
		}
		if got, want := mustJSON(t, g.Schema), mustJSON(t, s); got != want {
			t.Errorf("%s: schema read back\n%s\nwant\n%s", c.loss, got, want)
		}
		if mustJSON(t, g.Models) != mustJSON(t, f.Models) || mustJSON(t, g.Encoding) != mustJSON(t, f.Encoding) {
			t.Errorf("%s: the models or the encoding differ after a round trip", c.loss)
		}
		if sc := s.Scaling(); f.Encoding.Scale != sc.Scale || f.Encoding.Bias != 0.5 || f.Encoding.Fit != data.FitScale {
			t.Errorf("%s: encoding %+v, want scale %g and bias 0.5", c.loss, f.Encoding, sc.Scale)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAddRemoveFileHoldsN checks that under add/remove the file's facts hold the declared N,
// never the observed number of rows.
func TestAddRemoveFileHoldsN(t *testing.T) {
	s := testSchema(t, binaryLabel)
	f := fitted(t, s, "logistic", [3]string{"sick", "well", "sick"}, privacy.AddRemove)
	if f.Facts.N != 10 {
		t.Errorf("facts N = %d, want the declared 10", f.Facts.N)
	}
	b := mustJSON(t, f.Facts)
	if strings.Contains(b, `"n":3`) {
		t.Errorf("the facts hold the observed number of rows: %s", b)
	}
}

// TestReadRefuses checks the errors of Read: a first-format file (with what it lacks), other
// formats, unknown members, and models that do not match the schema.
func TestReadRefuses(t *testing.T) {
	s := testSchema(t, binaryLabel)
	good := mustJSON(t, fitted(t, s, "logistic", [3]string{"sick", "well", "sick"}, privacy.ReplaceOne))
	for name, c := range map[string]struct{ text, want string }{
		"v1":        {`{"format": "privopt-release/1", "settings": {}, "releases": []}`, "holds the weights in encoded units but not the schema"},
		"v3":        {`{"format": "privopt-release/3"}`, `unknown format "privopt-release/3"`},
		"no format": {`{"models": []}`, "no \"format\" member"},
		"not JSON":  {`model`, "not a privopt release file"},
		"unknown":   {strings.Replace(good, `"together"`, `"extra": 1, "together"`, 1), `unknown field "extra"`},
		"weights":   {strings.Replace(good, `"weights":[`, `"weights":[1,`, 1), "weights, want"},
		"no schema": {strings.Replace(good, `"schema":{`, `"schemas":{`, 1), `unknown field "schemas"`},
	} {
		_, err := Read(strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
	}
}

// TestPredict checks the predictions of each kind of model against their definitions, on rows
// encoded from a file without the label and the ignored column.
func TestPredict(t *testing.T) {
	rows := "age,smoker\n30,no\n,yes\n95,maybe\n"
	for _, c := range []struct {
		label, loss string
		labels      [3]string
	}{
		{binaryLabel, "logistic", [3]string{"sick", "well", "sick"}},
		{binaryLabel, "smooth-hinge", [3]string{"sick", "well", "sick"}},
		{classLabel, "multinomial", [3]string{"a", "b", "c"}},
		{regressionLabel, "squared", [3]string{"1", "9.5", "4"}},
	} {
		s := testSchema(t, c.label)
		f := fitted(t, s, c.loss, c.labels, privacy.ReplaceOne)
		p, err := f.Predictor(1)
		if err != nil {
			t.Fatal(err)
		}
		ds, _, err := data.EncodeForPrediction(strings.NewReader(rows), s)
		if err != nil {
			t.Fatal(err)
		}
		w := f.Models[0].Model.Weights
		for i := range ds.N {
			x := ds.Row(i, nil)
			got := p.Predict(x)
			switch c.loss {
			case "logistic", "smooth-hinge":
				sc := dot(w, x)
				want := map[bool]string{true: "sick", false: "well"}[sc >= 0]
				if got.Label != want {
					t.Errorf("%s row %d: label %q, want %q (score %g)", c.loss, i, got.Label, want, sc)
				}
				if c.loss == "logistic" && math.Abs(got.Probabilities[1]-1/(1+math.Exp(-sc))) > 1e-15 {
					t.Errorf("%s row %d: probabilities %v for score %g", c.loss, i, got.Probabilities, sc)
				}
				if c.loss == "smooth-hinge" && got.Probabilities != nil {
					t.Errorf("smooth-hinge row %d: probabilities %v, want none", i, got.Probabilities)
				}
			case "multinomial":
				sum, best := 0.0, 0
				for k, q := range got.Probabilities {
					sum += q
					if q > got.Probabilities[best] {
						best = k
					}
				}
				if math.Abs(sum-1) > 1e-12 || got.Label != []string{"a", "b", "c"}[best] {
					t.Errorf("multinomial row %d: %+v", i, got)
				}
			case "squared":
				want := min(max(dot(w, x), 0), 10)
				if got.Value != want {
					t.Errorf("squared row %d: %g, want %g", i, got.Value, want)
				}
			}
		}
	}
}

// TestWriteCSV checks the predictions file's form, and that a bad row is an error with its
// line and column and writes nothing.
func TestWriteCSV(t *testing.T) {
	s := testSchema(t, binaryLabel)
	f := fitted(t, s, "logistic", [3]string{"sick", "well", "sick"}, privacy.ReplaceOne)
	var out bytes.Buffer
	if _, err := f.WriteCSV(1, strings.NewReader("smoker,age,outcome\nno,30,well\nyes,,sick\n"), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || lines[0] != "prediction,p(well),p(sick)" {
		t.Errorf("predictions:\n%s", out.String())
	}
	out.Reset()
	_, err := f.WriteCSV(1, strings.NewReader("age,smoker\n30,no\nold,yes\n"), &out)
	var de *data.Error
	if !errors.As(err, &de) || de.Line != 3 || de.Column != "age" || out.Len() != 0 {
		t.Errorf("bad row: error %v, output %q; want line 3, column age, no output", err, out.String())
	}
	if _, err := f.WriteCSV(2, strings.NewReader("age,smoker\n30,no\n"), &out); err == nil {
		t.Error("model 2 of 1: no error")
	}
	if _, err := f.WriteCSV(1, strings.NewReader("age\n30\n"), &out); err == nil || !strings.Contains(err.Error(), `"smoker" is not in the header`) {
		t.Errorf("a missing feature column: error %v", err)
	}
}

// TestTogetherRoundsUp: the sentence on the whole release states ε and δ rounded up, never
// below the composed curve's: an ε of 0.99995 at the target δ reads 1, not 0.9999 or 1.000
// rounded down from above.
func TestTogetherRoundsUp(t *testing.T) {
	f := &File{Settings: fit.Spec{Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6, Neighbouring: privacy.ReplaceOne}},
		Models: []Model{{Report: privacy.Report{Private: true}}, {Report: privacy.Report{Private: true}}}}
	eps := 0.99994999
	mu, err := privacy.CalibrateGDP(eps, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.together(privacy.GDP{Mu: mu}); !strings.Contains(got, "(ε = 1, δ = 1e-06)") {
		t.Errorf("ε %g at δ = 1e-6: %s", eps, got)
	}
	f.Settings.Budget.Delta = 0 // δ at ε = 1, rounded up to four digits
	d := privacy.GDP{Mu: mu}.Delta(1)
	want := privacy.FormatUp(d, 4)
	if got := f.together(privacy.GDP{Mu: mu}); !strings.Contains(got, "δ = "+want+")") || strconv.FormatFloat(d, 'g', 4, 64) == want {
		t.Errorf("δ %g at ε = 1: %s (want δ = %s)", d, got, want)
	}
}
