// Package mech holds privopt's private mechanisms, behind one interface: a Mechanism plans
// every parameter from a privacy.Budget and a Problem (public quantities only: never the data), and
// the Plan then runs on a dataset with a random source, a context and a progress callback,
// returning a Release: the model, its privacy report, local diagnostics and the theory's
// utility bound.
//
// The mechanisms follow the papers they cite (docs/references.md), with these corrections: the
// replace-one sensitivity of a mean of G-Lipschitz losses is 2G/n (not G/n); calibration uses
// the exact privacy curve (never a closed form that is not (ε, δ)-DP for large ε); and the
// Langevin mechanism is accounted by Gaussian composition (Ganesh, Thakurta and Upadhyay's Lemma 3.1 constant is
// off by a factor of about 2).
package mech

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/privopt/privopt/pkg/core/cost"
	"math"
	"slices"
	"time"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// MaxEpsilon is the largest ε a mechanism is planned for. Beyond it a guarantee says nothing
// about privacy (an attacker's odds may grow by e^ε), and the accounting's e^ε overflows.
const MaxEpsilon = 1e6

// ValidateBudget checks a budget for planning: privacy.Budget.Validate, and ε at most
// MaxEpsilon; δ = 0 asks for pure ε-DP.
func ValidateBudget(b privacy.Budget) error {
	if err := b.Validate(); err != nil {
		return err
	}
	if b.Epsilon > MaxEpsilon {
		return fmt.Errorf("mech: ε = %g is above %g: a guarantee with ε that large says nothing about privacy, and privopt does not plan for it", b.Epsilon, MaxEpsilon)
	}
	return nil
}

// Sensitivity returns the sensitivity, under b's relation, of a mean of per-example terms that are each
// G-Lipschitz (or have gradients of norm at most G), taken as their sum divided by the public
// number of rows N (Problem.N): replacing one example moves the sum by at most 2G, so the mean
// by 2G/N; adding or removing one moves it by at most G, so the mean by G/N, since the divisor
// is the declared N, never the observed number of rows.
func Sensitivity(b privacy.Budget, g float64, n int) float64 {
	if b.Relation() == privacy.AddRemove {
		return g / float64(n)
	}
	return 2 * g / float64(n)
}

// meanSensitivityDerivation states how Sensitivity was computed, for the report.
func meanSensitivityDerivation(b privacy.Budget, g float64, n int) string {
	return fmt.Sprintf("%s with G = %.6g", perExample(b, "G", n), g)
}

// perExample states the sensitivity of a sum of terms bounded by the quantity named bound,
// divided by the public number of rows n, under the budget's relation, for the reports.
func perExample(b privacy.Budget, bound string, n int) string {
	if b.Relation() == privacy.AddRemove {
		return fmt.Sprintf("%s/N with N = %d, the declared public number of rows (add or remove one example: sums are divided by N, never by the observed number of rows)", bound, n)
	}
	return fmt.Sprintf("2%s/n with n = %d (replace one example)", bound, n)
}

// rowsName is the name the reports give the public number of rows: n, the size, under
// replace-one; N, the declared size, under add/remove.
func rowsName(b privacy.Budget) string {
	if b.Relation() == privacy.AddRemove {
		return "N"
	}
	return "n"
}

// LossOver builds the problem's loss over a dataset b's relation admits, as the mechanisms
// build it: exactly N rows under replace-one (N is then the public number of rows), 1 to N
// rows under add/remove (N is then the declared public size); either way every mean divides
// by N.
func LossOver(b privacy.Budget, p Problem, ds *data.Dataset) (loss.Loss, error) {
	if b.Relation() != privacy.AddRemove {
		return p.NewLoss(ds)
	}
	if ds.D != p.Dim {
		return nil, fmt.Errorf("mech: the data has %d features, the problem %d", ds.D, p.Dim)
	}
	return p.buildLoss(ds) // its bounds declare Rows = N: more rows are refused
}

// LossSpec names a loss and its parameters.
type LossSpec struct {
	// Name is "logistic", "hinge", "smooth-hinge", "squared", "huber" or "multinomial".
	Name string `json:"name"`
	// Param is the smoothing width of "smooth-hinge" and the threshold of "huber".
	Param float64 `json:"param,omitempty"`
	// Classes is K for "multinomial".
	Classes int `json:"classes,omitempty"`
	// Tilt t > 0 fits tilted ERM (1/t)·log mean exp(t·ℓᵢ); 0 fits the plain mean.
	Tilt float64 `json:"tilt,omitempty"`
	// RobustRadius ρ > 0 trains against perturbations of the features in the ℓ_RobustNorm ball
	// of radius ρ (adversarial training, closed form for margin losses).
	RobustRadius float64 `json:"robust_radius,omitempty"`
	RobustNorm   float64 `json:"robust_norm,omitempty"`
}

