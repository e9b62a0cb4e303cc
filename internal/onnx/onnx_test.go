package onnx

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// testSchema declares a numeric column with a missing-value replacement, a categorical column
// with an other bucket and "?" among its categories, an ignored column, a categorical column
// whose missing values are errors, and the label.
func testSchema(t *testing.T, norm, label string) *data.Schema {
	t.Helper()
	s, err := data.LoadSchema(strings.NewReader(`{"privopt_schema": 1, "norm": ` + norm + `,
	  "columns": [
	    {"name": "age", "kind": "numeric", "min": 20, "max": 80, "missing": {"replace": 50}},
	    {"name": "smoker", "kind": "categorical", "categories": ["no", "yes", "?"], "other": true, "missing": {"replace": "yes"}},
	    {"name": "id", "kind": "ignore"},
	    {"name": "city", "kind": "categorical", "categories": ["a", "b"]},
	    ` + label + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const (
	scaleNorm       = `{"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"}`
	binaryLabel     = `{"name": "outcome", "kind": "binary-label", "positive": ["sick"], "negative": ["well"]}`
	classLabel      = `{"name": "outcome", "kind": "class-label", "classes": ["a", "b", "c"]}`
	regressionLabel = `{"name": "outcome", "kind": "numeric-label", "min": 0, "max": 10}`
)

// testFile returns a release file with one model of the loss, fitted with a seed (so not
// private) on eight rows made from the schema's declarations.
func testFile(t *testing.T, s *data.Schema, loss string) *release.File {
	t.Helper()
	var csv strings.Builder
	var names []string
	for _, c := range s.Columns {
		names = append(names, c.Name)
	}
	csv.WriteString(strings.Join(names, ",") + "\n")
	for i := range 8 {
		var fields []string
		for _, c := range s.Columns {
			var v string
			switch c.Kind {
			case data.Numeric:
				v = fmt.Sprint(c.Min + float64(i)*(c.Max-c.Min)/7)
				if i == 3 && c.Missing.Replace {
					v = ""
				}
			case data.Categorical:
				v = c.Categories[i%len(c.Categories)]
			case data.Ignore:
				v = fmt.Sprint(i)
			case data.BinaryLabel:
				v = [2]string{c.Positive[0], c.Negative[0]}[i%2]
			case data.ClassLabel:
				v = c.Classes[i%len(c.Classes)]
			case data.NumericLabel:
				v = fmt.Sprint(c.Min + float64(i))
			}
			fields = append(fields, v)
		}
		csv.WriteString(strings.Join(fields, ",") + "\n")
	}
	ds, _, err := data.Encode(strings.NewReader(csv.String()), s)
	if err != nil {
		t.Fatal(err)
	}
	facts, err := fit.FactsOf(ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := fit.Spec{Loss: loss, Domain: fit.Ball, Radius: 5, Mechanism: "noisy-gd",
		Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6, Neighbouring: privacy.ReplaceOne}}
	if loss == "hinge" {
		spec.Mechanism = "expmech" // noisy-gd needs a smooth loss
	}
	if loss == "smooth-hinge" || loss == "huber" {
		spec.LossParam = 0.5
	}
	pl, err := fit.Plan(spec, facts)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := pl.Run(t.Context(), ds, rng.Seeded(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := release.New(s, spec, facts, nil, []release.Model{{Model: rel.Model, Report: rel.Report, Utility: rel.Utility, Parameters: rel.Parameters}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// export exports model k of f and reads it back, checking that the graph is well formed.
func export(t *testing.T, f *release.File, k int) *decoded {
	t.Helper()
	var b bytes.Buffer
	if err := Export(f, k, &b); err != nil {
		t.Fatal(err)
	}
	d := decode(t, b.Bytes())
	checkGraph(t, d)
	return d
}

// opsetOps lists the operators Export may use, by domain: those of ai.onnx opset 17 and
// ai.onnx.ml opset 3 whose forms (inputs, attributes) graph.go writes.
var opsetOps = map[string][]string{
	"": {"Add", "ArgMax", "Cast", "Concat", "Div", "Equal", "Exp", "Gather", "GreaterOrEqual", "IsNaN", "Log", "MatMul",
		"Max", "Min", "Mul", "Neg", "Pow", "Reciprocal", "ReduceMax", "ReduceSum", "Reshape", "Softmax", "Sqrt", "Sub", "Where"},
	mlDomain: {"LabelEncoder"},
}

// checkGraph checks that every value is defined once (a graph input, an initializer or a
// node's output), that every node's inputs are defined before it, that every graph output is
// computed, and that only the expected operators appear.
func checkGraph(t *testing.T, d *decoded) {
	t.Helper()
	defined := map[string]bool{}
	define := func(name, what string) {
		if name == "" || defined[name] {
			t.Errorf("%s %q: empty or defined twice", what, name)
		}
		defined[name] = true
	}
	for _, in := range d.inputs {
		define(in.name, "input")
	}
	for _, name := range d.initializerSeq {
		define(name, "initializer")
	}
	for _, n := range d.nodes {
		if !slices.Contains(opsetOps[n.domain], n.op) {
			t.Errorf("node %q: operator %s.%s is not one Export uses", n.name, n.domain, n.op)
		}
		for _, in := range n.inputs {
			if !defined[in] {
				t.Errorf("node %q (%s): input %q is not defined before it", n.name, n.op, in)
			}
		}
		for _, out := range n.outputs {
			define(out, "node output")
		}
	}
	for _, out := range d.outputs {
		if !defined[out.name] {
			t.Errorf("output %q is not computed", out.name)
		}
	}
}

// TestExportHeader checks the model's versions, producer and metadata, and the graph's inputs
// and outputs for each kind of model.
func TestExportHeader(t *testing.T) {
	for _, c := range []struct {
		label, loss string
		outputs     []decodedValue
	}{
		{binaryLabel, "logistic", []decodedValue{{name: "label", elem: dataString, shape: []string{"N"}}, {name: "probabilities", elem: dataDouble, shape: []string{"N", "2"}}}},
		{binaryLabel, "hinge", []decodedValue{{name: "label", elem: dataString, shape: []string{"N"}}}},
		{binaryLabel, "smooth-hinge", []decodedValue{{name: "label", elem: dataString, shape: []string{"N"}}}},
		{classLabel, "multinomial", []decodedValue{{name: "label", elem: dataString, shape: []string{"N"}}, {name: "probabilities", elem: dataDouble, shape: []string{"N", "3"}}}},
		{regressionLabel, "squared", []decodedValue{{name: "value", elem: dataDouble, shape: []string{"N"}}}},
		{regressionLabel, "huber", []decodedValue{{name: "value", elem: dataDouble, shape: []string{"N"}}}},
	} {
		f := testFile(t, testSchema(t, scaleNorm, c.label), c.loss)
		d := export(t, f, 1)
		if d.irVersion != 8 || !maps(d.opsets, map[string]int64{"": 17, "ai.onnx.ml": 3}) {
			t.Errorf("%s: IR version %d, opsets %v; want 8, ai.onnx 17 and ai.onnx.ml 3", c.loss, d.irVersion, d.opsets)
		}
		if d.producer != "privopt" || d.graphName != "privopt" || !strings.Contains(d.doc, c.loss) {
			t.Errorf("%s: producer %q, graph %q, doc %q", c.loss, d.producer, d.graphName, d.doc)
		}
		if f.Statements.Plain == "" {
			t.Errorf("%s: the release has no plain statement", c.loss)
		}
		for key, want := range map[string]string{"privacy": f.Together, "privacy_statement": f.Statements.Plain, "model_privacy": f.Models[0].Report.Statement, "private": "false",
			"model": "1 of 1", "loss": c.loss, "mechanism": f.Models[0].Report.Mechanism, "label": f.Label.Meaning, "encoding": f.Encoding.Description,
			"release_format": release.Format} {
			if d.meta[key] != want {
				t.Errorf("%s: metadata %q = %q, want %q", c.loss, key, d.meta[key], want)
			}
		}
		wantInputs := []decodedValue{{name: "age", elem: dataDouble, shape: []string{"N", "1"}},
			{name: "smoker", elem: dataString, shape: []string{"N", "1"}}, {name: "city", elem: dataString, shape: []string{"N", "1"}}}
		if got := strip(d.inputs); !slices.EqualFunc(got, wantInputs, equalValue) {
			t.Errorf("%s: inputs %+v, want %+v", c.loss, got, wantInputs)
		}
		if got := strip(d.outputs); !slices.EqualFunc(got, c.outputs, equalValue) {
			t.Errorf("%s: outputs %+v, want %+v", c.loss, got, c.outputs)
		}
	}
}

func maps(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// strip returns the values without their documentation.
func strip(vs []decodedValue) []decodedValue {
	out := slices.Clone(vs)
	for i := range out {
		out[i].doc = ""
	}
	return out
}

func equalValue(a, b decodedValue) bool {
	return a.name == b.name && a.elem == b.elem && slices.Equal(a.shape, b.shape)
}

// TestCategoricalEncoding checks the LabelEncoder of each categorical column: each category to
// its feature, a missing value ("" and "?", even where "?" is a category) to the replacement's
// feature or to no feature (−1) when missing is an error, any other text to the other bucket or
// to no feature; and the one-hot block's width.
func TestCategoricalEncoding(t *testing.T) {
	d := export(t, testFile(t, testSchema(t, scaleNorm, binaryLabel), "logistic"), 1)
	for _, c := range []struct {
		column string
		want   map[string]int64
		other  int64
		width  int
	}{
		{"smoker", map[string]int64{"no": 0, "yes": 1, "?": 1, "": 1}, 3, 4},
		{"city", map[string]int64{"a": 0, "b": 1, "?": -1, "": -1}, -1, 2},
	} {
		var enc *decodedNode
		for i, n := range d.nodes {
			if n.op == "LabelEncoder" && slices.Equal(n.inputs, []string{c.column}) {
				enc = &d.nodes[i]
			}
		}
		if enc == nil {
			t.Fatalf("%s: no LabelEncoder", c.column)
		}
		if enc.domain != mlDomain {
			t.Errorf("%s: LabelEncoder in domain %q", c.column, enc.domain)
		}
		keys := enc.attrs["keys_strings"].strs(attrStrings)
		values := enc.attrs["values_int64s"].ints(t, attrInts)
		got := map[string]int64{}
		for i, k := range keys {
			if _, dup := got[k]; dup || i >= len(values) {
				t.Fatalf("%s: keys %q, values %v", c.column, keys, values)
			}
			got[k] = values[i]
		}
		if len(keys) != len(values) || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: maps %v (values %v), want %v", c.column, got, values, c.want)
		}
		for name, want := range map[string]int64{"keys_strings": attributeStrings, "values_int64s": attributeInts, "default_int64": attributeInt} {
			if typ, _ := enc.attrs[name].int(attrType); typ != want {
				t.Errorf("%s: attribute %s has type %d, want %d", c.column, name, typ, want)
			}
		}
		if other, _ := enc.attrs["default_int64"].int(attrI); other != c.other {
			t.Errorf("%s: default %d, want %d", c.column, other, c.other)
		}
		var equal *decodedNode
		for i, n := range d.nodes {
			if n.op == "Equal" && n.inputs[0] == enc.outputs[0] {
				equal = &d.nodes[i]
			}
		}
		if equal == nil {
			t.Fatalf("%s: no Equal on the encoder's output", c.column)
		}
		want := make([]int64, c.width)
		for k := range want {
			want[k] = int64(k)
		}
		if got := d.initializers[equal.inputs[1]]; !slices.Equal(got.int64s, want) || !slices.Equal(got.dims, []int64{int64(c.width)}) {
			t.Errorf("%s: one-hot against %v (dims %v), want %v", c.column, got.int64s, got.dims, want)
		}
	}
}

// TestNumericEncoding checks the constants of a numeric column: the replacement of a missing
// value, the range and its width.
func TestNumericEncoding(t *testing.T) {
	d := export(t, testFile(t, testSchema(t, scaleNorm, binaryLabel), "logistic"), 1)
	where := d.node(t, "privopt/age/replaced")
	if where.op != "Where" || d.node(t, where.inputs[0]).op != "IsNaN" || where.inputs[2] != "age" {
		t.Fatalf("age: %+v does not replace NaN", where)
	}
	for name, want := range map[string]float64{"privopt/age/replacement": 50, "privopt/age/min": 20, "privopt/age/max": 80, "privopt/age/width": 60} {
		if got := d.initializers[name]; len(got.dims) != 0 || !slices.Equal(got.doubles, []float64{want}) || got.dataType != dataDouble {
			t.Errorf("%s: %+v, want the scalar %v", name, got, want)
		}
	}
}

// TestWeights checks that the weights are the model's, transposed and without the bias
// column, and that the bias's weights times the bias are added to the scores.
func TestWeights(t *testing.T) {
	s := testSchema(t, scaleNorm, classLabel)
	f := testFile(t, s, "multinomial")
	d := export(t, f, 1)
	w, dim := f.Models[0].Model.Weights, len(s.Features())
	matmul := d.node(t, "privopt/scores")
	weights := d.initializers[matmul.inputs[1]]
	if !slices.Equal(weights.dims, []int64{int64(dim - 1), 3}) {
		t.Fatalf("weights of shape %v, want [%d 3]", weights.dims, dim-1)
	}
	for j := range dim - 1 {
		for c := range 3 {
			if got, want := weights.doubles[j*3+c], w[c*dim+j]; got != want {
				t.Errorf("weight (%d, %d) = %v, want %v", j, c, got, want)
			}
		}
	}
	add := d.node(t, "privopt/scores/biased")
	bias := d.initializers[add.inputs[1]]
	for c := range 3 {
		if got, want := bias.doubles[c], w[c*dim+dim-1]*0.5; got != want {
			t.Errorf("bias term %d = %v, want %v", c, got, want)
		}
	}
	if sm := d.node(t, "probabilities"); sm.op != "Softmax" || sm.inputs[0] != add.outputs[0] {
		t.Errorf("probabilities: %+v", sm)
	}
	if am := d.node(t, d.node(t, "label").inputs[1]); am.op != "ArgMax" {
		t.Errorf("the label's class is computed by %s", am.op)
	}
	classes := d.initializers[d.node(t, "label").inputs[0]]
	if !slices.Equal(classes.strings, []string{"a", "b", "c"}) {
		t.Errorf("classes %q", classes.strings)
	}
}

// TestFit checks the norm fit: under "scale" one copy of the scale per feature (never a scalar,
// which onnxruntime would fuse into the MatMul in float32); under "clip" the feature radius and
// the norm's computation for each exponent.
func TestFit(t *testing.T) {
	s := testSchema(t, scaleNorm, binaryLabel)
	d := export(t, testFile(t, s, "logistic"), 1)
	scale := d.initializers[d.node(t, "privopt/features/scaled").inputs[1]]
	want := s.Scaling().Scale
	if !slices.Equal(scale.dims, []int64{int64(len(s.Features()) - 1)}) || slices.ContainsFunc(scale.doubles, func(v float64) bool { return v != want }) {
		t.Errorf("scale %v (dims %v), want %v per feature", scale.doubles, scale.dims, want)
	}
	for _, c := range []struct {
		p    string
		root string // the operator that computes the norm
	}{{"1", "ReduceSum"}, {"2", "Sqrt"}, {"3", "Mul"}, {`"inf"`, "ReduceMax"}} {
		s := testSchema(t, `{"p": `+c.p+`, "radius": 1.5, "bias": 0, "fit": "clip"}`, binaryLabel)
		d := export(t, testFile(t, s, "logistic"), 1)
		ratio := d.node(t, "privopt/clip/ratio")
		if r := d.initializers[ratio.inputs[0]].doubles; !slices.Equal(r, []float64{s.Scaling().FeatureRadius}) {
			t.Errorf("p = %s: radius %v, want %v", c.p, r, s.Scaling().FeatureRadius)
		}
		if op := d.node(t, ratio.inputs[1]).op; op != c.root {
			t.Errorf("p = %s: the norm is computed by %s, want %s", c.p, op, c.root)
		}
		if c.p == "3" {
			root := d.node(t, d.node(t, ratio.inputs[1]).inputs[1])
			if e := d.initializers[root.inputs[1]].doubles; root.op != "Pow" || !slices.Equal(e, []float64{1.0 / 3}) {
				t.Errorf("p = 3: the root is %s by %v", root.op, e)
			}
		}
		if fitted := d.node(t, "privopt/features/fitted"); fitted.op != "Mul" || d.node(t, fitted.inputs[1]).op != "Min" {
			t.Errorf("p = %s: the features are not multiplied by min(1, ratio)", c.p)
		}
		if _, ok := d.initializers["privopt/bias"]; ok {
			t.Errorf("p = %s: a bias term without a bias coordinate", c.p)
		}
	}
}

// TestRegression checks that a regression's value is clipped to the label's range.
func TestRegression(t *testing.T) {
	d := export(t, testFile(t, testSchema(t, scaleNorm, regressionLabel), "squared"), 1)
	reshape := d.node(t, "value")
	clip := d.node(t, reshape.inputs[0])
	lower := d.node(t, clip.inputs[0])
	if reshape.op != "Reshape" || clip.op != "Min" || lower.op != "Max" ||
		!slices.Equal(d.initializers[clip.inputs[1]].doubles, []float64{10}) || !slices.Equal(d.initializers[lower.inputs[1]].doubles, []float64{0}) {
		t.Errorf("value: %s(%s(scores, 0), 10) expected, got %s, %s, %s", "Min", "Max", reshape.op, clip.op, lower.op)
	}
}

// TestNames checks that the names the graph makes avoid the columns' names, even when those
// begin with the prefix the graph uses.
func TestNames(t *testing.T) {
	s, err := data.LoadSchema(strings.NewReader(`{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "fit": "scale"},
	  "columns": [
	    {"name": "privopt/x", "kind": "numeric", "min": 0, "max": 1},
	    {"name": "_privopt/features/scaled", "kind": "numeric", "min": 0, "max": 1},
	    {"name": "y", "kind": "binary-label", "positive": ["1"], "negative": ["0"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	d := export(t, testFile(t, s, "logistic"), 1)
	for _, n := range d.nodes {
		for _, out := range n.outputs {
			if out != "label" && out != "probabilities" && !strings.HasPrefix(out, "__privopt/") {
				t.Errorf("value %q does not have the prefix __privopt/", out)
			}
		}
	}
}

// TestErrors checks that Export refuses a model that does not exist, an inconsistent file and
// a column that has the name of an output.
func TestErrors(t *testing.T) {
	s := testSchema(t, scaleNorm, binaryLabel)
	for _, c := range []struct {
		name   string
		file   func() *release.File
		k      int
		substr string
	}{
		{"no model 0", func() *release.File { return testFile(t, s, "logistic") }, 0, "no model 0"},
		{"no model 2", func() *release.File { return testFile(t, s, "logistic") }, 2, "no model 2"},
		{"no file", func() *release.File { return nil }, 1, "no schema"},
		{"no schema", func() *release.File { f := testFile(t, s, "logistic"); f.Schema = nil; return f }, 1, "no schema"},
		{"weights", func() *release.File {
			f := testFile(t, s, "logistic")
			f.Models[0].Model.Weights = f.Models[0].Model.Weights[1:]
			return f
		}, 1, "weights"},
		{"features", func() *release.File {
			f := testFile(t, s, "logistic")
			f.Models[0].Model.Features = f.Models[0].Model.Features[1:]
			return f
		}, 1, "features"},
		{"invalid schema", func() *release.File {
			f := testFile(t, s, "logistic")
			f.Schema = testSchema(t, scaleNorm, binaryLabel)
			f.Schema.Norm.Radius = -1
			return f
		}, 1, "radius"},
		{"column named label", func() *release.File {
			s := testSchema(t, scaleNorm, binaryLabel)
			s.Columns[0].Name = "label"
			f := testFile(t, s, "logistic")
			return f
		}, 1, `column "label" has the name of an output`},
		{"column named value", func() *release.File {
			s := testSchema(t, scaleNorm, regressionLabel)
			s.Columns[0].Name = "value"
			return testFile(t, s, "squared")
		}, 1, `column "value" has the name of an output`},
	} {
		var b bytes.Buffer
		err := Export(c.file(), c.k, &b)
		if err == nil || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.substr)
		}
		if b.Len() != 0 {
			t.Errorf("%s: %d bytes written", c.name, b.Len())
		}
	}
	// A column may have the name of an output the model does not have.
	s2 := testSchema(t, scaleNorm, binaryLabel)
	s2.Columns[0].Name = "value"
	export(t, testFile(t, s2, "logistic"), 1)
}

// TestSecondModel checks that Export writes the model asked for of a file with several.
func TestSecondModel(t *testing.T) {
	s := testSchema(t, scaleNorm, binaryLabel)
	f := testFile(t, s, "logistic")
	second := f.Models[0]
	second.Model.Weights = slices.Clone(second.Model.Weights)
	for i := range second.Model.Weights {
		second.Model.Weights[i] = -math.Ldexp(second.Model.Weights[i], 1)
	}
	f.Models = append(f.Models, second)
	d := export(t, f, 2)
	if d.meta["model"] != "2 of 2" {
		t.Errorf("metadata model = %q", d.meta["model"])
	}
	weights := d.initializers[d.node(t, "privopt/scores").inputs[1]].doubles
	if !slices.Equal(weights, second.Model.Weights[:len(weights)]) {
		t.Errorf("weights %v, want the second model's", weights)
	}
}

// scaledSchema declares a log1p column, a column with a private range, a log1p column with one,
// a categorical column and a numeric label with a private range, under p = ∞ and radius 1
// (c = 1: the features are the columns' encoded values).
func scaledSchema(t *testing.T) *data.Schema {
	t.Helper()
	s, err := data.LoadSchema(strings.NewReader(`{"privopt_schema": 1, "norm": {"p": "inf", "radius": 1, "fit": "scale"},
	  "columns": [
	    {"name": "gain", "kind": "numeric", "min": 0, "max": 99999, "transform": "log1p", "missing": {"replace": 7}},
	    {"name": "age", "kind": "numeric", "min": 20, "max": 80, "private_range": {"lo": 0.25, "hi": 0.75}},
	    {"name": "loss", "kind": "numeric", "min": 0, "max": 4000, "transform": "log1p", "private_range": {"lo": 0.125, "hi": 0.5}},
	    {"name": "city", "kind": "categorical", "categories": ["a", "b"]},
	    {"name": "outcome", "kind": "numeric-label", "min": 0, "max": 200, "private_range": {"lo": 0, "hi": 0.0625}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// eval computes the value name of the graph d for one row, given the values of some of its
// names (graph inputs, or intermediate values), through the elementwise operators of the
// numeric encoding and the regression's link; constants are scalar initializers.
func eval(t *testing.T, d *decoded, name string, given map[string]float64) float64 {
	t.Helper()
	if v, ok := given[name]; ok {
		return v
	}
	if c, ok := d.initializers[name]; ok {
		if len(c.doubles) != 1 {
			t.Fatalf("%s is not a scalar: %+v", name, c)
		}
		return c.doubles[0]
	}
	n := d.node(t, name)
	in := make([]float64, len(n.inputs))
	for k, x := range n.inputs {
		if n.op == "Reshape" && k == 1 {
			break // the shape
		}
		in[k] = eval(t, d, x, given)
	}
	switch n.op {
	case "IsNaN":
		return map[bool]float64{true: 1, false: 0}[math.IsNaN(in[0])]
	case "Where":
		if in[0] != 0 {
			return in[1]
		}
		return in[2]
	case "Max":
		return max(in[0], in[1])
	case "Min":
		return min(in[0], in[1])
	case "Add":
		return in[0] + in[1]
	case "Sub":
		return in[0] - in[1]
	case "Mul":
		return in[0] * in[1]
	case "Div":
		return in[0] / in[1]
	case "Log":
		return math.Log(in[0])
	case "Reshape":
		return in[0]
	}
	t.Fatalf("eval: operator %s of %q", n.op, name)
	return 0
}

// TestScaledEncoding checks the graph of columns with a transform and a private range, and of
// a label with a private range, against privopt's encoding and data.Label.Raw: the numeric
// features are computed as privopt computes them (exactly, but for log1p, which the graph
// computes as Log(1 + v)), and the value is offset + unit·clip(s, −1, 1) bit for bit.
func TestScaledEncoding(t *testing.T) {
	s := scaledSchema(t)
	d := export(t, testFile(t, s, "squared"), 1)
	if op := d.node(t, "privopt/gain/log1p").op; op != "Log" {
		t.Errorf("gain: log1p computed by %s", op)
	}
	for name, want := range map[string]float64{"privopt/gain/log1p(min)": 0, "privopt/gain/width": math.Log1p(99999),
		"privopt/age/range/lo": 0.25, "privopt/age/range/hi": 0.75, "privopt/age/range/width": 0.5,
		"privopt/loss/log1p(min)": 0, "privopt/loss/width": math.Log1p(4000), "privopt/loss/range/width": 0.375,
		"privopt/label/min": -1, "privopt/label/max": 1, "privopt/label/unit": 6.25, "privopt/label/offset": 6.25} {
		if got := d.initializers[name]; !slices.Equal(got.doubles, []float64{want}) {
			t.Errorf("%s: %v, want %v", name, got.doubles, want)
		}
	}

	// The features of some rows, as privopt encodes them, and as the graph does.
	values := map[string][]float64{
		"gain": {0, 1, 7, 150.5, 99999, 1e6, -3, math.NaN()},
		"age":  {20, 30, 35, 50, 64.5, 65, 80, 95},
		"loss": {0, 0.5, 3, 30, 300, 1999, 4000, 5000},
	}
	var csv strings.Builder
	csv.WriteString("gain,age,loss,city\n")
	for i := range values["gain"] {
		g := strconv.FormatFloat(values["gain"][i], 'g', -1, 64)
		if math.IsNaN(values["gain"][i]) {
			g = ""
		}
		fmt.Fprintf(&csv, "%s,%v,%v,a\n", g, values["age"][i], values["loss"][i])
	}
	ds, _, err := data.EncodeForPrediction(strings.NewReader(csv.String()), s)
	if err != nil {
		t.Fatal(err)
	}
	parts := d.node(t, "privopt/features").inputs
	for j, column := range []string{"gain", "age", "loss"} {
		for i, v := range values[column] {
			got, want := eval(t, d, parts[j], map[string]float64{column: v}), ds.Row(i, nil)[j]
			if tol := map[bool]float64{true: 1e-15, false: 0}[column != "age"]; math.Abs(got-want) > tol || got < 0 || got > 1 {
				t.Errorf("%s = %v: the graph encodes %v, privopt %v", column, v, got, want)
			}
		}
	}
	label := s.Label()
	if label.Offset != 6.25 || label.Unit != 6.25 {
		t.Fatalf("label map %+v", label)
	}
	scores := d.node(t, "privopt/value/above-min").inputs[0]
	for _, sc := range []float64{-3, -1, -0.3, 0, 0.123456789, 1, 7} {
		got, want := eval(t, d, "value", map[string]float64{scores: sc}), label.Raw(min(max(sc, -1), 1))
		if got != want {
			t.Errorf("score %v: value %v, want %v", sc, got, want)
		}
	}
}

// TestDeclaredGraphUnchanged checks that a schema without transforms or ranges gives the graph
// it gave before they existed: a numeric column's last node is its Div, and a regression's
// value has no map.
func TestDeclaredGraphUnchanged(t *testing.T) {
	d := export(t, testFile(t, testSchema(t, scaleNorm, regressionLabel), "squared"), 1)
	if n := d.node(t, "privopt/age/encoded"); n.op != "Div" || d.node(t, n.inputs[0]).op != "Sub" {
		t.Errorf("age: encoded by %+v", n)
	}
	for _, n := range d.nodes {
		if n.op == "Log" || strings.Contains(n.name, "range") || strings.HasPrefix(n.name, "privopt/value/scaled") || strings.HasPrefix(n.name, "privopt/value/raw") {
			t.Errorf("node %q (%s) in a graph without transforms or ranges", n.name, n.op)
		}
	}
}
