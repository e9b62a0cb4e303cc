package mech

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/privopt/privopt/pkg/core/cost"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/rng"
	"github.com/privopt/privopt/pkg/solve"
)

// Defaults of the Rashomon-set sampler.
const (
	defaultThresholdShare = 0.05
	// rashomonMixTV is the total-variation distance to the Gibbs measure that the (ε, δ) mode's
	// default number of steps aims at, under a continuous-time mixing model (utility only).
	rashomonMixTV = 0.01
	// maxThresholdIterations caps L-BFGS in the (ε, δ) mode; a failure only drops the threshold.
	maxThresholdIterations = 10000
)

// Rashomon is the Rashomon-set sampler of Ganesh, Thakurta and Upadhyay (§2–3):
// it releases one sample of the Gibbs measure of the thresholded loss,
//
//	π_D(w) ∝ exp(−β·max{F_D(w), τ_D + ψ}) on the domain C,
//
// with τ_D a certified approximation of the minimum F_D* computed inside the mechanism. The
// measure is flat on the Rashomon set {w ∈ C : F_D(w) ≤ τ_D + ψ} of near-optimal models and at
// least as dense there as anywhere else. It has two modes, chosen by the budget's δ.
//
// Pure ε-DP (δ = 0), on a box or an ℓp ball, for a smooth loss. As for ExpMech, the score's
// change between neighbours spans an interval of length s = 2R/n (R/n under add/remove) on C;
// the minimum F_D* changes within the same interval, and the threshold is computed by FISTA
// with an a-priori bound, so τ_D ∈ [F_D* − η, F_D*] for every dataset, η = share·s/2. The
// score's change then spans at most s + 2η (the maximum of two functions changes between the
// smaller and the larger of their changes), and β = ε/(s + 2η) gives ε-DP: this is Ganesh, Thakurta and Upadhyay's
// Theorem 2.1 (β = εn/(2L‖C‖)) with the solver's error accounted for, which the paper, assuming
// F_D* exact, does not do. Sampling is exact rejection from uniform proposals (sampleGibbs) with
// the floor τ_D + ψ, which every score value reaches, so the acceptance probability never
// exceeds 1; the cost is that of ExpMech, lowered by ψ in the exponent. Utility: E F_D(ŵ) −
// F_D* ≤ ψ + d/β exactly (Theorem 2.4 for the convex score, and τ_D ≤ F_D*). Default ψ = d/β.
//
// (ε, δ)-DP (δ > 0), on any domain with a Euclidean projection, for a smooth loss, with a ridge
// λ > 0: the objective is F_λ = F_D + (λ/2)‖w‖², and τ_D ≤ inf_{R^d} F_λ is the strong-convexity
// lower bound F_λ(x) − ‖∇F_λ(x)‖²/(2λ) at an L-BFGS solution x (−∞ if L-BFGS fails: privacy
// needs only τ_D ≤ inf F_λ). The release is the last point of T steps of projected Langevin
// dynamics (noisy gradient descent) on U = β·max{F_λ, τ_D + ψ},
//
//	w ← Π_C(w − h·∇U(w) + √(2h)·ξ),  ξ ~ N(0, I),  from a data-independent start,
//
// where ∇U = β∇F_λ outside the flat set and 0 inside. Guarantee: μ-GDP with μ = βΔ_ψ√(Th/2)
// for the chain in real numbers (Gaussian composition of T Gaussian mechanisms; the projection
// is post-processing; Ganesh, Thakurta and Upadhyay, Lemma 2.2, whose RDP bound is this curve's). As run, each step
// releases its drift w − hβ∇F_λ rounded to a grid with discrete Gaussian noise (noisySteps,
// planChain): floating-point safe, with the Gaussian accounting of the other noisy gradient
// methods (μ-GDP up to the discrete noise's certified total variation, folded into δ), and
// the flat test allows for the rounding of F_λ (gradient, threshold). Δ_ψ
// bounds ‖∇max{F_λ,D, τ_D + ψ} − ∇max{F_λ,D′, τ_D′ + ψ}‖ at every point: 2G/n (G/n under
// add/remove) where neither is flat, 0 where both are, and where only D's is flat,
// ‖∇F_λ,D′‖ ≤ ‖∇F_λ,D‖ + 2G/n ≤ √(2Mψ) + 2G/n, since an M-smooth function satisfies
// ‖∇F‖² ≤ 2M(F − inf F) and F_λ,D ≤ τ_D + ψ ≤ inf F_λ,D + ψ there. So Δ_ψ = 2G/n + √(2Mψ)
// (M the smoothness of F_λ): the "safe" value of the project's notes, valid for every dataset
// because τ_D bounds the unconstrained infimum (Ganesh, Thakurta and Upadhyay's 3·max{L/n, √(Mψ/2)} assumes an
// interior minimizer). No sampler error enters the privacy: the chain as run is the mechanism.
// Its distance to π_D is not certified (the discretization is not bounded); it affects only
// the utility and the Rashomon property. The default number of steps comes from the
// continuous-time mixing rate (log-Sobolev constant βλ·e^{−βψ}, Bakry–Émery and Holley–Stroock,
// Ganesh, Thakurta and Upadhyay, Lemma B.5) for a total-variation distance of 0.01, with h = 1/(4βM); β follows from
// μ. Utility of π_D: E F_D(ŵ) − min_{w∈C, ‖w‖₂≤D} F_D(w) ≤ λD²/2 + ψ + d/β (Theorem 2.4 for the
// convex score; τ_D ≤ min_C F_λ). Defaults: ψ = s²/(2M₀), s = 2G/n and M₀ the loss's
// smoothness, the largest threshold that (about) doubles the gradient sensitivity (Ganesh, Thakurta and Upadhyay,
// Theorem 2.3 (ii)); λ minimising the bound under the mixing model.

