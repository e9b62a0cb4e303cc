package mech

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/rng"
)

// noisySteps is the privacy of the noisy gradient methods (langevin, noisy-gd): T steps, each
// of which rounds a drift y − h·∇(mean loss)(y), evaluated at a point y of the domain computed
// from earlier releases only, to a grid and adds discrete Gaussian noise there.
//
// Given the earlier releases, the drifts on neighbouring datasets differ by h·Δ (Δ the mean
// gradient's sensitivity, rounding included) plus what the grid's rounding adds, 2g√d: in grid
// units the rounded drifts n, n′ differ by at most s_g = (hΔ + 2g√d)/g. The release n + Z, Z
// discrete Gaussian N_Z(0, σ_g²)^d, is within total variation τ_k = roundedGaussianTV(d, σ_g²)
// of n + round(Y), Y ~ N(0, σ_g²·I), which is the Gaussian mechanism of sensitivity s_g followed
// by rounding: μ_k-GDP with μ_k = s_g/σ_g (Dong, Roth and Su 2019). The T steps compose
// adaptively to μ = √T·μ_k (their Corollary 2; with ρ_k = μ_k²/2 the arithmetic is that of
// zCDP: ρ = μ²/2 = T·ρ_k), and coupling the steps one by one puts the discrete run within
// τ = T·τ_k of that ideal run for every dataset, so it is (ε, δ_μ(ε) + (1 + e^ε)·τ)-DP for
// every ε (privacy.FoldSamplerError). The budget's δ is split: δ/128 for the second term (the
// grid is made fine enough, σ_g ≥ 2²³ spacings at least, that (1 + e^ε)·τ fits), the rest
// calibrates μ (privacy.CalibrateGDP). The discrete run is also ρ-zCDP (Canonne, Kamath and
// Steinke 2020), which the parameters report. Every later computation (a momentum, a
// projection, an average of iterates) uses released values only, so it is post-processing.
// With pre set, the features' second moments are released first (μ_v-GDP within τ_v, see
// secondMoments), the steps are planned for ρ − ρ_v (ρ_v = μ_v²/2), and the run is
// √(μ_v² + T·μ_k²)-GDP within τ_v + T·τ_k; the preconditioner built from them rescales
// released drifts only, so it is post-processing too.
type noisySteps struct {
	budget    privacy.Budget
	n, dim    int
	g         float64 // G, the losses' Lipschitz constant in ℓ2 (q·G when clipped)
	clipAt    float64 // a: each example's derivative in the prediction is clipped to [−a, a] (+Inf: not clipped)
	clip      float64 // q, the share of the derivative bound S that a is (1: not clipped)
	delta     float64 // Δ: the mean gradient's sensitivity, rounding included
	rounding  float64 // the multiple of meanGradientRounding in Δ: 1, more for a symmetricMap
	rhoTarget float64 // the largest ρ (μ²/2 with gdp) that meets the budget
	gdp       bool    // the Gaussian accounting (else zCDP's), see noisySteps
	tvBudget  float64 // the total variation the releases may add with gdp: (δ/128)/(1 + e^ε)

	h        float64 // the drift step
	steps    int     // T
	grid     rng.Grid
	stepSens float64 // the ℓ2 sensitivity of one rounded drift, in real units
	sigma    float64 // the noise's standard deviation, in real units
	sigma2   float64 // σ_g², in grid units
	rhoStep  float64 // ρ of one step: μ_k²/2
	tvStep   float64 // τ_k, one step's total-variation distance from the ideal step

	pre *secondMoments // the second moments' release for a preconditioner, or nil for none

	// biasScale is t > 1 when each drift's bias coordinates (a declared bias) are divided by t
	// before its release and multiplied by t after, 0 otherwise (see shapeToBias); biasStride
	// is the distance between those coordinates, counted back from the last: the rows' width
	// D, so that the multinomial's K class blocks each have theirs (one coordinate for a linear
	// model's D parameters).
	biasScale  float64
	biasStride int

	// sensitivityOf and sensitivityDerivation, when not empty, replace the report's account
	// of Δ (the rashomon chain's gradient is not a mean gradient's).
	sensitivityOf, sensitivityDerivation string
}

