package mech

import (
	"cmp"
	"context"
	"fmt"
	"github.com/privopt/privopt/pkg/core/cost"
	"math"
	"strings"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// noisy-gd, in detail (NoisyGD's doc comment, below, is its contract).
//
// NoisyGD is projected noisy gradient descent with Polyak's heavy-ball momentum on the mean
// loss F_D, with no regulariser, releasing the average of the last half of its iterates: the
// practical member of the noisy gradient family of Ganesh, Thakurta and Upadhyay (whose Langevin diffusion is the
// same recursion with a strongly convex regulariser, no momentum and b = 1):
//
//	θ₀ = θ₋₁ = Π_C(0),  z_k = round(θ_k − h·∇F̃_D(θ_k)) + ξ_k,  ξ_k ~ N_Z(0, σ²) on a grid,
//	θ_{k+1} = Π_C(θ_k + b·(z_k − θ_k) + m·(θ_k − θ_{k−1})),
//
// for T steps, releasing (θ_{⌈T/2⌉} + … + θ_T)/(T − ⌈T/2⌉ + 1), where F̃_D is the mean of the
// clipped surrogate losses: for a linear model ℓ(w; x, y) = s(⟨w, x⟩, y), each example's
// derivative s' is clipped to [−a, a] with a = q·S (S the bound on |s'| that makes the loss
// G = S·max‖x‖-Lipschitz, on the domain for a margin loss and at the prediction 0 for a
// regression loss, see "Regression"; q = Clip, default 0.7, and for a regression loss
// min(0.2·Y, 0.7·S₀)/S₀), i.e. s is Huberized at slope a; the surrogate is convex and as
// smooth as s, and its per-example gradients have norm at most q·G. (The multinomial loss is
// not clipped: q = 1.) Π_C is the Euclidean projection onto the domain C, or with the
// preconditioner below the projection in its metric.
//
// Guarantee. Exactly that of Langevin's steps: θ_k depends on earlier releases only and lies
// in C, where the clipped losses are q·G-Lipschitz, so given the past the rounded drift has ℓ2
// sensitivity h·Δ + 2g√d (Δ = 2qG/n replace-one, qG/n add/remove, plus the rounding allowance);
// each step is μ_k-GDP up to its discrete noise's total variation (ρ_k = μ_k²/2; see
// noisySteps), the T steps compose to T·ρ_k ≤ ρ, the largest ρ whose curve meets (ε, δ), and
// the momentum, the step length b, the projections and the average are post-processing. A run
// stopped after k < T steps releases what it has (the tail average when k ≥ ⌈T/2⌉, θ_k before)
// with k·ρ_k.
// Convexity is not needed for privacy.
//
// Utility. No bound is proven for this recursion (momentum with noise and no strong
// convexity); the Utility says so. It is the method that does best on adult-lr (see
// docs/benchmarks.md), where the declared radius D of the other mechanisms' bounds is far
// below the norm of good models.
//
// Parameters, from public quantities only: h = 1/β (β the losses' smoothness in ℓ2),
// m = Momentum (default 0.9, and 0.95 from T₁ ≥ 300, see below), T₁ = c·β·√(2ρ)/(Δ·√d),
// the number of steps of length h after which accelerated descent's gradient, of order
// β·D/T₁, reaches the noise floor of one step, Δ·√d/√(2ρ), for a distance D = c to travel
// (c = StepScale, default 4, and Y/(2X₂) for a regression loss, see "Regression"); the step
// length b = min(b_max, max(1, T₁/100)) (b_max = MaxStepLength, default 3·(1 + m)/1.9, which
// is 3 at m = 0.9): each step moves b times as far as the drift, so T = ⌈T₁/b⌉ steps travel
// the same distance; T is capped at MaxSteps (default ⌈1000/b_max⌉ = 334 at m = 0.9, 325 at
// 0.95).
//
// Clipping. Where the noise limits the accuracy (small ε), a smaller sensitivity is worth more
// than the gradients of badly misfit examples: clipping each derivative at q·S multiplies Δ,
// and so σ, by q, and changes the loss only where |s'| > q·S (for the logistic loss, examples
// misclassified with margin below −0.85 at q = 0.7).
//
// Step length. Polyak's heavy ball with momentum m is stable on a quadratic whose curvature
// is at most λ exactly when its step s has s·λ < 2(1 + m) (the roots of z² − (1 + m − sλ)z + m
// lie in the unit disk), and h = 1/β has h·λ ≤ 1 for the worst-case curvature β: so every
// b < 2(1 + m) (3.8 at m = 0.9) keeps the steps stable for every dataset the bounds admit,
// and Plan refuses a larger b_max. (The Nesterov form is stable only for b < 2(1 + m)/(1 + 2m),
// 1.36 at m = 0.9, hence the heavy ball.) On adult-lr the curvature is well below β (the rows'
// second moment matrix has largest eigenvalue 0.66 against the bound 1, the logistic
// curvature σ(1 − σ) is below 1/4 away from w = 0, and the preconditioner's trace bound
// exceeds its largest eigenvalue 3.7-fold), so longer steps reach the same models in fewer
// steps, with less noise per step for the same ρ.
//
// Momentum. Where the steps are at their longest (T₁ ≥ 300, b = 3 at m = 0.9) the default
// momentum is 0.95 (with b_max = 3·1.95/1.9 = 3.08); docs/tuning.md has the measurements.
//
// Preconditioner. When the budget's ρ (the largest ρ whose curve meets (ε, δ)) is at least
// ρ₀ = PreconditionFrom, a share φ = PreconditionShare of ρ first releases the features'
// second moments v = diag(XᵀX)/n, rounded to a grid with discrete Gaussian noise:
// v̂ = round(v) + ξ_v is ρ_v-zCDP, ρ_v ≤ φρ, for the sensitivity √2·R₄²/n (replace-one;
// R₄²/n add/remove; R₄ the rows' ℓ4 bound) proven in secondMoments. T and σ are then planned
// as above for the rest, ρ − ρ_v, and each step releases the same drift z_k = round(y_k −
// h·∇F_D(y_k)) + ξ_k, of the same sensitivity, but moves to θ_{k+1} = Π^S_C(y_k + S·(z_k −
// y_k)) with S = diag(b·a·p), p_j = max(v̂_j, c_f·σ_v)^(−γ) (γ = PreconditionPower,
// c_f = PreconditionFloor), a = R₂²/max(Σⱼ p_j·max(v̂_j, 0), R₂^{2(1−γ)}), and Π^S_C the
// projection onto C in the metric S⁻¹ (geom.ScaledProjection): functions of released values
// only, post-processing, so the whole run is (ρ_v + T·ρ_k)-zCDP with ρ_v + T·ρ_k ≤ ρ.
// Coordinates whose second moment is small (rare one-hot categories, features scaled by wide public
// bounds) then take longer steps: on adult-lr plain descent does not reach their good values
// in 1000 steps of length h, which limits its accuracy at large ε. Below ρ₀ (small ε, where the noise,
// not the optimisation, limits the accuracy), and on a domain with no projection in a diagonal
// metric (ℓp balls with p ≠ 2, Schatten balls), nothing is released and the run is exactly the
// one described above, bit for bit.
//
// Constrained steps. The projection in the metric S⁻¹ makes the minimisers of the objective
// over C the fixed points of the steps (the scaled step followed by a Euclidean projection has
// others: on the development suite's diamonds regression in a ball of radius 10 it stopped at
// a validation RMSE of 5.0 where the best model in the ball has 0.97); it keeps every θ_k in
// C, where the constants of the sensitivity hold; and in the variables u = S^(−1/2)θ the steps
// are Euclidean projected heavy-ball steps on F(S^(1/2)u) over S^(−1/2)C, whose curvature is
// the preconditioned one that a bounds, so the step length's argument below is unchanged (see
// noisySteps.run). For the whole space and a box it is the Euclidean projection: the run there
// is the same as with a Euclidean projection.
//
// Categorical ridge. When the problem declares categorical features (Problem.Categorical,
// from the schema: the one-hot features of its categorical columns), the steps descend the
// loss plus (λ/2)·Σ_{j∈C} w_j², λ = κ·G·√d/(D·n·√(2ρ)) (κ = RidgeScale, G the clipped loss's
// Lipschitz constant, D = Problem.Radius, ρ the budget's), with h = 1/(β + λ): the drift is
// y − h·(∇F_D(y) + λ·y on C). The ridge's term is a function of y, which earlier releases
// fix, so the drift's sensitivity and the plan's T and σ are those without it.
//
// Regression. A regression loss (squared, Huber) fits predictions in the label's units, up to
// its bound Y, and the rules above, fixed for the logistic loss, whose predictions are logits,
// do not carry over. On a ball of radius R the squared loss's derivative bound is S = X·R + Y,
// which grows with the radius and the label's units, and Δ with it, while the distance c = 4
// stays fixed: T₁ shrank as 1/S (BostonHousing with the label in USD 1000's, Y = 50, R = 142:
// T₁ = 0.4 at ε = 1, one step, and two or three at ε = 8, releases worse than the mean at
// both). So for a regression loss the clipping level is a share q of the derivative's bound at
// the prediction 0, S₀ = s.Slope(0, Y) (Y for the squared loss, min(δ_H, Y) for the Huber loss
// of threshold δ_H: the largest residual of the data-independent start), and the distance is
// c = Y/(2X₂), over which a prediction moves by at most Y/2 (X₂ the rows' ℓ2 bound): both are
// in the label's units, so for the squared loss T and the noise relative to the labels do not
// depend on those units. The clip level is min(0.2·Y, 0.7·S₀), not the margin losses' 0.7·S:
// a margin loss's S is reached by every badly misclassified example, at any model, while the
// squared loss's S₀ = Y is the start's residual for a label at its bound, which a fitted
// model's residuals (about the labels' spread) stay far below, so a lower clip cuts the noise
// and clips few of them; a Huber threshold δ_H below 0.29·Y is itself reached by many
// residuals, like a margin loss's bound, and keeps 0.7·δ_H. On the development suite's two
// regressions (validation R², 10 runs, ε = 0.5 / 1 / 2 / 8; docs/tuning.md) 0.2·Y read
// BostonHousing −0.017 / 0.113 / 0.154 / 0.256 and diamonds 0.974 / 0.973 / 0.973 / 0.973,
// against −0.068 / 0.016 / 0.006 / 0.126 and 0.965 / 0.969 / 0.973 / 0.973 at 0.7·Y.
//
// Bias shaping. When the rows declare a bias coordinate (Bounds.Bias: every row's last
// coordinate equals it, checked on the data; the schema's bias), their bound is in ℓ2 and the
// loss is a linear model's margin loss or the multinomial, the drift's bias coordinate (each
// class's, for the multinomial) is divided by t = 4 before each
// release and multiplied back after (see noisySteps.shapeToBias): the release's sensitivity
// uses ‖(x_1, …, x_{D−1}, x_D/4)‖ ≤ X̄·√(1 − (b/X̄)²·15/16) instead of X̄, so with adult-lr's
// b² = X̄²/2 every feature's noise is 0.729 times what it was and the bias's 4·0.729 = 2.9
// times: the noise's energy moves from the 91 features to the one coordinate whose gradient
// every row shares. The privacy is unchanged in kind (the same accounting of the scaled
// release; the scalings are exact, post-processing) and T stays planned with the isotropic Δ.
//
// The multinomial's per-example gradient (p − e_y)⊗x is a multiple of the row in every class
// block, so the same share bounds its norm, √2·‖S⁻¹x‖ ≤ share·G (see shapeToBias).
//
// A regression loss (squared, Huber) keeps the noise isotropic, for a reason that follows from
// the bounds: a noise ξ on the weights moves every prediction by ⟨ξ, x⟩, and a regression's
// error is the squared distance of the predictions, so it grows by E⟨ξ, x⟩² = Σⱼ σⱼ²·x_j²,
// where the bias's term is b²·σ_D² on every row. With the shaping, σ_j² = s²σ² on the features
// and t²s²σ² on the bias (s = BiasScaledShare(t)), so the term is at least t²s²b²·σ²: at the
// schema's b² = X̄²/2 and t = 4, 16·0.531·0.5 = 4.25 times the isotropic noise's largest
// contribution σ²X̄². A classifier ranks its scores, and a common shift moves only its
// threshold (the multinomial's common shift of every class's score changes nothing), which is
// why the shaping pays there.

// NoisyGD releases the average of the last half of the iterates of projected noisy gradient
// descent with heavy-ball momentum on the mean loss, each example's derivative clipped.
// Guarantee: (ε, δ)-DP under either relation with δ > 0, as μ-GDP (or ρ-zCDP) of its discrete
// Gaussian steps, exactly calibrated, with the discrete noise's total variation folded into δ;
// floating-point safe. Utility: no bound is proven; it is the most accurate mechanism on the
// benchmarks. Settings: every field below, each with a default computed from public
// quantities (n or N, d, ε, δ, the declared bounds); the comment block above the type gives
// the method, its proof and the rules, and docs/tuning.md how the defaults were chosen.
type NoisyGD struct {
	// Momentum is the heavy-ball coefficient m in (0, 1) (0 means the default: 0.9, and 0.95
	// when the step rule asks for T₁ ≥ 300 steps of length h).
	Momentum float64
	// StepScale is c in the step-count rule, a distance in parameter space (0 means the
	// default: 4, and Y/(2X₂) for a regression loss with a finite label bound Y, X₂ the rows'
	// ℓ2 bound).
	StepScale float64
	// MaxStepLength is b_max, the longest step in units of h = 1/β, in (0, 2(1 + m)) (0 means
	// the default, 3 at the default momentum m = 0.9, and the same share 15/19 of the
	// stability limit 2(1 + m) at other m: 3·(1 + m)/1.9).
	MaxStepLength float64
	// MaxSteps caps T (0 means the default, ⌈1000/b_max⌉), which bounds the time of a run.
	MaxSteps int
	// Clip is the share q ∈ (0, 1] of the bound S on the loss's derivative in the prediction at
	// which each example's derivative is clipped, for a linear model's scalar loss (0 means
	// the default, 0.7, and for a regression loss min(0.2·Y/S₀, 0.7), see NoisyGD's
	// "Regression"; 1 turns clipping off; the multinomial loss is never clipped). S bounds the derivative over the domain for a margin loss and at
	// the prediction 0 for a regression loss (see NoisyGD's "Regression").
	Clip float64
	// NoPrecondition turns the preconditioner off at every budget.
	NoPrecondition bool
	// NoBiasShaping keeps the noise isotropic when the rows declare a bias coordinate (a
	// regression loss always does; see NoisyGD's "Bias shaping").
	NoBiasShaping bool
	// PreconditionFrom is ρ₀: the preconditioner is used when the budget's ρ is at least ρ₀
	// (0 means the default, 0.01).
	PreconditionFrom float64
	// PreconditionShare is the share φ ∈ (0, 1) of ρ spent on the second moments (0 means the
	// default, 0.05).
	PreconditionShare float64
	// PreconditionPower is the power γ > 0 of the preconditioner max(v̂_j, f)^(−γ) (0 means the
	// default, 0.75).
	PreconditionPower float64
	// PreconditionFloor is c_f > 0, the floor f = c_f·σ_v of the released second moments in
	// units of their noise's standard deviation σ_v (0 means the default, 10).
	PreconditionFloor float64
	// NoCategoricalRidge turns off the ridge on the weights of the categorical features.
	NoCategoricalRidge bool
	// RidgeScale is κ > 0 in the categorical ridge λ = κ·G·√d/(D·n·√(2ρ)) (0 means the
	// default, 0.5).
	RidgeScale float64
	// NoSymmetric fits on the rows as encoded. By default, on the whole space, when the rows
	// are fitted by the norm fit "scale" with a bias and numeric features have private ranges
	// (Problem.Scale, Bounds.Bias, Problem.Ranged), the steps run on those features mapped
	// from [0, c] to [−c, c], twice as wide within the same bound, and the release is the model
	// on the rows as encoded that scores every row the same (see symmetricMap).
	NoSymmetric bool
	// zcdp, when positive, is the ρ of zCDP the run spends instead of the largest that meets
	// the budget: Auto sets it for its candidates.
	zcdp float64
}

// Name returns "noisy-gd".
func (NoisyGD) Name() string { return "noisy-gd" }

// Paper names the source.
func (NoisyGD) Paper() string {
	return "Ganesh, Thakurta and Upadhyay, DP Sampling from Rashomon Sets, and the Universality of Langevin Diffusion for Convex Optimization (noisy gradient descent, eq. (18)); Canonne, Kamath and Steinke 2020 for the discrete noise"
}

// Defaults of NoisyGD's settings.
const (
	defaultMomentum = 0.9
	// longMomentum is the default momentum from longMomentumFrom steps of length h on (T₁ ≥
	// 300, where the steps are at their longest, b = 3).
	longMomentum         = 0.95
	longMomentumFrom     = 300
	defaultStepScale     = 4
	defaultMaxStepLength = 3
	defaultClip          = 0.7
	// defaultRegressionClip is a regression loss's clip level as a share of the label bound Y
	// (the level is 0.7·S₀ when that is lower; see NoisyGD's "Regression").
	defaultRegressionClip = 0.2
	// regressionSteps is k in a regression loss's default step scale c = Y/(k·X₂).
	regressionSteps = 2
	// defaultMaxDistance is the default cap of T in steps of length h: MaxSteps = ⌈1000/b_max⌉.
	defaultMaxDistance = 1000
	// longStepsFrom is the number of steps of length h from which the steps are longer:
	// b = min(b_max, max(1, T₁/longStepsFrom)).
	longStepsFrom = 100

	// biasScale is t, by which the bias coordinate of each drift is divided before its release
	// when the rows declare one (see NoisyGD's "Bias shaping").
	biasScale = 4

	defaultRidgeScale = 0.5

	defaultPreconditionFrom  = 0.01
	defaultPreconditionShare = 0.05
	defaultPreconditionPower = 0.75
	defaultPreconditionFloor = 10
)

// noisyGDPlan is a planned run of noisy gradient descent with momentum.
type noisyGDPlan struct {
	noisySteps
	mech    NoisyGD
	problem Problem
	beta    float64
	length  float64       // b, the steps' length in units of h
	ridge   float64       // λ of the categorical ridge, 0 for none
	sym     *symmetricMap // the steps' symmetric features, or nil
}

// Plan fixes h, m, T, the grid and σ, and from ρ ≥ ρ₀ the second moments' release, from the
// budget and the problem.
func (m NoisyGD) Plan(b privacy.Budget, p Problem) (Plan, error) {
	if m.StepScale == 0 {
		m.StepScale = defaultStepScale
		// A regression loss's predictions are in the label's units: the distance over which
		// they move by Y/2 for rows of ℓ2 norm up to X₂ (see NoisyGD's "Regression").
		y, x2 := regressionScale(p), geom.NormBound(p.Bounds.X, p.Bounds.XNorm, 2, p.Dim)
		if c := y / (regressionSteps * x2); c > 0 && !math.IsInf(c, 1) {
			m.StepScale = c
		}
	}
	if m.Clip == 0 {
		m.Clip = defaultClip
		if y := regressionScale(p); y > 0 && !math.IsInf(y, 1) {
			// The clip level min(0.2·Y, 0.7·S₀) as a share of S₀ (see NoisyGD's "Regression").
			if sl, err := p.Loss.scalar(); err == nil {
				m.Clip = min(defaultRegressionClip*y/sl.Slope(0, y), defaultClip)
			}
		}
	}
	if !(m.Clip > 0 && m.Clip <= 1) {
		return nil, fmt.Errorf("mech: noisy-gd needs Clip in (0, 1] (have %g)", m.Clip)
	}
	m.PreconditionFrom = cmp.Or(m.PreconditionFrom, defaultPreconditionFrom)
	m.PreconditionShare = cmp.Or(m.PreconditionShare, defaultPreconditionShare)
	m.PreconditionPower = cmp.Or(m.PreconditionPower, defaultPreconditionPower)
	m.PreconditionFloor = cmp.Or(m.PreconditionFloor, defaultPreconditionFloor)
	m.RidgeScale = cmp.Or(m.RidgeScale, defaultRidgeScale)
	if !(m.RidgeScale > 0) || math.IsInf(m.RidgeScale, 1) {
		return nil, fmt.Errorf("mech: noisy-gd needs a finite RidgeScale > 0 (have %g)", m.RidgeScale)
	}
	if !(m.PreconditionFrom > 0) || !(m.PreconditionShare > 0 && m.PreconditionShare < 1) || !(m.PreconditionPower > 0) || math.IsInf(m.PreconditionPower, 1) ||
		!(m.PreconditionFloor > 0) || math.IsInf(m.PreconditionFloor, 1) {
		return nil, fmt.Errorf("mech: noisy-gd needs PreconditionFrom > 0, PreconditionShare in (0, 1), and finite PreconditionPower > 0 and PreconditionFloor > 0 (have %g, %g, %g, %g)",
			m.PreconditionFrom, m.PreconditionShare, m.PreconditionPower, m.PreconditionFloor)
	}
	steps, c, err := newNoisySteps(m.Name(), b, p, m.Clip, m.stepsBound(), m.zcdp)
	if err != nil {
		return nil, err
	}
	if !(c.Smoothness > 0) {
		return nil, fmt.Errorf("mech: noisy-gd needs a loss with positive smoothness, for its step 1/β (the %s loss has β = %g)", p.Loss.Name, c.Smoothness)
	}
	pl := &noisyGDPlan{noisySteps: steps, mech: m, problem: p, beta: c.Smoothness}
	if !m.NoSymmetric {
		if pl.sym = newSymmetricMap(p); pl.sym != nil {
			pl.rounding = pl.sym.roundingFactor()
			pl.delta = roundUp(Sensitivity(b, pl.g, p.N) + pl.rounding*meanGradientRounding(p.N, pl.g))
		}
	}
	if !m.NoCategoricalRidge && len(p.Categorical) > 0 {
		// G is the clipped loss's Lipschitz constant (the bias shaping below changes only the
		// release's sensitivity).
		pl.ridge = m.RidgeScale * pl.g * math.Sqrt(float64(pl.dim)) / (p.Radius * float64(p.N) * math.Sqrt(2*pl.rhoTarget))
	}
	pl.h = 1 / (c.Smoothness + pl.ridge)
	if !m.NoPrecondition && pl.rhoTarget >= m.PreconditionFrom && geom.ScaledProjection(p.Domain) != nil {
		if pl.pre, err = newSecondMoments(b, p.Bounds, p.N, p.Dim, m.PreconditionShare*pl.rhoTarget, m.PreconditionPower, m.PreconditionFloor,
			pl.momentsGridUnits(p.Dim)); err != nil {
			return nil, err
		}
	}
	t := m.StepScale * c.Smoothness * math.Sqrt(2*pl.rhoSteps()) / (pl.delta * math.Sqrt(float64(pl.dim)))
	if err := m.defaultSteps(t); err != nil {
		return nil, err
	}
	pl.mech = m
	pl.length = math.Min(m.MaxStepLength, math.Max(1, t/longStepsFrom))
	// T = ⌈T₁/b⌉; the factor keeps T₁/(T₁/100) = 100 from rounding up to 101.
	pl.steps = int(math.Max(1, math.Min(float64(m.MaxSteps), math.Ceil(t/pl.length*(1-0x1p-40)))))
	if !m.NoBiasShaping && regressionScale(p) == 0 {
		// After the steps' plan, which stays that of isotropic noise. Not for a regression
		// loss, whose error a bias's noise adds to every prediction (see "Bias shaping").
		pl.shapeToBias(p, biasScale)
	}
	if err := pl.planNoise(); err != nil {
		return nil, err
	}
	return pl, nil
}

// stepsBound bounds T before the budget sets the steps: MaxSteps when set, else
// ⌈1000/b_max⌉ with b_max as set or its smallest default, 3·(1 + m)/1.9 at the set momentum or
// the default 0.9 (0.95 only lengthens it).
func (m NoisyGD) stepsBound() int {
	if m.MaxSteps > 0 {
		return m.MaxSteps
	}
	b := m.MaxStepLength
	if !(b > 0) {
		b = defaultMaxStepLength * (1 + cmp.Or(m.Momentum, defaultMomentum)) / (1 + defaultMomentum)
	}
	return int(math.Min(math.Ceil(defaultMaxDistance/b), math.MaxInt32))
}

// momentsGridUnits is the fewest grid spacings per σ_v that keep the second moments' release
// of d coordinates within a quarter of the total variation the Gaussian accounting allows
// (0 under the zCDP accounting).
func (pl *noisyGDPlan) momentsGridUnits(d int) float64 {
	if !pl.gdp {
		return 0
	}
	return gridUnitsFor(4*d, pl.tvBudget)
}

// defaultSteps sets the defaults of the momentum and the step lengths and counts from the
// number T₁ of steps of length h the rule asks for (t), and checks them.
func (m *NoisyGD) defaultSteps(t float64) error {
	if m.Momentum == 0 {
		m.Momentum = defaultMomentum
		if t >= longMomentumFrom {
			m.Momentum = longMomentum
		}
	}
	if m.MaxStepLength == 0 {
		m.MaxStepLength = defaultMaxStepLength * ((1 + m.Momentum) / (1 + defaultMomentum))
	}
	if m.MaxSteps == 0 && m.MaxStepLength > 0 {
		m.MaxSteps = int(math.Ceil(defaultMaxDistance / m.MaxStepLength))
	}
	if !(m.Momentum >= 0 && m.Momentum < 1) || !(m.StepScale > 0) || math.IsInf(m.StepScale, 1) || m.MaxSteps < 1 {
		return fmt.Errorf("mech: noisy-gd needs Momentum in [0, 1), StepScale > 0 and MaxSteps ≥ 1 (have %g, %g, %d)", m.Momentum, m.StepScale, m.MaxSteps)
	}
	if !(m.MaxStepLength > 0 && m.MaxStepLength < 2*(1+m.Momentum)) {
		return fmt.Errorf("mech: noisy-gd needs MaxStepLength in (0, 2(1 + m)) = (0, %g), where momentum m = %g is stable for every dataset (have %g)", 2*(1+m.Momentum), m.Momentum, m.MaxStepLength)
	}
	return nil
}

func (pl *noisyGDPlan) Guarantee() privacy.Curve { return pl.curveAt(pl.steps) }

func (pl *noisyGDPlan) Utility() Utility {
	return Utility{Bound: math.Inf(1), Statement: "no utility bound is proven for noisy gradient descent with momentum without strong convexity; the benchmarks measure it (docs/benchmarks.md)"}
}

// Cost counts a gradient pass over the examples per step (per-example gradient queries).
func (pl *noisyGDPlan) Cost() cost.Cost {
	return cost.Cost{Gradients: float64(pl.steps) * float64(pl.problem.N), Steps: float64(pl.steps)}
}

// Parameters include, when the preconditioner is on, its settings and the second moments'
// release: ρ_v, σ_v and the sensitivity Δ_v (rounding and grid included).
func (pl *noisyGDPlan) Parameters() map[string]float64 {
	out := map[string]float64{"step_h": pl.h, "step_length": pl.length, "step_scale": pl.mech.StepScale, "clip": pl.clip, "momentum": pl.mech.Momentum, "steps": float64(pl.steps), "sigma": pl.sigma,
		"sensitivity": pl.delta, "step_sensitivity": pl.stepSens,
		"grid_spacing": pl.grid.Spacing(), "lipschitz": pl.g, "smoothness": pl.beta}
	pl.addAccounting(out)
	if pl.biasScale > 1 {
		out["bias_scale"] = pl.biasScale
	}
	if pl.ridge > 0 {
		out["ridge"], out["ridge_features"] = pl.ridge, float64(len(pl.problem.Categorical))
	}
	if pl.clip < 1 {
		out["clip_at"] = pl.clipAt
	}
	if v := pl.pre; v != nil {
		out["precondition_share"], out["precondition_power"], out["precondition_floor"] = pl.mech.PreconditionShare, v.power, v.floor
		out["moments_rho_zcdp"], out["moments_sigma"], out["moments_sensitivity"] = v.rho, v.sigma, v.gsens
	}
	return out
}

// Run runs the descent; a cancelled context stops it, and what the steps taken give is
// released.
func (pl *noisyGDPlan) Run(ctx context.Context, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error) {
	rule := stepRule{shrink: 1, momentum: pl.mech.Momentum, averageTail: true, length: pl.length, stage: "noisy gradient descent with momentum"}
	notes := ""
	if pl.ridge > 0 {
		rule.ridge, rule.ridgeAt = pl.ridge, categoricalParams(pl.problem)
		notes = fmt.Sprintf("The steps descend the loss plus a ridge (λ/2)·‖w_c‖² on the weights w_c of the %d features that one-hot encode categorical columns (declared by the schema), λ = %.6g = %g·G·√d/(D·%s·√(2ρ)): its gradient depends on the released iterate only, so the sensitivity is unchanged.",
			len(pl.problem.Categorical), pl.ridge, pl.mech.RidgeScale, rowsName(pl.budget))
	}
	if pl.sym != nil {
		rule.mapped = pl.sym
		notes = strings.TrimSpace(notes + fmt.Sprintf(" The steps ran on the %d numeric features with a private range mapped from [0, c] to [−c, c] (2x − c, c = %.6g, the rows' scale factor: every row checked within the same bound, so the sensitivity is unchanged) and the released weights are mapped back onto the rows as encoded (twice the numeric weights, and the bias weight less c/b times their sum: the same scores; post-processing).", len(pl.sym.numeric), pl.problem.Scale))
	}
	return pl.fit(ctx, fitted{mech: pl.mech, problem: pl.problem, rule: rule,
		utility: func(int) Utility { return pl.Utility() }, parameters: pl.Parameters(),
		notes: notes, release: "The release is the average of the last half of the iterates (post-processing), from the data-independent start Π_C(0).",
	}, ds, r, progress)
}

// categoricalParams returns the parameters that weigh a categorical feature: the features
// themselves, or each class's copy of them for the multinomial loss (class-major layout).
func categoricalParams(p Problem) []int {
	var out []int
	for k := 0; k < p.params(); k += p.Dim {
		for _, j := range p.Categorical {
			out = append(out, k+j)
		}
	}
	return out
}
