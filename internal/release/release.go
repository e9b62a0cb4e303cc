// Package release is privopt's release file: everything a person needs to use and publish a
// private model — the schema the data was encoded with, the encoding's constants, the
// label's meaning, the settings, and for each released model its weights, privacy report,
// utility bound and planned parameters. It reads and writes the file (format
// "privopt-release/2"), and turns raw CSV rows into predictions with its models.
//
// A File holds nothing computed from the data that was not released privately: the schema,
// the settings and the public facts are what the person declared (under add/remove the
// number of rows is the declared public N, never the observed one), and the models and
// reports are the mechanisms' releases. Local diagnostics are never part of it.
package release

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/internal/statement"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// Format names the release file's JSON form, the value of its "format" member.
const Format = "privopt-release/2"

// formatV1 is the first form, which held the settings and models without the schema.
const formatV1 = "privopt-release/1"

// maxFileBytes is the largest release file Read reads.
const maxFileBytes = 64 << 20

// File is a release file.
type File struct {
	// Format is Format.
	Format string `json:"format"`
	// Schema is the schema the training data was encoded with, as declared (public).
	Schema *data.Schema `json:"schema"`
	// Encoding states the constants that turn a raw row into the model's features.
	Encoding Encoding `json:"encoding"`
	// Label says what the model predicts.
	Label Label `json:"label"`
	// Settings are the fit's settings and Facts the public facts its plan used.
	Settings fit.Spec  `json:"settings"`
	Facts    fit.Facts `json:"facts"`
	// Ranges, when the settings spend a share of the budget on them, are the private ranges
	// of the scaled columns, released once and shared by every model (the Schema holds them
	// as used).
	Ranges *mech.Ranges `json:"private_ranges,omitempty"`
	// Models are the released models, in the order they were run.
	Models []Model `json:"models"`
	// Together states the guarantee of releasing every model of the file together.
	Together string `json:"together"`
	// Statements state that guarantee in the field's formats.
	Statements statement.Statements `json:"statements"`
}

// Model is one released model with its privacy report, utility bound and planned parameters.
type Model struct {
	Model      mech.Model         `json:"model"`
	Report     privacy.Report     `json:"report"`
	Utility    mech.Utility       `json:"utility"`
	Parameters map[string]float64 `json:"parameters"`
	// Evaluation, when the settings spend a share of the budget on it, is the model's private
	// evaluation on held-out rows, and HeldOut the public facts it was planned with.
	Evaluation *mech.Evaluation `json:"evaluation,omitempty"`
	HeldOut    *mech.HeldOut    `json:"held_out,omitempty"`
}

// Encoding states how a raw row becomes the model's features x (see data.Norm): each numeric
// column is clipped to its declared [min, max] and mapped to z = (v − min)/(max − min) (with
// the transform log1p, z = (log1p(v) − log1p(min))/(log1p(max) − log1p(min))), and a column
// with a private range [lo, hi] then to (clip(z, lo, hi) − lo)/(hi − lo); each categorical
// column becomes one 0/1 feature per category (and one for its other bucket), a missing value
// is replaced as the schema declares; then under "scale" every feature is multiplied by Scale,
// under "clip" a row whose features have ‖z‖_P above FeatureRadius is shrunk onto that sphere;
// finally the bias coordinate Bias is appended when it is positive. Description says it in
// words, with a sentence for each column that has a transform or a private range.
type Encoding struct {
	Features      []string     `json:"features"`
	P             fit.Exponent `json:"p"`
	Radius        float64      `json:"radius"`
	Fit           data.Fit     `json:"fit"`
	Scale         float64      `json:"scale"`
	FeatureRadius float64      `json:"feature_radius"`
	Bias          float64      `json:"bias"`
	Description   string       `json:"description"`
}