// Rashomon releases one sample of the Gibbs measure of the loss thresholded at a certified
// approximation of its minimum plus ψ, which is flat on the set of near-optimal models.
// Guarantee: pure ε-DP by rejection sampling (δ = 0: a box or an ℓp ball, a smooth loss;
// floating-point safe as ExpMech's, up to the same unaccounted rounding of the decisions), or (ε, δ)-DP under either relation by a noisy
// Langevin chain on a grid (δ > 0; its discretisation error folded into δ). Utility:
// E F_D(ŵ) − F_D* ≤ ψ + d/β (with a ridge's λD²/2 in the (ε, δ) mode). Settings: Psi, the
// threshold's share of the budget, the ridge and the chain's steps, each with a default from
// public quantities; the method and its proof are in the comment block above.
type Rashomon struct {
	// Psi is the threshold ψ > 0; 0 chooses the mode's default (use ExpMech for ψ = 0).
	Psi float64
	// ThresholdShare (pure mode) is the share of the sensitivity spent on the threshold's
	// solver error (default 0.05): β = ε/(s·(1 + share)).
	ThresholdShare float64
	// Ridge (approximate mode) is λ > 0; 0 chooses the default.
	Ridge float64
	// Steps (approximate mode) is the number T of Langevin steps; 0 chooses the default.
	Steps int
}

// Name returns "rashomon".
func (Rashomon) Name() string { return "rashomon" }

// Paper names the source.
func (Rashomon) Paper() string {
	return "Ganesh, Thakurta and Upadhyay, DP Sampling from Rashomon Sets, and the Universality of Langevin Diffusion for Convex Optimization (Theorems 2.1, 2.3, 2.4, Lemma 2.2)"
}

// Plan fixes every parameter from public quantities: the pure mode when the budget's δ is 0,
// the Langevin mode otherwise.
func (m Rashomon) Plan(b privacy.Budget, p Problem) (Plan, error) {
	if err := ValidateBudget(b); err != nil {
		return nil, err
	}
	if !(m.Psi >= 0) || math.IsInf(m.Psi, 1) {
		return nil, fmt.Errorf("mech: the Rashomon threshold ψ must be finite and positive, got %g", m.Psi)
	}
	if b.Delta == 0 {
		share := m.ThresholdShare
		if share == 0 {
			share = defaultThresholdShare
		}
		psi := m.Psi
		if psi == 0 {
			// β does not depend on ψ > 0: plan once to find it, then set ψ = d/β.
			pl, err := planGibbs(m.Name(), m.Paper(), b, p, 1, share)
			if err != nil {
				return nil, err
			}
			psi = float64(pl.dim) / pl.beta
		}
		return planGibbs(m.Name(), m.Paper(), b, p, psi, share)
	}
	return m.planLangevin(b, p)
}

