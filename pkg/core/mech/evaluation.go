package mech

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// A private evaluation releases how a model does on held-out rows, which are private data
// too: a classifier's confusion matrix, or a regression model's error sums, each a sum over
// the rows of per-row terms in [0, 1], with exact discrete noise on a grid (Gaussian for
// δ > 0, Laplace for pure ε) calibrated to the sum's sensitivity. Accuracy, mean absolute
// error, RMSE and R² are post-processing of the noisy sums.
//
// Sensitivity. Classifier: a row adds 1 to one cell (true class, predicted class) of the
// K×K matrix, so replacing a row moves 1 from one cell to another (ℓ2 √2, ℓ1 2) and adding or
// removing one changes one cell by 1 (ℓ2 1, ℓ1 1). Regression, with R = Max − Min and both the
// label and the prediction in [Min, Max]: a row adds q(|y − ŷ|/R), q(((y − ŷ)/R)²),
// q((y − Min)/R) and q(((y − Min)/R)²), where q rounds to a multiple of 2⁻²⁰ (the same map on
// both datasets), each in [0, 1]; replacing a row moves each of the 4 sums by at most 1 (ℓ2 2,
// ℓ1 4); under add/remove a fifth coordinate counts the rows (the number of held-out rows is
// private there), so ℓ2 √5 and ℓ1 5. The terms are multiples of 2⁻²⁰ (or integers) and their
// sums are computed exactly in float64 for up to 2³³ rows, so no rounding enters the sums.
//
// Under replace-one the number of held-out rows is public (the relation fixes it) and is the
// divisor of every mean; under add/remove the noisy count is.

// HeldOut states the public facts of a held-out set.
type HeldOut struct {
	// Rows is its number of rows: public under replace-one, where the evaluation divides by
	// it; ignored under add/remove, where the evaluation releases a noisy count instead.
	Rows int `json:"rows,omitempty"`
	// Min and Max are the declared range of a numeric label (regression).
	Min float64 `json:"label_min,omitempty"`
	Max float64 `json:"label_max,omitempty"`
	// Unit, when positive, is the label's units per unit of [Min, Max] (data.Label.Unit: a
	// label mapped from a private range to [−1, 1]); the mean absolute error and the RMSE are
	// stated in the label's units, multiplied by it (post-processing). 0 means 1.
	Unit float64 `json:"unit,omitempty"`
}

// evaluationQuantum is the spacing 2⁻²⁰ to which a regression row's terms are rounded.
const evaluationQuantum = 0x1p-20

// maxEvaluationRows bounds the held-out rows whose sums are exact in float64.
const maxEvaluationRows = 1 << 33

// EvaluationPlan is a planned private evaluation: the noise is calibrated from the problem
// (the model's loss, hence its prediction rule), the budget and the held-out set's public
// facts, before any held-out row is read.
type EvaluationPlan struct {
	problem Problem
	budget  privacy.Budget
	heldOut HeldOut
	classes int     // K for a classifier (2 for a binary label), 0 for regression
	l2, l1  float64 // the sums' sensitivities before the grid's rounding
	vectorNoise
}

// PlanEvaluation plans the private evaluation of models of problem p on a held-out set with
// public facts h, under budget b (the evaluation's own share of a release's budget).
func PlanEvaluation(p Problem, b privacy.Budget, h HeldOut) (*EvaluationPlan, error) {
	if err := ValidateBudget(b); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	e := &EvaluationPlan{problem: p, budget: b, heldOut: h}
	addRemove := b.Relation() == privacy.AddRemove
	if !addRemove && (h.Rows < 1 || h.Rows > maxEvaluationRows) {
		return nil, fmt.Errorf("mech: the held-out set must have between 1 and %d rows, got %d", maxEvaluationRows, h.Rows)
	}
	coords := 0
	switch {
	case regression(p.Loss.Name):
		if !(h.Min < h.Max) || math.IsInf(h.Max-h.Min, 0) || !(h.Unit >= 0) || math.IsInf(h.Unit, 1) {
			return nil, fmt.Errorf("mech: a regression model's evaluation needs the label's declared range and a finite unit ≥ 0, got [%g, %g] and %g", h.Min, h.Max, h.Unit)
		}
		coords, e.l2, e.l1 = 4, 2, 4
		if addRemove {
			coords, e.l2, e.l1 = 5, math.Sqrt(5), 5
		}
	default:
		e.classes = 2
		if p.Loss.Name == LossMultinomial {
			e.classes = p.Loss.Classes
		}
		coords, e.l2, e.l1 = e.classes*e.classes, math.Sqrt2, 2
		if addRemove {
			e.l2, e.l1 = 1, 1
		}
	}
	kind := noiseDiscreteLaplace
	if b.Delta > 0 {
		kind = noiseDiscreteGaussian
	}
	var err error
	if e.vectorNoise, err = newVectorNoise(kind, b, coords); err != nil {
		return nil, err
	}
	if err := e.calibrate(b, roundUp(e.l2), e.l1); err != nil {
		return nil, err
	}
	if !(privacy.Budget{Epsilon: b.Epsilon, Delta: b.Delta}).Meets(e.guarantee) {
		return nil, fmt.Errorf("mech: internal error: the evaluation's guarantee %v does not meet its budget", e.guarantee)
	}
	return e, nil
}