// Label says what a model predicts: for a binary label, the sign of w·x (positive means one
// of Positive; a logistic model's probability of it is 1/(1 + e^{−w·x})); for classes, the
// class of the largest score (a multinomial model's probabilities are the softmax of the
// scores); for a numeric label, w·x in the label's own units, clipped to the declared
// [Min, Max], or when the label has a private range (Unit > 0), Offset + Unit·clip(w·x, −1, 1),
// which lies within that range (see data.Label).
type Label struct {
	Name     string         `json:"name"`
	Kind     data.LabelKind `json:"kind"`
	Positive []string       `json:"positive,omitempty"`
	Negative []string       `json:"negative,omitempty"`
	// RestNegative says that every value outside Positive and Negative was read as negative.
	RestNegative bool     `json:"rest_negative,omitempty"`
	Classes      []string `json:"classes,omitempty"`
	Min          float64  `json:"min,omitempty"`
	Max          float64  `json:"max,omitempty"`
	// Offset and Unit are the map of a numeric label with a private range from the models'
	// scale [−1, 1] to the label's units (both absent without a range).
	Offset  float64 `json:"offset,omitempty"`
	Unit    float64 `json:"unit,omitempty"`
	Meaning string  `json:"meaning"`
}

// New returns the release file of models fitted with spec on data of schema s (as used: with
// the private ranges when the spec estimated them, released as ranges) with public facts f.
// Under add/remove the facts' number of rows is replaced by the declared public N, so that the
// observed number never reaches the file.
func New(s *data.Schema, spec fit.Spec, f fit.Facts, ranges *mech.Ranges, models []Model) (*File, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	n, err := fit.ProblemSize(spec, f)
	if err != nil {
		return nil, err
	}
	f.N = n
	if (ranges != nil) != fit.ScalesPrivately(spec, f) {
		return nil, fmt.Errorf("release: the settings and facts ask for private ranges: %v, and the release has them: %v", fit.ScalesPrivately(spec, f), ranges != nil)
	}
	file := &File{Format: Format, Schema: s, Encoding: encodingOf(s), Label: labelOf(s), Settings: spec, Facts: f, Ranges: ranges, Models: models}
	curve, err := file.Guarantee()
	if err != nil {
		return nil, err
	}
	file.Together = file.together(curve)
	in := statement.Input{Schema: s, Settings: spec, Facts: f, Curve: curve}
	for _, m := range models {
		in.Reports = append(in.Reports, m.Report)
		if m.Evaluation != nil {
			in.Evaluations = append(in.Evaluations, m.Evaluation.Report)
		}
	}
	if ranges != nil {
		in.Ranges = &ranges.Report
	}
	if file.Statements, err = statement.Of(in); err != nil {
		return nil, err
	}
	return file, nil
}

// encodingOf states the schema's encoding.
func encodingOf(s *data.Schema) Encoding {
	sc := s.Scaling()
	e := Encoding{Features: s.Features(), P: fit.Exponent(s.Norm.P), Radius: s.Norm.Radius, Fit: s.Norm.Fit,
		Scale: sc.Scale, FeatureRadius: sc.FeatureRadius, Bias: s.Norm.Bias}
	var b strings.Builder
	b.WriteString("Numeric columns are clipped to their declared range and mapped to [0, 1]; each category of a categorical column is a 0/1 feature; missing values are replaced as the schema declares. ")
	var scaled []string
	for _, c := range s.Columns {
		if c.Kind == data.Numeric && (c.Transform != data.NoTransform || c.Range != nil) {
			scaled = append(scaled, c.Name+" is "+c.DescribeScale())
		}
	}
	if len(scaled) > 0 {
		fmt.Fprintf(&b, "Columns with a transform or a private range differ: %s. ", strings.Join(scaled, "; "))
	}
	if s.Norm.Fit == data.FitScale {
		fmt.Fprintf(&b, "Every feature is then multiplied by %.17g, so that ‖x‖_%v ≤ %v for every row.", sc.Scale, e.P, s.Norm.Radius)
	} else {
		fmt.Fprintf(&b, "A row whose features have ‖z‖_%v > %.17g is then shrunk onto that sphere.", e.P, sc.FeatureRadius)
	}
	if s.Norm.Bias > 0 {
		fmt.Fprintf(&b, " The last feature, \"(bias)\", is the constant %.17g.", s.Norm.Bias)
	}
	e.Description = b.String()
	return e
}