// rashomonPlan is a planned run of the (ε, δ) Rashomon sampler.
type rashomonPlan struct {
	mech           Rashomon
	budget         privacy.Budget
	problem        Problem
	g, smooth      float64 // G and M₀ of the losses in ℓ2
	lambda, psi    float64
	sens, deltaPsi float64 // 2G/n and Δ_ψ
	beta, step     float64 // β and h (so that h·β = 1/(4M))
	steps          int
	muTarget       float64
	solverTarget   float64 // L-BFGS certificate ‖x − x*‖ for τ
	utility        Utility
	// chain releases each step's drift on a grid with discrete Gaussian noise (noisySteps).
	chain noisySteps
}

// planLangevin plans the (ε, δ) mode.
func (m Rashomon) planLangevin(b privacy.Budget, p Problem) (Plan, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Loss.Tilt != 0 {
		return nil, errors.New("mech: the Rashomon sampler needs a mean of per-example losses; tilted ERM is supported by output perturbation")
	}
	if !(m.Ridge >= 0) || math.IsInf(m.Ridge, 1) || m.Steps < 0 {
		return nil, fmt.Errorf("mech: the ridge must be finite and at least 0 and the steps at least 0, got %g and %d", m.Ridge, m.Steps)
	}
	c, err := p.Constants(2)
	if err != nil {
		return nil, err
	}
	if math.IsInf(c.Lipschitz, 1) || math.IsInf(c.Smoothness, 1) {
		return nil, fmt.Errorf("mech: the (ε, δ) Rashomon sampler needs a Lipschitz, smooth loss (its sensitivity uses the smoothness), not %q on this domain", p.Loss.Name)
	}
	pl := &rashomonPlan{mech: m, budget: b, problem: p, g: c.Lipschitz, smooth: c.Smoothness, psi: m.Psi}
	pl.sens = Sensitivity(b, pl.g, p.N)
	if pl.psi == 0 {
		pl.psi = pl.sens * pl.sens / (2 * pl.smooth)
	}
	if pl.muTarget, err = privacy.CalibrateGDP(b.Epsilon, b.Delta); err != nil {
		return nil, err
	}
	d, dd := float64(p.params()), p.Radius
	// The continuous-time mixing model (utility only; the chain starts at Π_C(0), and its first
	// noisy step lands about where this model's start does): KL of the start N(0, I/(βM)) from a
	// Gaussian of precision βλ centred within ‖w‖ ≤ D is at most (d·log(M/λ) + βλD²)/2; the
	// log-Sobolev constant βλ·e^{−βψ} gives time log(KL₀/(2·TV²))/(2βλe^{−βψ}), and with
	// h = 1/(4βM) that is T = 2(M/λ)·log(KL₀/(2·TV²))·e^{βψ} steps. β then follows from
	// μ = Δ_ψ√(βT/(8M)). λ minimises λD²/2 + d/β at that T. A fixed-point iteration settles
	// the three; privacy does not depend on it (μ is recomputed from the final values).
	logMix, betaPsi := 10.0, 0.0
	for range 50 {
		pl.lambda = m.Ridge
		if pl.lambda == 0 {
			pl.lambda = pl.deltaOf(pl.smooth) * math.Sqrt(d*logMix*detmath.Exp(betaPsi)/2) / (dd * pl.muTarget)
		}
		mm := pl.smooth + pl.lambda
		pl.deltaPsi = pl.deltaOf(mm)
		pl.steps = m.Steps
		if pl.steps == 0 {
			pl.steps = int(math.Min(math.Ceil(2*mm/pl.lambda*logMix*detmath.Exp(betaPsi)), 1<<31))
		}
		pl.beta = 8 * mm * pl.muTarget * pl.muTarget / (pl.deltaPsi * pl.deltaPsi * float64(pl.steps))
		kl0 := (d*detmath.Log(mm/pl.lambda) + pl.beta*pl.lambda*dd*dd) / 2
		logMix = math.Max(1, detmath.Log(kl0/(2*rashomonMixTV*rashomonMixTV)))
		betaPsi = math.Min(pl.beta*pl.psi, 50)
	}
	if !(pl.lambda > 0) || math.IsInf(pl.lambda, 1) || !(pl.beta > 0) || math.IsInf(pl.beta, 1) {
		return nil, fmt.Errorf("mech: no finite parameters for the Rashomon sampler (λ = %g, β = %g)", pl.lambda, pl.beta)
	}
	if err := pl.planChain(); err != nil {
		return nil, err
	}
	// τ within min(ψ, 1/β)/10 of the infimum: ‖∇F_λ‖²/(2λ) = λr²/2 for a certificate r.
	pl.solverTarget = math.Sqrt(2 * math.Min(pl.psi, 1/pl.beta) / 10 / pl.lambda)
	pl.utility = Utility{Bound: pl.lambda*dd*dd/2 + pl.psi + d/pl.beta,
		Statement: "E F_D(w) − min_{w∈C, ‖w‖₂≤D} F_D(w) ≤ λD²/2 + ψ + d/β for the Gibbs measure of max{F_D + (λ/2)‖w‖², τ_D + ψ} on C (Ganesh, Thakurta and Upadhyay, Theorem 2.4, after Bassily, Smith and Thakurta 2014, Theorem 3.2); the release comes from a Langevin chain whose distance to that measure is not certified, so the bound is the theory's for the exact measure"}
	return pl, nil
}

