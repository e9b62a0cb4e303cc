// Package statement derives a release's privacy statements from what is public about it — the
// schema, the settings, the public facts, the privacy curve of everything released together and
// the models' privacy reports — so that no statement is written by hand:
//
//   - a plain-language statement following NIST SP 800-226, "Guidelines for Evaluating
//     Differential Privacy Guarantees" (2025): privacy unit, neighbouring relation, ε and δ in
//     words, what is public, what the guarantee covers and what it does not;
//   - an entry in the schema of the Differential Privacy Deployments Registry (OpenDP), as YAML;
//   - the attacker's reading of the tradeoff curve: bounds on a membership attacker's
//     true-positive rate at false-positive rates of 1 %, 5 % and 10 %.
//
// Nothing here reads data. Under add/remove the number of rows stated is the declared public N
// (fit.ProblemSize), never Facts.N.
package statement

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// Input is what a statement is derived from: all public.
type Input struct {
	// Schema is the schema the training data was encoded with, as declared.
	Schema *data.Schema
	// Settings are the fit's settings; their budget is each model's target.
	Settings fit.Spec
	// Facts are the public facts the plans used. Under add/remove only the declared N is
	// stated (Settings.PublicN, else Facts.PublicN); Facts.N is never read there.
	Facts fit.Facts
	// Curve is the guarantee of everything released together (composed over the models).
	Curve privacy.Curve
	// Reports are the released models' privacy reports, one per model.
	Reports []privacy.Report
	// Ranges is the report of the private ranges the models were fitted with, when they are
	// released, and Evaluations the reports of the models' private evaluations: a release
	// claims privacy only when these are private too.
	Ranges      *privacy.Report
	Evaluations []privacy.Report
}

// Statements are a release's privacy statements in three formats.
type Statements struct {
	// Plain is the statement in words (NIST SP 800-226).
	Plain string `json:"plain"`
	// Registry is an entry of the DP Deployments Registry, as YAML.
	Registry string `json:"registry_yaml"`
	// Attacker bounds a membership attacker at the false-positive rates AttackerRates.
	Attacker []AttackerBound `json:"attacker"`
}

// AttackerBound says that no test of whether a person's row was used can reach a true-positive
// rate above TruePositiveRateBound at false-positive rate FalsePositiveRate: 1 − T(α) for the
// curve's tradeoff function T. It is 1 (no bound) when no privacy is claimed. Guessing at random
// reaches a true-positive rate equal to the false-positive rate.
type AttackerBound struct {
	FalsePositiveRate     float64 `json:"false_positive_rate"`
	TruePositiveRateBound float64 `json:"true_positive_rate_bound"`
}

// AttackerRates are the false-positive rates at which the attacker is bounded.
var AttackerRates = []float64{0.01, 0.05, 0.10}

// Of returns the statements of a release. It fails when the input is incomplete or
// inconsistent: no schema, curve or report, a schema with values read from the data and not
// confirmed, a report under another neighbouring relation than the settings', add/remove
// without a declared N, or a curve that does not meet the claimed budget.
func Of(in Input) (Statements, error) {
	r, err := newRelease(in)
	if err != nil {
		return Statements{}, err
	}
	reg, err := r.registry()
	if err != nil {
		return Statements{}, err
	}
	return Statements{Plain: r.plain(), Registry: reg, Attacker: r.attacker()}, nil
}

// release is what the statements say, derived once from the input.
type release struct {
	in       Input
	budget   privacy.Budget
	relation privacy.Neighbouring
	rows     int // n under replace-one, the declared N under add/remove: public either way
	count    int // the number of models released together
	// notPrivate lists why no privacy is claimed (empty when every report is private).
	notPrivate []string
	// pure is true when the claim is pure ε-DP; eps and delta are the claim for everything
	// released together.
	pure       bool
	eps, delta float64
	// epsAtDelta is the curve's ε at the target δ (when it is positive); deltaAtEps its δ at
	// the target ε.
	epsAtDelta, deltaAtEps float64
	// exactOnly lists the mechanisms whose reports say the guarantee holds in exact
	// arithmetic only.
	exactOnly []string
}

// newRelease checks the input and derives what the statements say.
func newRelease(in Input) (*release, error) {
	switch {
	case in.Schema == nil:
		return nil, errors.New("statement: no schema")
	case in.Curve == nil:
		return nil, errors.New("statement: no privacy curve")
	case len(in.Reports) == 0:
		return nil, errors.New("statement: no model report")
	case len(in.Schema.Unconfirmed()) > 0:
		return nil, fmt.Errorf("statement: the schema holds values read from the data and not confirmed (%s): they are not public", strings.Join(in.Schema.Unconfirmed(), "; "))
	}
	if _, err := fit.Budget(in.Settings); err != nil {
		return nil, err
	}
	// The claim is for the whole budget: the mechanism's share and the private evaluation's.
	b := in.Settings.Budget
	if b.Neighbouring == "" {
		b.Neighbouring = privacy.ReplaceOne
	}
	rows, err := fit.ProblemSize(in.Settings, in.Facts)
	if err != nil {
		return nil, err
	}
	r := &release{in: in, budget: privacy.Budget{Epsilon: b.Epsilon, Delta: b.Delta}, relation: b.Neighbouring, rows: rows, count: len(in.Reports)}
	for i, rep := range in.Reports {
		if rep.Neighbouring != r.relation {
			return nil, fmt.Errorf("statement: model %d's report is under the %s relation, the settings under %s", i+1, rep.Neighbouring, r.relation)
		}
		if !rep.Private {
			which := "this release's random numbers"
			if r.count > 1 {
				which = "the random numbers of model " + strconv.Itoa(i+1)
			}
			r.notPrivate = append(r.notPrivate, whyNotPrivate(which, rep))
		}
		if strings.Contains(rep.Statement, "exact arithmetic") && !slices.Contains(r.exactOnly, rep.Mechanism) {
			r.exactOnly = append(r.exactOnly, rep.Mechanism)
		}
	}
	if in.Ranges != nil && !in.Ranges.Private {
		r.notPrivate = append(r.notPrivate, whyNotPrivate("the private ranges' random numbers", *in.Ranges))
	}
	for _, rep := range in.Evaluations {
		if !rep.Private {
			r.notPrivate = append(r.notPrivate, whyNotPrivate("a private evaluation's random numbers", rep))
			break
		}
	}
	if err := r.claim(); err != nil {
		return nil, err
	}
	return r, nil
}

