package mech

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/privopt/privopt/pkg/core/cost"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/rng"
	"github.com/privopt/privopt/pkg/sampler"
)

// REMLp is the regularized exponential mechanism in general norms (Gopi, Lee, Liu, Shen and
// Tian, Private Convex Optimization in General Norms): it releases one sample of
//
//	π_D(w) ∝ exp(−k·(F_D(w) + μ·r(w))) on the domain,
//
// where F_D is the mean of convex losses, G_p-Lipschitz in ℓp on the domain (Schatten-p for the
// multinomial loss's K×d weight matrix), and r is Gopi, Lee, Liu, Shen and Tian's regularizer for that norm
// (geom.NewLpRegularizer, geom.NewSchattenRegularizer; centred at 0): ‖w‖_p²/(2(p − 1)) for
// p ∈ (1, 2] (Corollary 2), a scaled ‖w‖_q² with q = 1 + 1/ln d for p = 1 (Corollary 3, d ≥ 3;
// q = 1 + 1/ln min(K, d) for Schatten-1), and ½‖w‖₂² for p ≥ 2 (Corollary 4), each
// σ_p-strongly convex in the norm with σ_p = 1 (geom's Modulus).
//
// Guarantee: π_D is μ_GDP-GDP with μ_GDP = Δ_p·√(k/(μσ_p)), Δ_p = 2G_p/n under replace-one
// (G_p/n under add/remove; the paper's G/n is the add/remove value, notes Issue B): the
// potentials of neighbouring datasets are kμσ_p-strongly convex in ℓp and differ by a
// kΔ_p-Lipschitz function in ℓp (Gopi, Lee, Liu, Shen and Tian, Theorem 2, which holds in any norm on a compact
// convex set; on the whole space, for p ≥ 2, as the limit of growing boxes, or by GLL22's
// Theorem 4.1 in ℓ2). μ_GDP is calibrated with the exact Gaussian curve (never the paper's
// t = ε/√(2L), which is not (ε, δ)-DP for large ε, notes Issue A). A certified sampler's
// total-variation error τ is folded into δ: (ε, δ_GDP(ε) + (1 + e^ε)τ); a fast sampler's error
// is not certified, and the report then claims no privacy.
//
// Parameters (notes §1, generic form): with Θ the range of r over the comparison set
// {w ∈ C : ‖w‖₂ ≤ D} (max there minus min over C: the smaller of geom's exact ranges over C
// and over the ℓ2 ball of radius D, both with minimum 0 at the centre), the ERM bound
// d/k + μΘ is minimised subject to Δ_p√(k/(μσ_p)) = μ_GDP: k = (μ_GDP/Δ_p)√(dσ_p/Θ),
// μ = (Δ_p/μ_GDP)√(d/(σ_pΘ)), so E F_D(ŵ) − min_{w∈C, ‖w‖₂≤D} F_D(w) ≤ 2(Δ_p/μ_GDP)√(dΘ/σ_p)
// (Gopi, Lee, Liu, Shen and Tian, Theorem 3 with the exact calibration; the Gibbs bound d/k is Proposition 4).
//
// Sampling (pkg/sampler: certified on the whole space, a box or an ℓ2 ball; the fast modes on
// any of geom's domains): the target is
// exp(−f − (m/2)‖w‖²) with m = kμσ₂ (σ₂ = r's modulus in ℓ2: 1 for p ∈ (1, 2], d^{2(1−1/q)} for
// p = 1) and f = k·F_D + kμ·(r − (σ₂/2)‖w‖²), convex. For p < 2 the remainder is not
// Lipschitz on the whole space, so the domain must be bounded (a box or a ball), on which its
// ℓ2 Lipschitz constant is bounded (remainderLipschitz); for p ≥ 2 r is Gaussian and the
// remainder is 0.