// shapeToBias divides the bias coordinate of every drift by t (a power of two) before its
// release and multiplies it back after, when the rows declare a bias coordinate (every row's
// last coordinate equal to Bounds.Bias, which the loss checks), their bound is in ℓ2 and the
// loss is a linear model's (a per-example gradient is a scalar times the row) or the
// multinomial's (each class's block of a per-example gradient is a scalar times the row: the
// gradient is (p − e_y)⊗x), whose every class block has its bias coordinate scaled. The
// released vector is then S⁻¹z with S = diag(1, …, 1, t) (per class block): its sensitivity is
// that of the drift with each row x replaced by S⁻¹x, whose norm is at most
// Bounds.BiasScaledShare(t)·X̄ (X̄ the rows' bound) instead of X̄ — for the multinomial,
// ‖(p − e_y)⊗S⁻¹x‖₂ = ‖p − e_y‖₂·‖S⁻¹x‖₂ ≤ √2·share·X̄, the loss's G = √2·X̄ times the same
// share, and a clipped linear loss's q·S·share·X̄ likewise — while the mean gradient's rounding
// error, bounded in the unscaled coordinates, only shrinks under S⁻¹. The noise added to z is
// S times the isotropic noise of the release: t times larger on the bias, whose derivative is
// large and common to every row, and smaller by the share on every feature. The scalings are exact (a power of two; a
// drift coordinate small enough to be subnormal after the division lies within half a grid
// spacing of 0, so it rounds to the grid point 0 either way), so they are post-processing of
// the release. It keeps Δ's rounding term and leaves the steps' plan to the caller.
func (s *noisySteps) shapeToBias(p Problem, t float64) {
	share := p.Bounds.BiasScaledShare(t)
	linear := s.dim == p.Dim && p.Loss.Name != LossMultinomial
	multinomial := p.Loss.Name == LossMultinomial && s.dim == p.Loss.Classes*p.Dim
	if share >= 1 || p.Loss.RobustRadius > 0 || !(linear || multinomial) || p.Dim < 1 {
		return
	}
	g := s.g
	s.biasScale, s.biasStride, s.g = t, p.Dim, roundUp(g*share)
	s.delta = roundUp(Sensitivity(s.budget, s.g, s.n) + s.rounding*meanGradientRounding(s.n, g))
}

// newNoisySteps checks that the noisy gradient method called name can serve the budget and the
// problem (δ > 0, a plain mean of a smooth loss), and computes Δ and the ρ target; it also
// returns the losses' constants. maxSteps bounds the steps the plan can take (a public
// setting), which decides whether the accounting is the Gaussian one (see noisySteps and
// gdpFeasible). With clip = q < 1 and a linear model's scalar loss, each example's derivative
// in the prediction is clipped to [−a, a], a = q·S, where S bounds the derivative
// (loss.Linear.Slope): over the domain for a margin loss, and at the prediction 0 for a
// regression loss (see regressionScale): S = s.Slope(0, Y), Y for the squared loss, whose bound
// over a ball of radius R, Y + X·R, grows with R (see NoisyGD's "Regression"). The steps then
// descend the surrogate loss whose derivative is clipped (convex and as smooth as the loss,
// loss.Linear.MeanClippedGrad), whose per-example gradients have norm at most a·‖x‖ ≤ q·G_S
// (G_S = S·X̄ the Lipschitz constant of the loss where its derivative is at most S), and Δ is
// computed from q·G_S. Other losses are not clipped (q = 1).
func newNoisySteps(name string, b privacy.Budget, p Problem, clip float64, maxSteps int, zcdp float64) (noisySteps, loss.Constants, error) {
	c, err := lipschitzConstants(b, p)
	if err != nil {
		return noisySteps{}, c, err
	}
	if b.Delta == 0 {
		return noisySteps{}, c, fmt.Errorf("mech: %s is (ε, δ)-DP (zCDP) and needs δ > 0 (for pure ε-DP use outpert)", name)
	}
	if p.Loss.Tilt != 0 {
		return noisySteps{}, c, fmt.Errorf("mech: %s needs a mean of per-example losses; tilted ERM is supported by output perturbation", name)
	}
	switch {
	case math.IsInf(c.Smoothness, 1) && p.Loss.RobustRadius > 0:
		return noisySteps{}, c, fmt.Errorf("mech: %s needs a smooth loss, and adversarial training (a robust radius) makes the %s loss non-smooth: it is supported by output perturbation (outpert)", name, p.Loss.Name)
	case math.IsInf(c.Smoothness, 1):
		return noisySteps{}, c, fmt.Errorf("mech: %s needs a smooth loss (the %s loss is not; use smooth-hinge, or outpert)", name, p.Loss.Name)
	}
	s := noisySteps{budget: b, n: p.N, dim: p.params(), g: c.Lipschitz, clipAt: math.Inf(1), clip: 1, rounding: 1}
	if clip < 1 {
		label, dom, g := 1.0, p.Domain, c.Lipschitz
		atZero := regressionScale(p) > 0
		if atZero {
			// The loss on the domain {0}, where every prediction is 0: its Slope is
			// s.Slope(0, Y), and its Lipschitz constant that slope times the rows' bound.
			if dom, err = geom.NewBall(p.Dim, 2, 0, nil); err != nil {
				return noisySteps{}, c, err
			}
			label = 0
		}
		l, err := p.buildLoss(p.probeData(label))
		if lin, ok := l.(*loss.Linear); ok && err == nil {
			if atZero {
				c0, err := lin.Constants(dom, 2)
				if err != nil {
					return noisySteps{}, c, err
				}
				g = c0.Lipschitz
			}
			// ‖clamp(s′, −a, a)·x‖ ≤ a·‖x‖ ≤ q·S·‖x‖ ≤ q·G_S; roundUp covers the products'
			// rounding.
			s.clip, s.clipAt, s.g = clip, clip*lin.Slope(dom), roundUp(clip*g)
		}
	}
	s.delta = roundUp(Sensitivity(b, s.g, p.N) + meanGradientRounding(p.N, s.g))
	s.rhoTarget, s.tvBudget, s.gdp, err = gaussianTarget(b, maxSteps*s.dim+4*p.Dim, zcdp)
	return s, c, err
}

