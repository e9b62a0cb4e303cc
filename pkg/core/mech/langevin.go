package mech

import (
	"context"
	"fmt"
	"github.com/privopt/privopt/pkg/core/cost"
	"math"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/rng"
)

// Langevin is the discretised Langevin diffusion, that is projected noisy gradient descent
// (Ganesh, Thakurta and Upadhyay, eq. (18) with the projection of the proof of
// Lemma 2.2), on the regularised objective F_μ(θ) = F_D(θ) + (μ/2)‖θ‖₂², F_D the mean loss:
//
//	θ₀ = Π_C(0),  θ_{k+1} = Π_C(θ_k − h·∇F_μ(θ_k) + ξ_k),  ξ_k ~ N_Z(0, σ²) on a grid,
//
// for T steps, releasing θ_T. In the paper's parameters h = ηβ and σ² = 2η (inverse temperature
// β, step η, time t = Tη). The start is data-independent and the projection comes after the
// noise.
//
// Guarantee. Given θ_k, the drift θ_k − h∇F_μ(θ_k) has ℓ2 sensitivity h·Δ, Δ = 2G/n the
// sensitivity of the mean gradient under replace-one (G/n under add/remove with the sum divided
// by the public n; the regulariser cancels), plus what rounding adds (meanGradientRounding);
// rounding it to the grid adds 2g√d (g√d for rounding to the nearest grid point, g√d for the
// float64 rounding of the drift, at most g/2 per coordinate within Grid.Release's range).
// Each step adds discrete Gaussian noise, so it is ρ_k-zCDP with ρ_k = (hΔ + 2g√d)²/(2σ²)
// (Canonne, Kamath and Steinke 2020), and the T steps compose adaptively to ρ = T·ρ_k: the
// whole trajectory, hence θ_T, is ρ-zCDP. With the continuous Gaussian and no grid this is
// Ganesh, Thakurta and Upadhyay's Lemma 2.2, RDP α·β²Δ²t/4 (μ-GDP with μ = βΔ√(t/2) = √(2ρ)); the noise is discrete
// here so that the release (and every iterate) is safe against floating-point attacks, and it
// is accounted as μ-GDP up to the discrete noise's total variation from rounded Gaussian noise,
// folded into δ (see noisySteps; zCDP's conversion would give up about 13 % of ρ), or as zCDP
// when ε is too large for that. Convexity is not needed for privacy. The guarantee holds for
// the steps actually taken: a run whose context is cancelled after k < T steps releases θ_k
// with ρ·k/T (a Release, not an error; cancelled before the first step, Run returns the
// context's error).
//
// Utility (proved here, an optimisation-style bound; it does not use the Gibbs limit). Assume the
// losses are convex, G-Lipschitz and β-smooth, so F_μ is μ-strongly convex and (β + μ)-smooth.
// With h = 2/(β + 2μ) the gradient step is a (1 − hμ)-contraction, θ* = argmin_C F_μ is its
// fixed point after projection, and the projection is non-expansive, so with q = 1 − hμ,
// V_k = E‖θ_k − θ*‖² satisfies √V_{k+1} ≤ √(q²V_k + dσ²) + 2g√d (the last term for the
// rounding to the grid and of the drift; the map V ↦ √(q²V + dσ²) is q-Lipschitz in √V), hence
//
//	√V_T ≤ √(q^{2T}·D₀² + dσ²·(1 − q^{2T})/(1 − q²)) + 2g√d/(hμ),
//
// with D₀ ≥ ‖θ₀ − θ*‖ (G/μ when 0 ∈ C, since μ‖θ*‖² ≤ ⟨−∇F_D(θ*), θ*⟩; at most the domain's
// diameter always). For u ∈ C with ‖u‖ ≤ D, F_D(θ*) ≤ F_D(u) + μD²/2, so
// E F_D(θ_T) − F_D(u) ≤ μD²/2 + G·√V_T (Lipschitz), and on the whole space also
// ≤ μD²/2 + ((β + μ)/2)·V_T (smooth, ∇F_μ(θ*) = 0); the utility is the smaller. The bound holds
// in exact arithmetic for the computed gradients (their own rounding, a relative n·2⁻⁵³, is left
// out of it; the privacy guarantee includes it).
//
// Parameters, from public quantities only (n, d, G, β, D, ε, δ): with τ = T·h the total drift
// time, the privacy constraint gives σ² = h·Δ²·τ/(2ρ) (ignoring the grid), the contraction
// gives q^{2T} ≈ e^{−2μτ}, and the stationary term is dΔ²τ/(2ρμ(2 − hμ)). For each μ the τ that
// minimises e^{−2μτ}D₀² + dΔ²τ/(2ρμ(2 − hμ)) has a closed form; μ then minimises the bound
// (argminLog), T = ⌈τ/h⌉ (at most MaxQueries/n), and σ is set from T so that ρ is met exactly.
//
// The losses must be smooth (a non-smooth loss has no contraction; use outpert), and the loss
// a plain mean (no tilt: the tilted gradient's sensitivity needs bounded iterates).