// Guarantee is the evaluation's privacy curve (discretisation included).
func (e *EvaluationPlan) Guarantee() privacy.Curve { return e.guarantee }

// Evaluation is a released private evaluation.
type Evaluation struct {
	// Sums are the released noisy sums: the K×K confusion matrix row by row (true class,
	// then predicted class), or the regression sums Σq(|e|/R), Σq((e/R)²), Σq((y − Min)/R),
	// Σq(((y − Min)/R)²); under add/remove the noisy number of rows last.
	Sums []float64 `json:"sums"`
	// Confusion is Sums as a K×K matrix (classifiers).
	Confusion [][]float64 `json:"confusion,omitempty"`
	// Rows is the divisor of the means: the public number of held-out rows (replace-one) or
	// the noisy count (add/remove).
	Rows float64 `json:"rows"`
	// Accuracy (classifiers), MAE, RMSE and R2 (regression) are computed from the sums.
	Accuracy *Estimate `json:"accuracy,omitempty"`
	MAE      *Estimate `json:"mae,omitempty"`
	RMSE     *Estimate `json:"rmse,omitempty"`
	R2       *Estimate `json:"r2,omitempty"`
	// NoiseSD is the standard deviation of the noise on each sum (at most; in the sums' units).
	NoiseSD float64 `json:"noise_sd"`
	// Report states the evaluation's own guarantee.
	Report privacy.Report `json:"report"`
	// Statement says in words what was released and how to read it.
	Statement string `json:"statement"`
}