// whyNotPrivate says why a part of the release is not private; numbers names the part's random
// numbers ("this release's random numbers", "the private ranges' random numbers").
func whyNotPrivate(numbers string, rep privacy.Report) string {
	if rep.Randomness == privacy.SeededNotPrivate {
		return numbers + " came from a user-chosen seed, so anyone who knows or guesses the seed can reproduce the noise"
	}
	return fmt.Sprintf("the sampler of %s does not certify its mixing, so its guarantee holds for the exact distribution only", rep.Mechanism)
}

// claim fixes the claimed (ε, δ) of everything released together and the curve's points at
// the target. A pure ε-DP curve claims its ε (k·ε for k models). Otherwise a single model
// without a private evaluation or private ranges claims the budget its report certifies (a
// report is only made for a curve that meets it), and k models, or models with their
// evaluations or ranges, the curve's ε at the target δ, rounded up.
func (r *release) claim() error {
	c, t := r.in.Curve, r.budget
	r.deltaAtEps = c.Delta(t.Epsilon)
	if t.Delta > 0 {
		e, err := c.Epsilon(t.Delta)
		if err != nil {
			return fmt.Errorf("statement: %w", err)
		}
		r.epsAtDelta = e
	}
	pureEps := 0.0
	switch p := c.(type) {
	case privacy.PureDP:
		pureEps = p.Eps
	case privacy.PureComposition:
		pureEps = p.Total()
	case privacy.Mixed:
		if len(p.Mus)+len(p.RDPs)+len(p.Points) == 0 { // pure parts only: pure (Σεᵢ)-DP
			var epss []float64
			for _, q := range p.Pures {
				epss = append(epss, q.Total())
			}
			if sum, err := privacy.ComposePure(epss...); err == nil {
				pureEps = sum.Eps
			}
		}
	}
	switch {
	case pureEps > 0 && c.Delta(pureEps) == 0:
		r.pure, r.eps, r.delta = true, roundUp(pureEps, 6), 0
	case t.Delta == 0:
		return fmt.Errorf("statement: the budget asks for pure ε-DP, but the curve is %v", c)
	case r.count == 1 && r.in.Settings.EvalShare == 0 && !fit.ScalesPrivately(r.in.Settings, r.in.Facts):
		// The composed curve of one model may exceed the report's by a few ulps of its
		// parameter (composition rounds up); more than that is a curve of another release.
		rep := r.in.Reports[0]
		if rep.Target != t || rep.Achieved.Delta > t.Delta || r.deltaAtEps > t.Delta*(1+1e-9) {
			return fmt.Errorf("statement: %v gives δ = %.3g at ε = %g and the report certifies (ε = %g, δ = %.3g): above the target δ = %g", c, r.deltaAtEps, t.Epsilon, rep.Achieved.Epsilon, rep.Achieved.Delta, t.Delta)
		}
		r.eps, r.delta = t.Epsilon, t.Delta
	default:
		r.eps, r.delta = roundUp(r.epsAtDelta, 4), t.Delta
	}
	return nil
}

// private reports whether privacy is claimed.
func (r *release) private() bool { return len(r.notPrivate) == 0 }

// attacker returns the bounds at AttackerRates: 1 − T(α), or 1 when no privacy is claimed.
func (r *release) attacker() []AttackerBound {
	out := make([]AttackerBound, len(AttackerRates))
	for i, a := range AttackerRates {
		tpr := 1.0
		if r.private() {
			tpr = math.Min(1, math.Max(0, 1-r.in.Curve.Tradeoff(a)))
		}
		out[i] = AttackerBound{FalsePositiveRate: a, TruePositiveRateBound: tpr}
	}
	return out
}

// roundUp returns x > 0 rounded up to sig significant decimal digits, so that a stated bound is
// never below the computed one.
func roundUp(x float64, sig int) float64 {
	if !(x > 0) || math.IsInf(x, 1) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'e', sig-1, 64), 64)
	for v < x {
		unit := math.Pow(10, math.Floor(math.Log10(v))-float64(sig-1))
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v+unit, 'e', sig-1, 64), 64)
	}
	return v
}

// num writes a public number in full; up writes a bound rounded up to four significant digits.
func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
func up(x float64) string  { return strconv.FormatFloat(roundUp(x, 4), 'g', -1, 64) }

// percent writes a rate rounded up to three significant digits, as a percentage.
func percent(x float64) string {
	return strconv.FormatFloat(roundUp(100*x, 3), 'g', -1, 64) + " %"
}