// REMLp releases one sample of the regularized exponential mechanism in an ℓp or Schatten-p
// norm, π_D(w) ∝ exp(−k·(F_D(w) + μ·r(w))), r the norm's strongly convex regularizer.
// Guarantee: (ε, δ)-DP under either relation as μ-GDP, exactly calibrated, with a certified
// sampler's total-variation error folded into δ; floating-point safe (oracle C) with a loss that
// has an interval form and an ℓq regularizer or none (p ≥ 2), refused otherwise unless
// FloatSampler is set (see REM), and a fast sampler's report claims no privacy. Utility: the excess-risk bound of Gopi, Lee, Liu,
// Shen and Tian for the norm, planned from public quantities. Settings: Norm (p, default 1),
// the sampler, its share of δ and the fast modes' steps; the method and its proof are in the
// comment block above.
type REMLp struct {
	// Norm is the exponent p ∈ [1, ∞] of the norm (default 1).
	Norm float64
	// Sampler is the sampling mode (default: the floating-point-safe sampler, oracle C; with
	// FloatSampler, the stochastic or the envelope oracle, whichever plan predicts fewer
	// queries).
	Sampler SamplerMode
	// SamplerShare is the share of δ given to a certified sampler's error (default 0.1).
	SamplerShare float64
	// FastSteps is the number of steps of a fast mode (default: 5·√κ for kinetic-langevin,
	// 20·κ·√d for mala and langevin, with κ = 1 + β/(μσ₂); not certified).
	FastSteps int
	// FloatSampler runs the certified sampler in float64 (as REM's setting): faster, and it
	// runs what the safe sampler refuses (Schatten-p below 2 among them), with the guarantee
	// then proven in exact arithmetic only, as the report says.
	FloatSampler bool
}

// Name returns "rem-lp".
func (REMLp) Name() string { return "rem-lp" }

// Paper names the source.
func (REMLp) Paper() string {
	return "Gopi, Lee, Liu, Shen and Tian, Private Convex Optimization in General Norms (Theorems 2 and 3, Corollaries 2–5)"
}

// remLpPlan is a planned run of REM in ℓp.
type remLpPlan struct {
	mech                REMLp
	budget              privacy.Budget
	problem             Problem
	reg                 geom.Regularizer
	gaussian            bool    // r = (σ₂/2)‖w‖²: no remainder
	gp, g2, smooth      float64 // G in ℓp, G and β in ℓ2
	sigmaP, sigma2      float64 // r's moduli in ℓp and ℓ2
	remLip              float64 // ℓ2 Lipschitz constant of r − (σ₂/2)‖w‖² on the domain
	delta, k, mu, theta float64
	muGDP               float64
	dim                 int
	base                privacy.GDP
	guarantee           privacy.Curve
	plan                sampler.Plan
	certified           bool
	fast                sampler.FastSettings
	utility             Utility
	deltaMech, tvBudget float64
	safe                bool // a floating-point-safe certified plan (sampler.NewSafePlan)
}