// Langevin releases the last iterate of projected noisy gradient descent (the discretised
// Langevin diffusion) on the mean loss plus a ridge (μ/2)‖θ‖₂², from a data-independent start.
// Guarantee: (ε, δ)-DP under either relation with δ > 0, as μ-GDP (or ρ-zCDP) of its discrete
// Gaussian steps, exactly calibrated, the discrete noise's total variation folded into δ;
// floating-point safe; a cancelled run releases the steps taken, at their smaller cost.
// Utility: the excess-risk bound proven in the comment block above, μD²/2 + G·√V_T, which
// also sets the ridge, the step and the number of steps from public quantities. It needs a
// smooth loss that is a plain mean (no tilt). Settings: MaxQueries caps the work.
type Langevin struct {
	// MaxQueries caps the per-example gradient evaluations, T·n (default 1e10).
	MaxQueries float64
}

// Name returns "langevin".
func (Langevin) Name() string { return "langevin" }

// Paper names the source.
func (Langevin) Paper() string {
	return "Ganesh, Thakurta and Upadhyay, DP Sampling from Rashomon Sets, and the Universality of Langevin Diffusion for Convex Optimization (eq. (18), Lemma 2.2); Canonne, Kamath and Steinke 2020 for the discrete noise"
}

// langevinPlan is a planned run of projected noisy gradient descent.
type langevinPlan struct {
	noisySteps
	mech    Langevin
	problem Problem

	beta   float64 // β of the losses in ℓ2
	origin bool    // whether 0 ∈ C
	mu     float64 // the regulariser

	utility Utility
}

// Plan fixes μ, h, T, the grid and σ from the budget and the problem.
func (m Langevin) Plan(b privacy.Budget, p Problem) (Plan, error) {
	if m.MaxQueries == 0 {
		m.MaxQueries = defaultMaxQueries
	}
	maxSteps := math.Max(1, math.Floor(m.MaxQueries/float64(max(p.N, 1))))
	steps, c, err := newNoisySteps(m.Name(), b, p, 1, int(math.Min(maxSteps, math.MaxInt32)), 0)
	if err != nil {
		return nil, err
	}
	pl := &langevinPlan{noisySteps: steps, mech: m, problem: p, beta: c.Smoothness,
		origin: p.Domain.Contains(make([]float64, p.params()))}
	ref := pl.g / p.Radius
	pl.mu = argminLog(func(mu float64) float64 {
		h := pl.step(mu)
		steps := pl.idealSteps(mu, h, maxSteps)
		sigma2 := h * pl.delta * pl.delta * steps * h / (2 * pl.rhoTarget)
		return pl.bound(mu, h, steps, sigma2, 0)
	}, minLambdaOverG*ref, maxLambdaOverG*ref)
	pl.h = pl.step(pl.mu)
	pl.steps = int(pl.idealSteps(pl.mu, pl.h, maxSteps))
	if err := pl.planNoise(); err != nil {
		return nil, err
	}
	pl.utility = pl.utilityAt(pl.steps)
	return pl, nil
}

// step returns the drift step h = 2/(β + 2μ), at which the gradient step of the μ-strongly
// convex, (β + μ)-smooth F_μ contracts by 1 − hμ.
func (pl *langevinPlan) step(mu float64) float64 { return 2 / (pl.beta + 2*mu) }

// initialDistance returns D₀ ≥ ‖Π_C(0) − θ*‖: min(G/μ, diam C) when 0 ∈ C, diam C otherwise.
func (pl *langevinPlan) initialDistance(mu float64) float64 {
	diam := 2 * pl.problem.Domain.Radius(2)
	if pl.origin {
		return math.Min(pl.g/mu, diam)
	}
	return diam
}

