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
	"github.com/privopt/privopt/pkg/rng"
)

// noisySteps is the privacy of the noisy gradient methods (langevin, noisy-gd): T steps, each
// of which rounds a drift y − h·∇(mean loss)(y), evaluated at a point y of the domain computed
// from earlier releases only, to a grid and adds discrete Gaussian noise there.
//
// Given the earlier releases, the drifts on neighbouring datasets differ by h·Δ (Δ the mean
// gradient's sensitivity, rounding included) plus what the grid's rounding adds, 2g√d: one step
// is ρ_k-zCDP with ρ_k = (hΔ + 2g√d)²/(2σ²) (Canonne, Kamath and Steinke 2020), and the T
// steps compose adaptively to T·ρ_k. Every later computation (a momentum, a projection, an
// average of iterates) uses released values only, so it is post-processing. With pre set,
// the features' second moments are released first (ρ_v-zCDP, see secondMoments), the steps
// are planned for ρ − ρ_v, and the run is (ρ_v + T·ρ_k)-zCDP; the preconditioner built from
// them rescales released drifts only, so it is post-processing too.
type noisySteps struct {
	budget    Budget
	n, dim    int
	g         float64 // G, the losses' Lipschitz constant in ℓ2 (q·G when clipped)
	clipAt    float64 // a: each example's derivative in the prediction is clipped to [−a, a] (+Inf: not clipped)
	clip      float64 // q, the share of the derivative bound S that a is (1: not clipped)
	delta     float64 // Δ: the mean gradient's sensitivity, rounding included
	rhoTarget float64 // the largest ρ that meets the budget

	h        float64 // the drift step
	steps    int     // T
	grid     rng.Grid
	stepSens float64 // the ℓ2 sensitivity of one rounded drift, in real units
	sigma    float64 // the noise's standard deviation, in real units
	sigma2   float64 // σ_g², in grid units
	rhoStep  float64 // ρ of one step

	pre *secondMoments // the second moments' release for a preconditioner, or nil for none

	// biasScale is t > 1 when each drift's last coordinate (a declared bias) is divided by t
	// before its release and multiplied by t after, 0 otherwise (see shapeToBias).
	biasScale float64
}

// shapeToBias divides the bias coordinate of every drift by t (a power of two) before its
// release and multiplies it back after, when the rows declare a bias coordinate (every row's
// last coordinate equal to Bounds.Bias, which the loss checks), their bound is in ℓ2 and the
// loss is a linear model's (a per-example gradient is a scalar times the row). The released
// vector is then S⁻¹z with S = diag(1, …, 1, t): its sensitivity is that of the drift with each
// row x replaced by S⁻¹x, whose norm is at most Bounds.BiasScaledShare(t)·X̄ (X̄ the rows'
// bound) instead of X̄, while the mean gradient's rounding error, bounded in the unscaled
// coordinates, only shrinks under S⁻¹. The noise added to z is S times the isotropic noise
// of the release: t times larger on the bias, whose derivative is large and common to every
// row, and smaller by the share on every feature. The scalings are exact (a power of two; a
// drift coordinate small enough to be subnormal after the division lies within half a grid
// spacing of 0, so it rounds to the grid point 0 either way), so they are post-processing of
// the release. It keeps Δ's rounding term and leaves the steps' plan to the caller.
func (s *noisySteps) shapeToBias(p Problem, t float64) {
	share := p.Bounds.BiasScaledShare(t)
	if share >= 1 || p.Loss.Name == "multinomial" || p.Loss.RobustRadius > 0 || s.dim != p.Dim {
		return
	}
	g := s.g
	s.biasScale, s.g = t, roundUp(g*share)
	s.delta = roundUp(s.budget.Sensitivity(s.g, s.n) + meanGradientRounding(s.n, g))
}