// regressionScale returns the bound Y on the labels of a regression loss (a linear model's
// scalar loss that is not a margin loss: squared, Huber), the scale of the predictions it
// fits, and 0 for the other losses.
func regressionScale(p Problem) float64 {
	if p.Loss.Name == LossMultinomial || p.Loss.RobustRadius > 0 {
		return 0
	}
	s, err := p.Loss.scalar()
	if _, margin := s.(loss.Margin); err != nil || margin {
		return 0
	}
	return p.Bounds.Y
}

// discretizationShare is the share of δ set aside for the discrete noise's distance from
// rounded Gaussian noise (see noisySteps).
const discretizationShare = 1.0 / 128

// gaussianTarget returns the largest ρ that releases of discrete Gaussian noise, coords
// coordinates in all at most, may use for the budget b: under the Gaussian accounting (gdp)
// μ²/2 for the μ that meets (ε, δ·(1 − 1/128)), with tvBudget = (δ/128)/(1 + e^ε) the total
// variation the releases may add (see noisySteps); zCDP's ρ when that is larger or the
// Gaussian accounting is not feasible (gdpFeasible); zcdp when it is positive (Auto plans its
// candidates so, with b a budget that zcdp-zCDP meets).
func gaussianTarget(b privacy.Budget, coords int, zcdp float64) (rho, tvBudget float64, gdp bool, err error) {
	if zcdp > 0 {
		return zcdp, 0, false, nil
	}
	if rho, err = privacy.CalibrateZCDP(b.Epsilon, b.Delta); err != nil {
		return 0, 0, false, err
	}
	tvBudget = b.Delta * discretizationShare / (1 + detmath.Exp(b.Epsilon)) * (1 - 0x1p-50)
	if !gdpFeasible(tvBudget, coords) {
		return rho, tvBudget, false, nil
	}
	mu, err := privacy.CalibrateGDP(b.Epsilon, b.Delta*(1-discretizationShare))
	if err != nil {
		return 0, 0, false, err
	}
	if r := mu * mu / 2 * (1 - 0x1p-50); r > rho { // rounded down: √(2ρ) ≤ μ
		return r, tvBudget, true, nil
	}
	return rho, tvBudget, false, nil
}

// maxGridUnits bounds the noise's standard deviation in grid spacings that the Gaussian
// accounting may ask for: 2²⁸, against 2²³ to 2²⁴ by default (releaseGrid), which keeps every
// |w| up to 2²⁴·σ within Grid.Release's range.
const maxGridUnits = 1 << 28

