package statement

import (
	"fmt"
	"github.com/privopt/privopt/pkg/core/mech"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// The descriptions below restate public inputs only: the schema, the settings and the number
// of rows the relation makes public.

// rowsPublic names the public number of rows: n under replace-one, the declared N under
// add/remove.
func (r *release) rowsPublic() string {
	if r.relation == privacy.AddRemove {
		return fmt.Sprintf("the declared public number of rows N = %d", r.rows)
	}
	return fmt.Sprintf("the number of rows n = %d", r.rows)
}

// models says what is released, for example "1 linear model (92 weights, logistic loss)
// predicting "Y"".
func (r *release) models() string {
	weights := r.in.Facts.D
	if r.in.Settings.Loss == mech.LossMultinomial {
		weights *= len(r.in.Facts.Classes)
	}
	noun, each := "linear model", ""
	if r.count > 1 {
		noun, each = "linear models", " each"
	}
	return fmt.Sprintf("%d %s (%d weights%s, %s loss) predicting %q", r.count, noun, weights, each, r.in.Settings.Loss, labelName(r.in.Schema))
}

// beside states what the release holds besides the models and their reports: the private
// ranges and the private evaluations, each with its share of the budget ("" for neither).
func (r *release) beside() string {
	var out []string
	if r.in.Ranges != nil {
		out = append(out, "the private ranges of "+strconv.Itoa(r.in.Facts.Scalable)+" columns, to which they are clipped and rescaled ("+num(100*r.in.Settings.ScaleShare)+" % of the budget; in the release's schema)")
	}
	if len(r.in.Evaluations) > 0 {
		out = append(out, "each model's private evaluation on held-out rows ("+num(100*r.in.Settings.EvalShare)+" % of the budget)")
	}
	return strings.Join(out, "; and ")
}

// labelName returns the name of the schema's label column.
func labelName(s *data.Schema) string {
	for _, c := range s.Columns {
		if c.Kind == data.BinaryLabel || c.Kind == data.NumericLabel || c.Kind == data.ClassLabel {
			return c.Name
		}
	}
	return ""
}

// columns describes every column of the schema: its kind and declared values.
func columns(s *data.Schema) []string {
	out := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		var d string
		switch c.Kind {
		case data.Numeric:
			d = fmt.Sprintf("numeric, declared range [%s, %s]", num(c.Min), num(c.Max))
		case data.Categorical:
			d = "categorical: " + quoted(c.Categories)
			if c.Other {
				d += ", and an other bucket for any other value"
			}
		case data.Ignore:
			d = "ignored"
		case data.BinaryLabel:
			d = "the label, positive for " + quoted(c.Positive)
			switch {
			case c.RestNegative && len(c.Negative) > 0:
				d += ", negative for " + quoted(c.Negative) + " and any other value"
			case c.RestNegative:
				d += ", negative for any other value"
			default:
				d += ", negative for " + quoted(c.Negative)
			}
		case data.NumericLabel:
			d = fmt.Sprintf("the label, a number in the declared range [%s, %s]", num(c.Min), num(c.Max))
		case data.ClassLabel:
			d = "the label, one of the classes " + quoted(c.Classes)
		}
		if c.Missing.Replace {
			d += fmt.Sprintf("; a missing value reads as %q", c.Missing.Value)
		}
		out[i] = fmt.Sprintf("%q (%s)", c.Name, d)
	}
	return out
}

