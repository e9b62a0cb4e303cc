package mech

import (
	"context"
	"errors"
	"fmt"
	"github.com/privopt/privopt/pkg/core/cost"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/interval"
	"github.com/privopt/privopt/pkg/rng"
	"github.com/privopt/privopt/pkg/sampler"
)

// SamplerMode selects how the regularized exponential mechanism samples.
type SamplerMode string

const (
	// Certified modes: the proximal sampler with oracle A, B or C; the certified TV is folded
	// into δ.
	SampleValue      SamplerMode = "proximal-value"
	SampleStochastic SamplerMode = "proximal-stochastic"
	SampleEnvelope   SamplerMode = "proximal-envelope"
	// SampleAuto is the floating-point-safe sampler (oracle C); with FloatSampler, it plans the
	// certified oracles and uses the one with the smallest predicted cost (at cost.Reference).
	SampleAuto SamplerMode = "auto"
	// Fast modes, whose mixing is not certified: the report then claims no privacy.
	SampleMALA     SamplerMode = "mala"
	SampleLangevin SamplerMode = "langevin"
	SampleKinetic  SamplerMode = "kinetic-langevin"
)

// samplerModes are the sampling modes, in the order errors list them.
var samplerModes = []SamplerMode{SampleAuto, SampleStochastic, SampleEnvelope, SampleValue, SampleMALA, SampleLangevin, SampleKinetic}

// check returns an error naming the modes when s is not one of them.
func (s SamplerMode) check() error {
	if slices.Contains(samplerModes, s) {
		return nil
	}
	names := make([]string, len(samplerModes))
	for i, m := range samplerModes {
		names[i] = string(m)
	}
	return fmt.Errorf("mech: unknown sampler mode %q (the modes are %s)", s, strings.Join(names, ", "))
}

// fastSteps returns the default number of steps of a fast mode for a target of condition
// number κ = (β + m)/m in dimension d: 20·κ·√d for MALA and projected Langevin, and 5·√κ for
// kinetic Langevin, whose slowest direction relaxes by a factor e^{−1} in about √κ steps of
// its default length (so 5√κ steps shrink a start 150 standard deviations out to one); at
// most 2³¹. On adult-lr's REM (n = 26,049, the validation split of adult.data), the test
// accuracy of kinetic Langevin stopped changing (within the spread of 3 runs) from 100 to 200
// steps on at ε = 1, 4 and 8 (5√κ = 134, 251 and about 350).
func (s SamplerMode) fastSteps(kappa, d float64) int {
	steps := 20 * kappa * math.Sqrt(d)
	if s == SampleKinetic {
		steps = 5 * math.Sqrt(kappa)
	}
	return int(math.Min(math.Ceil(steps), 1<<31))
}

// oracle returns the proximal sampler's oracle of a certified mode.
func (s SamplerMode) oracle() (sampler.Oracle, bool) {
	switch s {
	case SampleValue:
		return sampler.ValueOracle, true
	case SampleStochastic:
		return sampler.StochasticOracle, true
	case SampleEnvelope:
		return sampler.EnvelopeOracle, true
	}
	return 0, false
}

// REM is the regularized exponential mechanism in ℓ2 (Gopi, Lee and Liu 2022; Liang's lecture
// notes, Revisiting Differential Privacy, 2024, Theorem 3): it releases one sample of
//
//	π_D(w) ∝ exp(−k·(F_D(w) + (μ/2)‖w‖²)) on the domain,
//
// where F_D is the mean of convex losses that are G-Lipschitz in ℓ2 on the domain.
//
// Guarantee: π_D is μ_GDP-GDP with μ_GDP = Δ·√(k/μ), Δ = 2G/n under replace-one (G/n under
// add/remove): the potentials of neighbouring datasets differ by a kΔ-Lipschitz function and
// are kμ-strongly convex (GLL22, Theorem 4.1). The plan calibrates μ_GDP with the exact
// Gaussian curve (never the paper's closed form, which is not (ε, δ)-DP for large ε). A
// certified sampler's total-variation error τ is folded into δ: (ε, δ_GDP(ε) + (1 + e^ε)τ).
// A fast sampler's error is not certified, and the report then claims no privacy.
//
// Parameters: with Θ = D²/2 the range of ½‖w‖² over the comparison ball ‖w‖ ≤ D, the ERM bound
// d/k + μΘ is minimised subject to Δ√(k/μ) = μ_GDP: k = (μ_GDP/Δ)·√(d/Θ), μ = (Δ/μ_GDP)·√(d/Θ),
// giving E F_D(ŵ) − min_{‖w‖≤D} F_D(w) ≤ 2(Δ/μ_GDP)·√(dΘ). With Objective "sco", the bound
// d/k + μΘ + 2G²/(nμ) on the population excess risk is minimised instead (the last term is the
// generalisation gap, from the W∞ coupling of π_D and π_D′).