// gdpFeasible reports whether releases of coords coordinates in all (steps times parameters,
// and the second moments) can stay within total variation tvBudget of rounded Gaussian noise
// with σ_g ≤ maxGridUnits: coords·0.121/σ_g² ≤ tvBudget. Otherwise (ε too large for the
// (1 + e^ε)·τ term, or too many coordinates) the accounting is zCDP's.
func gdpFeasible(tvBudget float64, coords int) bool {
	return tvBudget > 0 && roundedGaussianTV(coords, 1)/tvBudget <= maxGridUnits*maxGridUnits
}

// planNoise fixes the grid and σ so that the s.steps steps of drift step s.h are exactly
// within the calibrated ρ.
func (s *noisySteps) planNoise() error {
	d, steps := s.dim, float64(s.steps)
	rhoSteps := s.rhoSteps()
	// σ before the grid's rounding, which sets the grid; then σ with it.
	drift := s.driftSensitivity()
	// With gdp the steps may add the total variation the second moments leave:
	// T·d·0.121/σ_g² ≤ that.
	minUnits := 0.0
	if s.gdp {
		tvLeft := s.tvBudget
		if s.pre != nil {
			tvLeft -= s.pre.tv
		}
		if !(tvLeft > 0) {
			return fmt.Errorf("mech: internal error: the second moments' total variation exceeds its budget %g", s.tvBudget)
		}
		minUnits = gridUnitsFor(s.steps*d, tvLeft)
	}
	var err error
	if s.grid, err = releaseGrid(drift*math.Sqrt(steps/(2*rhoSteps)), minUnits); err != nil {
		return err
	}
	if s.stepSens, err = s.grid.L2Sensitivity(roundUp(drift+s.grid.Spacing()*sqrtUp(float64(d))), d); err != nil {
		return err
	}
	if s.biasScale > 1 && !(s.grid.Spacing() > 0x1p-1000) {
		return fmt.Errorf("mech: internal error: a grid spacing of %g is too fine to scale the bias exactly", s.grid.Spacing())
	}
	s.sigma = s.stepSens * math.Sqrt(steps/(2*rhoSteps)) * calibrationMargin
	dg, err := s.grid.DiscreteGaussian(s.sigma)
	if err != nil {
		return err
	}
	s.sigma2 = dg.Sigma2()
	sg := s.stepSens / s.grid.Spacing() // exact: a power-of-two scaling
	s.rhoStep = roundUp(sg * sg / (2 * s.sigma2))
	s.tvStep = roundedGaussianTV(d, s.sigma2)
	if rho := s.rhoAt(s.steps); rho > s.rhoTarget {
		return fmt.Errorf("mech: internal error: %d steps give ρ = %g above the calibrated %g", s.steps, rho, s.rhoTarget)
	}
	if got := s.curveAt(s.steps).Delta(s.budget.Epsilon); got > s.budget.Delta {
		return fmt.Errorf("mech: internal error: %d steps give δ = %g above the target %g", s.steps, got, s.budget.Delta)
	}
	return nil
}

// driftSensitivity bounds the ℓ2 distance between the drifts of two neighbouring datasets at
// the same point, before their rounding: h·Δ.
func (s *noisySteps) driftSensitivity() float64 { return roundUp(s.h * s.delta) }

// rhoSteps is the part of the calibrated ρ left to the steps: all of it, less ρ_v when the
// second moments are released first.
func (s *noisySteps) rhoSteps() float64 {
	if s.pre != nil {
		return s.rhoTarget - s.pre.rho
	}
	return s.rhoTarget
}

// rhoAt is the zCDP parameter of the first k steps, with the second moments' release when
// there is one (it is made before the first step).
func (s *noisySteps) rhoAt(k int) float64 {
	if s.pre != nil {
		return roundUp(s.pre.rho + float64(k)*s.rhoStep)
	}
	return roundUp(float64(k) * s.rhoStep)
}

// guaranteeAt is the privacy of the first k steps (with the second moments' release when
// there is one) and the total variation τ of the discrete run from the ideal one: with gdp,
// μ-GDP of the ideal run, μ = √(2ρ); otherwise ρ-zCDP, exact (τ = 0).
func (s *noisySteps) guaranteeAt(k int) (privacy.Curve, float64) {
	rho := s.rhoAt(k)
	if !s.gdp {
		c, _ := privacy.ZCDP(rho) // ρ is finite and positive
		c.Name = fmt.Sprintf("%.6g-zCDP (%d noisy gradient steps)", rho, k)
		return c, 0
	}
	tv := float64(k) * s.tvStep
	if s.pre != nil {
		tv += s.pre.tv
	}
	return privacy.GDP{Mu: sqrtUp(2 * rho)}, roundUp(tv)
}

