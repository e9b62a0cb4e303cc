// Package fit turns what a person chooses on the page (a Spec: the loss, the parameter
// domain, the mechanism and its settings, the privacy budget) and the public facts of an
// encoded dataset (Facts: its size, dimension, declared norm bound and label) into the
// mech.Problem, privacy.Budget and mech.Mechanism of a private fit. The page and the engine both
// use it, so the problem the page plans is the problem the engine runs.
//
// Nothing here reads data: Facts holds the dimension, what the person declared in the schema
// (the norm bound, the label's kind, classes and range, a public number of rows) and the
// number of rows, which only replace-one treats as public: under add/remove the problem's
// size is the declared public N, and the observed number of rows is only checked against it.
package fit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// Exponent is the exponent p ∈ [1, ∞] of a norm. Its JSON form is a number, or "inf" for ∞
// (JSON has no infinity).
type Exponent float64

// MarshalJSON writes "inf" for +∞ and the number otherwise.
func (e Exponent) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(e), 1) {
		return []byte(`"inf"`), nil
	}
	return json.Marshal(float64(e))
}

// UnmarshalJSON reads a number or "inf".
func (e *Exponent) UnmarshalJSON(b []byte) error {
	if string(b) == `"inf"` {
		*e = Exponent(math.Inf(1))
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("fit: a norm's exponent is a number or \"inf\": %w", err)
	}
	*e = Exponent(v)
	return nil
}