// REM releases one sample of the regularized exponential mechanism in ℓ2,
// π_D(w) ∝ exp(−k·(F_D(w) + (μ/2)‖w‖²)) on the domain.
// Guarantee: (ε, δ)-DP under either relation as μ-GDP, exactly calibrated, with a certified
// sampler's total-variation error folded into δ. With a loss that has an interval form
// (logistic, smoothed hinge, Huber, squared, hinge, multinomial; robust in ℓ1, ℓ2 or ℓ∞) on
// the whole space, a box or an ℓ2 ball (oracle C) the sampler is floating-point safe
// (sampler.NewSafePlan: its TV covers the computation, docs/floating-point.md); a certified
// plan it cannot run is refused unless FloatSampler is set, whose guarantee holds in exact
// arithmetic (the sample is a float64 from floating-point Gaussians). A fast sampler (MALA, Langevin,
// kinetic Langevin) certifies nothing, so its report claims no privacy.
// Utility: E F_D(ŵ) − F_D(u) ≤ d/k + μD²/2 for ‖u‖ ≤ D, planned from public quantities (or the
// population risk's, Objective "sco"). Settings: the objective, the sampler and its share of
// δ, the fast modes' steps; the method and its proof are in the comment block above.
type REM struct {
	// Sampler is the sampling mode; empty is SampleAuto.
	Sampler SamplerMode
	// Objective is "erm" (default) or "sco".
	Objective string
	// SamplerShare is the share of δ given to a certified sampler's error (default 0.1).
	SamplerShare float64
	// FastSteps is the number of steps of a fast mode (default: 5·√κ for kinetic-langevin,
	// 20·κ·√d for mala and langevin, κ = 1 + β/μ; not certified).
	FastSteps int
	// FloatSampler runs the certified sampler in float64: several times faster on small
	// problems (the safe sampler's double-double normals cost 14 µs each), and it runs the
	// plans the safe sampler refuses (oracles A and B, robust losses in other ℓq, a
	// floating-point term over its share), with the guarantee then proven in exact arithmetic
	// only, as the report says.
	FloatSampler bool
}

// Name returns "rem".
func (REM) Name() string { return "rem" }

// Paper names the source.
func (REM) Paper() string {
	return "Gopi, Lee and Liu 2022, Private Convex Optimization via Exponential Mechanism (Theorem 4.1); lecture notes of Liang (2024), Theorem 3"
}

// remPlan is a planned run of the regularized exponential mechanism.
type remPlan struct {
	mech                REM
	budget              privacy.Budget
	problem             Problem
	g, beta, delta      float64 // G and β of the losses in ℓ2; Δ
	k, mu, muGDP, theta float64
	dim                 int // number of parameters
	guarantee           privacy.Curve
	base                privacy.GDP
	plan                sampler.Plan // certified modes
	certified           bool
	fastSteps           int
	utility             Utility
	deltaMech, tvBudget float64
	safe                bool // a floating-point-safe certified plan (sampler.NewSafePlan)
}