// Plan fixes the regularizer, Θ, k, μ and the sampler's parameters from public quantities.
func (m REMLp) Plan(b privacy.Budget, p Problem) (Plan, error) {
	if err := ValidateBudget(b); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if b.Delta == 0 {
		return nil, errors.New("mech: REM in ℓp is Gaussian-DP, which needs δ > 0 (for pure ε-DP use expmech)")
	}
	if p.Loss.Tilt != 0 {
		return nil, errors.New("mech: REM in ℓp needs a mean of per-example losses; tilted ERM is supported by output perturbation")
	}
	if m.Norm == 0 {
		m.Norm = 1
	}
	if !(m.Norm >= 1) {
		return nil, fmt.Errorf("mech: the norm exponent must be in [1, ∞], got %g", m.Norm)
	}
	if err := m.Sampler.check(); m.Sampler != "" && err != nil {
		return nil, err
	}
	auto := m.Sampler == "" || m.Sampler == SampleAuto
	if auto {
		m.Sampler = SampleStochastic
	}
	if m.SamplerShare == 0 {
		m.SamplerShare = 0.1
	}
	pl := &remLpPlan{mech: m, budget: b, problem: p, dim: p.params()}
	var err error
	if p.Loss.Name == LossMultinomial {
		pl.reg, err = geom.NewSchattenRegularizer(m.Norm, p.Loss.Classes, p.Dim, nil)
	} else {
		pl.reg, err = geom.NewLpRegularizer(m.Norm, pl.dim, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("mech: REM in ℓp: %w", err)
	}
	pl.sigmaP, pl.sigma2 = pl.reg.Modulus(m.Norm), pl.reg.Modulus(2)
	pl.gaussian = regExponent(pl.reg) == 2
	if !pl.gaussian && math.IsInf(p.Domain.Radius(2), 1) {
		return nil, fmt.Errorf("mech: REM in ℓp for p = %g < 2 samples on a bounded domain, not on the whole space (its regularizer's remainder is Lipschitz only on a bounded domain): choose the box domain (|wᵢ| ≤ radius; a ball works only where the floating-point-safe sampler can start on it)", m.Norm)
	}
	if err := checkSamplerDomain(m.Sampler, p.Domain); err != nil {
		return nil, err
	}
	if pl.theta, err = comparisonRange(pl.reg, p); err != nil {
		return nil, err
	}
	cp, err := p.Constants(m.Norm)
	if err != nil {
		return nil, err
	}
	c2, err := p.Constants(2)
	if err != nil {
		return nil, err
	}
	if math.IsInf(cp.Lipschitz, 1) || math.IsInf(c2.Lipschitz, 1) {
		return nil, notLipschitz(p)
	}
	pl.gp, pl.g2, pl.smooth = cp.Lipschitz, c2.Lipschitz, c2.Smoothness
	if !pl.gaussian {
		if pl.remLip, err = remainderLipschitz(pl.reg, p.Domain, min(p.Loss.Classes, p.Dim)); err != nil {
			return nil, err
		}
	}
	pl.delta = Sensitivity(b, pl.gp, p.N)
	oracle, certified := m.Sampler.oracle()
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
	// sampler is given, k·F_D + fl(kμ)·r, is still μ_GDP-GDP (as REM's).
	pl.muGDP *= 1 - 0x1p-40
	d := float64(pl.dim)
	pl.k = pl.muGDP / pl.delta * math.Sqrt(d*pl.sigmaP/pl.theta)
	pl.mu = pl.delta / pl.muGDP * math.Sqrt(d/(pl.sigmaP*pl.theta))
	pl.utility = Utility{Bound: d/pl.k + pl.mu*pl.theta,
		Statement: fmt.Sprintf("E F_D(w) − min_{w∈C, ‖w‖₂≤D} F_D(w) ≤ d/k + μΘ = 2(Δ/μ_GDP)√(dΘ/σ) for the exact distribution (Gopi, Lee, Liu, Shen and Tian, Theorem 3, with the Gibbs bound of their Proposition 4), Θ = %.6g the range of the ℓ%g regularizer over the comparison set, at the calibrated μ_GDP", pl.theta, m.Norm)}
	pl.guarantee = pl.base
	if certified {
		if m.FloatSampler {
			pl.plan, err = sampler.NewPlan(pl.samplerConstants(), pl.dim, p.N, oracle, pl.tvBudget)
			if auto {
				// The default is the cheaper of the stochastic and envelope oracles' plans.
				if env, envErr := sampler.NewPlan(pl.samplerConstants(), pl.dim, p.N, sampler.EnvelopeOracle, pl.tvBudget); envErr == nil && (err != nil || env.Cost.Queries < pl.plan.Cost.Queries) {
					pl.plan, err, pl.mech.Sampler = env, nil, SampleEnvelope
				}
			}
		} else {
			mode := m.Sampler
			if auto {
				mode = SampleAuto
			}
			why := safeUnsupported(mode, p)
			if why == "" && !lpSafe(pl.reg, pl.gaussian) {
				why = lpUnsafe(pl.reg)
			}
			if why != "" {
				return nil, refuseUnsafe(why)
			}
			if pl.plan, err = sampler.NewSafePlan(pl.samplerConstants(), pl.dim, p.N, pl.tvBudget); err != nil {
				return nil, refuseUnsafe(err.Error())
			}
			pl.safe, pl.mech.Sampler = true, SampleEnvelope
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
			return nil, errors.New("mech: internal error: the folded guarantee does not meet the budget")
		}
	} else {
		// Fast modes (not certified): the loss's smoothness sets the step even when r is not
		// smooth (p < 2; the Metropolis correction of MALA absorbs its curvature), and the
		// steps are SamplerMode.fastSteps with κ = 1 + β/(μσ₂) (a rough scale for a non-smooth
		// loss).
		gauss := pl.k * pl.mu * pl.sigma2
		scale, kappa := pl.k*pl.smooth+gauss, 1+pl.smooth/(pl.mu*pl.sigma2)
		if math.IsInf(pl.smooth, 1) {
			scale, kappa = gauss, 1+pl.g2*pl.g2/(pl.mu*pl.sigma2)
		}
		pl.fast = sampler.FastSettings{Steps: m.FastSteps, Step: 1 / (4 * scale)}
		switch m.Sampler {
		case SampleMALA:
			pl.fast.Step = 1 / (2 * scale * math.Sqrt(d))
		case SampleKinetic:
			pl.fast.Step = 1 / math.Sqrt(scale)
		}
		if pl.fast.Steps == 0 {
			pl.fast.Steps = m.Sampler.fastSteps(kappa, d)
		}
	}
	return pl, nil
}

// regExponent returns the exponent q of the norm in a regularizer of geom.
func regExponent(r geom.Regularizer) float64 {
	switch r := r.(type) {
	case *geom.LpRegularizer:
		return r.Q()
	case *geom.SchattenRegularizer:
		return r.Q()
	}
	return math.NaN()
}

// comparisonRange returns Θ = max r over {w ∈ C : ‖w‖₂ ≤ D} minus min_C r, bounded above by
// the smaller of geom's exact ranges over the ℓ2 ball of radius D and over C (both have
// minimum 0 at the regularizer's centre, the origin, and min_C r ≥ 0). The range over C is
// used only when geom has an exact formula for it (a box, for the ℓp regularizers).
func comparisonRange(r geom.Regularizer, p Problem) (float64, error) {
	ball, err := geom.NewBall(r.Dim(), 2, p.Radius, nil)
	if err != nil {
		return 0, err
	}
	theta, err := r.Range(ball)
	if err != nil {
		return 0, fmt.Errorf("mech: the regularizer's range over the comparison ball: %w", err)
	}
	if t, err := r.Range(p.Domain); err == nil {
		theta = math.Min(theta, t)
	}
	if !(theta > 0) || math.IsInf(theta, 1) {
		return 0, fmt.Errorf("mech: the regularizer's range %g is not finite and positive", theta)
	}
	return theta, nil
}

// remainderLipschitz returns L with ‖∇h(w)‖₂ ≤ L on a bounded domain, for the remainder
// h = r − (σ₂/2)‖w‖² of a regularizer r = (S/2)‖w‖_q² (1 < q < 2) centred at 0, whose modulus
// in ℓ2 is σ₂ = S(q − 1); k is the number of singular values of a Schatten regularizer (the
// number of coordinates for ℓq).
//
// Derivation: write N = ‖w‖_q and a_i = |w_i|/N (the singular values of w for Schatten-q, which
// shares its singular vectors with ∇r and w). Then ∇h has the magnitudes S·N·ψ(a_i) with
// ψ(a) = a^{q−1} − (q − 1)a, which is non-negative and increasing on [0, 1], so
// ‖∇h‖₂ = S·N·(Σψ(a_i)²)^{1/2} with Σa_i^q = 1. As a function of u = a^q, ψ² is concave on
// [0, 1] (with t = u^{2/q−1}, its second derivative has the sign of
// (1 − 1/q)(1 − t)² − (1/q)(1 − (q − 1)t)², which is ≤ 0 because 1/q ≥ 1/2 and (q − 1)t ≤ t),
// so by Jensen Σψ(a_i)² ≤ k·ψ(k^{−1/q})²: the equal magnitudes are the worst case. Hence
// ‖∇h‖₂ ≤ S·sup‖w‖_q·√k·ψ(k^{−1/q}), which grows with sup‖w‖_q; that is at most the domain's
// Radius(q) for ℓq (exact on a box, at the vertex v_i = max(|lo_i|, |hi_i|), and on a ball
// centred at 0), and at most k^{1/q−1/2}·Radius(2) for Schatten-q (‖σ‖_q ≤
// k^{1/q−1/2}‖σ‖₂ = k^{1/q−1/2}‖w‖_F).
func remainderLipschitz(r geom.Regularizer, dom geom.Domain, k int) (float64, error) {
	var q, s, n float64
	switch r := r.(type) {
	case *geom.LpRegularizer:
		q, s, k = r.Q(), r.Scale(), dom.Dim()
		n = dom.Radius(q)
	case *geom.SchattenRegularizer:
		q, s = r.Q(), r.Scale()
		n = detmath.PortablePow(float64(k), 1/q-0.5) * dom.Radius(2)
	default:
		return 0, fmt.Errorf("mech: no Lipschitz bound for the regularizer %T", r)
	}
	if !(q > 1 && q < 2) || math.Abs(r.Modulus(2)-s*(q-1)) > 1e-12*s {
		return 0, fmt.Errorf("mech: internal error: the remainder bound needs 1 < q < 2 and modulus S(q − 1), got q = %g", q)
	}
	kf := float64(k)
	psi := detmath.PortablePow(kf, -(q-1)/q) - (q-1)*detmath.PortablePow(kf, -1/q)
	l := s * n * math.Sqrt(kf) * psi * (1 + fpSlack)
	if math.IsNaN(l) || math.IsInf(l, 0) {
		return 0, fmt.Errorf("mech: the regularizer's Lipschitz constant on the domain is not finite (%g)", l)
	}
	return l, nil
}

// samplerConstants are the constants of the sampler's target f = k·F_D + kμ·h with Gaussian
// part kμσ₂. Each per-example term kℓ_i + kμh depends on w through a rank-1 projection (rank K
// for the multinomial loss) only when h = 0 and the loss is a plain linear-model loss.
func (pl *remLpPlan) samplerConstants() sampler.Constants {
	lossRank := 0 // the loss's per-example rank (0: the whole space)
	switch {
	case pl.problem.Loss.RobustRadius > 0:
	case pl.problem.Loss.Name == LossMultinomial:
		lossRank = pl.problem.Loss.Classes
	default:
		lossRank = 1
	}
	rank, smooth := lossRank, 0.0
	if !pl.gaussian {
		rank = 0 // the remainder is not a mean of low-rank terms
	}
	lossSmooth := !math.IsInf(pl.smooth, 1) && pl.smooth > 0
	if pl.gaussian && lossSmooth {
		smooth = pl.k * pl.smooth
	}
	lip := pl.k * (pl.g2 + pl.mu*pl.remLip)
	kind, radius := sampler.DomainOf(pl.problem.Domain)
	c := sampler.Constants{Lipschitz: lip, ExampleLipschitz: lip, ExampleRank: rank,
		Smoothness: smooth, StrongConvexity: pl.k * pl.mu * pl.sigma2, Domain: kind, Radius: radius}
	if !pl.gaussian && lossSmooth {
		// k·F_D is smooth and of the loss's rank; the remainder k·μ·(r − (σ₂/2)‖w‖²) is convex
		// (r is σ₂-strongly convex) and k·μ·remLip-Lipschitz on the domain.
		c.Split = sampler.SplitConstants{Rough: pl.k * pl.mu * pl.remLip, Smoothness: pl.k * pl.smooth, Rank: lossRank}
	}
	// The computed gradient's rounding (remLpTarget.GradError's bound at every x): the loss's,
	// the remainder's (lpRemainderErrors) and the sum's.
	if floor, slope := lossGradRounding(pl.problem, pl.k, pl.g2, pl.smooth, pl.dim); floor > 0 {
		c.GradErrorFloor, c.GradErrorSlope = floor, slope
		if !pl.gaussian {
			if lp, ok := pl.reg.(*geom.LpRegularizer); ok {
				_, hs := lpRemainderErrors(lp.Scale(), pl.dim, 0)
				c.GradErrorFloor = (floor + 0x1p-52*lip) * (1 + 0x1p-40)
				c.GradErrorSlope = (slope + pl.k*pl.mu*hs*(1+0x1p-40)) * (1 + 0x1p-40)
			}
		}
	}
	return c
}

func (pl *remLpPlan) Guarantee() privacy.Curve { return pl.guarantee }
func (pl *remLpPlan) Utility() Utility         { return pl.utility }

func (pl *remLpPlan) Cost() cost.Cost {
	if pl.certified {
		return pl.plan.Cost // its safe draws too, at their double-double price
	}
	steps := float64(pl.fast.Steps)
	return cost.Cost{Queries: 2 * steps * float64(pl.problem.N), Steps: steps}
}

func (pl *remLpPlan) Parameters() map[string]float64 {
	ps := map[string]float64{"norm": pl.mech.Norm, "k": pl.k, "mu": pl.mu, "mu_gdp": pl.muGDP, "sensitivity": pl.delta,
		"lipschitz": pl.gp, "lipschitz_l2": pl.g2, "theta": pl.theta, "modulus": pl.sigmaP, "modulus_l2": pl.sigma2,
		"remainder_lipschitz": pl.remLip, "radius": pl.problem.Radius, "delta_mechanism": pl.deltaMech}
	if pl.certified {
		ps["sampler_steps"] = float64(pl.plan.Steps)
		ps["sampler_step_size"] = pl.plan.Step
		ps["sampler_tv"] = pl.plan.TV
		ps["sampler_trial_cap"] = float64(pl.plan.TrialCap)
		if pl.safe {
			ps["sampler_tv_float"] = pl.plan.TVFloat
			ps["sampler_grid"] = pl.plan.Grid
		}
	} else {
		ps["sampler_steps"] = float64(pl.fast.Steps)
		ps["sampler_step_size"] = pl.fast.Step
	}
	return ps
}

// Run samples from π_D.
func (pl *remLpPlan) Run(ctx context.Context, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error) {
	start := time.Now()
	l, err := LossOver(pl.budget, pl.problem, ds)
	if err != nil {
		return nil, err
	}
	t := &remLpTarget{loss: l, k: pl.k, rows: pl.problem.N, kmu: pl.k * pl.mu, sigma2: pl.sigma2, constants: pl.samplerConstants(),
		domain: pl.problem.Domain, safe: pl.safe, g2: pl.g2}
	t.gauss = t.constants.StrongConvexity / t.kmu
	if replay.target != nil {
		replay.target("REM-lp", t, pl.k*pl.delta, pl.mech.Norm)
	}
	if !pl.gaussian {
		t.reg, t.scratch = pl.reg, make([]float64, pl.dim)
	}
	res, status, err := runSampler(ctx, pl.mech.Sampler, t, pl.plan, pl.fast, r, progress)
	if err != nil {
		return nil, err
	}
	rep, err := privacy.NewReport(pl.base, privacy.ReportSpec{
		Mechanism: fmt.Sprintf("%s (p = %g, %s)", pl.mech.Name(), pl.mech.Norm, pl.mech.Sampler), Paper: pl.mech.Paper(),
		Target:       privacy.Budget{Epsilon: pl.budget.Epsilon, Delta: pl.budget.Delta},
		Neighbouring: pl.budget.Relation(),
		Sensitivity: privacy.Sensitivity{Value: pl.delta, Of: fmt.Sprintf("the Lipschitz constant of F_D − F_D′ in the norm ℓ%g (Schatten for a matrix model), against the potentials' modulus kμσ_p in the same norm", pl.mech.Norm),
			Derivation: meanSensitivityDerivation(pl.budget, pl.gp, pl.problem.N) + fmt.Sprintf(", G in ℓ%g; σ_p = %.6g", pl.mech.Norm, pl.sigmaP)},
		Sampler: status, Randomness: randomness(r),
	})
	if err != nil {
		return nil, err
	}
	if pl.safe {
		rep.Statement += " " + fmt.Sprintf(floatingPointSafe, pl.plan.Grid)
	} else {
		rep.Statement += " " + exactArithmetic
	}
	details := map[string]float64{"sampler_steps": float64(res.Stats.Steps), "sampler_acceptance": res.Stats.AcceptanceRate(),
		"sampler_queries": float64(res.Stats.Queries), "sampler_clipped": float64(res.Stats.Clipped), "sampler_cap_hits": float64(res.Stats.CapHits)}
	if pl.safe {
		details["sampler_fallbacks"], details["sampler_undecided"] = float64(res.Stats.Fallbacks), float64(res.Stats.Undecided)
	}
	return &Release{
		Model: newModel(pl.problem, ds, res.X), Report: rep, Utility: pl.utility, Parameters: pl.Parameters(),
		Diagnostics: diagnose(l, pl.problem, ds, res.X, start, details),
	}, nil
}

// runSampler draws from a target in a sampling mode: the certified proximal sampler following
// plan, or a fast mode with its settings. It returns the result and what is certified about it.
func runSampler(ctx context.Context, mode SamplerMode, t sampler.Target, plan sampler.Plan, fast sampler.FastSettings, r *rng.Rand, progress func(Progress)) (sampler.Result, privacy.SamplerStatus, error) {
	report := func(fraction float64) {
		if progress != nil {
			progress(Progress{Fraction: fraction, Stage: "sampling"})
		}
	}
	var res sampler.Result
	var err error
	switch mode {
	case SampleMALA:
		res, err = sampler.MALA(ctx, t, fast, r, report)
	case SampleLangevin:
		res, err = sampler.ProjectedLangevin(ctx, t, fast, r, report)
	case SampleKinetic:
		res, err = sampler.KineticLangevin(ctx, t, fast, r, report)
	default:
		res, err = sampler.Run(ctx, t, plan, r, report)
	}
	if err != nil {
		return res, privacy.SamplerStatus{}, err
	}
	status := privacy.SamplerStatus{Statement: res.Statement}
	if res.Certified {
		status.Certified, status.TV = true, res.TV
	}
	return res, status, nil
}

// remLpTarget is the sampler's view of π_D: f = k·F_D + kμ·h, h = r − (σ₂/2)‖w‖² (absent when
// reg is nil), with the Gaussian part kμσ₂‖w‖²/2. It keeps scratch space: one per chain.
type remLpTarget struct {
	loss      loss.Loss
	reg       geom.Regularizer
	k, kmu    float64
	rows      int // the public N: the per-example terms are the rows' and N − n without a loss
	sigma2    float64
	safe      bool    // a floating-point-safe run: safeValue's evaluation (remlp_enclose.go)
	gauss, g2 float64 // σ′ = m/kμ as a float, and G in ℓ2
	scratch   []float64
	constants sampler.Constants
	domain    geom.Domain
	// cache holds the last two points whose remainder was computed: the stochastic oracle
	// queries many examples at the same pair of points, and r costs d powers (an SVD for a
	// Schatten regularizer) against the d products of one example's loss.
	cache [2]struct {
		x []float64
		h float64
	}
	next int
}

func (t *remLpTarget) Dim() int                     { return t.loss.Dim() }
func (t *remLpTarget) Constants() sampler.Constants { return t.constants }
func (t *remLpTarget) Domain() geom.Domain          { return t.domain }
func (t *remLpTarget) NumExamples() int             { return t.rows }

// remainder returns kμ·h(w).
func (t *remLpTarget) remainder(w []float64) float64 {
	if t.reg == nil {
		return 0
	}
	for _, c := range t.cache {
		if slices.Equal(c.x, w) {
			return c.h
		}
	}
	sq := 0.0
	for _, v := range w {
		sq += v * v
	}
	h := t.kmu * (t.reg.Value(w) - t.sigma2/2*sq)
	c := &t.cache[t.next]
	c.x, c.h = append(c.x[:0], w...), h
	t.next = 1 - t.next
	return h
}

func (t *remLpTarget) Value(x []float64) float64 {
	if t.safe {
		return t.safeValue(nil, x)
	}
	return t.k*t.loss.Mean(nil, x) + t.remainder(x)
}

func (t *remLpTarget) ExampleValue(i int, x []float64) float64 {
	if i >= t.loss.Len() {
		return t.remainder(x) // a row the public N allows that the data does not have: no loss
	}
	return t.k*t.loss.Value(x, i) + t.remainder(x)
}

func (t *remLpTarget) Grad(grad, x []float64) float64 {
	if t.safe {
		return t.safeValue(grad, x)
	}
	v := t.k * t.loss.Mean(grad, x)
	for i := range grad {
		grad[i] *= t.k
	}
	if t.reg == nil {
		return v
	}
	t.reg.Grad(t.scratch, x)
	for i, s := range t.scratch {
		grad[i] += t.kmu * (s - t.sigma2*x[i])
	}
	return v + t.remainder(x)
}