// Estimate is a statistic computed from the noisy sums, with a 95 % interval for the noise
// alone (the 2.5 and 97.5 percentiles of the statistic recomputed with 2,000 independent
// draws of the noise's continuous counterpart subtracted from the released sums): it does not
// include the sampling error of the held-out rows.
type Estimate struct {
	Value float64 `json:"value"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}

// Run evaluates the model's weights w on the held-out rows ds and releases the noisy sums.
// The rows must have the problem's features; under replace-one their number must be the
// planned one.
func (e *EvaluationPlan) Run(ds *data.Dataset, w []float64, r *rng.Rand) (*Evaluation, error) {
	p := e.problem
	switch {
	case ds.D != p.Dim:
		return nil, fmt.Errorf("mech: the held-out rows have %d features, the model %d", ds.D, p.Dim)
	case len(w) != p.params():
		return nil, fmt.Errorf("mech: the model has %d weights, want %d", len(w), p.params())
	case e.budget.Relation() == privacy.ReplaceOne && ds.N != e.heldOut.Rows:
		return nil, fmt.Errorf("mech: the held-out set has %d rows, the evaluation was planned for %d", ds.N, e.heldOut.Rows)
	case ds.N > maxEvaluationRows:
		return nil, fmt.Errorf("mech: the held-out set has %d rows, more than %d", ds.N, maxEvaluationRows)
	}
	sums, err := e.sums(ds, w)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(sums))
	in := releasing(sums)
	grid, err := e.add(r, out, sums)
	if err != nil {
		return nil, err
	}
	released("private evaluation", in, out, e.l2, grid)
	rep, err := privacy.NewReport(e.base, privacy.ReportSpec{
		Mechanism:    "private evaluation (" + e.noiseName() + ")",
		Paper:        "the Gaussian and Laplace mechanisms on sums of bounded terms; Canonne, Kamath and Steinke 2020 for the discrete noise",
		Target:       privacy.Budget{Epsilon: e.budget.Epsilon, Delta: e.budget.Delta},
		Neighbouring: e.budget.Relation(),
		Sensitivity:  privacy.Sensitivity{Value: e.gridSens, Of: e.sensitivityOf(), Derivation: e.sensitivityDerivation()},
		Sampler:      e.sampler(),
		Randomness:   randomness(r),
	})
	if err != nil {
		return nil, err
	}
	ev := &Evaluation{Sums: out, NoiseSD: e.noiseSD(), Report: rep}
	e.derive(ev)
	return ev, nil
}

// sums computes the exact sums of the per-row terms.
func (e *EvaluationPlan) sums(ds *data.Dataset, w []float64) ([]float64, error) {
	p := e.problem
	out := make([]float64, e.coords)
	x := make([]float64, ds.D)
	for i := range ds.N {
		x = ds.Row(i, x)
		y := ds.Y[i]
		if math.IsNaN(y) {
			return nil, errors.New("mech: a held-out row has no label")
		}
		if e.classes == 0 {
			lo, hi := e.heldOut.Min, e.heldOut.Max
			if y < lo || y > hi {
				return nil, fmt.Errorf("mech: a held-out label %g is outside the declared range [%g, %g]", y, lo, hi)
			}
			span := hi - lo
			pred := min(max(dot(w, x), lo), hi)
			a, c := math.Abs(y-pred)/span, (y-lo)/span
			for k, t := range [4]float64{a, a * a, c, c * c} {
				out[k] += quantize(t)
			}
			if e.coords == 5 {
				out[4]++
			}
			continue
		}
		truth, pred := 0, 0
		if e.classes == 2 && p.Loss.Name != LossMultinomial {
			if y > 0 {
				truth = 1
			}
			if dot(w, x) >= 0 {
				pred = 1
			}
		} else {
			truth, pred = int(y), argmaxScore(w, x, e.classes)
			if y != float64(truth) || truth < 0 || truth >= e.classes {
				return nil, fmt.Errorf("mech: a held-out label %g is not a class index", y)
			}
		}
		out[truth*e.classes+pred]++
	}
	return out, nil
}

// quantize rounds t ∈ [0, 1] to a multiple of evaluationQuantum, within [0, 1].
func quantize(t float64) float64 {
	return min(max(math.Round(t/evaluationQuantum)*evaluationQuantum, 0), 1)
}

func dot(w, x []float64) float64 {
	var s float64
	for j, v := range x {
		s += w[j] * v
	}
	return s
}

// argmaxScore returns the class of the largest score w_c·x (the first on ties).
func argmaxScore(w, x []float64, classes int) int {
	d, best, bestScore := len(x), 0, math.Inf(-1)
	for c := range classes {
		if s := dot(w[c*d:(c+1)*d], x); s > bestScore {
			best, bestScore = c, s
		}
	}
	return best
}

// sensitivityOf says what the report's sensitivity bounds.
func (e *EvaluationPlan) sensitivityOf() string {
	what := "the confusion matrix"
	if e.classes == 0 {
		what = "the regression error sums"
	}
	return fmt.Sprintf("the %s distance between %s of neighbouring held-out sets", e.sensitivityNorm(), what)
}

// sensitivityDerivation says how the sensitivity follows from the per-row terms.
func (e *EvaluationPlan) sensitivityDerivation() string {
	s := "a row adds 1 to one cell of the confusion matrix, so replacing one moves 1 between two cells (ℓ2 √2, ℓ1 2) and adding or removing one changes one cell by 1"
	if e.classes == 0 {
		s = "a row adds four terms in [0, 1] (its absolute and squared errors and its label's offset and square, scaled by the label's declared range and rounded to 2⁻²⁰), so replacing one moves each sum by at most 1 (ℓ2 2, ℓ1 4); under add/remove a fifth sum counts the rows (ℓ2 √5, ℓ1 5)"
	}
	return s + fmt.Sprintf("; plus the grid's rounding with g = 2^%d", int(math.Round(math.Log2(e.grid.Spacing()))))
}

// noiseDraw draws the noise's continuous counterpart (Gaussian of standard deviation σ, or
// Laplace of scale b), which the intervals use: the discrete noise on a fine grid has the same
// law up to the grid's spacing.
func (e *EvaluationPlan) noiseDraw(r *rng.Rand) float64 {
	if e.noise == noiseDiscreteGaussian {
		return e.scale * r.Normal()
	}
	v, _ := r.Laplace(e.scale) // the scale is positive and finite
	return v
}

// bootstrapDraws is the number of noise draws behind an Estimate's interval.
const bootstrapDraws = 2000

// derive computes the statistics of ev from its sums, with their intervals: the statistic
// recomputed on the sums less fresh draws of the noise (post-processing: the draws come from
// a fixed seed and never touch the data).
func (e *EvaluationPlan) derive(ev *Evaluation) {
	rows := float64(e.heldOut.Rows)
	if e.budget.Relation() == privacy.AddRemove {
		rows = ev.Sums[len(ev.Sums)-1]
		if e.classes > 0 {
			rows = 0
			for _, v := range ev.Sums {
				rows += v
			}
		}
	}
	ev.Rows = rows
	stats := e.statistics
	value := stats(ev.Sums)
	draws := make([][]float64, len(value))
	r := rng.Seeded(1)
	shifted := make([]float64, len(ev.Sums))
	for range bootstrapDraws {
		for k, v := range ev.Sums {
			shifted[k] = v - e.noiseDraw(r)
		}
		for k, s := range stats(shifted) {
			draws[k] = append(draws[k], s)
		}
	}
	est := make([]*Estimate, len(value))
	for k, v := range value {
		finite := slices.DeleteFunc(draws[k], math.IsNaN)
		if math.IsNaN(v) || len(finite) < bootstrapDraws/2 {
			continue // R² when the noisy sums leave no spread of the labels: not stated
		}
		slices.Sort(finite)
		m := len(finite)
		est[k] = &Estimate{Value: v, Low: finite[m*25/1000], High: finite[m*975/1000-1]}
	}
	if e.classes > 0 {
		ev.Accuracy = est[0]
		ev.Confusion = make([][]float64, e.classes)
		for c := range ev.Confusion {
			ev.Confusion[c] = ev.Sums[c*e.classes : (c+1)*e.classes]
		}
		ev.Statement = fmt.Sprintf("Accuracy %.4f (95 %% interval for the noise %.4f to %.4f) on the held-out rows, from a noisy confusion matrix (noise standard deviation %.3g per cell).", est[0].Value, est[0].Low, est[0].High, ev.NoiseSD)
	} else {
		ev.MAE, ev.RMSE, ev.R2 = est[0], est[1], est[2]
		r2 := "R² not stated (the noisy sums leave no spread of the labels)"
		if est[2] != nil {
			r2 = fmt.Sprintf("R² %.4f (%.4f to %.4f)", est[2].Value, est[2].Low, est[2].High)
		}
		ev.Statement = fmt.Sprintf("Mean absolute error %.4g (95 %% interval for the noise %.4g to %.4g), RMSE %.4g, %s on the held-out rows, from noisy sums (noise standard deviation %.3g per sum, in units of the label's range).", est[0].Value, est[0].Low, est[0].High, est[1].Value, r2, ev.NoiseSD)
	}
	ev.Statement += " " + fmt.Sprintf("The interval covers the noise only, not the sampling error of %s held-out rows.", e.rowsText(rows))
}

// rowsText states the number of held-out rows: the public one under replace-one, the noisy
// count rows under add/remove.
func (e *EvaluationPlan) rowsText(rows float64) string {
	if e.budget.Relation() == privacy.AddRemove {
		return fmt.Sprintf("about %.0f (a noisy count)", rows)
	}
	return fmt.Sprint(e.heldOut.Rows)
}

// statistics computes, from sums, the accuracy (classifiers) or the MAE, RMSE and R²
// (regression); a divisor below 1 is taken as 1.
func (e *EvaluationPlan) statistics(sums []float64) []float64 {
	n := float64(e.heldOut.Rows)
	if e.classes > 0 {
		var trace, total float64
		for c := range e.classes {
			trace += sums[c*e.classes+c]
		}
		for _, v := range sums {
			total += v
		}
		if e.budget.Relation() == privacy.AddRemove {
			n = total
		}
		return []float64{min(max(trace/max(n, 1), 0), 1)}
	}
	if e.budget.Relation() == privacy.AddRemove {
		n = sums[4]
	}
	n = max(n, 1)
	span := e.heldOut.Max - e.heldOut.Min
	if e.heldOut.Unit > 0 {
		span *= e.heldOut.Unit
	}
	a, b, c, q := max(sums[0], 0), max(sums[1], 0), sums[2], sums[3]
	sst := q - c*c/n
	r2 := math.NaN()
	if sst > 0 {
		r2 = 1 - b/sst
	}
	return []float64{span * a / n, span * math.Sqrt(b/n), r2}
}