// safeUnsupported says why the floating-point-safe sampler cannot run a certified plan in
// mode (SampleAuto for a default) for this problem, or "" when it can: it runs oracle C on the
// whole space, a box or an ℓ2 ball, for the multinomial loss or a linear model whose scalar
// loss has an interval form (loss.Encloses), robust against perturbations in ℓ1, ℓ2 or ℓ∞ or
// not.
func safeUnsupported(mode SamplerMode, p Problem) string {
	if mode != SampleAuto && mode != SampleEnvelope {
		return fmt.Sprintf("the %s oracle runs in float64 only (the safe sampler is %s)", mode, SampleEnvelope)
	}
	if kind := sampler.KindOf(p.Domain); kind != sampler.WholeSpace && kind != sampler.BoxDomain && kind != sampler.BallDomain {
		return "it runs on the whole space, a box or an ℓ2 ball only"
	}
	if p.Loss.Name == LossMultinomial {
		return ""
	}
	if q := p.Loss.RobustNorm; p.Loss.RobustRadius > 0 && !(q == 1 || q == 2 || math.IsInf(q, 1)) {
		return fmt.Sprintf("the robust loss's rounding bounds cover perturbations in ℓ1, ℓ2 and ℓ∞, not in ℓ%g", q)
	}
	if s, err := p.Loss.scalar(); err != nil || !loss.Encloses(s) {
		return fmt.Sprintf("the %s loss has no interval form", p.Loss.Name)
	}
	return ""
}

// refuseUnsafe is the error of a certified plan that does not set FloatSampler and that the
// floating-point-safe sampler cannot run, for the reason why: no release leaves privopt
// outside the safe sampler unless the person asked for the float64 one.
func refuseUnsafe(why string) error {
	why = strings.TrimPrefix(why, "sampler: ")
	return fmt.Errorf("mech: the floating-point-safe sampler cannot run this plan: %s; the setting FloatSampler=true runs the float64 sampler instead, whose guarantee holds in exact arithmetic only (docs/floating-point.md)", why)
}