// labelOf states the schema's label.
func labelOf(s *data.Schema) Label {
	for _, c := range s.Columns {
		l := Label{Name: c.Name}
		switch c.Kind {
		case data.BinaryLabel:
			l.Kind, l.Positive, l.Negative, l.RestNegative = data.LabelBinary, c.Positive, c.Negative, c.RestNegative
			negative := strings.Join(c.Negative, ", ")
			switch {
			case c.RestNegative && negative != "":
				negative += ", or any other value"
			case c.RestNegative:
				negative = "any other value"
			}
			l.Meaning = fmt.Sprintf("binary: a positive score predicts %q (the values %s), a negative score the others (%s)", c.Positive[0], strings.Join(c.Positive, ", "), negative)
		case data.ClassLabel:
			l.Kind, l.Classes = data.LabelClass, c.Classes
			l.Meaning = fmt.Sprintf("one of %d classes: the class with the largest score", len(c.Classes))
		case data.NumericLabel:
			l.Kind, l.Min, l.Max = data.LabelNumeric, c.Min, c.Max
			if c.Range == nil {
				l.Meaning = fmt.Sprintf("a number in the label's own units, clipped to the declared range [%v, %v]", c.Min, c.Max)
				break
			}
			m := s.Label()
			l.Offset, l.Unit = m.Offset, m.Unit
			l.Meaning = fmt.Sprintf("a number in the label's own units: offset + unit·s for the score s = w·x clipped to [−1, 1], with offset %.17g and unit %.17g; the training labels were %s", m.Offset, m.Unit, c.DescribeScale())
		default:
			continue
		}
		return l
	}
	return Label{} // unreachable for a valid schema
}

// together states the guarantee c of releasing every model together (Guarantee: from the
// plan of the settings and public facts, never from the data).
func (f *File) together(c privacy.Curve) string {
	if f.Ranges != nil && !f.Ranges.Report.Private {
		return "No privacy is claimed for these releases: the private ranges were not released privately (a seeded run)."
	}
	if !f.Private() {
		return "No privacy is claimed for these releases: see each model's report (a seeded run, or a sampler whose mixing is not certified)."
	}
	b := f.Settings.Budget
	rel := fmt.Sprintf("the %s relation", b.Neighbouring)
	if b.Neighbouring == privacy.AddRemove {
		rel += fmt.Sprintf(" with the declared public number of rows N = %d", f.Facts.N)
	}
	what := fmt.Sprintf("all %d models", len(f.Models))
	switch {
	case len(f.Models) == 1 && f.Settings.EvalShare == 0 && f.Ranges == nil:
		return fmt.Sprintf("The released model is (ε = %g, δ = %g)-differentially private under %s.", b.Epsilon, b.Delta, rel)
	case len(f.Models) == 1 && f.Settings.EvalShare > 0:
		what = "the model and its private evaluation"
	case len(f.Models) == 1:
		what = "the model"
	case f.Settings.EvalShare > 0:
		what += " and their private evaluations"
	}
	if f.Ranges != nil {
		what += fmt.Sprintf(" with the private ranges of the %d scaled columns", len(f.Ranges.Intervals))
	}
	if b.Delta > 0 {
		if e, err := c.Epsilon(b.Delta); err == nil {
			return fmt.Sprintf("Releasing %s together composes their privacy: (ε = %s, δ = %g)-differentially private under %s (%v).", what, privacy.FormatUp(e, 4), b.Delta, rel, c)
		}
	}
	return fmt.Sprintf("Releasing %s together composes their privacy: (ε = %g, δ = %s)-differentially private under %s (%v).", what, b.Epsilon, privacy.FormatUp(c.Delta(b.Epsilon), 4), rel, c)
}

// Private reports whether the file claims privacy: whether every part it releases (the private
// ranges, each model and each private evaluation) certifies its guarantee, none of them seeded
// or drawn by a sampler whose mixing is not certified. A model is only as private as the
// ranges it was fitted with.
func (f *File) Private() bool {
	if f.Ranges != nil && !f.Ranges.Report.Private {
		return false
	}
	for _, m := range f.Models {
		if !m.Report.Private || (m.Evaluation != nil && !m.Evaluation.Report.Private) {
			return false
		}
	}
	return true
}