// quoted lists values, each quoted.
func quoted(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

// norm states the declared norm bound of the encoded rows, and how their values are held.
func norm(s *data.Schema, f fit.Facts) string {
	p := "∞"
	if !math.IsInf(s.Norm.P, 1) {
		p = num(s.Norm.P)
	}
	t := fmt.Sprintf("every encoded row x has ‖x‖_%s ≤ %s", p, num(s.Norm.Radius))
	if s.Norm.Fit == data.FitScale {
		t += " (features scaled by a constant computed from the schema)"
	} else {
		t += " (rows beyond the bound shrunk onto it)"
	}
	bias := s.Norm.Bias
	if f.Float32 {
		bias = f.Bias
	}
	if bias > 0 {
		t += fmt.Sprintf(", the last coordinate being the constant %s", num(bias))
	}
	if f.Float32 {
		t += "; every value held as a float32, rounded toward zero"
	}
	return t
}

// settings states the loss, the domain, the mechanism and its settings.
func (r *release) settings() string {
	s := r.in.Settings
	loss := s.Loss
	if s.LossParam > 0 && (s.Loss == mech.LossSmoothHinge || s.Loss == mech.LossHuber) {
		loss += fmt.Sprintf(" (parameter %s)", num(s.LossParam))
	}
	if s.Tilt > 0 {
		loss += fmt.Sprintf(", tilted with t = %s", num(s.Tilt))
	}
	if s.Robust > 0 {
		loss += fmt.Sprintf(", trained against feature perturbations of ℓ_%v norm at most %s", s.RobustNorm, num(s.Robust))
	}
	var domain string
	switch s.Domain {
	case fit.Ball:
		domain = fmt.Sprintf("the ℓ2 ball of radius %s", num(s.Radius))
	case fit.Box:
		domain = fmt.Sprintf("the box [−%s, %s] in every coordinate", num(s.Radius), num(s.Radius))
	default:
		domain = fmt.Sprintf("the whole space (comparison radius %s)", num(s.Radius))
	}
	opts := "its default settings"
	if len(s.Options) > 0 {
		names := make([]string, 0, len(s.Options))
		for k := range s.Options {
			names = append(names, k)
		}
		slices.Sort(names)
		for i, k := range names {
			names[i] = k + " = " + s.Options[k]
		}
		opts = "the settings " + strings.Join(names, ", ")
	}
	return fmt.Sprintf("the loss (%s), the parameter domain (%s), the mechanism (%s) with %s", loss, domain, s.Mechanism, opts)
}

// budgetText states each model's privacy target.
func (r *release) budgetText() string {
	each := "the model's"
	if r.count > 1 {
		each = "each model's"
	}
	return fmt.Sprintf("%s privacy budget (ε = %s, δ = %s, under %s)", each, num(r.budget.Epsilon), num(r.budget.Delta), r.relation)
}

// public lists everything public about the release.
func (r *release) public() []string {
	return []string{
		"the schema's columns: " + strings.Join(columns(r.in.Schema), "; "),
		"the norm bound: " + norm(r.in.Schema, r.in.Facts),
		r.settings(),
		r.budgetText(),
		r.rowsPublic(),
	}
}

// guarantee states the claim, for example "(ε = 1, δ = 1e-06)-differentially private".
func (r *release) guarantee() string {
	if r.pure {
		return fmt.Sprintf("(ε = %s)-differentially private (pure: δ = 0)", num(r.eps))
	}
	return fmt.Sprintf("(ε = %s, δ = %s)-differentially private", num(r.eps), num(r.delta))
}

// curvePoints states the curve's ε at the target δ and its δ at the target ε.
func (r *release) curvePoints() string {
	t := r.budget
	var pts []string
	if t.Delta > 0 {
		pts = append(pts, fmt.Sprintf("ε = %s at δ = %s", up(r.epsAtDelta), num(t.Delta)))
	}
	pts = append(pts, fmt.Sprintf("δ = %s at ε = %s", up(r.deltaAtEps), num(t.Epsilon)))
	return fmt.Sprintf("the certified curve is %s; it gives %s", r.curveName(), strings.Join(pts, ", and "))
}

// curveName describes the curve; one ε-DP part composed once is named as pure ε-DP.
func (r *release) curveName() string {
	if p, ok := r.in.Curve.(privacy.PureComposition); ok && p.K == 1 {
		return privacy.PureDP{Eps: p.Eps}.String()
	}
	return r.in.Curve.String()
}

// attackerText states the attacker's bounds and the baseline.
func (r *release) attackerText() string {
	test := "whether the model was trained with a given person's row or with another given row in its place"
	if r.relation == privacy.AddRemove {
		test = "whether a given person's row was in the training data"
	}
	var parts, base []string
	for i, b := range r.attacker() {
		rate := percent(b.FalsePositiveRate)
		if i == 0 {
			parts = append(parts, fmt.Sprintf("at a false-positive rate of %s, its true-positive rate is at most %s", rate, percent(b.TruePositiveRateBound)))
		} else {
			parts = append(parts, fmt.Sprintf("at %s, at most %s", rate, percent(b.TruePositiveRateBound)))
		}
		base = append(base, rate)
	}
	return fmt.Sprintf("consider an attacker who knows every other row and tests %s. %s (1 − T(α) for the curve's tradeoff function T). An attacker who guesses at random reaches a true-positive rate equal to the false-positive rate (%s)", test, capitalized(strings.Join(parts, "; ")), strings.Join(base, ", "))
}

// capitalized upper-cases the first letter of s, which is ASCII.
func capitalized(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