// Plan fixes k, μ, the sampler's parameters and its certified error from public quantities.
func (m REM) Plan(b privacy.Budget, p Problem) (Plan, error) {
	if err := ValidateBudget(b); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if b.Delta == 0 {
		return nil, errors.New("mech: the regularized exponential mechanism is Gaussian-DP, which needs δ > 0 (for pure ε-DP use outpert or expmech)")
	}
	if p.Loss.Tilt != 0 {
		return nil, errors.New("mech: the regularized exponential mechanism needs a mean of per-example losses; tilted ERM is supported by output perturbation")
	}
	if m.Sampler == "" {
		m.Sampler = SampleAuto
	}
	if err := m.Sampler.check(); err != nil {
		return nil, err
	}
	if err := checkSamplerDomain(m.Sampler, p.Domain); err != nil {
		return nil, err
	}
	if m.Objective == "" {
		m.Objective = "erm"
	}
	if m.SamplerShare == 0 {
		m.SamplerShare = 0.1
	}
	c, err := p.Constants(2)
	if err != nil {
		return nil, err
	}
	if math.IsInf(c.Lipschitz, 1) {
		return nil, notLipschitz(p)
	}
	pl := &remPlan{mech: m, budget: b, problem: p, g: c.Lipschitz, beta: c.Smoothness, dim: p.params()}
	pl.delta = Sensitivity(b, pl.g, p.N)
	oracle, certified := m.Sampler.oracle()
	certified = certified || m.Sampler == SampleAuto
	pl.certified = certified
	pl.deltaMech = b.Delta
	if certified {
		if pl.deltaMech, pl.tvBudget, err = privacy.SplitDelta(b.Epsilon, b.Delta, m.SamplerShare); err != nil {
			return nil, err
		}
	}
	if pl.muGDP, err = privacy.CalibrateGDP(b.Epsilon, pl.deltaMech); err != nil {
		return nil, err
	}
	pl.base = privacy.GDP{Mu: pl.muGDP}
	// k and μ are planned for a μ_GDP smaller by a relative 2⁻⁴⁰, so that the potential the
	// sampler is given, with k and its strong convexity k·μ rounded to float64, is still
	// μ_GDP-GDP: kΔ/√fl(kμ) is within a few 2⁻⁵³ of Δ√(k/μ).
	pl.muGDP *= 1 - 0x1p-40
	d := float64(pl.dim)
	pl.theta = p.Radius * p.Radius / 2
	switch m.Objective {
	case "erm":
		pl.mu = pl.delta / pl.muGDP * math.Sqrt(d/pl.theta)
		pl.utility = Utility{Bound: 2 * pl.delta / pl.muGDP * math.Sqrt(d*pl.theta),
			Statement: "E F_D(w) − min_{‖w‖≤D} F_D(w) ≤ d/k + μD²/2 for the exact distribution (the Gibbs bound of Proposition 4 of Gopi, Lee, Liu, Shen and Tian, after De Klerk and Laurent), minimised over k and μ at the calibrated μ_GDP"}
	case "sco":
		a := d*pl.delta*pl.delta/(pl.muGDP*pl.muGDP) + 2*pl.g*pl.g/float64(p.N)
		pl.mu = math.Sqrt(a / pl.theta)
		pl.utility = Utility{Bound: 2 * math.Sqrt(pl.theta*a),
			Statement: "population excess risk ≤ d/k + μD²/2 + 2G²/(nμ) for the exact distribution (the last term is the generalisation gap of the W∞ coupling of neighbouring Gibbs measures), minimised over k and μ at the calibrated μ_GDP"}
	default:
		return nil, fmt.Errorf("mech: unknown objective %q (erm or sco)", m.Objective)
	}
	pl.k = pl.mu * pl.muGDP * pl.muGDP / (pl.delta * pl.delta)
	pl.guarantee = pl.base
	if certified {
		switch {
		case !m.FloatSampler:
			if why := safeUnsupported(m.Sampler, p); why != "" {
				return nil, refuseUnsafe(why)
			}
			if pl.plan, err = sampler.NewSafePlan(pl.samplerConstants(), pl.dim, p.N, pl.tvBudget); err != nil {
				return nil, refuseUnsafe(err.Error())
			}
			pl.safe, pl.mech.Sampler = true, SampleEnvelope
		case m.Sampler == SampleAuto:
			pl.plan, err = cheapestPlan(pl.samplerConstants(), pl.dim, p.N, pl.tvBudget)
			pl.mech.Sampler = map[sampler.Oracle]SamplerMode{sampler.ValueOracle: SampleValue,
				sampler.StochasticOracle: SampleStochastic, sampler.EnvelopeOracle: SampleEnvelope}[pl.plan.Oracle]
		default:
			pl.plan, err = sampler.NewPlan(pl.samplerConstants(), pl.dim, p.N, oracle, pl.tvBudget)
		}
		if err != nil {
			return nil, err
		}
		folded, err := privacy.FoldSamplerError(pl.base, pl.plan.TV)
		if err != nil {
			return nil, err
		}
		pl.guarantee = folded
		if !(privacy.Budget{Epsilon: b.Epsilon, Delta: b.Delta}).Meets(folded) {
			return nil, fmt.Errorf("mech: internal error: the folded guarantee does not meet the budget")
		}
	} else {
		pl.fastSteps = m.FastSteps
		if pl.fastSteps == 0 {
			kappa := 1 + pl.beta/pl.mu
			if math.IsInf(kappa, 1) {
				kappa = 1 + pl.g*pl.g/pl.mu // a non-smooth loss: a rough scale only
			}
			pl.fastSteps = m.Sampler.fastSteps(kappa, d)
		}
	}
	return pl, nil
}