// addAccounting adds the accounting of the planned steps to a plan's parameters: ρ (the run is
// ρ-zCDP either way) and, with the Gaussian accounting, μ and the total variation τ.
func (s *noisySteps) addAccounting(out map[string]float64) {
	out["rho_zcdp"] = s.rhoAt(s.steps)
	if base, tv := s.guaranteeAt(s.steps); s.gdp {
		out["mu_gdp"], out["discretization_tv"] = base.(privacy.GDP).Mu, tv
	}
}

// curveAt is the certified privacy curve of the first k steps: δ_μ(ε) + (1 + e^ε)·τ with gdp,
// the zCDP curve otherwise.
func (s *noisySteps) curveAt(k int) privacy.Curve {
	base, tv := s.guaranteeAt(k)
	if tv == 0 {
		return base
	}
	c, _ := privacy.FoldSamplerError(base, tv) // 0 < τ < 1 by construction
	return c
}

// report is the privacy report of a run that took k steps.
func (s *noisySteps) report(m Mechanism, k int, r *rng.Rand) (privacy.Report, error) {
	base, tv := s.guaranteeAt(k)
	sampler := privacy.SamplerStatus{Exact: true, Statement: "no sampler: the guarantee is that of the noisy steps themselves, whatever their mixing"}
	if s.gdp {
		sampler = discretizationStatus("the guarantee is that of the noisy steps themselves, whatever their mixing", s.sigma2, tv)
	}
	rep, err := privacy.NewReport(base, privacy.ReportSpec{
		Mechanism: m.Name() + " (projected noisy gradient descent, discrete Gaussian on a grid)", Paper: m.Paper(),
		Target:       privacy.Budget{Epsilon: s.budget.Epsilon, Delta: s.budget.Delta},
		Neighbouring: s.budget.Relation(),
		Sensitivity:  s.sensitivity(),
		Sampler:      sampler,
		Randomness:   randomness(r),
	})
	if err != nil {
		return rep, err
	}
	if s.gdp {
		rep.Statement += fmt.Sprintf(" Each of the %d noisy gradient steps taken (of %d planned) rounds its drift to a grid and adds discrete Gaussian noise there (floating-point safe), σ = %.6g for a sensitivity of %.6g: with the same noise drawn from a continuous Gaussian and rounded, a step would be a Gaussian mechanism followed by rounding, exactly μ_k-GDP with μ_k = %.6g, and the steps compose to μ = %.6g (Dong, Roth and Su 2019, adaptive composition); the discrete noise is within total variation %.3g of that, which is added to δ as (1 + e^ε)·τ. (The same run is also %.6g-zCDP by the analysis of Canonne, Kamath and Steinke 2020.)",
			k, s.steps, s.sigma, s.stepSens, sqrtUp(2*s.rhoStep), sqrtUp(2*s.rhoAt(k)), tv, s.rhoAt(k))
	} else {
		rep.Statement += fmt.Sprintf(" Each of the %d noisy gradient steps taken (of %d planned) adds discrete Gaussian noise on a grid (floating-point safe), σ = %.6g for a sensitivity of %.6g, and is ρ-zCDP; the steps are composed and converted by the conversion of Canonne, Kamath and Steinke 2020 (at this ε the Gaussian accounting's (1 + e^ε)·τ term would not fit δ).",
			k, s.steps, s.sigma, s.stepSens)
	}
	if s.pre != nil {
		rep.Statement += fmt.Sprintf(" Before the steps, the features' second moments diag(XᵀX)/%s are released once, rounded to a grid with discrete Gaussian noise σ_v = %.6g: their ℓ2 sensitivity is %s with R₄ = %.6g the rows' ℓ4 bound, plus a rounding allowance 4(%s + 4)·2⁻⁵³·R₄² and the grid's g√d (%.6g in all), so the release is %.6g-zCDP (%.6g-GDP up to its discretization), composed with the steps; the diagonal preconditioner built from it rescales the released drifts (post-processing).",
			rowsName(s.budget), s.pre.sigma, s.pre.derivation(s.budget), math.Sqrt(s.pre.r4sq), rowsName(s.budget), s.pre.gsens, s.pre.rho, sqrtUp(2*s.pre.rho))
	}
	if s.clip < 1 {
		scaled := ""
		if s.biasScale > 1 {
			scaled = " with their last coordinate divided by the bias scale below"
		}
		rep.Statement += fmt.Sprintf(" Each example's derivative in the prediction is clipped to [−%.6g, %.6g] (%g of its bound): the steps descend the convex surrogate loss with that derivative, whose per-example gradients have norm at most %.6g%s, which sets the sensitivity.", s.clipAt, s.clipAt, s.clip, s.g, scaled)
	}
	if s.biasScale > 1 {
		coord := "last coordinate is"
		if s.biasStride < s.dim {
			coord = fmt.Sprintf("bias coordinates (the last of each of its %d class blocks) are", s.dim/s.biasStride)
		}
		rep.Statement += fmt.Sprintf(" Every row's last coordinate is the declared bias (checked on the data): each drift's %s divided by %g before its release and multiplied by %g after (exact scalings), so the sensitivity bounds the rows' norms with that coordinate divided by %g (G = %.6g above) and the bias's noise is %g times the features'.", coord, s.biasScale, s.biasScale, s.biasScale, s.g, s.biasScale)
	}
	if k < s.steps {
		rep.Statement += " The run was stopped early: the guarantee is that of the steps actually taken."
	}
	return rep, nil
}