// idealSteps returns the number of steps T = ⌈τ/h⌉ in [1, maxSteps], τ minimising
// A·e^{−cτ} + B·τ with A = D₀², c = −2·log(q)/h and B = dΔ²/(2ρμ(2 − hμ)): τ = log(cA/B)/c.
func (pl *langevinPlan) idealSteps(mu, h, maxSteps float64) float64 {
	q := 1 - h*mu
	a := pl.initialDistance(mu)
	a *= a
	bb := float64(pl.dim) * pl.delta * pl.delta / (2 * pl.rhoTarget * mu * (2 - h*mu))
	if q <= 0 { // β = 0: one step reaches θ*
		return 1
	}
	c := -2 * detmath.Log(q) / h
	if !(c*a > bb) {
		return 1
	}
	tau := detmath.Log(c*a/bb) / c
	return math.Max(1, math.Min(maxSteps, math.Ceil(tau/h)))
}

// bound returns the utility bound after k steps with noise variance sigma2 per coordinate
// (real units) and grid spacing g.
func (pl *langevinPlan) bound(mu, h, k, sigma2, g float64) float64 {
	d := float64(pl.dim)
	q := 1 - h*mu
	q2k := detmath.Exp(2 * k * detmath.Log(q))
	if q <= 0 {
		q2k = 0
	}
	d0 := pl.initialDistance(mu)
	v := q2k*d0*d0 + d*sigma2*(1-q2k)/(1-q*q)
	rms := math.Sqrt(v) + 2*g*math.Sqrt(d)/(h*mu)
	reg := mu * pl.problem.Radius * pl.problem.Radius / 2
	lip := reg + pl.g*rms
	if !isWhole(pl.problem.Domain) {
		return lip
	}
	return math.Min(lip, reg+(pl.beta+mu)/2*rms*rms)
}

// utilityAt is the utility bound after k steps.
func (pl *langevinPlan) utilityAt(k int) Utility {
	g := pl.grid.Spacing()
	b := roundUp(pl.bound(pl.mu, pl.h, float64(k), pl.sigma2*g*g, g))
	form := "the smaller of μD²/2 + G·√V and μD²/2 + ((β + μ)/2)·V"
	if !isWhole(pl.problem.Domain) {
		form = "μD²/2 + G·√V (the domain is bounded, so only the Lipschitz form holds)"
	}
	return Utility{Bound: b, Statement: fmt.Sprintf("E F_D(θ_k) − min_{θ ∈ C, ‖θ‖ ≤ D} F_D(θ) ≤ %s after k = %d steps, where √V = √(q^{2k}D₀² + dσ²(1 − q^{2k})/(1 − q²)) + 2g√d/(hμ) bounds the root mean square distance to θ* = argmin_C F_μ (the gradient step of the μ-strongly convex, (β + μ)-smooth F_μ with h = 2/(β + 2μ) contracts by q = 1 − hμ; the noise is centred and independent; the grid's rounding adds at most 2g√d per step), with F_D the mean loss (convex, G-Lipschitz, β-smooth), μ = %.4g, h = %.4g, σ = %.4g, G = %.4g, β = %.4g, D = %g; an optimisation bound for the released iterate, not the Gibbs limit d/β", form, k, pl.mu, pl.h, pl.sigma, pl.g, pl.beta, pl.problem.Radius)}
}

func (pl *langevinPlan) Guarantee() privacy.Curve { return pl.curveAt(pl.steps) }
func (pl *langevinPlan) Utility() Utility         { return pl.utility }

// Cost counts a gradient pass over the examples per step (per-example gradient queries).
func (pl *langevinPlan) Cost() cost.Cost {
	return cost.Cost{Gradients: float64(pl.steps) * float64(pl.problem.N), Steps: float64(pl.steps)}
}

func (pl *langevinPlan) Parameters() map[string]float64 {
	eta := pl.sigma * pl.sigma / 2
	out := map[string]float64{"regularization_mu": pl.mu, "step_h": pl.h, "steps": float64(pl.steps), "sigma": pl.sigma,
		"eta": eta, "beta_inverse_temperature": pl.h / eta, "time": float64(pl.steps) * eta,
		"sensitivity": pl.delta, "step_sensitivity": pl.stepSens,
		"grid_spacing": pl.grid.Spacing(), "lipschitz": pl.g, "smoothness": pl.beta, "radius": pl.problem.Radius}
	pl.addAccounting(out)
	return out
}

// Run runs the chain; a cancelled context stops it, and the steps taken are released.
func (pl *langevinPlan) Run(ctx context.Context, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error) {
	return pl.fit(ctx, fitted{mech: pl.mech, problem: pl.problem,
		rule:    stepRule{shrink: 1 - pl.h*pl.mu, length: 1, stage: "noisy gradient descent"},
		utility: pl.utilityAt, parameters: pl.Parameters(),
		release: "The release is the last iterate, from the data-independent start Π_C(0).",
	}, ds, r, progress)
}
