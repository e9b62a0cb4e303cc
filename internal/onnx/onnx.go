// Package onnx writes a model of a privopt release file as an ONNX model, so that any ONNX
// runtime (onnxruntime in Python, C#, Java or JavaScript) scores raw rows with it.
//
// The graph has one input per numeric or categorical column of the release's schema, named
// exactly as the column, of shape [N, 1]: tensor(double) for a numeric column (NaN for a
// missing value), tensor(string) for a categorical one (the field as privopt reads it, without
// the spaces around it; "" or "?" for a missing value). It encodes them as privopt does
// (data.Schema: missing values replaced, numbers clipped to their range, transformed (log1p as
// Log(1 + v)) and mapped to [0, 1], then rescaled to their private range, categories one-hot,
// then the norm fit "scale" or "clip" and the bias coordinate), applies the linear model and
// its link, and outputs, in double precision:
//
//	label          tensor(string) [N]     the predicted label, as privopt predict writes it (classifiers)
//	probabilities  tensor(double) [N, K]  the probability of each class (logistic and multinomial models)
//	value          tensor(double) [N]     the prediction in the label's units (regression): the score
//	                                      clipped to the training labels' range, then mapped by a
//	                                      private range's offset + unit·s
//
// Its predictions are privopt predict's (probabilities and values equal up to rounding:
// Log(1 + v) rounds differently from privopt's log1p), except on the rows privopt refuses: a
// graph cannot fail on a row, so a missing value in a column whose missing policy is "error",
// and a category outside the declared list of a column without an other bucket, give that
// column all-zero features (a numeric column then reads as its minimum), and an infinite
// number is clipped to the range.
//
// The model's metadata_props hold the release's privacy statements ("privacy": the guarantee
// of releasing all the file's models together, "privacy_statement": the same in words for
// the public; "model_privacy": this model's report) and what the model predicts.
package onnx

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/privopt/privopt/internal/release"
	"github.com/privopt/privopt/internal/version"
	"github.com/privopt/privopt/pkg/core/data"
)

// Versions Export targets: ONNX 1.12's IR and operator sets (onnxruntime supports them since
// its 1.12).
const (
	irVersion = 8
	opsetONNX = 17
	opsetML   = 3
)

// mlDomain is the domain of the ONNX-ML operators (LabelEncoder).
const mlDomain = "ai.onnx.ml"

// The names of the graph's outputs.
const (
	outLabel         = "label"
	outProbabilities = "probabilities"
	outValue         = "value"
)

// batch is the symbolic number of rows of every input and output.
var batch = dim{param: "N"}

