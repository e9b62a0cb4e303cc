package mech

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/privopt/privopt/pkg/core/cost"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/rng"
)

// maxFloorIterations caps the solver that finds the exponential mechanism's floor: the floor
// only sets the acceptance rate, never the law, so stopping early costs time, not privacy.
const maxFloorIterations = 20000

// ExpMech is the exponential mechanism for convex empirical risk minimization (Bassily, Smith
// and Thakurta 2014, Theorem 3.1; Ganesh, Thakurta and Upadhyay, Theorem 2.1 with
// ψ = 0): it releases one exact sample of
//
//	π_D(w) ∝ exp(−β·F_D(w)) on a bounded convex domain C (a box or an ℓp ball),
//
// where F_D is the mean of the per-example losses.
//
// Guarantee: pure ε-DP with β = ε/s, s = 2R/n under replace-one (R/n under add/remove), where
// R bounds the range over C of any one example's loss (see exampleRange: at most G·D with G the
// ℓ2 Lipschitz constant on C and D the ℓ2 diameter of C, so β ≥ εn/(2GD), the paper's value;
// for the logistic loss R = Z, the bound on |⟨w, x⟩|, about half of G·D). Reason: F_D − F_D′ =
// (ℓ(·; z) − ℓ(·; z′))/n takes its values in an interval of length at most s on C, so
// π_D(w)/π_D′(w) = exp(−β(F_D − F_D′)(w))·E_{π_D}[exp(β(F_D − F_D′))] ≤ exp(βs) = e^ε. This
// needs only bounded losses; convexity is for the utility. The replace-one factor 2 is the
// one Ganesh, Thakurta and Upadhyay uses in Theorem 2.1 (its Δ = L/n elsewhere is the add/remove value).
//
// Sampler: exact rejection from uniform proposals on C (sampleGibbs), with a floor below
// min_C F_D certified by a solver (minimizeMean), so the release has exactly the law π_D (in
// real arithmetic; the float64 rounding of F_D, relative about n·2⁻⁵³, is not accounted). The
// expected number of proposals is 1/E_{uniform}[exp(−β(F_D − floor))], at most
// exp(β(R + gap)) for every dataset and, on a box for a β_s-smooth loss whose minimizer over
// the box is a stationary point, at most e^{β·gap}·Π_i w_i/(√(π/(4a))·erf(w_i√a)), a = β·β_s/2,
// w_i the box's widths: like (c·εn/d)^{d/2} or worse, exponentially large in the dimension, so
// the mechanism is practical only for small d or small εn. The plan states the logarithms of
// both, and Cost uses the second when it applies. The run is never capped (a cap would break
// pure DP): it stops when a proposal is accepted or when ctx is cancelled, releasing nothing.
// Its running time depends on the data and is not part of the release.
//
// Utility: E F_D(ŵ) − min_C F_D ≤ d/β (Ganesh, Thakurta and Upadhyay, Theorem 2.4; BST14, Theorem 3.2: the Gibbs
// measure of a convex function on a convex set in R^d), exactly, since the sampler is exact.

// ExpMech releases one exact sample of the exponential mechanism π_D(w) ∝ exp(−β·F_D(w)) on a
// bounded convex domain (a box or an ℓp ball), F_D the mean loss.
// Guarantee: pure ε-DP under either relation, with β = ε/s for the range s of one example's
// effect on F_D; the sample is drawn by rejection from data-independent proposals, so its bits
// carry nothing beyond the accept decisions (floating-point safe in Mironov's sense), and it has
// the law π_D up to the float64 rounding of the decisions (of F_D, relative about n·2⁻⁵³, and of
// the exponential's tables), which the guarantee does not account. Utility:
// E F_D(ŵ) − min_C F_D ≤ d/β. It has no settings; its cost grows as e^(β·range), so it suits
// small dimensions and domains. The method and its proof are in the comment block above.
type ExpMech struct{}

// Name returns "expmech".
func (ExpMech) Name() string { return "expmech" }

// Paper names the source.
func (ExpMech) Paper() string {
	return "Bassily, Smith and Thakurta 2014 (Theorems 3.1, 3.2); Ganesh, Thakurta and Upadhyay, DP Sampling from Rashomon Sets (Theorems 2.1 and 2.4 with ψ = 0)"
}