// sensitivity is the report's account of one step's sensitivity.
func (s *noisySteps) sensitivity() privacy.Sensitivity {
	sens := privacy.Sensitivity{Value: s.stepSens,
		Of: "the ℓ2 distance between one step's rounded drifts y − h∇F(y) on neighbouring datasets, in real units",
		Derivation: fmt.Sprintf("h·Δ + 2g√d with h = %.6g, g = %.3g and Δ = %.6g the mean gradient's sensitivity: %s, plus a rounding allowance 4(%s + 4)·2⁻⁵³·G",
			s.h, s.grid.Spacing(), s.delta, meanSensitivityDerivation(s.budget, s.g, s.n), rowsName(s.budget))}
	if s.sensitivityOf != "" {
		sens.Of, sens.Derivation = s.sensitivityOf, s.sensitivityDerivation
	}
	return sens
}

// stepRule is how a noisy gradient method moves, by Polyak's heavy ball: each step releases
// the drift z_k = round(shrink·θ_k − h·∇F_D(θ_k)) + ξ_k and moves to
// θ_{k+1} = Π_C(z_k + momentum·(θ_k − θ_{k−1})) (θ_{k+1} = Π_C(z_k) without momentum),
// releasing θ_T or, with averageTail, the mean of θ_{⌈T/2⌉}, …, θ_T.
type stepRule struct {
	shrink, momentum float64
	averageTail      bool
	stage            string // the progress label
	// scale, when not nil, preconditions and lengthens the step: θ_{k+1} = Π_C(θ_k +
	// scale∘(z_k − θ_k) + momentum·(θ_k − θ_{k−1})).
	scale []float64
	// length multiplies the move from θ_k towards the released drift (post-processing): fit
	// sets scale to length times the preconditioner, or to length alone. 1 moves to the drift.
	length float64
	// metric, with scale set, projects in the metric diag(scale)⁻¹ (geom.ScaledProjection)
	// instead of Euclidean-ly: fit sets it with the preconditioner (see noisySteps.run).
	metric bool
	// ridge, when positive, is λ of a ridge (λ/2)·Σ θ_i² over the parameters i in ridgeAt:
	// the drift is then shrink·θ_k − h·(∇F_D(θ_k) + λ·θ_k on ridgeAt). The added term is a
	// function of θ_k, computed from earlier releases, so the drift's sensitivity is unchanged.
	ridge   float64
	ridgeAt []int
	// gradient, when not nil, writes the drift's gradient at θ in place of the loss's mean
	// gradient (the rashomon chain's thresholded objective); its sensitivity is the plan's Δ.
	gradient func(grad, theta []float64)
	// mapped, when not nil, runs the steps on symmetric features: the mean gradient at θ′ is
	// M·∇F(Mᵀθ′), and the model released is Mᵀθ′ (see symmetricMap).
	mapped *symmetricMap
}