// The losses of LossSpec.Name, as settings, schemas and release files spell them.
const (
	LossLogistic    = "logistic"
	LossHinge       = "hinge"
	LossSmoothHinge = "smooth-hinge"
	LossSquared     = "squared"
	LossHuber       = "huber"
	LossMultinomial = "multinomial"
)

// scalar returns the margin or prediction loss of a linear model.
func (s LossSpec) scalar() (loss.Scalar, error) {
	switch s.Name {
	case LossLogistic:
		return loss.Logistic{}, nil
	case LossHinge:
		return loss.Hinge{}, nil
	case LossSmoothHinge:
		return loss.SmoothHinge{H: s.Param}, nil
	case LossSquared:
		return loss.Squared{}, nil
	case LossHuber:
		return loss.Huber{Delta: s.Param}, nil
	}
	return nil, fmt.Errorf("mech: unknown loss %q (logistic, hinge, smooth-hinge, squared, huber, multinomial)", s.Name)
}

// Problem is everything public about a fit: the loss, the dimension, the number of examples,
// the declared bounds on the data, the parameter domain and a declared radius. It never holds
// data; two neighbouring datasets have the same Problem.
type Problem struct {
	Loss LossSpec `json:"loss"`
	// Dim is the number of features d (the model has d weights, or K·d for multinomial).
	Dim int `json:"dim"`
	// N is the public number of rows: under replace-one, the size of the dataset (which the
	// relation makes public); under add/remove, a declared size that no dataset exceeds (the
	// observed number of rows is private there). Every mean the mechanisms compute is a sum
	// over the rows divided by N.
	N int `json:"n"`
	// Bounds are the declared bounds on the rows and labels.
	Bounds loss.Bounds `json:"bounds"`
	// Domain is the parameter domain (geom.Whole for none).
	Domain geom.Domain `json:"-"`
	// Radius is a declared bound D on the distance from the centre (the origin) of the
	// parameters the utility bound compares with: the bound holds against the best model
	// with ‖w‖₂ ≤ D. A bounded domain gives it; on the whole space it must be declared.
	Radius float64 `json:"radius"`
	// Categorical lists, in increasing order, the features that one-hot encode a categorical
	// column (data.Dataset.Categorical; never the bias coordinate). It is public, like the
	// schema it comes from, and shapes no sensitivity: noisy-gd shrinks these weights (see
	// NoisyGD's "Categorical ridge").
	Categorical []int `json:"categorical,omitempty"`
	// Scale is the factor c of the rows' features under the norm fit "scale"
	// (data.Dataset.Scale: numeric features in [0, c]), 0 when the rows are fitted otherwise or
	// it is not known. Ranged lists, in increasing order, the numeric features whose column has
	// a private range, which places the values in [0, c] by where they lie rather than by the
	// declared bounds. Both are public, like the schema and the ranges; noisy-gd spreads the
	// ranged features symmetrically (see symmetricMap).
	Scale  float64 `json:"scale,omitempty"`
	Ranged []int   `json:"ranged,omitempty"`
}

// params returns the number of parameters (d, or K·d for the multinomial loss).
func (p Problem) params() int {
	if p.Loss.Name == LossMultinomial {
		return p.Loss.Classes * p.Dim
	}
	return p.Dim
}

// QueryWidth returns what one per-example query of the problem's loss reads, given rows, the
// width of its rows as loss.RowWidth measures them: rows itself for a linear-model loss, and
// every parameter for the multinomial loss (K dot products of dense rows) and the robust one
// (the norm of w), which never hold rows sparse. Like rows, it describes the data: it is for
// predicting run times locally, never for planning.
func (p Problem) QueryWidth(rows loss.Width) loss.Width {
	if p.Loss.Name == LossMultinomial || p.Loss.RobustRadius > 0 {
		return loss.Width{Entries: float64(p.params())}
	}
	return rows
}