// Plan fixes β, the solver's iterations and the predicted cost from public quantities.
func (m ExpMech) Plan(b privacy.Budget, p Problem) (Plan, error) {
	return planGibbs(m.Name(), m.Paper(), b, p, 0, 0)
}

// gibbsPlan is a planned run of an exact Gibbs sampler: the exponential mechanism (ψ = 0) or
// the pure-ε Rashomon-set sampler (ψ > 0).
type gibbsPlan struct {
	name, paper string
	budget      privacy.Budget
	problem     Problem
	dom         *boundedDomain
	dim         int
	g, smooth   float64 // G and β of the losses in ℓ2 on C
	rangeBound  float64 // R: the range of one example's loss on C
	scoreSens   float64 // s = 2R/n (R/n under add/remove)
	psi, eta    float64 // the Rashomon threshold and the threshold's certified solver error
	beta        float64
	solverIters int
	solverGap   float64
	utility     Utility
	// logProposals is the natural logarithm of the bound on the expected number of proposals
	// for every dataset, β·max(0, R + gap − ψ), assuming the solver reaches its gap.
	logProposals float64
	// logProposalsInterior is the same bound when the minimizer of F_D over a box is a
	// stationary point (an assumption on the data, so a prediction): it uses the loss's
	// smoothness instead of its range. NaN when it does not apply (a ball, a non-smooth loss).
	logProposalsInterior float64
}

// planGibbs plans an exact Gibbs sampler at threshold psi ≥ 0. With psi > 0 the threshold
// F* + ψ is computed to within eta = share·s/2 by a solver with an a-priori bound, and β
// accounts for it: β = ε/(s + 2η).
func planGibbs(name, paper string, b privacy.Budget, p Problem, psi, share float64) (*gibbsPlan, error) {
	if err := ValidateBudget(b); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Loss.Tilt != 0 {
		return nil, fmt.Errorf("mech: %s needs a mean of per-example losses; tilted ERM is supported by output perturbation", name)
	}
	if !(psi >= 0) || math.IsInf(psi, 1) {
		return nil, fmt.Errorf("mech: the Rashomon threshold ψ must be finite and at least 0, got %g", psi)
	}
	dom, err := newBoundedDomain(p.Domain)
	if err != nil {
		return nil, err
	}
	c, err := p.Constants(2)
	if err != nil {
		return nil, err
	}
	if math.IsInf(c.Lipschitz, 1) {
		return nil, notLipschitz(p)
	}
	pl := &gibbsPlan{name: name, paper: paper, budget: b, problem: p, dom: dom, dim: p.params(), g: c.Lipschitz, smooth: c.Smoothness, psi: psi}
	pl.rangeBound = exampleRange(p, pl.g, dom.diam)
	pl.scoreSens = Sensitivity(b, pl.rangeBound, p.N)
	if psi > 0 {
		if math.IsInf(pl.smooth, 1) {
			return nil, fmt.Errorf("mech: the pure-ε Rashomon sampler needs a smooth loss (its threshold needs a solver with an a-priori bound), not %q", p.Loss.Name)
		}
		if !(share > 0 && share < 1) {
			return nil, fmt.Errorf("mech: the threshold's share of the sensitivity must be in (0, 1), got %g", share)
		}
		pl.eta = share * pl.scoreSens / 2
	}
	pl.beta = b.Epsilon / (pl.scoreSens + 2*pl.eta)
	for pl.beta*(pl.scoreSens+2*pl.eta) > b.Epsilon {
		pl.beta = math.Nextafter(pl.beta, 0)
	}
	if !(pl.beta > 0) || math.IsInf(pl.beta, 1) {
		return nil, fmt.Errorf("mech: the inverse temperature %g is not finite and positive", pl.beta)
	}
	d := float64(pl.dim)
	if psi > 0 {
		pl.solverGap = pl.eta
		if pl.solverIters, err = fistaIterations(pl.smooth, dom.diam, pl.eta); err != nil {
			return nil, err
		}
	} else {
		// The floor's gap costs a factor exp(β·gap) in acceptance: aim at gap = 1/β.
		pl.solverGap = 1 / pl.beta
		k := math.Ceil(pl.g * dom.diam * pl.beta * pl.g * dom.diam * pl.beta) // subgradient: GD/√K ≤ 1/β
		if !math.IsInf(pl.smooth, 1) {
			k = math.Ceil(dom.diam*math.Sqrt(2*pl.smooth*pl.beta)) - 1
		}
		pl.solverIters = int(math.Max(1, math.Min(k, maxFloorIterations)))
	}
	pl.logProposals = pl.beta * math.Max(0, pl.rangeBound+pl.solverGap-psi)
	pl.logProposalsInterior = math.NaN()
	if dom.ball == nil && !math.IsInf(pl.smooth, 1) {
		// If min_C F_D is attained where ∇F_D = 0, F_D − F* ≤ (β_s/2)‖x − x*‖², and each
		// coordinate's Gaussian integral over [lo_i, hi_i] is at least the half-line one from an
		// end: P(accept) ≥ e^{−β·gap}·Π_i √(π/(4a))·erf(w_i√a)/w_i with a = β·β_s/2.
		a := pl.beta * pl.smooth / 2
		logP := -pl.beta * math.Max(0, pl.solverGap-psi)
		for i := range dom.lo {
			if w := dom.hi[i] - dom.lo[i]; w > 0 && a > 0 {
				logP += detmath.Log(math.Sqrt(math.Pi/(4*a)) * math.Erf(w*math.Sqrt(a)) / w)
			}
		}
		pl.logProposalsInterior = math.Min(-logP, pl.logProposals)
	}
	pl.utility = Utility{Bound: d/pl.beta + psi,
		Statement: "E F_D(w) − min_C F_D ≤ d/β + ψ for the exact Gibbs measure of the convex score max{F_D, F_D* + ψ} on the convex domain C (Ganesh, Thakurta and Upadhyay, Theorem 2.4, after Bassily, Smith and Thakurta 2014, Theorem 3.2; ψ = 0 for the exponential mechanism); the sampler is exact, so the bound holds for the release"}
	return pl, nil
}