// newNoisySteps checks that the noisy gradient method called name can serve the budget and
// the problem (δ > 0, a plain mean of a smooth loss), and computes Δ and the ρ target; it also
// returns the losses' constants. With clip = q < 1 and a linear model's scalar loss, each
// example's derivative in the prediction is clipped to [−a, a], a = q·S (S the derivative's
// bound, loss.Linear.Slope): the steps then descend the surrogate loss whose derivative is
// clipped (convex and as smooth as the loss, loss.Linear.MeanClippedGrad), whose per-example
// gradients have norm at most a·‖x‖ ≤ q·G, and Δ is computed from q·G. Other losses are not
// clipped (q = 1).
func newNoisySteps(name string, b Budget, p Problem, clip float64) (noisySteps, loss.Constants, error) {
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
	if math.IsInf(c.Smoothness, 1) {
		return noisySteps{}, c, fmt.Errorf("mech: %s needs a smooth loss (the %s loss is not; use smooth-hinge, or outpert)", name, p.Loss.Name)
	}
	s := noisySteps{budget: b, n: p.N, dim: p.params(), g: c.Lipschitz, clipAt: math.Inf(1), clip: 1}
	if clip < 1 {
		l, err := p.buildLoss(p.probeData(1))
		if lin, ok := l.(*loss.Linear); ok && err == nil {
			// ‖clamp(s′, −a, a)·x‖ ≤ a·‖x‖ ≤ q·S·‖x‖ ≤ q·G; roundUp covers the products' rounding.
			s.clip, s.clipAt, s.g = clip, clip*lin.Slope(p.Domain), roundUp(clip*c.Lipschitz)
		}
	}
	s.delta = roundUp(b.Sensitivity(s.g, p.N) + meanGradientRounding(p.N, s.g))
	s.rhoTarget, err = privacy.CalibrateZCDP(b.Epsilon, b.Delta)
	return s, c, err
}