// planChain plans the chain's floating-point-safe steps (see noisySteps): each step releases
// the drift w − η·∇U/β, η = 1/(4M), rounded to a grid with discrete Gaussian noise whose σ
// makes the T steps meet the budget; the drift's sensitivity is η·Δ_ψ (plus the mean
// gradient's rounding). The Langevin step that noise corresponds to is h = σ²/2, and β = η/h:
// the chain runs U = β·max{F_λ, τ + ψ} at that temperature, within a relative 10⁻⁹ or so of
// the β the continuous model chose (the grid's rounding and the Gaussian accounting's share).
func (pl *rashomonPlan) planChain() error {
	mm := pl.smooth + pl.lambda
	s := noisySteps{budget: pl.budget, n: pl.problem.N, dim: pl.problem.params(), g: pl.g, clipAt: math.Inf(1), clip: 1}
	s.delta = roundUp(pl.deltaPsi + meanGradientRounding(pl.problem.N, pl.g))
	var err error
	if s.rhoTarget, s.tvBudget, s.gdp, err = gaussianTarget(pl.budget, pl.steps*s.dim, 0); err != nil {
		return err
	}
	s.h, s.steps = 1/(4*mm), pl.steps
	if err := s.planNoise(); err != nil {
		return err
	}
	s.sensitivityOf = "the ℓ2 distance between one step's rounded drifts w − η∇max{F_D + (λ/2)‖w‖², τ_D + ψ}(w) on neighbouring datasets, in real units"
	s.sensitivityDerivation = fmt.Sprintf("η·Δ_ψ + 2g√d with η = 1/(4M) = %.6g, g = %.3g and Δ_ψ = s + √(2Mψ) = %.6g the thresholded gradient's sensitivity, with s = %s, M = %.6g (the smoothness of F_D + (λ/2)‖w‖²) and ψ = %.6g, plus a rounding allowance 4(%s + 4)·2⁻⁵³·G",
		s.h, s.grid.Spacing(), pl.deltaPsi, meanSensitivityDerivation(pl.budget, pl.g, pl.problem.N), mm, pl.psi, rowsName(pl.budget))
	pl.chain = s
	pl.step = s.sigma * s.sigma / 2
	pl.beta = s.h / pl.step
	return nil
}

