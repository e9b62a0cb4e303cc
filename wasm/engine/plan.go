package engine

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/plot"
)

// Plans answers "plan": every mechanism planned for the spec's problem and budget, each with
// its defaults except the chosen one, which has the spec's options; and the privacy curves
// of the chosen plan.
type Plans struct {
	// Mechanisms holds one summary per registered mechanism, in mech.Names order.
	Mechanisms []PlanSummary `json:"mechanisms"`
	// Curves are the chosen mechanism's curves, or nil when it does not plan.
	Curves *Curves `json:"curves,omitempty"`
}

// PlanSummary is what a plan predicts before any data is touched.
type PlanSummary struct {
	// Name and Paper identify the mechanism.
	Name  string `json:"name"`
	Paper string `json:"paper"`
	// Error says why the mechanism does not plan for this problem and budget (then nothing
	// else is set).
	Error string `json:"error,omitempty"`
	// Guarantee describes the certified curve; DeltaAtEps is its δ at the target ε.
	Guarantee  string `json:"guarantee,omitempty"`
	DeltaAtEps Number `json:"delta_at_eps"`
	// Utility is the theory's bound on the excess empirical risk.
	Utility      Number `json:"utility"`
	UtilityProof string `json:"utility_statement,omitempty"`
	// Queries (per-example loss values and gradients), Draws (Gaussian coordinates) and
	// Steps are the predicted work.
	Queries Number `json:"queries"`
	Draws   Number `json:"draws"`
	Steps   Number `json:"steps"`
	// PlanSeconds is how long planning the mechanism took in this worker: every run plans it
	// again before it touches the data, so the page counts it in a run's predicted time. It
	// is a local measurement, never part of a release.
	PlanSeconds Number `json:"plan_seconds"`
	// Parameters are the planned parameters, sorted by name.
	Parameters []Parameter `json:"parameters,omitempty"`
}

// Parameter is one planned parameter.
type Parameter struct {
	// Name is the parameter's name in Plan.Parameters, and Value its value.
	Name  string `json:"name"`
	Value Number `json:"value"`
}

// Curves samples the certified privacy curve δ(ε) of one run at Eps and its tradeoff function
// T(α) at Alpha, and with several runs those of their composition. A run's curve is its
// plan's, composed with its private evaluation's and its private ranges' when the spec spends
// a share of the budget on them (fit.Guarantee); the runs share one set of ranges, so their
// composition counts the ranges once.
type Curves struct {
	// Eps and Delta sample δ(ε) of one run; Alpha and Tradeoff its T(α).
	Eps      []float64 `json:"eps"`
	Delta    []float64 `json:"delta"`
	Alpha    []float64 `json:"alpha"`
	Tradeoff []float64 `json:"tradeoff"`
	// Found is 1 − T(AttackFPR) of one run: the largest share of the people in the data that
	// any test of membership can find while wrongly accusing at most AttackFPR of the others;
	// ComposedFound is the same for the runs together.
	Found         Number `json:"found"`
	ComposedFound Number `json:"composed_found,omitempty"`
	// Guarantee describes one run's curve.
	Guarantee string `json:"guarantee"`
	// Runs is the number of runs composed; with Runs > 1, Composed describes the
	// composition (privacy.Compose), ComposedDelta and ComposedTradeoff sample it, and
	// ComposedEps is its smallest ε at the target δ (its δ at the target ε when δ = 0 is
	// asked for is in ComposedDeltaAtEps).
	Runs               int       `json:"runs"`
	Composed           string    `json:"composed,omitempty"`
	ComposedDelta      []float64 `json:"composed_delta,omitempty"`
	ComposedTradeoff   []float64 `json:"composed_tradeoff,omitempty"`
	ComposedEps        Number    `json:"composed_eps"`
	ComposedDeltaAtEps Number    `json:"composed_delta_at_eps"`
}

// AttackFPR is the false-positive rate at which the page reads the tradeoff curve as an attack:
// 5 %, as in the release's statements.
const AttackFPR = 0.05

// CurvePoints is the number of points of each sampled curve.
const CurvePoints = 201

// MaxRuns is the most independent runs a plan composes.
const MaxRuns = 100