func (pl *gibbsPlan) Guarantee() privacy.Curve { return privacy.PureDP{Eps: pl.budget.Epsilon} }
func (pl *gibbsPlan) Utility() Utility         { return pl.utility }

// Cost counts the solver's passes and the predicted number of proposals, each at most n
// queries: the bound for an interior minimizer when it applies, the bound for every dataset
// otherwise (math.MaxFloat64 when it overflows).
func (pl *gibbsPlan) Cost() cost.Cost {
	logProp := pl.logProposals
	if !math.IsNaN(pl.logProposalsInterior) {
		logProp = pl.logProposalsInterior
	}
	steps := float64(pl.solverIters) + detmath.Exp(math.Min(logProp, 700))
	return cost.Cost{Queries: math.Min(steps*float64(pl.problem.N), math.MaxFloat64), Steps: steps}
}

func (pl *gibbsPlan) Parameters() map[string]float64 {
	ps := map[string]float64{"beta": pl.beta, "psi": pl.psi, "threshold_error": pl.eta, "example_range": pl.rangeBound,
		"sensitivity": pl.scoreSens + 2*pl.eta, "lipschitz": pl.g, "diameter": pl.dom.diam, "solver_iterations": float64(pl.solverIters),
		"solver_gap": pl.solverGap, "log_max_expected_proposals": pl.logProposals}
	if !math.IsNaN(pl.logProposalsInterior) {
		ps["log_expected_proposals_interior"] = pl.logProposalsInterior
	}
	return ps
}