// Guarantee returns the privacy curve of releasing every model of the file together
// (fit.Together): the private ranges' guarantee once (when the settings estimate them), and
// the plan's guarantee for the settings and public facts once per model, with the evaluation
// plan's once per private evaluation.
func (f *File) Guarantee() (privacy.Curve, error) {
	if len(f.Models) == 0 {
		return nil, errors.New("release: the file has no model")
	}
	pl, err := fit.Plan(f.Settings, f.Facts)
	if err != nil {
		return nil, err
	}
	ranges, _, err := fit.Beside(f.Settings, f.Facts)
	if err != nil {
		return nil, err
	}
	if (ranges != nil) != (f.Ranges != nil) {
		return nil, fmt.Errorf("release: the settings spend %g of the budget on private ranges, and the file has %s", f.Settings.ScaleShare, map[bool]string{true: "them", false: "none"}[f.Ranges != nil])
	}
	for k, m := range f.Models {
		if (m.Evaluation != nil) != (f.Settings.EvalShare > 0) || (m.Evaluation != nil) != (m.HeldOut != nil) {
			return nil, fmt.Errorf("release: model %d: the settings spend %g of the budget on a private evaluation, and the model has %s", k+1, f.Settings.EvalShare, map[bool]string{true: "one", false: "none"}[m.Evaluation != nil])
		}
	}
	return fit.Together(pl, f.Settings, f.Facts, len(f.Models))
}

// Evaluate releases the private evaluation of a model's weights w on the held-out rows test,
// with the share of the budget spec gives it (fit.Evaluation) and the random source r, and
// returns it with the held-out set's public facts for the model's entry: the label's declared
// range, and the number of rows under replace-one only (under add/remove that number is
// private, and the evaluation releases a noisy count instead).
func Evaluate(spec fit.Spec, facts fit.Facts, test *data.Dataset, w []float64, r *rng.Rand) (*mech.Evaluation, *mech.HeldOut, error) {
	h := mech.HeldOut{Rows: test.N}
	h.Min, h.Max = fit.LabelRange(spec, facts)
	if !test.Label.Identity() {
		h.Unit = test.Label.Unit // the label's map from [−1, 1] to its units, public with the schema as used
	}
	pl, err := fit.Evaluation(spec, facts, h)
	if err != nil {
		return nil, nil, err
	}
	if spec.Budget.Neighbouring == privacy.AddRemove {
		h.Rows = 0
	}
	ev, err := pl.Run(test, w, r)
	if err != nil {
		return nil, nil, err
	}
	return ev, &h, nil
}

// Write writes the file as indented JSON.
func (f *File) Write(w io.Writer) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Read reads a release file (at most 64 MiB) and checks it: its format, its schema (which
// must validate), and that every model has the schema's features. A file of the first format,
// which held no schema, is refused with a message that says what it lacks.
func Read(r io.Reader) (*File, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("release: reading: %w", err)
	}
	if len(b) > maxFileBytes {
		return nil, fmt.Errorf("release: larger than %d bytes", maxFileBytes)
	}
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("release: not a privopt release file: %w", err)
	}
	switch head.Format {
	case Format:
	case formatV1:
		return nil, fmt.Errorf("release: this file is in the first format (%s), which holds the weights in encoded units but not the schema, the encoding's constants or the label's meaning: no prediction can be made from it. Fit again with this version of privopt (the settings link restores the settings) and download the new file", formatV1)
	case "":
		return nil, errors.New("release: not a privopt release file (no \"format\" member)")
	default:
		return nil, fmt.Errorf("release: unknown format %q (this version reads %s)", head.Format, Format)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	f := new(File)
	if err := dec.Decode(f); err != nil {
		return nil, fmt.Errorf("release: %w", err)
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	return f, nil
}

// check checks a decoded file's consistency.
func (f *File) check() error {
	if f.Schema == nil {
		return errors.New("release: the file has no schema")
	}
	if len(f.Models) == 0 {
		return errors.New("release: the file has no model")
	}
	features := f.Schema.Features()
	for k, m := range f.Models {
		if !slices.Equal(m.Model.Features, features) {
			return fmt.Errorf("release: model %d has features %d that are not the schema's %d", k+1, len(m.Model.Features), len(features))
		}
		want := len(features)
		if m.Model.Loss == mech.LossMultinomial {
			want *= len(m.Model.Classes)
		}
		if len(m.Model.Weights) != want {
			return fmt.Errorf("release: model %d has %d weights, want %d", k+1, len(m.Model.Weights), want)
		}
	}
	return nil
}