// plan plans every registered mechanism.
func plan(req Request) (Response, error) {
	if req.Spec == nil || req.Facts == nil {
		return Response{}, errors.New("engine: plan needs a spec and the data's facts")
	}
	runs := max(req.Runs, 1)
	if runs > MaxRuns {
		return Response{}, fmt.Errorf("engine: at most %d runs, got %d", MaxRuns, runs)
	}
	if !(req.EpsMax > 0) || math.IsInf(req.EpsMax, 1) {
		return Response{}, fmt.Errorf("engine: the curve's largest ε must be positive and finite, got %v", req.EpsMax)
	}
	spec, facts := *req.Spec, *req.Facts
	out := &Plans{}
	var chosen mech.Plan
	for _, name := range mech.Names() {
		var options map[string]string
		if name == spec.Mechanism {
			options = spec.Options
		}
		start := time.Now()
		pl, err := fit.PlanWith(name, options, spec, facts)
		sum := summarize(name, pl, err, spec.Budget.Epsilon)
		sum.PlanSeconds = Number(time.Since(start).Seconds())
		out.Mechanisms = append(out.Mechanisms, sum)
		if err == nil && name == spec.Mechanism {
			chosen = pl
		}
	}
	if chosen != nil {
		g, err := fit.Guarantee(chosen, spec, facts)
		if err != nil {
			return Response{}, err
		}
		all := g
		if runs > 1 {
			if all, err = fit.Together(chosen, spec, facts, runs); err != nil {
				return Response{}, err
			}
		}
		c, err := curves(g, all, runs, spec.Budget, req.EpsMax)
		if err != nil {
			return Response{}, err
		}
		out.Curves = c
	}
	return Response{Kind: "plans", Plans: out}, nil
}

// summarize describes a plan, or why there is none.
func summarize(name string, pl mech.Plan, err error, eps float64) PlanSummary {
	s := PlanSummary{Name: name}
	if m, e := mech.ByName(name); e == nil {
		s.Paper = m.Paper()
	}
	if err != nil {
		s.Error = err.Error()
		return s
	}
	g := pl.Guarantee()
	u, c := pl.Utility(), pl.Cost()
	s.Guarantee, s.DeltaAtEps = g.String(), Number(g.Delta(eps))
	s.Utility, s.UtilityProof = Number(u.Bound), u.Statement
	s.Queries, s.Draws, s.Steps = Number(c.Queries+c.Gradients), Number(c.Draws), Number(c.Steps)
	params := pl.Parameters()
	for _, k := range slices.Sorted(maps.Keys(params)) {
		s.Parameters = append(s.Parameters, Parameter{Name: k, Value: Number(params[k])})
	}
	return s
}

// curves samples the guarantee g of one run on ε ∈ [0, epsMax] and α ∈ [0, 1], and with
// several runs that of releasing them together, composed (fit.Together).
func curves(g, composed privacy.Curve, runs int, b privacy.Budget, epsMax float64) (*Curves, error) {
	c := &Curves{Guarantee: g.String(), Runs: runs}
	c.Eps, c.Alpha = plot.Grid(0, epsMax, CurvePoints), plot.Grid(0, 1, CurvePoints)
	c.Delta, c.Tradeoff = sample(g.Delta, c.Eps), privacy.Tradeoffs(g, c.Alpha)
	c.Found = Number(1 - g.Tradeoff(AttackFPR))
	if runs > 1 {
		c.Composed = composed.String()
		c.ComposedDelta, c.ComposedTradeoff = sample(composed.Delta, c.Eps), privacy.Tradeoffs(composed, c.Alpha)
		c.ComposedDeltaAtEps = Number(composed.Delta(b.Epsilon))
		c.ComposedFound = Number(1 - composed.Tradeoff(AttackFPR))
		c.ComposedEps = Number(math.Inf(1))
		if b.Delta > 0 {
			if e, err := composed.Epsilon(b.Delta); err == nil {
				c.ComposedEps = Number(e)
			}
		}
	}
	for _, s := range [][]float64{c.Delta, c.Tradeoff, c.ComposedDelta, c.ComposedTradeoff} {
		for _, v := range s {
			if !(v >= 0 && v <= 1) {
				return nil, fmt.Errorf("engine: the curve of %v has a value %v outside [0, 1]", g, v)
			}
		}
	}
	return c, nil
}

// sample evaluates f at xs.
func sample(f func(float64) float64, xs []float64) []float64 {
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = f(x)
	}
	return ys
}