// run takes the planned steps from Π_C(0) until done or ctx is cancelled, and returns the
// release and the number of steps taken (0 when cancelled before the first).
func (s *noisySteps) run(ctx context.Context, l loss.Loss, dom geom.Domain, rule stepRule, r *rng.Rand, progress func(Progress)) ([]float64, int, error) {
	noise, err := s.grid.DiscreteGaussian(s.sigma)
	if err != nil {
		return nil, 0, err
	}
	meanGrad := func(grad, w []float64) { loss.MeanGrad(l, grad, w) }
	if !math.IsInf(s.clipAt, 1) {
		lin, ok := l.(*loss.Linear)
		if !ok {
			return nil, 0, fmt.Errorf("mech: internal error: the steps clip the derivatives of a linear model, not of a %T", l)
		}
		meanGrad = func(grad, w []float64) { lin.MeanClippedGrad(grad, w, s.clipAt) }
	}
	if rule.gradient != nil {
		meanGrad = rule.gradient
	}
	if m := rule.mapped; m != nil {
		inner, w := meanGrad, make([]float64, s.dim)
		meanGrad = func(grad, theta []float64) {
			m.weights(w, theta)
			inner(grad, w)
			m.gradient(grad)
		}
	}
	project := dom.Project
	if rule.metric {
		// With S = diag(scale), a step is θ_{k+1} = Π(θ_k − h·S∇F(θ_k) + S·ξ_k + m·(θ_k − θ_{k−1}))
		// (ξ_k the released noise). Without noise (the momentum term vanishes at a fixed point), θ
		// is a fixed point of θ ↦ Π(θ − h·S∇F(θ)) exactly when θ minimises the convex F over C if Π
		// projects in the metric S⁻¹: the projection's optimality condition ⟨S⁻¹(θ − hS∇F(θ) − θ),
		// u − θ⟩ ≤ 0 for every u ∈ C is ⟨∇F(θ), u − θ⟩ ≥ 0, the condition of a constrained minimum
		// (with the Euclidean projection it is ⟨S∇F(θ), u − θ⟩ ≥ 0, another point when S is not a
		// multiple of the identity). In the variables u = S^(−1/2)θ, ‖θ − v‖²_{S⁻¹} is ‖u −
		// S^(−1/2)v‖², so Π is the Euclidean projection onto the convex set S^(−1/2)C, and the
		// recursion, linear but for Π, is projected heavy ball with step h on G(u) = F(S^(1/2)u),
		// noise S^(1/2)ξ_k and the same momentum: its curvature S^(1/2)∇²F S^(1/2) is the
		// preconditioned one that secondMoments.scale bounds, so the step length's stability
		// argument (NoisyGD) holds as it does without a constraint. Privacy: Π's inputs are
		// released values (θ_k, θ_{k−1}, z_k and the scale from v̂), so it is post-processing, and
		// it returns a point of C (ScaledProjection's contract), so the next drift is evaluated in
		// C, where the sensitivity's constants hold. A constant scale (length alone) needs no
		// metric: the Euclidean projection is the projection in every multiple of the identity.
		scaled := geom.ScaledProjection(dom)
		if scaled == nil || len(rule.scale) != s.dim {
			return nil, 0, fmt.Errorf("mech: internal error: no projection onto the %T in the preconditioner's metric", dom)
		}
		project = func(dst, x []float64) { scaled(dst, x, rule.scale) }
	}
	theta := make([]float64, s.dim)
	grad := make([]float64, s.dim)
	dom.Project(theta, theta)
	z := make([]float64, s.dim) // the released drift
	var prev, avg []float64
	if rule.momentum != 0 {
		prev = append([]float64(nil), theta...)
	}
	if rule.averageTail {
		avg = make([]float64, s.dim)
	}
	tail := tailStart(s.steps) // the average is over steps tail…T
	every := max(1, s.steps/100)
	k := 0
	for ; k < s.steps && ctx.Err() == nil; k++ {
		meanGrad(grad, theta) // θ_k is in C
		for _, i := range rule.ridgeAt {
			grad[i] += rule.ridge * theta[i]
		}
		for i := range z {
			z[i] = rule.shrink*theta[i] - s.h*grad[i]
		}
		if s.biasScale > 1 {
			for j := len(z) - 1; j >= 0; j -= s.biasStride {
				z[j] /= s.biasScale // exact (see shapeToBias)
			}
		}
		in := releasing(z)
		if err := s.grid.Release(r, z, z, noise); err != nil {
			return nil, 0, fmt.Errorf("mech: noisy gradient step %d: %w", k+1, err)
		}
		released("noisy step", in, z, s.driftSensitivity(), s.grid.Spacing())
		if s.biasScale > 1 {
			for j := len(z) - 1; j >= 0; j -= s.biasStride {
				z[j] *= s.biasScale
			}
		}
		for i, a := range rule.scale {
			z[i] = theta[i] + a*(z[i]-theta[i])
		}
		if prev != nil {
			for i := range z {
				z[i] += rule.momentum * (theta[i] - prev[i])
			}
			copy(prev, theta)
		}
		theta, z = z, theta
		project(theta, theta)
		if avg != nil && k+1 >= tail {
			w := 1 / float64(k+2-tail)
			for i := range avg {
				avg[i] += w * (theta[i] - avg[i])
			}
		}
		if progress != nil && (k+1)%every == 0 && k+1 < s.steps {
			progress(Progress{Fraction: float64(k+1) / float64(s.steps), Stage: rule.stage})
		}
	}
	if progress != nil && k > 0 {
		progress(Progress{Fraction: float64(k) / float64(s.steps), Stage: "done"})
	}
	if k == 0 {
		return nil, 0, fmt.Errorf("mech: cancelled before the first step: %w", ctx.Err())
	}
	if avg != nil && k >= tail {
		return avg, k, nil
	}
	return theta, k, nil
}