// Validate checks the problem.
func (p Problem) Validate() error {
	switch {
	case p.Dim < 1:
		return fmt.Errorf("mech: the dimension must be at least 1, got %d", p.Dim)
	case p.N < 1:
		return fmt.Errorf("mech: the public number of rows must be at least 1, got %d", p.N)
	case p.Domain == nil:
		return fmt.Errorf("mech: no parameter domain")
	case p.Domain.Dim() != p.params():
		return fmt.Errorf("mech: the domain has dimension %d, the model %d", p.Domain.Dim(), p.params())
	case !(p.Radius > 0) || math.IsInf(p.Radius, 1):
		return fmt.Errorf("mech: the declared parameter radius must be finite and positive, got %g", p.Radius)
	case !(p.Bounds.X > 0) || math.IsInf(p.Bounds.X, 1):
		return fmt.Errorf("mech: the declared bound on the rows must be finite and positive, got %g", p.Bounds.X)
	case !(p.Scale >= 0) || math.IsInf(p.Scale, 1):
		return fmt.Errorf("mech: the rows' scale factor must be finite and at least 0, got %g", p.Scale)
	}
	for k, j := range p.Ranged {
		if j < 0 || j >= p.Dim || (k > 0 && j <= p.Ranged[k-1]) || slices.Contains(p.Categorical, j) {
			return fmt.Errorf("mech: the ranged features must be increasing indices of numeric features in [0, %d), got %v", p.Dim, p.Ranged)
		}
	}
	if p.Loss.Name == LossMultinomial && p.Loss.Classes < 2 {
		return fmt.Errorf("mech: the multinomial loss needs at least 2 classes, got %d", p.Loss.Classes)
	}
	if !(p.Loss.Tilt >= 0) || math.IsInf(p.Loss.Tilt, 1) {
		return fmt.Errorf("mech: the tilt must be finite and at least 0, got %g", p.Loss.Tilt)
	}
	features := p.Dim
	if p.Bounds.Bias > 0 {
		features-- // the bias coordinate is not a category
	}
	for k, j := range p.Categorical {
		if j < 0 || j >= features || (k > 0 && j <= p.Categorical[k-1]) {
			return fmt.Errorf("mech: the categorical features must be increasing indices of features in [0, %d), got %v", features, p.Categorical)
		}
	}
	return nil
}

// NewLoss builds the problem's loss over a dataset of exactly N rows, checking that the
// dataset matches the problem and respects the declared bounds (the loss constructors reject
// any row that does not).
func (p Problem) NewLoss(ds *data.Dataset) (loss.Loss, error) {
	if ds.D != p.Dim {
		return nil, fmt.Errorf("mech: the data has %d features, the problem %d", ds.D, p.Dim)
	}
	if ds.N != p.N {
		return nil, fmt.Errorf("mech: the data has %d rows, the problem %d", ds.N, p.N)
	}
	return p.buildLoss(ds)
}

// buildLoss builds the problem's loss over ds, of at most N rows, whose means divide by N.
func (p Problem) buildLoss(ds *data.Dataset) (loss.Loss, error) {
	b := p.Bounds
	b.Rows = p.N
	if p.Loss.Name == LossMultinomial {
		return loss.NewMultinomial(ds, p.Loss.Classes, b)
	}
	s, err := p.Loss.scalar()
	if err != nil {
		return nil, err
	}
	if p.Loss.RobustRadius > 0 {
		m, ok := s.(loss.Margin)
		if !ok {
			return nil, fmt.Errorf("mech: adversarial training needs a margin loss, not %q", p.Loss.Name)
		}
		return loss.NewRobust(m, p.Loss.RobustRadius, p.Loss.RobustNorm, ds, b)
	}
	return loss.NewLinear(s, ds, b)
}

// Constants returns the constants of the per-example losses on the domain in the norm of
// exponent norm, from the declared bounds only: the losses compute them from the bounds and
// the domain, so they are taken here from a loss over a single placeholder row at the origin
// (with a valid label), never from the data. A loss with no Lipschitz constant on the domain
// is refused with notLipschitz's message.
func (p Problem) Constants(norm float64) (loss.Constants, error) {
	label := 0.0 // a class index, or a regression target
	switch p.Loss.Name {
	case LossLogistic, LossHinge, LossSmoothHinge:
		label = 1
	}
	l, err := p.buildLoss(p.probeData(label))
	if err != nil {
		return loss.Constants{}, err
	}
	c, err := l.Constants(p.Domain, norm)
	if errors.Is(err, loss.ErrNotLipschitz) {
		return c, notLipschitz(p)
	}
	return c, err
}