// checkSamplerDomain says whether a sampling mode runs on the domain: the certified modes (and
// SampleAuto, which is certified) on the whole space, a box or an ℓ2 ball, where Gaussian
// proposals restricted to the domain are drawn exactly; the fast modes on any of geom's convex
// domains.
func checkSamplerDomain(mode SamplerMode, dom geom.Domain) error {
	_, certified := mode.oracle()
	certified = certified || mode == SampleAuto
	if kind := sampler.KindOf(dom); certified && kind == sampler.OtherDomain {
		what := fmt.Sprintf("a %T", dom)
		if b, ok := dom.(*geom.Ball); ok {
			what = fmt.Sprintf("an ℓ%g ball", b.P())
		}
		return fmt.Errorf("mech: certified sampling runs on the whole space, a box or an ℓ2 ball, not on %s (no exact draw of a Gaussian restricted to it with a bounded cost is known): choose a box or an ℓ2 ball, or a fast sampler (mala, langevin or kinetic-langevin, whose privacy is not certified)", what)
	}
	return nil
}

// cheapestPlan plans the three certified oracles and returns the one with the smallest
// predicted time at cost.Reference (only the ratios between oracles matter).
func cheapestPlan(c sampler.Constants, dim, n int, tv float64) (sampler.Plan, error) {
	var best sampler.Plan
	var firstErr error
	found := false
	for _, o := range []sampler.Oracle{sampler.EnvelopeOracle, sampler.StochasticOracle, sampler.ValueOracle} {
		p, err := sampler.NewPlan(c, dim, n, o, tv)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if !found || p.Cost.Seconds(cost.Reference) < best.Cost.Seconds(cost.Reference) {
			best, found = p, true
		}
	}
	if !found {
		return sampler.Plan{}, firstErr
	}
	return best, nil
}

// samplerConstants are the constants of the sampler's target f = k·F_D with Gaussian part kμ.
func (pl *remPlan) samplerConstants() sampler.Constants {
	// Each example's loss depends on the parameters through ⟨w, x⟩ (rank 1), through Wx for the
	// multinomial loss (rank K), and also through ‖w‖ for the robust loss (no low-rank structure).
	rank := 1
	switch {
	case pl.problem.Loss.Name == LossMultinomial:
		rank = pl.problem.Loss.Classes
	case pl.problem.Loss.RobustRadius > 0:
		rank = pl.dim
	}
	smooth := pl.k * pl.beta
	if math.IsInf(smooth, 1) {
		smooth = 0
	}
	kind, radius := sampler.DomainOf(pl.problem.Domain)
	c := sampler.Constants{
		Lipschitz: pl.k * pl.g, ExampleLipschitz: pl.k * pl.g, ExampleRank: rank,
		Smoothness: smooth, StrongConvexity: pl.k * pl.mu, Domain: kind, Radius: radius,
	}
	c.GradErrorFloor, c.GradErrorSlope = lossGradRounding(pl.problem, pl.k, pl.g, pl.beta, pl.dim)
	return c
}

// lossGradRounding returns floor and slope with ‖k·∇F̂_D(x) − k·∇F_D(x)‖ ≤ floor + slope·‖x‖
// for the computed gradient of k·F_D (EnclosedMean's; G and β in ℓ2), or 0, 0 when the loss
// has no such bound: the loss's bound scaled by remGradRounding.
func lossGradRounding(p Problem, k, g, beta float64, dim int) (floor, slope float64) {
	switch {
	case p.Loss.RobustRadius > 0:
		if phi, err := p.Loss.scalar(); err == nil {
			if m, ok := phi.(loss.Margin); ok {
				a := geom.NormBound(p.Bounds.X*(1+2*loss.Slack), p.Bounds.XNorm, 2, dim)
				floor, slope = loss.RobustGradRounding(m, a, p.Loss.RobustRadius, p.Loss.RobustNorm, dim, p.N)
				return remGradRounding(k, g, floor, slope)
			}
		}
	case p.Loss.Name == LossMultinomial:
		classes := p.Loss.Classes
		floor, slope = loss.MultinomialGradRounding(g, classes, dim/classes, p.N)
		return remGradRounding(k, g, floor, slope)
	case !math.IsInf(beta, 1):
		floor, slope = loss.GradRounding(g, beta, dim, p.N)
		return remGradRounding(k, g, floor, slope)
	case p.Loss.Name == LossHinge:
		return remGradRounding(k, g, loss.HingeGradRounding(g, dim, p.N), 0)
	}
	return 0, 0
}