// deltaOf returns Δ_ψ = s + √(2Mψ) for smoothness M.
func (pl *rashomonPlan) deltaOf(smooth float64) float64 {
	return pl.sens + math.Sqrt(2*smooth*pl.psi)
}

func (pl *rashomonPlan) Guarantee() privacy.Curve { return pl.chain.curveAt(pl.steps) }
func (pl *rashomonPlan) Utility() Utility         { return pl.utility }

// Cost counts the chain's gradient passes as per-example gradient queries (the threshold's
// L-BFGS run, at most maxThresholdIterations passes and usually far fewer, is not included).
func (pl *rashomonPlan) Cost() cost.Cost {
	return cost.Cost{Gradients: float64(pl.steps) * float64(pl.problem.N), Steps: float64(pl.steps)}
}

func (pl *rashomonPlan) Parameters() map[string]float64 {
	ps := map[string]float64{"beta": pl.beta, "psi": pl.psi, "ridge": pl.lambda, "steps": float64(pl.steps), "step": pl.step,
		"sensitivity": pl.deltaPsi, "lipschitz": pl.g, "smoothness": pl.smooth + pl.lambda, "radius": pl.problem.Radius,
		"sigma": pl.chain.sigma, "grid": pl.chain.grid.Spacing()}
	pl.chain.addAccounting(ps)
	return ps
}

// Run computes the threshold and runs the chain; stopped early, it releases the point reached
// with the privacy of the steps taken.
func (pl *rashomonPlan) Run(ctx context.Context, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error) {
	start := time.Now()
	l, err := LossOver(pl.budget, pl.problem, ds)
	if err != nil {
		return nil, err
	}
	if progress != nil {
		progress(Progress{Fraction: 0, Stage: "solving"})
	}
	obj := ridged{loss: l, lambda: pl.lambda}
	tau, solverIters := pl.threshold(obj)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	flat := 0
	rule := stepRule{shrink: 1, length: 1, stage: "Langevin sampling", gradient: func(g, x []float64) {
		if pl.gradient(obj, tau, g, x) {
			flat++
		}
	}}
	x, k, err := pl.chain.run(ctx, l, pl.problem.Domain, rule, r, progress)
	if err != nil {
		return nil, fmt.Errorf("mech: %s: %w", pl.mech.Name(), err)
	}
	rep, err := pl.chain.report(pl.mech, k, r)
	if err != nil {
		return nil, err
	}
	rep.Mechanism = pl.mech.Name() + " (projected Langevin chain on a grid, (ε, δ))"
	rep.Statement += fmt.Sprintf(" The chain runs Langevin dynamics on U = β·max{F_D + (λ/2)‖w‖², τ_D + ψ} with β = %.6g, λ = %.6g and ψ = %.6g, from the data-independent start Π_C(0); τ_D is a certified lower bound on the infimum of F_D + (λ/2)‖w‖², and a point counts as flat only when its computed value plus a bound on its rounding error is at most τ_D + ψ, so the sensitivity holds in floating point. The release is the last point (post-processing); its distance to the Rashomon Gibbs measure is not certified, which affects only the utility.",
		pl.beta, pl.lambda, pl.psi)
	details := map[string]float64{"threshold_solver_iterations": float64(solverIters), "flat_steps": float64(flat), "steps_taken": float64(k)}
	if !math.IsInf(tau, -1) {
		details["threshold"] = tau // absent when L-BFGS failed and the chain had no flat set
	}
	return &Release{
		Model: newModel(pl.problem, ds, x), Report: rep, Utility: pl.utility, Parameters: pl.Parameters(),
		Diagnostics: diagnose(l, pl.problem, ds, x, start, details),
	}, nil
}

// gradient writes into g the gradient of max{F_λ, τ + ψ} at x that the chain uses: ∇F_λ(x),
// or 0 where x is flat (which it reports). Its sensitivity is Δ_ψ, whose proof needs only
// that a flat x has F_λ(x) ≤ inf F_λ + ψ exactly: x is flat when its computed F_λ plus a bound
// on that computation's rounding error (valueError) is at most τ + ψ, τ ≤ inf F_λ being exact
// (threshold). Rounding can then only make fewer points flat, which the proof allows.
func (pl *rashomonPlan) gradient(obj ridged, tau float64, g, x []float64) bool {
	f := obj.valueGrad(g, x)
	if f+pl.valueError(f, x) <= math.Nextafter(tau+pl.psi, math.Inf(-1)) {
		clear(g)
		return true
	}
	return false
}