// ParseExponent reads a norm's exponent as typed: a number ≥ 1, or "inf" (also "∞").
func ParseExponent(text string) (Exponent, error) {
	if text == "inf" || text == "∞" {
		return Exponent(math.Inf(1)), nil
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || !(v >= 1) || math.IsInf(v, 1) {
		return 0, fmt.Errorf("fit: a norm's exponent is a number ≥ 1 or \"inf\", not %q", text)
	}
	return Exponent(v), nil
}

// String writes the exponent as ParseExponent reads it.
func (e Exponent) String() string {
	if math.IsInf(float64(e), 1) {
		return "inf"
	}
	return strconv.FormatFloat(float64(e), 'g', -1, 64)
}

// Facts are the facts of an encoded training set that a plan may use: its size (public under
// replace-one only), its dimension and what its schema declares.
type Facts struct {
	// N is the number of training rows and D the number of features.
	N int `json:"n"`
	D int `json:"d"`
	// PublicN is the schema's declared public number of rows (data.Schema.PublicRows), 0 for
	// none: the size of the problem under add/remove unless the Spec declares one.
	PublicN int `json:"public_n,omitempty"`
	// P and Radius are the declared bound ‖x‖_P ≤ Radius of every row.
	P      Exponent `json:"p"`
	Radius float64  `json:"radius"`
	// Bias is the value of every row's last coordinate when the schema appends a bias
	// coordinate, 0 otherwise.
	Bias float64 `json:"bias,omitempty"`
	// Categorical lists the features that one-hot encode the schema's categorical columns
	// (data.Dataset.Categorical).
	Categorical []int `json:"categorical,omitempty"`
	// Scale is the rows' FitScale factor (data.Dataset.Scale), 0 under FitClip.
	Scale float64 `json:"scale,omitempty"`
	// Float32 says that the rows' values are held as float32, each rounded toward zero
	// (data.Options.Float32); Bias and Scale are then so rounded.
	Float32 bool `json:"float32,omitempty"`
	// Label is the kind of the label: binary, numeric or class.
	Label data.LabelKind `json:"label"`
	// Classes are the declared classes of a Class label.
	Classes []string `json:"classes,omitempty"`
	// LabelMin and LabelMax are the declared range of a Numeric label.
	LabelMin float64 `json:"label_min,omitempty"`
	LabelMax float64 `json:"label_max,omitempty"`
	// Scalable is the number of columns whose range a private scaling estimates (the numeric
	// columns the schema does not declare "scale": "declared", data.Schema.PrivatelyScaled),
	// and LabelScalable whether the label is one of them.
	Scalable      int  `json:"scalable,omitempty"`
	LabelScalable bool `json:"label_scalable,omitempty"`
	// RangedFeatures lists the numeric features whose column the schema gives a private
	// range, and ScalableFeatures those of the columns a private scaling ranges
	// (PrivatelyScaled): a range says where the values lie (see mech.Problem.Ranged).
	RangedFeatures   []int `json:"ranged_features,omitempty"`
	ScalableFeatures []int `json:"scalable_features,omitempty"`
}

// FactsOf returns the facts of a dataset encoded with schema s: its size and what the schema
// declared (Encode records the declared bound and label in the Dataset). It is an error for a
// dataset with no declared bound or label kind (one built by hand). A nil schema declares no
// column to scale privately.
func FactsOf(ds *data.Dataset, s *data.Schema) (Facts, error) {
	f := Facts{N: ds.N, D: ds.D, PublicN: ds.PublicRows, P: Exponent(ds.P), Radius: ds.Radius, Bias: ds.Bias, Categorical: slices.Clone(ds.Categorical), Scale: ds.Scale,
		Float32: ds.Float32}
	if s != nil {
		scalable := s.PrivatelyScaled()
		f.Scalable = len(scalable)
		f.LabelScalable = ds.Label.Kind == data.LabelNumeric && slices.Contains(scalable, ds.Label.Name)
		features := s.Features()
		for _, c := range s.Columns {
			j := slices.Index(features, c.Name)
			switch {
			case c.Kind != data.Numeric || j < 0:
			case c.Range != nil:
				f.RangedFeatures = append(f.RangedFeatures, j)
			case slices.Contains(scalable, c.Name):
				f.ScalableFeatures = append(f.ScalableFeatures, j)
			}
		}
	}
	f.Label = ds.Label.Kind
	switch ds.Label.Kind {
	case data.LabelBinary:
	case data.LabelNumeric:
		f.LabelMin, f.LabelMax = ds.Label.Min, ds.Label.Max
	case data.LabelClass:
		f.Classes = slices.Clone(ds.Label.Classes)
	default:
		return Facts{}, fmt.Errorf("fit: the dataset has no declared label kind")
	}
	if !(ds.Radius > 0) {
		return Facts{}, fmt.Errorf("fit: the dataset has no declared norm bound")
	}
	return f, nil
}

// losses lists the losses of each label kind (indexed by it), the first being the default.
// (An array, not a map: a map literal is code in the page's WebAssembly, an array of constants
// is data.)
var losses = [...][]string{
	data.LabelBinary:  {mech.LossLogistic, mech.LossHinge, mech.LossSmoothHinge},
	data.LabelNumeric: {mech.LossSquared, mech.LossHuber},
	data.LabelClass:   {mech.LossMultinomial},
}

// Losses lists the losses of a label kind, the first being the default; none for an unknown
// kind.
func Losses(k data.LabelKind) []string {
	if k < 0 || int(k) >= len(losses) {
		return nil
	}
	return losses[k]
}

// DefaultLoss returns the default loss of a label kind, the first of Losses (logistic for a
// binary label, squared for a numeric one, multinomial for classes), or "" for none.
func DefaultLoss(k data.LabelKind) string {
	if l := Losses(k); len(l) > 0 {
		return l[0]
	}
	return ""
}

// Domains of Spec.Domain.
const (
	// Whole is the whole space; Spec.Radius is then the declared comparison radius D of the
	// utility bound (the best model with ‖w‖₂ ≤ D).
	Whole = "whole"
	// Ball is the ℓ2 ball of radius Spec.Radius centred at the origin.
	Ball = "ball"
	// Box is the box [−Spec.Radius, Spec.Radius] in every coordinate.
	Box = "box"
)

// DefaultDomain is the default domain of a loss: Ball for the squared loss, whose gradient is
// bounded only on a bounded domain (with the default radius 10 it fits labels in [−1, 1],
// where private ranges put a numeric label), Whole for the others.
func DefaultDomain(loss string) string {
	if loss == mech.LossSquared {
		return Ball
	}
	return Whole
}

// Spec is a fit's configuration: everything the person chooses and nothing read from the
// data. It is what the page's shareable link encodes.
type Spec struct {
	// Loss is a name of Losses; LossParam is the width H of "smooth-hinge" and the threshold
	// of "huber" (ignored by the others).
	Loss      string  `json:"loss"`
	LossParam float64 `json:"loss_param,omitempty"`
	// Tilt t > 0 fits tilted ERM, (1/t)·log mean exp(t·ℓᵢ); 0 fits the mean.
	Tilt float64 `json:"tilt,omitempty"`
	// Robust ρ > 0 trains against perturbations of the features of ℓ_RobustNorm norm at most ρ
	// (adversarial training; margin losses only).
	Robust     float64  `json:"robust,omitempty"`
	RobustNorm Exponent `json:"robust_norm,omitempty"`
	// Domain is Whole, Ball or Box, and Radius its radius (see the constants).
	Domain string  `json:"domain"`
	Radius float64 `json:"radius"`
	// Mechanism is a name of mech.Names(); Options sets its exported fields by name, each
	// value written as strconv reads the field's type; an absent field keeps its default.
	Mechanism string            `json:"mechanism"`
	Options   map[string]string `json:"options,omitempty"`
	// Budget is the privacy target of each run and the neighbouring relation.
	Budget privacy.Budget `json:"budget"`
	// PublicN is the declared public number of rows N that add/remove needs (0: the schema's,
	// Facts.PublicN); replace-one ignores it.
	PublicN int `json:"public_n,omitempty"`
	// EvalShare s ∈ [0, 1) is the share of the budget spent on a private evaluation of each
	// model on held-out rows: the evaluation runs with s·(ε, δ), and the mechanism with
	// (1 − s)·δ and the largest ε that the exact composition of both allows within (ε, δ)
	// (at least (1 − s)·ε, which basic composition allows; see PlanWith). 0 asks for none.
	EvalShare float64 `json:"eval_share,omitempty"`
	// ScaleShare s ∈ [0, 1) is the share of the budget spent on private ranges of the numeric
	// columns (mech.PlanRanges): the ranges are estimated with s·(ε, δ) on the training rows,
	// each such column (and a numeric label) is clipped to its range and rescaled, and the
	// mechanism gets the largest ε the exact composition allows (see PlanWith). The ranges are
	// estimated once and shared by every model fitted with them. 0 asks for none.
	ScaleShare float64 `json:"scale_share,omitempty"`
}

// MaxPublicN is the largest declared public number of rows: a whole number that a float64 and
// an int hold exactly, far beyond any file, and small enough that the mechanisms' arithmetic in
// N (1/N, N·2⁻⁵³, N² …) stays meaningful.
const MaxPublicN = 1e15

// ProblemSize returns the number of rows N the spec's problem has on a dataset with these
// facts: the observed number under replace-one, where it is public; under add/remove, the
// declared public N (the spec's, else the schema's), which must be at least the observed
// number, since rows are never dropped.
func ProblemSize(s Spec, f Facts) (int, error) {
	if s.Budget.Neighbouring != privacy.AddRemove {
		return f.N, nil
	}
	n := s.PublicN
	if n == 0 {
		n = f.PublicN
	}
	switch {
	case n < 0 || n > MaxPublicN:
		return 0, fmt.Errorf("fit: the declared public number of rows must be from 1 to 10¹⁵, got %d", n)
	case n == 0:
		return 0, fmt.Errorf("fit: add/remove neighbours keep the number of rows private, so the mechanisms divide by a declared public number of rows N: declare one (at least the number of rows any dataset the guarantee must cover can have) with the schema's \"public_rows\", --public-n or the page's \"Public number of rows\"")
	case f.N > n:
		return 0, fmt.Errorf("fit: the data has %d rows, more than the declared public number of rows N = %d: declare a larger N (rows are never dropped)", f.N, n)
	}
	return n, nil
}

// Problem returns the mech.Problem of the spec on a dataset with these facts. It checks that
// the loss suits the label (a margin loss for a binary label, a regression loss for a
// numeric one, the multinomial loss for classes) and that the domain and radius are valid.
func Problem(s Spec, f Facts) (mech.Problem, error) {
	// Under add/remove a training set may have no rows (a split by content may hold out every
	// row): the mechanisms then fit on no rows, as refusing would tell that there are none.
	if f.N < 0 || f.N == 0 && s.Budget.Neighbouring != privacy.AddRemove || f.D < 1 {
		return mech.Problem{}, fmt.Errorf("fit: no data: %d rows of %d features", f.N, f.D)
	}
	n, err := ProblemSize(s, f)
	if err != nil {
		return mech.Problem{}, err
	}
	if !slices.Contains(Losses(f.Label), s.Loss) {
		return mech.Problem{}, fmt.Errorf("fit: the %s loss does not fit a %s label (use %s)", s.Loss, f.Label, strings.Join(Losses(f.Label), ", "))
	}
	ls := mech.LossSpec{Name: s.Loss, Tilt: s.Tilt}
	switch s.Loss {
	case mech.LossSmoothHinge, mech.LossHuber:
		if !(s.LossParam > 0) || math.IsInf(s.LossParam, 1) {
			what := "smoothing width"
			if s.Loss == mech.LossHuber {
				what = "threshold"
			}
			return mech.Problem{}, fmt.Errorf("fit: the %s loss needs its %s, a positive finite number (--param on the command line), got %g", s.Loss, what, s.LossParam)
		}
		ls.Param = s.LossParam
	case mech.LossMultinomial:
		ls.Classes = len(f.Classes)
	}
	if s.Robust != 0 {
		if !(s.Robust > 0) || math.IsInf(s.Robust, 1) || !(s.RobustNorm >= 1) {
			return mech.Problem{}, fmt.Errorf("fit: adversarial training needs a radius ρ > 0 and a norm ≥ 1, got ρ = %g in ℓ%v", s.Robust, s.RobustNorm)
		}
		ls.RobustRadius, ls.RobustNorm = s.Robust, float64(s.RobustNorm)
	}
	b := loss.Bounds{X: f.Radius, XNorm: float64(f.P), Y: math.Inf(1), Bias: f.Bias}
	if f.Label == data.LabelNumeric {
		lo, hi := LabelRange(s, f)
		b.Y = math.Max(math.Abs(lo), math.Abs(hi))
	}
	params := f.D
	if s.Loss == mech.LossMultinomial {
		params = len(f.Classes) * f.D
	}
	if !(s.Radius > 0) || math.IsInf(s.Radius, 1) {
		return mech.Problem{}, fmt.Errorf("fit: the radius must be positive and finite, got %g", s.Radius)
	}
	p := mech.Problem{Loss: ls, Dim: f.D, N: n, Bounds: b, Radius: s.Radius, Categorical: slices.Clone(f.Categorical), Scale: f.Scale,
		Ranged: slices.Clone(f.RangedFeatures)}
	if s.ScaleShare > 0 {
		p.Ranged = append(p.Ranged, f.ScalableFeatures...)
		slices.Sort(p.Ranged)
	}
	switch s.Domain {
	case Whole:
		p.Domain = geom.Whole{D: params}
	case Ball:
		ball, err := geom.NewBall(params, 2, s.Radius, nil)
		if err != nil {
			return mech.Problem{}, err
		}
		p.Domain = ball
	case Box:
		lo, hi := make([]float64, params), make([]float64, params)
		for i := range lo {
			lo[i], hi[i] = -s.Radius, s.Radius
		}
		box, err := geom.NewBox(lo, hi)
		if err != nil {
			return mech.Problem{}, err
		}
		p.Domain = box
		p.Radius = box.Radius(2) // the box's ℓ2 radius, R·√params
	default:
		return mech.Problem{}, fmt.Errorf("fit: unknown domain %q (%s, %s or %s)", s.Domain, Whole, Ball, Box)
	}
	if err := p.Validate(); err != nil {
		return mech.Problem{}, err
	}
	return p, nil
}

// Budget returns the spec's budget after checking it, less the private evaluation's share by
// basic composition ((1 − EvalShare)·(ε, δ)), with the neighbouring relation defaulting to
// replace-one; mechanismBudget also takes the private ranges' share when they are estimated.
// PlanWith gives the mechanism more ε when the exact composition allows it.
func Budget(s Spec) (privacy.Budget, error) {
	return shareOf(s, 1-s.EvalShare)
}

// mechanismBudget is the mechanism's budget by basic composition: (1 − EvalShare −
// ScaleShare)·(ε, δ) when the fit estimates private ranges, Budget otherwise.
func mechanismBudget(s Spec, f Facts) (privacy.Budget, error) {
	if ScalesPrivately(s, f) {
		return shareOf(s, 1-s.EvalShare-s.ScaleShare)
	}
	return Budget(s)
}

// EvaluationBudget returns the private evaluation's budget, EvalShare of the spec's; it is an
// error when the spec asks for no evaluation.
func EvaluationBudget(s Spec) (privacy.Budget, error) {
	if s.EvalShare == 0 {
		return privacy.Budget{}, errors.New("fit: the settings ask for no private evaluation (its share of the budget is 0)")
	}
	return shareOf(s, s.EvalShare)
}

// shareOf returns the part share of the spec's budget after checking it and the shares.
func shareOf(s Spec, share float64) (privacy.Budget, error) {
	b := s.Budget
	if b.Neighbouring == "" {
		b.Neighbouring = privacy.ReplaceOne
	}
	if err := mech.ValidateBudget(b); err != nil {
		return privacy.Budget{}, err
	}
	if !(s.EvalShare >= 0 && s.EvalShare < 1) {
		return privacy.Budget{}, fmt.Errorf("fit: the private evaluation's share of the budget must be in [0, 1), got %g", s.EvalShare)
	}
	if !(s.ScaleShare >= 0 && s.ScaleShare < 1) {
		return privacy.Budget{}, fmt.Errorf("fit: the private ranges' share of the budget must be in [0, 1), got %g", s.ScaleShare)
	}
	if !(s.EvalShare+s.ScaleShare < 1) {
		return privacy.Budget{}, fmt.Errorf("fit: the private evaluation's share (%g) and the private ranges' share (%g) leave nothing to the mechanism", s.EvalShare, s.ScaleShare)
	}
	b.Epsilon *= share
	b.Delta *= share
	if err := mech.ValidateBudget(b); err != nil {
		return privacy.Budget{}, err
	}
	return b, nil
}

// DefaultScaleShare is the default ScaleShare: the share of the budget spent on private ranges
// when the schema has numeric columns to scale. Composed exactly with noisy-gd's Gaussian
// noise, a fifth of ε costs the mechanism about 4 % of its μ² (2 % more noise) and halves the
// ranges' noise against a tenth. See docs/private-ranges.md.
const DefaultScaleShare = 0.2

// ScalesPrivately reports whether a fit with the spec on data with these facts estimates
// private ranges: the spec gives them a share of the budget, the schema leaves a column to
// scale, and their planned noise leaves a level (mech.RangesPlan.Level: at most n/16 rows, n
// the problem's public number of rows, observed under replace-one, the declared N under
// add/remove; noisier searches would clip arbitrary parts of the columns).
func ScalesPrivately(s Spec, f Facts) bool {
	if !(s.ScaleShare > 0) || f.Scalable < 1 {
		return false
	}
	p, err := planRanges(s, f)
	return err == nil && p.Level > 0
}

// plural returns "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// RangesSkipped says, in words, why a fit whose spec gives private ranges a share of the budget
// and whose schema has columns to scale estimates none (their noise is too large for the
// public number of rows); "" when it estimates them or was not asked to.
func RangesSkipped(s Spec, f Facts) string {
	if !(s.ScaleShare > 0) || f.Scalable < 1 || ScalesPrivately(s, f) {
		return ""
	}
	p, err := planRanges(s, f)
	if err != nil {
		return "private ranges not estimated: " + err.Error()
	}
	n, _ := ProblemSize(s, f)
	return fmt.Sprintf("private ranges not estimated: at this budget their noise (%.3g rows per count) is too large for %d row%s (at most %.3g); the columns keep their declared bounds and the share stays with the mechanism",
		p.NoiseSD(), n, plural(n), float64(n)/16)
}

// LabelRange returns the range of a numeric label as the mechanisms see it: [−1, 1] when the
// label may be scaled (Facts.LabelScalable; Scale maps its private range there, or its
// declared range when no private ranges are estimated), the declared range otherwise.
func LabelRange(s Spec, f Facts) (lo, hi float64) {
	if f.LabelScalable {
		return -1, 1
	}
	return f.LabelMin, f.LabelMax
}

// Ranges plans the spec's private ranges of the facts' Scalable columns with ScaleShare of
// the budget; it is an error when the fit estimates none (ScalesPrivately).
func Ranges(s Spec, f Facts) (*mech.RangesPlan, error) {
	if !ScalesPrivately(s, f) {
		return nil, errors.New("fit: the settings estimate no private ranges (no share of the budget, no numeric column to scale, or too few rows for their noise)")
	}
	return planRanges(s, f)
}

// planRanges plans the private ranges of the facts' Scalable columns with ScaleShare of the
// budget, for the problem's public number of rows.
func planRanges(s Spec, f Facts) (*mech.RangesPlan, error) {
	b, err := shareOf(s, s.ScaleShare)
	if err != nil {
		return nil, err
	}
	n, err := ProblemSize(s, f)
	if err != nil {
		return nil, err
	}
	return mech.PlanRanges(b, f.Scalable, n)
}

// Beside returns the guarantees of what the spec spends beside the mechanism: its private
// ranges (estimated once, shared by every model fitted with them) and one model's private
// evaluation, each nil when the spec asks for none. Neither depends on the data: the ranges'
// on the number of columns, the evaluation's not on the number of held-out rows (it is
// planned here with one).
func Beside(s Spec, f Facts) (ranges, evaluation privacy.Curve, err error) {
	if ScalesPrivately(s, f) {
		rp, err := Ranges(s, f)
		if err != nil {
			return nil, nil, err
		}
		ranges = rp.Guarantee()
	}
	if s.EvalShare > 0 {
		ev, err := Evaluation(s, f, mech.HeldOut{Rows: 1})
		if err != nil {
			return nil, nil, err
		}
		evaluation = ev.Guarantee()
	}
	return ranges, evaluation, nil
}

// Guarantee returns the guarantee of one model planned as pl with the spec and facts: its
// own, composed with its private ranges' and its private evaluation's when the spec spends a
// share of the budget on them (Together with one model).
func Guarantee(pl mech.Plan, s Spec, f Facts) (privacy.Curve, error) {
	return Together(pl, s, f, 1)
}

// Together returns the guarantee of releasing models models planned as pl with the spec and
// facts, each with its private evaluation when the spec asks for one, and the private ranges
// they share once: their exact composition when it is within models times the spec's budget
// (the usual case), else the tightest at each point (privacy.Tightest) of the exact one, of
// the mechanisms' exact composition with the ranges and evaluations as (ε, δ) points at their
// own shares of the budget, and, for several models, of the basic composition of one model
// with the ranges and each other with its evaluation at the spec's ε. The last two matter at
// large ε: the total-variation distance of a discrete Gaussian release from its ideal, folded
// into δ as (1 + e^ε)·τ, is budgeted at the part's own ε and can exceed δ when the exact
// composition folds it at the total ε.
func Together(pl mech.Plan, s Spec, f Facts, models int) (privacy.Curve, error) {
	ranges, evaluation, err := Beside(s, f)
	if err != nil {
		return nil, err
	}
	return together(pl.Guarantee(), s, ranges, evaluation, models)
}

// together is Together with the curves of one mechanism, of the ranges and of one evaluation
// (each nil for none) given.
func together(mechanism privacy.Curve, s Spec, ranges, evaluation privacy.Curve, models int) (privacy.Curve, error) {
	if models < 1 {
		return nil, fmt.Errorf("fit: %d models", models)
	}
	if models == 1 && ranges == nil && evaluation == nil {
		return mechanism, nil // as planned: Compose would round a lone μ up
	}
	// point is a part's guarantee at its share of the budget, as an (ε, δ) point.
	point := func(c privacy.Curve, share float64) (privacy.Curve, error) {
		b, err := shareOf(s, share)
		if err != nil {
			return nil, err
		}
		return privacy.ApproxDP{Eps: b.Epsilon, Del: c.Delta(b.Epsilon)}, nil
	}
	// exact composes every curve; hybrid the models' curves with the ranges and evaluations
	// as points at their shares.
	var exact, hybrid []privacy.Curve
	for range models {
		exact, hybrid = append(exact, mechanism), append(hybrid, mechanism)
		if evaluation != nil {
			p, err := point(evaluation, s.EvalShare)
			if err != nil {
				return nil, err
			}
			exact, hybrid = append(exact, evaluation), append(hybrid, p)
		}
	}
	if ranges != nil {
		p, err := point(ranges, s.ScaleShare)
		if err != nil {
			return nil, err
		}
		exact, hybrid = append(exact, ranges), append(hybrid, p)
	}
	c, err := privacy.Compose(exact...)
	k := float64(models)
	if err != nil || !slices.ContainsFunc(exact, hasSamplerError) || (privacy.Budget{Epsilon: k * s.Budget.Epsilon, Delta: k * s.Budget.Delta}).Meets(c) {
		return c, err // exact, and within k times the budget: the usual case
	}
	out := privacy.Tightest{c}
	if ranges != nil || evaluation != nil { // without them the hybrid is the exact composition
		h, err := privacy.Compose(hybrid...)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	if models == 1 {
		if ranges == nil && evaluation == nil {
			return out, nil
		}
		// basic: the model too as an (ε, δ) point at its share. The exact and hybrid
		// compositions fold a sampler's error into δ at the total ε, where e^ε multiplies it
		// (REM at ε = 20 and more with private ranges); the points compose within the budget
		// whenever each part meets its share, as the plans at the shares do.
		m, err := point(mechanism, 1-s.ScaleShare-s.EvalShare)
		if err != nil {
			return nil, err
		}
		b, err := privacy.Compose(append([]privacy.Curve{m}, hybrid[1:]...)...)
		if err != nil {
			return nil, err
		}
		return append(out, b), nil
	}
	// basic: the first model with the ranges, then each other model with its evaluation, as
	// (ε, δ) points at the spec's ε (the second part is at least as private as the first,
	// which meets the budget).
	one, err := together(mechanism, s, ranges, evaluation, 1)
	if err != nil {
		return nil, err
	}
	other, err := together(mechanism, s, nil, evaluation, 1)
	if err != nil {
		return nil, err
	}
	eps := s.Budget.Epsilon
	basic := []privacy.Curve{privacy.ApproxDP{Eps: eps, Del: one.Delta(eps)}}
	for range models - 1 {
		basic = append(basic, privacy.ApproxDP{Eps: eps, Del: other.Delta(eps)})
	}
	b, err := privacy.Compose(basic...)
	if err != nil {
		return nil, err
	}
	return append(out, b), nil
}

// hasSamplerError reports whether a guarantee folds a total-variation distance into δ.
func hasSamplerError(c privacy.Curve) bool {
	_, ok := c.(privacy.WithSamplerError)
	return ok
}

// Evaluation plans the private evaluation of the spec's models on held-out rows with public
// facts h (under replace-one their number of rows; the label's declared range is taken from
// the facts).
func Evaluation(s Spec, f Facts, h mech.HeldOut) (*mech.EvaluationPlan, error) {
	b, err := EvaluationBudget(s)
	if err != nil {
		return nil, err
	}
	p, err := Problem(s, f)
	if err != nil {
		return nil, err
	}
	h.Min, h.Max = LabelRange(s, f)
	if b.Neighbouring == privacy.AddRemove {
		h.Rows = 0 // private under add/remove
	}
	return mech.PlanEvaluation(p, b, h)
}

// Plan plans the spec's mechanism on a dataset with these facts.
func Plan(s Spec, f Facts) (mech.Plan, error) {
	return PlanWith(s.Mechanism, s.Options, s, f)
}

// PlanWith plans the named mechanism with the given options for the spec's problem and
// budget (the page compares every mechanism this way, each with its defaults).
func PlanWith(name string, options map[string]string, s Spec, f Facts) (mech.Plan, error) {
	m, err := Mechanism(name, options)
	if err != nil {
		return nil, err
	}
	p, err := Problem(s, f)
	if err != nil {
		return nil, err
	}
	b, err := mechanismBudget(s, f)
	if err != nil {
		return nil, err
	}
	pl, err := m.Plan(b, p)
	if err == nil && (s.EvalShare > 0 || ScalesPrivately(s, f)) {
		pl, err = planBeside(m, pl, b, s, f, p)
	}
	if err == nil {
		err = numbers(pl)
	}
	return pl, err
}

// numbers refuses a plan whose utility bound is NaN or one of whose parameters is not a finite
// number: a setting too extreme for the plan's arithmetic (a radius of 1e100, say), found
// before the data is read rather than when the release is written.
func numbers(pl mech.Plan) error {
	bad, v := "", 0.0
	for k, x := range pl.Parameters() {
		if (math.IsNaN(x) || math.IsInf(x, 0)) && (bad == "" || k < bad) {
			bad, v = k, x
		}
	}
	if u := pl.Utility().Bound; bad == "" && math.IsNaN(u) {
		bad, v = "utility bound", u
	}
	if bad != "" {
		return fmt.Errorf("fit: the plan's %s is %v: a setting is too extreme for its arithmetic (the radius, ε, δ, the number of rows or an option)", bad, v)
	}
	return nil
}

// splitSteps is the number of bisection steps that fix the mechanism's ε beside its shares (a
// relative precision of 2⁻²⁰ of the shares).
const splitSteps = 20

// planBeside returns the plan of m for the largest ε in [(1 − shares)·ε, ε], found by bisection,
// whose guarantee composed exactly with the private ranges' and evaluation's meets the spec's
// budget (ε, δ), with δ fixed at (1 − shares)·δ; first is the plan at (1 − shares)·ε, which
// basic composition already allows (Guarantee).
func planBeside(m mech.Mechanism, first mech.Plan, b privacy.Budget, s Spec, f Facts, p mech.Problem) (mech.Plan, error) {
	target := privacy.Budget{Epsilon: s.Budget.Epsilon, Delta: s.Budget.Delta}
	ranges, evaluation, err := Beside(s, f) // planned once: they do not depend on the mechanism's ε
	if err != nil {
		return nil, err
	}
	if c, err := together(first.Guarantee(), s, ranges, evaluation, 1); err != nil || !target.Meets(c) {
		return nil, fmt.Errorf("fit: internal error: the mechanism at (1 − shares)·ε and its shares do not compose within (ε = %g, δ = %g)", target.Epsilon, target.Delta)
	}
	// Beyond the basic split, only the exact composition can give the mechanism more ε.
	meets := func(pl mech.Plan) bool {
		parts := []privacy.Curve{pl.Guarantee()}
		for _, c := range []privacy.Curve{ranges, evaluation} {
			if c != nil {
				parts = append(parts, c)
			}
		}
		c, err := privacy.Compose(parts...)
		return err == nil && target.Meets(c)
	}
	best, lo, hi := first, b.Epsilon, s.Budget.Epsilon
	for range splitSteps {
		mid := lo + (hi-lo)/2
		c := b
		c.Epsilon = mid
		if pl, err := m.Plan(c, p); err == nil && meets(pl) {
			best, lo = pl, mid
		} else {
			hi = mid
		}
	}
	return best, nil
}