// remGradRounding scales the loss's bound on its mean gradient's rounding to the target's
// k·∇F_D: k times it, plus the rounding of the multiplication by k (2⁻⁵³·‖k∇F̂‖ ≤ 2⁻⁵³·k·G).
func remGradRounding(k, g, floor, slope float64) (float64, float64) {
	return (k*floor + 0x1p-53*k*g) * (1 + 0x1p-40), k * slope * (1 + 0x1p-40)
}

func (pl *remPlan) Guarantee() privacy.Curve { return pl.guarantee }
func (pl *remPlan) Utility() Utility         { return pl.utility }

func (pl *remPlan) Cost() cost.Cost {
	if pl.certified {
		return pl.plan.Cost
	}
	steps := float64(pl.fastSteps)
	return cost.Cost{Steps: steps, Gradients: steps * float64(pl.problem.N), Draws: steps * float64(pl.dim)}
}

func (pl *remPlan) Parameters() map[string]float64 {
	ps := map[string]float64{"k": pl.k, "mu": pl.mu, "mu_gdp": pl.muGDP, "sensitivity": pl.delta,
		"lipschitz": pl.g, "radius": pl.problem.Radius, "delta_mechanism": pl.deltaMech}
	if pl.certified {
		ps["sampler_steps"] = float64(pl.plan.Steps)
		ps["sampler_step_size"] = pl.plan.Step
		ps["sampler_tv"] = pl.plan.TV
		if pl.safe {
			ps["sampler_tv_float"] = pl.plan.TVFloat
			ps["sampler_grid"] = pl.plan.Grid
		}
		ps["sampler_trial_cap"] = float64(pl.plan.TrialCap)
	} else {
		ps["sampler_steps"] = float64(pl.fastSteps)
	}
	return ps
}

// Run samples from π_D.
func (pl *remPlan) Run(ctx context.Context, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error) {
	start := time.Now()
	l, err := LossOver(pl.budget, pl.problem, ds)
	if err != nil {
		return nil, err
	}
	t := &remTarget{loss: l, k: pl.k, rows: pl.problem.N, constants: pl.samplerConstants(), domain: pl.problem.Domain, safe: pl.safe}
	if replay.target != nil {
		replay.target("REM", t, pl.k*pl.delta, 2)
	}
	report := func(fraction float64) {
		if progress != nil {
			progress(Progress{Fraction: fraction, Stage: "sampling"})
		}
	}
	var res sampler.Result
	status := privacy.SamplerStatus{}
	switch pl.mech.Sampler {
	case SampleMALA:
		res, err = sampler.MALA(ctx, t, sampler.FastSettings{Steps: pl.fastSteps}, r, report)
	case SampleLangevin:
		res, err = sampler.ProjectedLangevin(ctx, t, sampler.FastSettings{Steps: pl.fastSteps}, r, report)
	case SampleKinetic:
		res, err = sampler.KineticLangevin(ctx, t, sampler.FastSettings{Steps: pl.fastSteps}, r, report)
	default:
		res, err = sampler.Run(ctx, t, pl.plan, r, report)
	}
	if err != nil {
		return nil, err
	}
	status.Statement = res.Statement
	if res.Certified {
		status.Certified, status.TV = true, res.TV
	}
	rep, err := privacy.NewReport(pl.base, privacy.ReportSpec{
		Mechanism: pl.mech.Name() + " (" + string(pl.mech.Sampler) + ")", Paper: pl.mech.Paper(),
		Target:       privacy.Budget{Epsilon: pl.budget.Epsilon, Delta: pl.budget.Delta},
		Neighbouring: pl.budget.Relation(),
		Sensitivity: privacy.Sensitivity{Value: pl.delta, Of: "the Lipschitz constant of F_D − F_D′ in ℓ2 (k times it for the potentials)",
			Derivation: meanSensitivityDerivation(pl.budget, pl.g, pl.problem.N)},
		Sampler: status, Randomness: randomness(r),
	})
	if err != nil {
		return nil, err
	}
	if res.FloatingPointSafe {
		rep.Statement += " " + fmt.Sprintf(floatingPointSafe, pl.plan.Grid)
	} else {
		rep.Statement += " " + exactArithmetic
	}
	details := map[string]float64{"sampler_steps": float64(res.Stats.Steps), "sampler_acceptance": res.Stats.AcceptanceRate(),
		"sampler_queries": float64(res.Stats.Queries), "sampler_gradients": float64(res.Stats.Gradients), "sampler_clipped": float64(res.Stats.Clipped), "sampler_cap_hits": float64(res.Stats.CapHits)}
	if res.FloatingPointSafe {
		details["sampler_fallbacks"], details["sampler_undecided"] = float64(res.Stats.Fallbacks), float64(res.Stats.Undecided)
	}
	return &Release{
		Model: newModel(pl.problem, ds, res.X), Report: rep, Utility: pl.utility, Parameters: pl.Parameters(),
		Diagnostics: diagnose(l, pl.problem, ds, res.X, start, details),
	}, nil
}