// planNoise fixes the grid and σ so that the s.steps steps of drift step s.h are exactly
// within the calibrated ρ.
func (s *noisySteps) planNoise() error {
	d, steps := s.dim, float64(s.steps)
	rhoSteps := s.rhoSteps()
	// σ before the grid's rounding, which sets the grid; then σ with it.
	drift := roundUp(s.h * s.delta)
	var err error
	if s.grid, err = releaseGrid(drift * math.Sqrt(steps/(2*rhoSteps))); err != nil {
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
	if rho := s.rhoAt(s.steps); rho > s.rhoTarget {
		return fmt.Errorf("mech: internal error: %d steps give ρ = %g above the calibrated %g", s.steps, rho, s.rhoTarget)
	}
	return nil
}

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

// guaranteeAt is the zCDP guarantee of the first k steps, named with what they are.
func (s *noisySteps) guaranteeAt(k int, what string) privacy.RDP {
	rho := s.rhoAt(k)
	c, _ := privacy.ZCDP(rho) // ρ is finite and positive
	if s.pre != nil {
		what += fmt.Sprintf("; with the features' second moments released first, %.6g-zCDP: discrete Gaussian σ_v = %.6g, sensitivity %.6g",
			s.pre.rho, s.pre.sigma, s.pre.gsens)
	}
	c.Name = fmt.Sprintf("%.6g-zCDP (%d noisy gradient steps, discrete Gaussian σ = %.6g, step sensitivity %.6g%s)",
		rho, k, s.sigma, s.stepSens, what)
	return c
}

// report is the privacy report of a run that took k steps.
func (s *noisySteps) report(m Mechanism, k int, guarantee privacy.RDP, r *rng.Rand) (privacy.Report, error) {
	rep, err := privacy.NewReport(guarantee, privacy.ReportSpec{
		Mechanism: m.Name() + " (projected noisy gradient descent, discrete Gaussian on a grid)", Paper: m.Paper(),
		Target:       privacy.Budget{Epsilon: s.budget.Epsilon, Delta: s.budget.Delta},
		Neighbouring: s.budget.relation(),
		Sensitivity: privacy.Sensitivity{Value: s.stepSens,
			Of: "the ℓ2 distance between one step's rounded drifts y − h∇F(y) on neighbouring datasets, in real units",
			Derivation: fmt.Sprintf("h·Δ + 2g√d with h = %.6g, g = %.3g and Δ = %.6g the mean gradient's sensitivity: %s, plus a rounding allowance 4(n + 4)·2⁻⁵³·G",
				s.h, s.grid.Spacing(), s.delta, s.budget.sensitivityDerivation(s.g, s.n))},
		Sampler:    privacy.SamplerStatus{Exact: true, Statement: "no sampler: the guarantee is that of the noisy steps themselves, whatever their mixing"},
		Randomness: randomness(r),
	})
	if err != nil {
		return rep, err
	}
	rep.Statement += fmt.Sprintf(" Each of the %d noisy gradient steps taken (of %d planned) adds discrete Gaussian noise on a grid (floating-point safe) and is ρ-zCDP; the steps are composed and converted by the conversion of Canonne, Kamath and Steinke 2020.", k, s.steps)
	if s.pre != nil {
		rep.Statement += fmt.Sprintf(" Before the steps, the features' second moments diag(XᵀX)/n are released once, rounded to a grid with discrete Gaussian noise σ_v = %.6g: their ℓ2 sensitivity is %s with R₄ = %.6g the rows' ℓ4 bound, plus a rounding allowance 4(n + 4)·2⁻⁵³·R₄² and the grid's g√d (%.6g in all), so the release is %.6g-zCDP, composed with the steps; the diagonal preconditioner built from it rescales the released drifts (post-processing).",
			s.pre.sigma, s.pre.derivation(s.budget), math.Sqrt(s.pre.r4sq), s.pre.gsens, s.pre.rho)
	}
	if s.clip < 1 {
		scaled := ""
		if s.biasScale > 1 {
			scaled = " with their last coordinate divided by the bias scale below"
		}
		rep.Statement += fmt.Sprintf(" Each example's derivative in the prediction is clipped to [−%.6g, %.6g] (%g of its bound): the steps descend the convex surrogate loss with that derivative, whose per-example gradients have norm at most %.6g%s, which sets the sensitivity.", s.clipAt, s.clipAt, s.clip, s.g, scaled)
	}
	if s.biasScale > 1 {
		rep.Statement += fmt.Sprintf(" Every row's last coordinate is the declared bias (checked on the data): each drift's last coordinate is divided by %g before its release and multiplied by %g after (exact scalings), so the sensitivity bounds the rows' norms with that coordinate divided by %g (G = %.6g above) and the bias's noise is %g times the features'.", s.biasScale, s.biasScale, s.biasScale, s.g, s.biasScale)
	}
	if k < s.steps {
		rep.Statement += " The run was stopped early: the guarantee is that of the steps actually taken."
	}
	return rep, nil
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
	// ridge, when positive, is λ of a ridge (λ/2)·Σ θ_i² over the parameters i in ridgeAt:
	// the drift is then shrink·θ_k − h·(∇F_D(θ_k) + λ·θ_k on ridgeAt). The added term is a
	// function of θ_k, computed from earlier releases, so the drift's sensitivity is unchanged.
	ridge   float64
	ridgeAt []int
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
	tail := (s.steps + 1) / 2 // the average is over steps tail…T
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
		last := len(z) - 1
		if s.biasScale > 1 {
			z[last] /= s.biasScale // exact (see shapeToBias)
		}
		if err := s.grid.Release(r, z, z, noise); err != nil {
			return nil, 0, fmt.Errorf("mech: noisy gradient step %d: %w", k+1, err)
		}
		if s.biasScale > 1 {
			z[last] *= s.biasScale
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
		dom.Project(theta, theta)
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

// fitted describes a noisy gradient method's release for fit: its guarantee and utility
// after k steps, what the release is (a sentence of the report) and the planned parameters.
type fitted struct {
	mech       Mechanism
	problem    Problem
	rule       stepRule
	guarantee  func(k int) privacy.RDP
	utility    func(k int) Utility
	release    string
	parameters map[string]float64
}

// fit runs the steps on ds and returns the release with the privacy and the utility of the
// steps actually taken.
func (s *noisySteps) fit(ctx context.Context, f fitted, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error) {
	start := time.Now()
	l, err := f.problem.NewLoss(ds)
	if err != nil {
		return nil, err
	}
	rule := f.rule
	switch {
	case s.pre != nil:
		vhat, err := s.pre.release(ds, r)
		if err != nil {
			return nil, err
		}
		rule.scale = s.pre.scale(vhat, s.dim, rule.length)
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
	rep, err := s.report(f.mech, k, f.guarantee(k), r)
	if err != nil {
		return nil, err
	}
	rep.Statement += " " + f.release
	details := map[string]float64{"steps_taken": float64(k), "steps_planned": float64(s.steps)}
	return &Release{
		Model: newModel(f.problem, ds, theta), Report: rep, Utility: f.utility(k), Parameters: f.parameters,
		Diagnostics: diagnose(l, f.problem, ds, theta, start, details),
	}, nil
}