// notLipschitz is the refusal of a loss that has no Lipschitz constant on the problem's domain
// (the squared loss on the whole space or without a label bound), which every mechanism
// gives: it says what to declare.
func notLipschitz(p Problem) error {
	return fmt.Errorf("mech: the %s loss needs a bounded parameter domain to bound its gradient: use --domain ball (on the page: Domain = ball) with a radius (the default 10 suits labels scaled to [−1, 1]), and a numeric label with a declared range", p.Loss.Name)
}

// probeData returns a dataset of one row with the given label, which the declared bounds admit
// (zero but for the declared bias), to build the problem's loss before any data is seen.
func (p Problem) probeData(label float64) *data.Dataset {
	x := make([]float64, p.Dim)
	if p.Dim > 0 {
		x[p.Dim-1] = p.Bounds.Bias
	}
	return &data.Dataset{N: 1, D: p.Dim, X: x, Y: []float64{label}}
}

// lipschitzConstants validates the budget and the problem and returns the losses' constants in
// ℓ2 on the domain, or an error when the losses are not Lipschitz there.
func lipschitzConstants(b privacy.Budget, p Problem) (loss.Constants, error) {
	if err := ValidateBudget(b); err != nil {
		return loss.Constants{}, err
	}
	if err := p.Validate(); err != nil {
		return loss.Constants{}, err
	}
	c, err := p.Constants(2)
	if err != nil {
		return loss.Constants{}, err
	}
	if math.IsInf(c.Lipschitz, 1) {
		return loss.Constants{}, notLipschitz(p)
	}
	return c, nil
}

// Progress is reported during a run.
type Progress struct {
	// Fraction of the run done, in [0, 1].
	Fraction float64 `json:"fraction"`
	// Stage names what is running, for example "sampling" or "solving".
	Stage string `json:"stage"`
}

// Utility is a mechanism's theoretical guarantee on the excess empirical risk:
// E[F_D(ŵ)] − min_{w ∈ C, ‖w‖ ≤ D} F_D(w) ≤ Bound, where F_D is the mean loss (the tilted or
// robust loss when the problem asks for one), the expectation is over the mechanism's
// randomness, and Statement says which theorem gives it and under which assumptions. A Bound
// of +Inf means that no bound is proven (the Statement says why); in JSON it is null.
type Utility struct {
	Bound     float64 `json:"bound"`
	Statement string  `json:"statement"`
}

// utilityJSON is Utility's JSON form: a bound that is not proven is null.
type utilityJSON struct {
	Bound     *float64 `json:"bound"`
	Statement string   `json:"statement"`
}