// remTarget is the sampler's view of π_D: f = k·F_D (the mean loss) on the domain, with the
// Gaussian part kμ‖w‖²/2. Its per-example terms are the rows' losses, and as many zero terms
// as it takes to make rows of them (the public N, of which F_D is the sum divided by it).
type remTarget struct {
	loss      loss.Loss
	k         float64
	rows      int
	constants sampler.Constants
	domain    geom.Domain
	safe      bool // a floating-point-safe run: gradients from loss.Enclosing's EnclosedMean
}

func (t *remTarget) Dim() int                     { return t.loss.Dim() }
func (t *remTarget) Value(x []float64) float64    { return t.k * t.loss.Mean(nil, x) }
func (t *remTarget) Constants() sampler.Constants { return t.constants }
func (t *remTarget) Domain() geom.Domain          { return t.domain }
func (t *remTarget) NumExamples() int             { return t.rows }
func (t *remTarget) ExampleValue(i int, x []float64) float64 {
	if i >= t.loss.Len() {
		return 0 // a row the public N allows that the data does not have
	}
	return t.k * t.loss.Value(x, i)
}
func (t *remTarget) Grad(grad, x []float64) float64 {
	var v float64
	if t.safe {
		v = t.loss.(loss.Enclosing).EnclosedMean(grad, x)
	} else {
		v = t.loss.Mean(grad, x)
	}
	for i := range grad {
		grad[i] *= t.k
	}
	return t.k * v
}

// ValueError, GradError and ValueEnclosure make the target sampler.Enclosed when its loss is
// loss.Enclosing (the plan only asks for it then).
func (t *remTarget) ValueError(x []float64, v float64) float64 {
	return scaledMeanError(t.loss.(loss.Enclosing), t.k, x, v)
}

// scaledMeanError bounds |v − k·F_D(x)| for the value v = k·F̂ computed from the loss's mean:
// k times the loss's bound at v/k (enlarged for the division's rounding), plus the product's.
func scaledMeanError(l loss.Enclosing, k float64, x []float64, v float64) float64 {
	return (k*l.MeanError(x, v/k*(1+0x1p-50)) + 0x1p-53*math.Abs(v)) * (1 + 0x1p-40)
}

func (t *remTarget) GradError(x, g []float64) float64 {
	floor, _ := remGradRounding(t.k, t.constants.Lipschitz/t.k, t.loss.(loss.Enclosing).GradError(x), 0)
	return floor
}

func (t *remTarget) ValueEnclosure(prec uint, parts ...[]float64) (lo, hi *big.Int, exp int) {
	lo, hi, exp = t.loss.(loss.Enclosing).MeanEnclosure(prec, parts...)
	m := interval.FromEnds(lo, hi, exp, prec)
	return interval.MulFloat(m, t.k, prec).Ends()
}

func (t *remTarget) Subgradient(grad, x []float64) {
	loss.MeanGrad(t.loss, grad, x)
	for i := range grad {
		grad[i] *= t.k
	}
}
