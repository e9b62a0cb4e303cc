package release

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
)

// Predictor turns encoded rows into predictions with one model of a release file.
type Predictor struct {
	model  mech.Model
	label  Label
	target data.Label // the labels as the schema encodes them: a numeric label's range and map
	d      int
}

// Predictor returns the predictor of the file's k-th model (k from 1).
func (f *File) Predictor(k int) (*Predictor, error) {
	if k < 1 || k > len(f.Models) {
		return nil, fmt.Errorf("release: there is no model %d (the file has %d)", k, len(f.Models))
	}
	if f.Schema == nil {
		return nil, errors.New("release: the file has no schema")
	}
	return &Predictor{model: f.Models[k-1].Model, label: f.Label, target: f.Schema.Label(), d: len(f.Encoding.Features)}, nil
}

// Prediction is a model's prediction for one row: the predicted label (a label value, a class,
// or for regression the number as text), the value for regression (in the label's units), and
// for classifiers with a likelihood (logistic, multinomial) the probability of each of
// Classes().
type Prediction struct {
	Label         string
	Value         float64
	Probabilities []float64
}

// Classes returns the names of the predicted classes: for a binary label the first negative
// value (or "(negative)" when the schema reads every other value as negative) and the first
// positive value; for classes, the classes; nil for regression.
func (p *Predictor) Classes() []string {
	switch p.label.Kind {
	case data.LabelBinary:
		neg := "(negative)"
		if len(p.label.Negative) > 0 {
			neg = p.label.Negative[0]
		}
		return []string{neg, p.label.Positive[0]}
	case data.LabelClass:
		return p.label.Classes
	}
	return nil
}

// HasProbabilities reports whether the model's predictions carry probabilities (logistic and
// multinomial models; the hinge losses and regression do not).
func (p *Predictor) HasProbabilities() bool {
	return p.model.Loss == mech.LossLogistic || p.model.Loss == mech.LossMultinomial
}

// Predict returns the prediction for one encoded row x (the model's features). A regression's
// value is the score w·x clipped to the range of the labels the model was fitted on, then
// mapped to the label's units (data.Label.Raw): the declared range, or with a private range
// Offset + Unit·clip(w·x, −1, 1).
func (p *Predictor) Predict(x []float64) Prediction {
	w := p.model.Weights
	switch p.label.Kind {
	case data.LabelClass:
		k := len(p.label.Classes)
		scores := make([]float64, k)
		best := 0
		for c := range k {
			scores[c] = dot(w[c*p.d:(c+1)*p.d], x)
			if scores[c] > scores[best] {
				best = c
			}
		}
		pr := Prediction{Label: p.label.Classes[best]}
		if p.HasProbabilities() {
			pr.Probabilities = softmax(scores)
		}
		return pr
	case data.LabelNumeric:
		v := p.target.Raw(min(max(dot(w, x), p.target.Min), p.target.Max))
		return Prediction{Label: strconv.FormatFloat(v, 'g', -1, 64), Value: v}
	}
	s := dot(w, x)
	classes := p.Classes()
	pr := Prediction{Label: classes[0]}
	if s >= 0 {
		pr.Label = classes[1]
	}
	if p.HasProbabilities() {
		q := 1 / (1 + math.Exp(-s))
		pr.Probabilities = []float64{1 - q, q}
	}
	return pr
}

func dot(w, x []float64) float64 {
	var s float64
	for j, v := range x {
		s += w[j] * v
	}
	return s
}

// softmax returns the softmax of scores, computed without overflow.
func softmax(scores []float64) []float64 {
	top := math.Inf(-1)
	for _, s := range scores {
		top = max(top, s)
	}
	out := make([]float64, len(scores))
	var sum float64
	for c, s := range scores {
		out[c] = math.Exp(s - top)
		sum += out[c]
	}
	for c := range out {
		out[c] /= sum
	}
	return out
}

// WriteCSV reads the rows of in (a CSV file with the schema's feature columns; the label and
// the ignored columns may be absent), and writes one line per row to out: the predicted
// label ("prediction"), and for models with probabilities one column "p(class)" per class.
// A bad row is an error naming its line and column, as in a fit; nothing is written then.
func (f *File) WriteCSV(k int, in io.Reader, out io.Writer) (*data.Diagnostics, error) {
	p, err := f.Predictor(k)
	if err != nil {
		return nil, err
	}
	ds, diag, err := data.EncodeForPrediction(in, f.Schema)
	if err != nil {
		return diag, err
	}
	w := csv.NewWriter(out)
	header := []string{"prediction"}
	if p.HasProbabilities() {
		for _, c := range p.Classes() {
			header = append(header, "p("+c+")")
		}
	}
	if err := w.Write(header); err != nil {
		return diag, err
	}
	record := make([]string, len(header))
	x := make([]float64, ds.D)
	for i := range ds.N {
		x = ds.Row(i, x)
		pr := p.Predict(x)
		record[0] = pr.Label
		for c, q := range pr.Probabilities {
			record[c+1] = strconv.FormatFloat(q, 'g', 17, 64)
		}
		if err := w.Write(record); err != nil {
			return diag, err
		}
	}
	w.Flush()
	return diag, w.Error()
}