// MarshalJSON writes the bound, or null when none is proven.
func (u Utility) MarshalJSON() ([]byte, error) {
	j := utilityJSON{Statement: u.Statement}
	if !math.IsInf(u.Bound, 1) {
		j.Bound = &u.Bound
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (u *Utility) UnmarshalJSON(b []byte) error {
	var j utilityJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	u.Bound, u.Statement = math.Inf(1), j.Statement
	if j.Bound != nil {
		u.Bound = *j.Bound
	}
	return nil
}

// Proven reports whether a bound is proven.
func (u Utility) Proven() bool { return !math.IsInf(u.Bound, 1) }

// Mechanism is a private mechanism: it plans a run from public quantities alone.
type Mechanism interface {
	// Name is the mechanism's short name, as on the command line ("rem", "outpert", ...).
	Name() string
	// Paper names the paper (and result) the mechanism follows.
	Paper() string
	// Plan fixes every parameter from the budget and the problem, before any data is touched.
	Plan(b privacy.Budget, p Problem) (Plan, error)
}

// Plan is a run fixed in advance: its guarantee, its predicted cost and utility are known
// before the data is touched.
type Plan interface {
	// Guarantee is the certified privacy curve of the release, including a sampler's error.
	Guarantee() privacy.Curve
	// Utility is the theory's bound on the excess empirical risk.
	Utility() Utility
	// Cost is the predicted work.
	Cost() cost.Cost
	// Parameters lists the planned parameters by name, for reports and the page.
	Parameters() map[string]float64
	// Run runs the plan on a dataset that matches the problem.
	Run(ctx context.Context, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error)
}

// Model is a released model: the weights of a linear model (or K rows of weights for the
// multinomial loss) with the names of the features.
type Model struct {
	Loss     string    `json:"loss"`
	Features []string  `json:"features"`
	Classes  []string  `json:"classes,omitempty"`
	Weights  []float64 `json:"weights"`
}

// Diagnostics are local facts about a run, computed from the data: they are shown to the
// data's owner and never part of a release.
type Diagnostics struct {
	NotPrivate string `json:"not_private"`
	// TrainLoss is the mean loss over the rows at the released model (the plain mean: under
	// add/remove, the sum divided by the observed number of rows, not by the public N); 0 when
	// there are no rows (under add/remove a run may have none).
	TrainLoss float64 `json:"train_loss"`
	// TrainAccuracy is the training accuracy of a classifier (omitted for regression, and when
	// there are no rows).
	TrainAccuracy *float64 `json:"train_accuracy,omitempty"`
	// Seconds is the wall time of the run.
	Seconds float64 `json:"seconds"`
	// Details holds mechanism-specific counts (sampler steps, acceptance, clips, solver
	// iterations, the solver's achieved certificate, ...).
	Details map[string]float64 `json:"details,omitempty"`
}

// notPrivate is the label every Diagnostics carries.
const notPrivate = "local diagnostics computed from the data: not private, never part of a release"

// Release is the result of a run: the model and its privacy report (both private to publish),
// the theory's utility bound, and local diagnostics (not private).
type Release struct {
	Model       Model              `json:"model"`
	Report      privacy.Report     `json:"report"`
	Utility     Utility            `json:"utility"`
	Parameters  map[string]float64 `json:"parameters"`
	Diagnostics Diagnostics        `json:"diagnostics"`
}

// randomness says what the report must state about r.
func randomness(r *rng.Rand) privacy.Randomness {
	if r.Seeded() {
		return privacy.SeededNotPrivate
	}
	return privacy.OSSeeded
}

// newModel returns the model of a dataset's features with the given weights.
func newModel(p Problem, ds *data.Dataset, w []float64) Model {
	m := Model{Loss: p.Loss.Name, Features: append([]string(nil), ds.Features...), Weights: append([]float64(nil), w...)}
	if p.Loss.Name == LossMultinomial {
		m.Classes = append([]string(nil), ds.Label.Classes...)
	}
	return m
}

// diagnose computes the local diagnostics of a model on the training data.
func diagnose(l loss.Loss, p Problem, ds *data.Dataset, w []float64, start time.Time, details map[string]float64) Diagnostics {
	d := Diagnostics{NotPrivate: notPrivate, TrainLoss: l.Mean(nil, w), Seconds: time.Since(start).Seconds(), Details: details}
	if ds.N == 0 {
		return d
	}
	if ds.N != p.N { // l.Mean divides by N: rescale to the mean over the rows
		d.TrainLoss *= float64(p.N) / float64(ds.N)
	}
	if lin, ok := l.(*loss.Linear); ok && !regression(p.Loss.Name) {
		acc := lin.SignAccuracy(w) // Accuracy's value, by the loss's row kernels
		d.TrainAccuracy = &acc
	} else if acc, ok := Accuracy(p, ds, w); ok {
		d.TrainAccuracy = &acc
	}
	return d
}

// regression reports whether the loss named name is a regression loss (no accuracy).
func regression(name string) bool { return name == LossSquared || name == LossHuber }

// Accuracy returns the accuracy of a classifier on a dataset (the fraction of rows whose sign,
// or arg-max class, matches the label) and false for a regression loss or a dataset of no rows.
func Accuracy(p Problem, ds *data.Dataset, w []float64) (float64, bool) {
	switch {
	case regression(p.Loss.Name) || ds.N == 0:
		return 0, false
	case p.Loss.Name == LossMultinomial:
		k := p.Loss.Classes
		right := 0
		row := make([]float64, ds.D)
		for i := range ds.N {
			row = ds.Row(i, row)
			best, bestScore := 0, math.Inf(-1)
			for c := range k {
				s := 0.0
				for j, v := range row {
					s += w[c*ds.D+j] * v
				}
				if s > bestScore {
					best, bestScore = c, s
				}
			}
			if float64(best) == ds.Y[i] {
				right++
			}
		}
		return float64(right) / float64(ds.N), true
	}
	right := 0
	row := make([]float64, ds.D)
	for i := range ds.N {
		row = ds.Row(i, row)
		s := 0.0
		for j, v := range row {
			s += w[j] * v
		}
		if (s >= 0) == (ds.Y[i] > 0) {
			right++
		}
	}
	return float64(right) / float64(ds.N), true
}
