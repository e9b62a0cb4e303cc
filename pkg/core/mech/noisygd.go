package mech

import (
	"context"
	"fmt"
	"math"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// NoisyGD is projected noisy gradient descent with heavy-ball momentum on the mean loss F_D,
// with no regulariser, releasing the average of the last half of its iterates: the practical
// member of the noisy gradient family of seed 004 (whose Langevin diffusion is the same
// recursion with a strongly convex regulariser and no momentum):
//
//	θ₀ = θ₋₁ = Π_C(0),  y_k = Π_C(θ_k + m·(θ_k − θ_{k−1})),
//	θ_{k+1} = Π_C(round(y_k − h·∇F_D(y_k)) + ξ_k),  ξ_k ~ N_Z(0, σ²) on a grid,
//
// for T steps, releasing (θ_{⌈T/2⌉} + … + θ_T)/(T − ⌈T/2⌉ + 1).
//
// Guarantee. Exactly that of Langevin's steps: y_k depends on earlier releases only and lies
// in C, where the losses are G-Lipschitz, so given the past the rounded drift has ℓ2
// sensitivity h·Δ + 2g√d (Δ = 2G/n replace-one, G/n add/remove, plus the rounding allowance);
// each step is ρ_k-zCDP with the discrete Gaussian, the T steps compose to T·ρ_k ≤ ρ, the
// largest ρ whose curve meets (ε, δ) under the conversion of Canonne, Kamath and Steinke 2020,
// and the momentum, the projections and the average are post-processing. A run stopped after
// k < T steps releases what it has (the tail average when k ≥ ⌈T/2⌉, θ_k before) with k·ρ_k.
// Convexity is not needed for privacy.
//
// Utility. No bound is proven for this recursion (momentum with noise and no strong
// convexity); the Utility says so. It is the method that does best on adult-lr (see the
// README's benchmark), where the declared radius D of the other mechanisms' bounds is far
// below the norm of good models.
//
// Parameters, from public quantities only: h = 1/β (β the losses' smoothness in ℓ2),
// m = Momentum (default 0.9), and T = ⌈c·β·√(2ρ)/(Δ·√d)⌉ capped at MaxSteps: the number of
// steps after which accelerated descent's gradient, of order β·D/T, reaches the noise floor of
// one step, Δ·√d/√(2ρ), for a distance D = c to travel; c = StepScale (default 4). The
// defaults of m and c were fixed on a validation split of adult.data (20 %, seed 42), never on
// adult.test.
type NoisyGD struct {
	// Momentum is the heavy-ball coefficient m in (0, 1) (0 means the default, 0.9).
	Momentum float64
	// StepScale is c in the step-count rule (0 means the default, 4).
	StepScale float64
	// MaxSteps caps T (0 means the default, 1000), which bounds the time of a run.
	MaxSteps int
}

// Name returns "noisy-gd".
func (NoisyGD) Name() string { return "noisy-gd" }

// Paper names the source.
func (NoisyGD) Paper() string {
	return "Ganesh, Thakurta and Upadhyay, DP Sampling from Rashomon Sets, and the Universality of Langevin Diffusion for Convex Optimization (noisy gradient descent, eq. (18)); Canonne, Kamath and Steinke 2020 for the discrete noise"
}

// Defaults of NoisyGD's settings.
const (
	defaultMomentum  = 0.9
	defaultStepScale = 4
	defaultMaxSteps  = 1000
)

// noisyGDPlan is a planned run of noisy gradient descent with momentum.
type noisyGDPlan struct {
	noisySteps
	mech    NoisyGD
	problem Problem
	beta    float64
}

// Plan fixes h, m, T, the grid and σ from the budget and the problem.
func (m NoisyGD) Plan(b Budget, p Problem) (Plan, error) {
	if m.Momentum == 0 {
		m.Momentum = defaultMomentum
	}
	if m.StepScale == 0 {
		m.StepScale = defaultStepScale
	}
	if m.MaxSteps == 0 {
		m.MaxSteps = defaultMaxSteps
	}
	if !(m.Momentum >= 0 && m.Momentum < 1) || !(m.StepScale > 0) || math.IsInf(m.StepScale, 1) || m.MaxSteps < 1 {
		return nil, fmt.Errorf("mech: noisy-gd needs Momentum in [0, 1), StepScale > 0 and MaxSteps ≥ 1 (have %g, %g, %d)", m.Momentum, m.StepScale, m.MaxSteps)
	}
	steps, c, err := newNoisySteps(m.Name(), b, p)
	if err != nil {
		return nil, err
	}
	if !(c.Smoothness > 0) {
		return nil, fmt.Errorf("mech: noisy-gd needs a loss with positive smoothness, for its step 1/β (the %s loss has β = %g)", p.Loss.Name, c.Smoothness)
	}
	pl := &noisyGDPlan{noisySteps: steps, mech: m, problem: p, beta: c.Smoothness}
	pl.h = 1 / c.Smoothness
	t := m.StepScale * c.Smoothness * math.Sqrt(2*pl.rhoTarget) / (pl.delta * math.Sqrt(float64(pl.dim)))
	pl.steps = int(math.Max(1, math.Min(float64(m.MaxSteps), math.Ceil(t))))
	if err := pl.planNoise(); err != nil {
		return nil, err
	}
	return pl, nil
}

func (pl *noisyGDPlan) guarantee(k int) privacy.RDP {
	return pl.guaranteeAt(k, fmt.Sprintf(", momentum %g", pl.mech.Momentum))
}

func (pl *noisyGDPlan) Guarantee() privacy.Curve { return pl.guarantee(pl.steps) }

func (pl *noisyGDPlan) Utility() Utility {
	return Utility{Bound: math.Inf(1), Statement: "no utility bound is proven for noisy gradient descent with momentum without strong convexity; the benchmark in the README measures it"}
}

// Cost counts a gradient pass over the examples per step (per-example gradient queries).
func (pl *noisyGDPlan) Cost() Cost {
	return Cost{Gradients: float64(pl.steps) * float64(pl.problem.N), Steps: float64(pl.steps)}
}

func (pl *noisyGDPlan) Parameters() map[string]float64 {
	return map[string]float64{"step_h": pl.h, "momentum": pl.mech.Momentum, "steps": float64(pl.steps), "sigma": pl.sigma,
		"rho_zcdp": pl.rhoAt(pl.steps), "sensitivity": pl.delta, "step_sensitivity": pl.stepSens,
		"grid_spacing": pl.grid.Spacing(), "lipschitz": pl.g, "smoothness": pl.beta}
}

// Run runs the descent; a cancelled context stops it, and what the steps taken give is
// released.
func (pl *noisyGDPlan) Run(ctx context.Context, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error) {
	return pl.fit(ctx, fitted{mech: pl.mech, problem: pl.problem,
		rule:      stepRule{shrink: 1, momentum: pl.mech.Momentum, averageTail: true, stage: "noisy gradient descent with momentum"},
		guarantee: pl.guarantee, utility: func(int) Utility { return pl.Utility() }, parameters: pl.Parameters(),
		release: "The release is the average of the last half of the iterates (post-processing), from the data-independent start Π_C(0).",
	}, ds, r, progress)
}