// valueError bounds |F̃_λ(x) − F_λ(x)| for a computed value f = F̃_λ(x), F_λ = F + (λ/2)‖x‖²
// with F the mean of N non-negative losses of linear predictions: each prediction's dot
// product of d terms is within γ_d·‖x‖·X of the exact one (γ_k = k·2⁻⁵²), which moves a
// G-Lipschitz loss by γ_d·G·‖x‖ (G = S·X); each loss is evaluated to a few units in the last
// place; the sum of N non-negative terms and the division add γ_{N+8} relative; the ridge's
// sum of squares γ_d relative. So |F̃ − F| ≤ γ_{N+8}·F + γ_d·G·‖x‖ + γ_d·(λ/2)‖x‖², with F ≤
// (1 + 2γ_{N+8})·f, doubled for safety. At the defaults ψ = s²/(2M) falls near this bound from
// about N = 3·10⁵ rows: the flat set then shrinks, and the sensitivity still holds.
func (pl *rashomonPlan) valueError(f float64, x []float64) float64 {
	gn, gd := float64(pl.problem.N+8)*0x1p-52, float64(len(x)+2)*0x1p-52
	sq := 0.0
	for _, v := range x {
		sq += v * v
	}
	norm := math.Sqrt(sq)
	return 2 * (gn*(1+2*gn)*math.Abs(f) + gd*pl.g*norm + gd*pl.lambda/2*sq)
}

// threshold returns τ ≤ inf_{R^d} F_λ: the strong-convexity bound F_λ(x) − ‖∇F_λ(x)‖²/(2λ) at
// the L-BFGS solution x, made a lower bound in floating point too (F_λ(x) less its rounding
// bound, ‖∇F_λ(x)‖ plus its rounding bound), or −∞ when L-BFGS does not reach its certificate
// (then the chain has no flat set; privacy holds for any τ below the infimum). It returns the
// solver's iterations.
func (pl *rashomonPlan) threshold(obj ridged) (float64, int) {
	dim := obj.loss.Dim()
	res, err := solve.LBFGS(solve.Problem{Func: func(x []float64) float64 { return obj.valueGrad(nil, x) }, Grad: func(g, x []float64) { obj.valueGrad(g, x) }, FuncGrad: obj.valueGrad},
		make([]float64, dim), solve.Settings{Target: pl.solverTarget, StrongConvexity: pl.lambda, Smoothness: pl.smooth + pl.lambda, MaxIter: maxThresholdIterations})
	if err != nil {
		return math.Inf(-1), maxThresholdIterations
	}
	g := make([]float64, dim)
	f := obj.valueGrad(g, res.X)
	// The gradient's rounding: the mean of N terms of norm at most G (meanGradientRounding's
	// argument), and the ridge's λx added coordinate by coordinate.
	gradErr := meanGradientRounding(pl.problem.N, pl.g) + float64(dim+2)*0x1p-52*(pl.g+pl.lambda*geom.Norm(res.X, 2))
	n := roundUp(geom.Norm(g, 2) + gradErr)
	tau := (f - pl.valueError(f, res.X)) - roundUp(n*n/(2*pl.lambda))
	return math.Nextafter(tau, math.Inf(-1)), res.Stats.Iterations
}

// ridged is F_λ(w) = F_D(w) + (λ/2)‖w‖².
type ridged struct {
	loss   loss.Loss
	lambda float64
}

// valueGrad returns F_λ(w) and, if g is not nil, writes ∇F_λ(w) into it.
func (o ridged) valueGrad(g, w []float64) float64 {
	f := o.loss.Mean(g, w)
	sq := 0.0
	for i, v := range w {
		sq += v * v
		if g != nil {
			g[i] += o.lambda * v
		}
	}
	return f + o.lambda/2*sq
}