// Run certifies the floor (and the threshold), then samples exactly.
func (pl *gibbsPlan) Run(ctx context.Context, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error) {
	start := time.Now()
	l, err := LossOver(pl.budget, pl.problem, ds)
	if err != nil {
		return nil, err
	}
	if progress != nil {
		progress(Progress{Fraction: 0, Stage: "solving"})
	}
	m, err := minimizeMean(ctx, l, pl.dom, pl.smooth, pl.g, pl.solverIters, pl.solverGap)
	if err != nil {
		return nil, err
	}
	// The floor is below min_C F_D by a margin that covers the rounding of the bound and of the
	// scores: fpSlack relative, plus the summation error of N terms, γ_N = (N + 8)·2⁻⁵¹, on the
	// losses' scale (the bound's value, the range of a loss, and the gradient's G·diameter),
	// so that no computed score falls below it at any n (sampleGibbs refuses one that does).
	scale := math.Abs(m.lower) + pl.rangeBound + pl.g*pl.dom.diam
	floor := m.lower - fpSlack*(1+math.Abs(m.lower)+pl.rangeBound) - float64(pl.problem.N+8)*0x1p-51*scale
	clip := math.Inf(-1)
	details := map[string]float64{"solver_iterations": float64(m.iterations), "solver_lower": m.lower, "solver_upper": m.upper}
	if pl.psi > 0 {
		tau, err := pl.threshold(m)
		if err != nil {
			return nil, err
		}
		details["threshold"] = tau
		floor, clip = tau+pl.psi, tau+pl.psi
	}
	score := meanScore(l, pl.problem.N, nonNegative(pl.problem.Loss), clip)
	if replay.score != nil {
		replay.score(pl.name, score, pl.budget.Epsilon/pl.beta)
	}
	if progress != nil {
		progress(Progress{Fraction: 0, Stage: "exact rejection sampling"})
	}
	x, proposals, err := sampleGibbs(ctx, r, pl.dom, pl.dim, pl.beta, floor, score, nil)
	details["proposals"] = float64(proposals)
	if err != nil {
		return nil, err
	}
	if progress != nil {
		progress(Progress{Fraction: 1, Stage: "exact rejection sampling"})
	}
	rep, err := privacy.NewReport(pl.Guarantee(), privacy.ReportSpec{
		Mechanism: pl.name + " (exact rejection sampler)", Paper: pl.paper,
		Target:       privacy.Budget{Epsilon: pl.budget.Epsilon, Delta: pl.budget.Delta},
		Neighbouring: pl.budget.Relation(),
		Sensitivity: privacy.Sensitivity{Value: pl.scoreSens + 2*pl.eta, Of: "the range over the domain of the change of the score between neighbouring datasets (β·sensitivity = ε)",
			Derivation: pl.derivation()},
		Sampler:    privacy.SamplerStatus{Exact: true, Statement: "exact: rejection sampling from uniform proposals on the domain, accepting x with probability exp(−β(score(x) − floor)) ≤ 1 for a floor certified below the minimum score, so the accepted point has exactly the Gibbs law (in real arithmetic: the float64 rounding of F_D, relative about n·2⁻⁵³, is not accounted); the number of proposals depends on the data and is not released"},
		Randomness: randomness(r),
	})
	if err != nil {
		return nil, err
	}
	return &Release{
		Model: newModel(pl.problem, ds, x), Report: rep, Utility: pl.utility, Parameters: pl.Parameters(),
		Diagnostics: diagnose(l, pl.problem, ds, x, start, details),
	}, nil
}

// derivation states how the score's sensitivity follows from public constants.
func (pl *gibbsPlan) derivation() string {
	s := perExample(pl.budget, "R", pl.problem.N)
	s += fmt.Sprintf(" and R = %.6g, a bound on the range over the domain of one example's loss (the smaller of G·D, with G = %.6g in ℓ2 and the ℓ2 diameter D = %.6g, and the exact range of a margin loss)",
		pl.rangeBound, pl.g, pl.dom.diam)
	if pl.psi > 0 {
		s += fmt.Sprintf(", plus 2η = %.6g for the threshold F_D* + ψ, computed to within η by a solver with an a-priori bound", 2*pl.eta)
	}
	return s
}

// threshold returns τ ∈ [F* − η, F*] from a solver run that either closed its gap to η or took
// all its FISTA iterations, whose a-priori bound is then at most η.
func (pl *gibbsPlan) threshold(m minimum) (float64, error) {
	if m.upper-m.lower <= pl.eta {
		return m.lower, nil
	}
	if math.IsNaN(m.last) || m.iterations != pl.solverIters {
		return 0, errors.New("mech: internal error: the threshold's solver stopped before its a-priori bound")
	}
	k := float64(pl.solverIters)
	return math.Max(m.lower, m.last-2*pl.smooth*pl.dom.diam*pl.dom.diam/((k+1)*(k+1))), nil
}