// Export writes the k-th model (k from 1) of the release file f to w as an ONNX ModelProto.
// It is an error when there is no model k, when the file is inconsistent (its schema does not
// validate or the model's features or weights do not fit it), or when a feature column has
// the name of one of the model's outputs.
func Export(f *release.File, k int, w io.Writer) error {
	b, err := build(f, k)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// build returns the ModelProto of the k-th model of f.
func build(f *release.File, k int) (message, error) {
	if f == nil || f.Schema == nil {
		return nil, errors.New("onnx: the release file has no schema")
	}
	p, err := f.Predictor(k)
	if err != nil {
		return nil, err
	}
	s := f.Schema
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	m := f.Models[k-1]
	features := s.Features()
	if !slices.Equal(m.Model.Features, features) {
		return nil, fmt.Errorf("onnx: model %d has %d features that are not the schema's %d", k, len(m.Model.Features), len(features))
	}
	rows := 1
	var outputs []string
	switch f.Label.Kind {
	case data.LabelBinary:
		outputs = []string{outLabel}
	case data.LabelClass:
		rows = len(p.Classes())
		outputs = []string{outLabel}
	case data.LabelNumeric:
		outputs = []string{outValue}
	default:
		return nil, fmt.Errorf("onnx: unknown label kind %q", f.Label.Kind)
	}
	if p.HasProbabilities() {
		outputs = append(outputs, outProbabilities)
	}
	if len(m.Model.Weights) != rows*len(features) {
		return nil, fmt.Errorf("onnx: model %d has %d weights, want %d", k, len(m.Model.Weights), rows*len(features))
	}
	var inputs []string
	for _, c := range s.Columns {
		if c.Kind == data.Numeric || c.Kind == data.Categorical {
			if slices.Contains(outputs, c.Name) {
				return nil, fmt.Errorf("onnx: the column %q has the name of an output of the ONNX model (%v): rename the column", c.Name, outputs)
			}
			inputs = append(inputs, c.Name)
		}
	}

	g := newGraph(append(inputs, outputs...))
	x := encode(g, s)
	scores := linear(g, x, m.Model.Weights, rows, len(features), s.Norm.Bias)
	link(g, f.Label, s.Label(), p, scores)
	declareOutputs(g, f, p, outputs)

	var model message
	model.varint(modelIRVersion, irVersion)
	model.string(modelProducerName, "privopt")
	model.string(modelProducerVersion, version.String())
	model.string(modelDocString, fmt.Sprintf("Model %d of %d of a privopt release file (loss %s): %s", k, len(f.Models), m.Model.Loss, f.Label.Meaning))
	model.message(modelGraph, g.proto("privopt", "privopt's encoding of the raw columns, then the linear model and its link. "+f.Encoding.Description))
	model.message(modelOpsetImport, opset("", opsetONNX))
	model.message(modelOpsetImport, opset(mlDomain, opsetML))
	for _, e := range [][2]string{
		{"privacy", f.Together},
		{"privacy_statement", f.Statements.Plain},
		{"model_privacy", m.Report.Statement},
		{"private", strconv.FormatBool(f.Private())}, // the model with the ranges it was fitted with
		{"model", fmt.Sprintf("%d of %d", k, len(f.Models))},
		{"loss", m.Model.Loss},
		{"mechanism", m.Report.Mechanism},
		{"label", f.Label.Meaning},
		{"encoding", f.Encoding.Description},
		{"release_format", f.Format},
	} {
		if e[1] != "" {
			model.message(modelMetadataProps, entry(e[0], e[1]))
		}
	}
	return model, nil
}

// link adds the nodes that turn the [N, rows] scores into the model's outputs, as
// release.Predictor does: the label (with the probabilities when the model has them), or the
// value clipped to the range of the training labels target and mapped to the label's units.
func link(g *graph, label release.Label, target data.Label, p *release.Predictor, scores string) {
	switch label.Kind {
	case data.LabelBinary:
		positive := g.op("GreaterOrEqual", "positive", []string{scores, g.scalar("zero", 0)})
		index := g.op("Cast", "class", []string{positive}, intAttribute("to", dataInt64))
		g.node("", "Gather", []string{g.texts("classes", p.Classes()), flatten(g, index)}, []string{outLabel}, intAttribute("axis", 0))
		if p.HasProbabilities() {
			// 1/(1 + e^{−s}), as privopt computes it (onnxruntime's Sigmoid on doubles
			// differs from it by up to about 1e-11, relative).
			e := g.op("Exp", "exp(-score)", []string{g.op("Neg", "-score", []string{scores})})
			q := g.op("Reciprocal", "p(positive)", []string{g.op("Add", "1+exp(-score)", []string{g.scalar("one", 1), e})})
			g.node("", "Concat", []string{g.op("Sub", "p(negative)", []string{g.scalar("one", 1), q}), q}, []string{outProbabilities}, intAttribute("axis", 1))
		}
	case data.LabelClass:
		index := g.op("ArgMax", "class", []string{scores}, intAttribute("axis", 1), intAttribute("keepdims", 0), intAttribute("select_last_index", 0))
		g.node("", "Gather", []string{g.texts("classes", p.Classes()), index}, []string{outLabel}, intAttribute("axis", 0))
		if p.HasProbabilities() {
			g.node("", "Softmax", []string{scores}, []string{outProbabilities}, intAttribute("axis", 1))
		}
	case data.LabelNumeric:
		lo := g.op("Max", "value/above-min", []string{scores, g.scalar("label/min", target.Min)})
		v := g.op("Min", "value/clipped", []string{lo, g.scalar("label/max", target.Max)})
		if !target.Identity() {
			// Offset + Unit·v, as data.Label.Raw computes it: the product rounded, then the sum.
			v = g.op("Mul", "value/scaled", []string{v, g.scalar("label/unit", target.Unit)})
			v = g.op("Add", "value/raw", []string{v, g.scalar("label/offset", target.Offset)})
		}
		g.node("", "Reshape", []string{v, g.int64s("flat", []int64{1}, []int64{-1})}, []string{outValue})
	}
}

// declareOutputs declares the graph's outputs.
func declareOutputs(g *graph, f *release.File, p *release.Predictor, outputs []string) {
	for _, out := range outputs {
		switch out {
		case outLabel:
			g.output(out, dataString, []dim{batch}, "the predicted "+f.Label.Name+": "+f.Label.Meaning)
		case outValue:
			g.output(out, dataDouble, []dim{batch}, "the predicted "+f.Label.Name+": "+f.Label.Meaning)
		case outProbabilities:
			classes := p.Classes()
			g.output(out, dataDouble, []dim{batch, {size: int64(len(classes))}}, fmt.Sprintf("the probability of each class, in the order %q", classes))
		}
	}
}

// encode declares the graph's inputs and adds the nodes that encode them as privopt does,
// and returns the name of the encoded features, [N, d] without the bias coordinate.
func encode(g *graph, s *data.Schema) string {
	column := []dim{batch, {size: 1}}
	var parts []string
	for _, c := range s.Columns {
		switch c.Kind {
		case data.Numeric:
			g.input(c.Name, dataDouble, column, fmt.Sprintf("numeric, declared range [%v, %v]; NaN for a missing value", c.Min, c.Max))
			parts = append(parts, numeric(g, &c))
		case data.Categorical:
			g.input(c.Name, dataString, column, fmt.Sprintf("categorical, one of %q; \"\" or \"?\" for a missing value", c.Categories))
			parts = append(parts, categorical(g, &c))
		}
	}
	z := parts[0]
	if len(parts) > 1 {
		z = g.op("Concat", "features", parts, intAttribute("axis", 1))
	}
	sc := s.Scaling()
	if s.Norm.Fit == data.FitClip {
		// The rows with ‖z‖_P > FeatureRadius are shrunk onto that sphere: z·min(1, Rz/‖z‖_P).
		// A zero row gives Rz/0 = +Inf, and the factor 1.
		ratio := g.op("Div", "clip/ratio", []string{g.scalar("clip/radius", sc.FeatureRadius), norm(g, z, s.Norm.P)})
		factor := g.op("Min", "clip/factor", []string{ratio, g.scalar("one", 1)})
		return g.op("Mul", "features/fitted", []string{z, factor})
	}
	// One copy of the scale per feature, not a scalar, even when it is 1: onnxruntime fuses a
	// multiplication or division by a scalar constant that feeds a MatMul into it, as a float32
	// attribute, which would round the factor by about 1e-7.
	d := len(s.Features()) // the features without the bias coordinate
	if s.Norm.Bias > 0 {
		d--
	}
	scale := make([]float64, d)
	for j := range scale {
		scale[j] = sc.Scale
	}
	return g.op("Mul", "features/scaled", []string{z, g.doubles("scale", []int64{int64(d)}, scale)})
}

// numeric adds the encoding of a numeric column, as data.Column declares it: a missing value
// (NaN) replaced as declared (by the minimum when missing is an error, which encodes to 0),
// clipped to [Min, Max], transformed (log1p as Log(1 + v)), mapped to z = (v − lo)/(hi − lo)
// for the ends lo, hi of the declared scale (data.Column.ScaleEnds; z clipped to [0, 1] after a
// transform, as privopt does), and with a private range [Lo, Hi] mapped to
// (clip(z, Lo, Hi) − Lo)/(Hi − Lo). It returns the [N, 1] feature.
func numeric(g *graph, c *data.Column) string {
	replacement := c.Min
	if c.Missing.Replace {
		// Validate checked that the replacement is a number within [Min, Max].
		replacement, _ = strconv.ParseFloat(c.Missing.Value, 64)
	}
	lo := g.scalar(c.Name+"/min", c.Min)
	missing := g.op("IsNaN", c.Name+"/missing", []string{c.Name})
	v := g.op("Where", c.Name+"/replaced", []string{missing, g.scalar(c.Name+"/replacement", replacement), c.Name})
	v = g.op("Max", c.Name+"/above-min", []string{v, lo})
	v = g.op("Min", c.Name+"/clipped", []string{v, g.scalar(c.Name+"/max", c.Max)})
	start, end := c.ScaleEnds()
	if c.Transform == data.Log1p {
		v = g.op("Log", c.Name+"/log1p", []string{g.op("Add", c.Name+"/1+v", []string{v, g.scalar("one", 1)})})
		lo = g.scalar(c.Name+"/log1p(min)", start)
	}
	z := c.Name + "/encoded" // the output's name, when nothing follows the declared scale
	if c.Transform != data.NoTransform || c.Range != nil {
		z = c.Name + "/declared"
	}
	v = g.op("Sub", c.Name+"/shifted", []string{v, lo})
	v = g.op("Div", z, []string{v, g.scalar(c.Name+"/width", end-start)})
	if c.Transform == data.Log1p {
		v = clip(g, c.Name+"/declared", v, g.scalar("zero", 0), g.scalar("one", 1))
	}
	if c.Range == nil {
		return v
	}
	rlo := g.scalar(c.Name+"/range/lo", c.Range.Lo)
	v = clip(g, c.Name+"/range", v, rlo, g.scalar(c.Name+"/range/hi", c.Range.Hi))
	v = g.op("Sub", c.Name+"/range/shifted", []string{v, rlo})
	return g.op("Div", c.Name+"/encoded", []string{v, g.scalar(c.Name+"/range/width", c.Range.Hi-c.Range.Lo)})
}

// clip adds the clipping of v to [lo, hi] (names of constants) and returns its output.
func clip(g *graph, hint, v, lo, hi string) string {
	v = g.op("Max", hint+"/above-lo", []string{v, lo})
	return g.op("Min", hint+"/clipped", []string{v, hi})
}

// categorical adds the one-hot encoding of a categorical column: LabelEncoder maps each text
// to the index of its feature (a declared category, the other bucket, the replacement of a
// missing value) or to −1 for no feature, and Equal against 0, 1, …, width−1 makes the 0/1
// block. It returns the [N, width] features.
func categorical(g *graph, c *data.Column) string {
	index := make(map[string]int64, len(c.Categories)+2)
	for k, v := range c.Categories {
		index[v] = int64(k)
	}
	missing := int64(-1)
	if c.Missing.Replace {
		// Validate checked that the replacement is a declared category.
		missing = int64(slices.Index(c.Categories, c.Missing.Value))
	}
	// A missing value is "" or "?", even when "?" is also a declared category.
	index[""], index["?"] = missing, missing
	keys := append(slices.Clone(c.Categories), "")
	if !slices.Contains(c.Categories, "?") {
		keys = append(keys, "?")
	}
	values := make([]int64, len(keys))
	for i, key := range keys {
		values[i] = index[key]
	}
	width, other := int64(len(c.Categories)), int64(-1)
	if c.Other {
		other = width
		width++
	}
	code := g.fresh(c.Name + "/index")
	g.node(mlDomain, "LabelEncoder", []string{c.Name}, []string{code},
		stringsAttribute("keys_strings", keys), intsAttribute("values_int64s", values), intAttribute("default_int64", other))
	features := make([]int64, width)
	for k := range features {
		features[k] = int64(k)
	}
	hot := g.op("Equal", c.Name+"/one-hot", []string{code, g.int64s(c.Name+"/features", []int64{width}, features)})
	return g.op("Cast", c.Name+"/encoded", []string{hot}, intAttribute("to", dataDouble))
}

// norm adds the computation of the ℓ_P norm of each row of z (whose entries are ≥ 0) and
// returns the [N, 1] result. For P other than 1, 2 and ∞ it divides by the row's largest entry
// first, as geom.Norm does, so that small entries do not underflow.
func norm(g *graph, z string, p float64) string {
	rows := g.int64s("axis1", []int64{1}, []int64{1})
	sum := func(hint, x string) string {
		return g.op("ReduceSum", hint, []string{x, rows}, intAttribute("keepdims", 1))
	}
	switch {
	case p == 1:
		return sum("norm", z)
	case p == 2:
		return g.op("Sqrt", "norm", []string{sum("norm/squares", g.op("Mul", "norm/square", []string{z, z}))})
	}
	top := g.op("ReduceMax", "norm/max", []string{z}, intsAttribute("axes", []int64{1}), intAttribute("keepdims", 1))
	if math.IsInf(p, 1) {
		return top
	}
	// The largest entry, or the smallest normal number for a zero row (whose norm is then 0).
	m := g.op("Max", "norm/scale", []string{top, g.scalar("norm/tiny", 0x1p-1022)})
	powers := g.op("Pow", "norm/powers", []string{g.op("Div", "norm/scaled", []string{z, m}), g.scalar("norm/p", p)})
	root := g.op("Pow", "norm/root", []string{sum("norm/sum", powers), g.scalar("norm/1/p", 1/p)})
	return g.op("Mul", "norm", []string{m, root})
}

// linear adds the scores of the model with weights w (rows × d, row-major; one row but for
// classes) on the features x ([N, d] without the bias coordinate when bias > 0): x·Wᵀ, plus
// each row's bias weight times bias. It returns the [N, rows] scores.
func linear(g *graph, x string, w []float64, rows, d int, bias float64) string {
	d0 := d
	if bias > 0 {
		d0--
	}
	wt := make([]float64, d0*rows) // Wᵀ without the bias column, [d0, rows]
	for c := range rows {
		for j := range d0 {
			wt[j*rows+c] = w[c*d+j]
		}
	}
	product := "MatMul"
	if d0 == 1 {
		// One feature: the scale of the features (fit) is then a one-element constant, which
		// onnxruntime fuses as a scalar into a MatMul that follows it, in float32. [N, 1]·[1,
		// rows] is a broadcast product: the same one rounding per score, with no MatMul.
		product = "Mul"
	}
	scores := g.op(product, "scores", []string{x, g.doubles("weights", []int64{int64(d0), int64(rows)}, wt)})
	if bias == 0 {
		return scores
	}
	constant := make([]float64, rows)
	for c := range rows {
		constant[c] = w[c*d+d0] * bias
	}
	return g.op("Add", "scores/biased", []string{scores, g.doubles("bias", []int64{int64(rows)}, constant)})
}

// flatten reshapes x to one dimension.
func flatten(g *graph, x string) string {
	return g.op("Reshape", "flat", []string{x, g.int64s("flat", []int64{1}, []int64{-1})})
}