// fitted describes a noisy gradient method's release for fit: its utility after k steps, what
// the release is (a sentence of the report) and the planned parameters.
type fitted struct {
	mech       Mechanism
	problem    Problem
	rule       stepRule
	utility    func(k int) Utility
	notes      string // sentences of the report before release's, if any
	release    string
	parameters map[string]float64
}

// tailStart is the first step of the average of the last half of T steps.
func tailStart(steps int) int { return (steps + 1) / 2 }

// lastIterateRelease is what a tail-averaging run releases when it was stopped before its
// average began.
const lastIterateRelease = "The run was stopped before the average of the last half of the iterates began: the release is the last iterate (post-processing), from the data-independent start Π_C(0)."

// fit runs the steps on ds and returns the release with the privacy and the utility of the
// steps actually taken.
func (s *noisySteps) fit(ctx context.Context, f fitted, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error) {
	start := time.Now()
	l, err := LossOver(s.budget, f.problem, ds)
	if err != nil {
		return nil, err
	}
	var squares []float64 // the rows' squares, mapped as the steps map them
	if s.pre != nil || f.rule.mapped != nil {
		if squares, err = f.rule.mapped.squares(l, f.problem.Dim); err != nil {
			return nil, err
		}
	}
	rule := f.rule
	switch {
	case s.pre != nil:
		vhat, err := s.pre.release(squares, r)
		if err != nil {
			return nil, err
		}
		rule.scale, rule.metric = s.pre.scale(vhat, s.dim, rule.length), true
	case rule.length != 1:
		rule.scale = make([]float64, s.dim)
		for i := range rule.scale {
			rule.scale[i] = rule.length
		}
	}
	theta, k, err := s.run(ctx, l, f.problem.Domain, rule, r, progress)
	if err != nil {
		return nil, fmt.Errorf("mech: %s: %w", f.mech.Name(), err)
	}
	if m := f.rule.mapped; m != nil {
		w := make([]float64, len(theta))
		m.weights(w, theta)
		theta = w
	}
	rep, err := s.report(f.mech, k, r)
	if err != nil {
		return nil, err
	}
	release := f.release
	if f.rule.averageTail && k < tailStart(s.steps) {
		release = lastIterateRelease // what run returns then
	}
	if f.notes != "" {
		rep.Statement += " " + f.notes
	}
	rep.Statement += " " + release
	details := map[string]float64{"steps_taken": float64(k), "steps_planned": float64(s.steps)}
	return &Release{
		Model: newModel(f.problem, ds, theta), Report: rep, Utility: f.utility(k), Parameters: f.parameters,
		Diagnostics: diagnose(l, f.problem, ds, theta, start, details),
	}, nil
}
