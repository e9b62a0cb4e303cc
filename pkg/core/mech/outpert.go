package mech

import (
	"context"
	"errors"
	"fmt"
	"github.com/privopt/privopt/pkg/core/cost"
	"math"
	"time"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/rng"
	"github.com/privopt/privopt/pkg/solve"
)

// OutputPerturbation is output perturbation with a certified solver (Lowy and Razaviyayn 2021,
// Lowy and Razaviyayn: Algorithm 1 applied to the regularised objective of §2.4). It computes
//
//	w_A ≈ w* = argmin_{w ∈ C} F_λ(w),  F_λ(w) = F_D(w) + (λ/2)‖w‖₂²,
//
// with a deterministic solver whose certificate ‖w_A − w*‖₂ ≤ r₀ is fixed before the data is
// touched (a run that cannot certify it fails), releases w_A plus noise on a grid
// (rng.Grid.Release, safe against floating-point attacks), and projects the result onto the
// domain C. F_D is the mean loss, the tilted mean of LossSpec.Tilt (tilted ERM, Lowy and Razaviyayn, §5.1)
// or the mean robust loss of LossSpec.RobustRadius (adversarial training, §5.2).
//
// Sensitivity. F_λ is λ-strongly convex and F_D′ − F_D is L_g-Lipschitz on the segment between
// the two minimisers, so ‖w*_D − w*_D′‖ ≤ L_g/λ (Lowy and Razaviyayn, Lemma B.2: add the two strong-
// convexity inequalities). For a mean of G-Lipschitz losses L_g = 2G/n under replace-one, and
// G/n under add/remove, where the objective is the sum divided by the public n, so that one
// added or removed example changes it by ℓ/n. For the tilted mean (1/t)·log mean e^{t·ℓᵢ}, with
// losses in [0, M] on C ∩ {‖w‖ ≤ G/λ} (which holds both minimisers when 0 ∈ C, since
// λ‖w*‖² ≤ ⟨−∂F_D(w*), w*⟩ ≤ G‖w*‖), L_g = 2G/(1 + (n − 1)e^{−tM}) under both relations: the
// gradient of the difference is ν′₁∇ℓ′₁ − ν₁∇ℓ₁ + Σ_{i≥2}(ν′ᵢ − νᵢ)∇ℓᵢ with ν = softmax(t·ℓ),
// and Σ_{i≥2}|ν′ᵢ − νᵢ| = |ν₁ − ν′₁|, so its norm is at most 2G·max(ν₁, ν′₁) ≤ 2G/(1 + (n−1)e^{−tM})
// (Lowy and Razaviyayn, Lemma 5.2, reconstructed in the project's notes §4); it tends to 2G/n as t → 0.
// With the certificate, ‖w_A(D) − w_A(D′)‖ ≤ Δ̃ = L_g/λ + 2(r₀ + e), where e bounds what the
// rounding of the computed gradients can add to the certificate (see roundingAllowance).
//
// Noise and guarantee (Δ̃ is then inflated by the grid's rounding, Grid.L2Sensitivity and
// Grid.L1Sensitivity):
//   - "outpert-gauss", (ε, δ): discrete Gaussian noise of standard deviation σ per coordinate,
//     which is within total variation τ = roundedGaussianTV(d, σ_g²) of Gaussian noise rounded
//     to the grid, the Gaussian mechanism followed by rounding: μ-GDP with μ = Δ̃/σ, so the
//     release is (ε, δ_μ(ε) + (1 + e^ε)·τ)-DP, μ calibrated to δ·(1 − 1/128) and the grid fine
//     enough for the rest (gaussianTarget, as for the noisy gradient methods). It is also
//     ρ-zCDP with ρ = μ²/2 (Canonne, Kamath and Steinke 2020), the accounting used when ε is too
//     large for τ.
//   - "outpert", pure ε: discrete Laplace noise of scale b = √d·Δ̃/ε per coordinate (the ℓ1
//     sensitivity is at most √d·Δ̃), which is exactly ε-DP. Its expected squared norm is at most
//     2d²Δ̃²/ε², 2d/(d + 1) times that of the ℓ2-Laplace noise of Lowy and Razaviyayn's Eq. (4),
//     d(d + 1)Δ̃²/ε², which has no floating-point-safe lattice version (see rng.Rand.L2Laplace).
//     ContinuousLaplace selects the ℓ2-Laplace noise instead: ε-DP in exact arithmetic only, and
//     the report says so.
//
// λ and the utility bound. With u any point of C with ‖u‖ ≤ D (the problem's Radius),
// F_D(w*) ≤ F_D(u) + λD²/2, and two bounds hold, with ρ₁ = r₀ + e + g√d/2 (the solver's
// certificate and the grid's rounding):
//   - Lipschitz (every loss; Lowy and Razaviyayn Prop. 2.7 and Thm 3.1): E F_D(ŵ) − F_D(u) ≤
//     λD²/2 + G·(ρ₁ + E‖z‖), the projection being non-expansive with w* ∈ C;
//   - smooth (a smooth loss on the whole space, released without projection; Prop. 2.8 and
//     Thm 3.2): E F_D(ŵ) − F_D(u) ≤ λD²/2 + ((β_F + λ)/2)·(ρ₁² + E‖z‖²), since ∇F_λ(w*) = 0 and
//     the noise has mean zero (β_F = β + tG² for the tilted mean).
//
// λ minimises the applicable bound (the smaller of the two for smooth losses on the whole space)
// over λ, from public quantities only (n, d, ε, δ, G, β, D, t): it is the paper's trade-off
// λD²/2 against the noise term, whose closed forms λ = (2G/D)√(d/(nε)) (non-smooth) and
// λ³ ∝ βd²G²/(D²n²ε²) (smooth) it reproduces up to the constants of the noise actually added.
// A smooth loss on a bounded domain is projected (so the release lies in C) and uses the
// Lipschitz bound.
//
// Solvers (pkg/solve): L-BFGS for a smooth loss on the whole space, the accelerated
// projected gradient method for a smooth loss on a bounded domain, and the projected
// subgradient method (a priori step count 4L²/(λ²r₀²)) for a non-smooth loss; the last is slow
// for large n, and a plan whose predicted work exceeds MaxQueries is refused.

// OutputPerturbation releases the minimiser of the mean loss plus a ridge (λ/2)‖w‖₂², found by
// a solver whose distance from the exact minimiser is certified before the data is read, plus
// noise on a grid, projected onto the domain; the loss may be tilted or adversarially robust.
// Guarantee: "outpert" is pure ε-DP (discrete Laplace noise); "outpert-gauss" (Gaussian) is
// (ε, δ)-DP as μ-GDP with the discrete noise's total variation folded into δ; both under
// either relation (tilted ERM under replace-one only), floating-point safe unless
// ContinuousLaplace asks for the ℓ2-Laplace noise, which holds in exact arithmetic only.
// Utility: the excess-risk bound of the comment block above, which sets λ. Settings: the
// fields below; the method and its proof are in the comment block above.
type OutputPerturbation struct {
	// Gaussian selects (ε, δ)-DP with discrete Gaussian noise ("outpert-gauss"); otherwise the
	// release is pure ε-DP ("outpert").
	Gaussian bool
	// ContinuousLaplace (pure ε only) adds the continuous ℓ2-Laplace vector of Lowy and Razaviyayn's Eq. (4)
	// instead of the discrete Laplace on a grid: 1/√2 times the expected noise norm, but not safe
	// against floating-point attacks (Mironov 2012).
	ContinuousLaplace bool
	// CertificateShare is r₀ as a fraction of L_g/λ (default 0.01 for a smooth loss, whose
	// solvers converge linearly, and 0.5 for a non-smooth one, whose step count grows as 1/r₀²).
	CertificateShare float64
	// MaxQueries caps the predicted per-example gradient evaluations (default 1e10).
	MaxQueries float64
}

// Name returns "outpert-gauss" for (ε, δ)-DP and "outpert" for pure ε-DP.
func (m OutputPerturbation) Name() string {
	if m.Gaussian {
		return "outpert-gauss"
	}
	return "outpert"
}

// Paper names the source.
func (OutputPerturbation) Paper() string {
	return "Lowy and Razaviyayn 2021, Output Perturbation for Differentially Private Convex Optimization (Algorithm 1, §2.4, §5); Canonne, Kamath and Steinke 2020 for the discrete noise"
}

// Solver names.
const (
	solverLBFGS       = "lbfgs"
	solverAccelerated = "accelerated-projected-gradient"
	solverSubgradient = "projected-subgradient"
)

// Default settings of output perturbation and Langevin.
const (
	defaultMaxQueries    = 1e10
	smoothCertificate    = 0.01
	nonSmoothCertificate = 0.5
	smoothSolverMaxIter  = 100000
	minLambdaOverG       = 1e-12 // the search range of λ, relative to G/D
	maxLambdaOverG       = 1e4
)

// outpertPlan is a planned run of output perturbation.
type outpertPlan struct {
	mech    OutputPerturbation
	budget  privacy.Budget
	problem Problem
	dim     int

	g, beta, betaF float64 // G and β of the losses in ℓ2; β of F_D (+Inf when not smooth)
	origin         bool    // whether 0 ∈ C
	smoothForm     bool    // smooth loss on the whole space: no projection, smooth bound
	tiltM          float64 // M, the bound on the losses for the tilted sensitivity (0 untilted)

	lambda   float64
	lg       float64 // L_g: the Lipschitz constant of F_D′ − F_D
	r0       float64 // the solver's certificate target
	rounding float64 // e: what gradient rounding can add to the certificate
	sens     float64 // Δ̃ = L_g/λ + 2(r₀ + e), before the grid's rounding

	vectorNoise // the noise added to the solution

	solver      string
	solverDom   geom.Domain // the subgradient method's domain
	solverLip   float64     // the subgradient method's L (loss plus regularizer)
	solverSteps int
	// certifySteps (smooth losses) is the a-priori number of iterations after which the
	// accelerated method certifies r₀ for every dataset (acceleratedSteps): the accelerated
	// solver's cap, and L-BFGS's fallback.
	certifySteps int
	cost         cost.Cost
	utility      Utility
}

// Plan fixes λ, the certificate, the noise and the solver from the budget and the problem.
func (m OutputPerturbation) Plan(b privacy.Budget, p Problem) (Plan, error) {
	c, err := lipschitzConstants(b, p)
	if err != nil {
		return nil, err
	}
	pl := &outpertPlan{mech: m, budget: b, problem: p, dim: p.params(), origin: p.Domain.Contains(make([]float64, p.params()))}
	switch {
	case m.Gaussian && m.ContinuousLaplace:
		return nil, errors.New("mech: ContinuousLaplace is for pure ε-DP output perturbation, not outpert-gauss")
	case m.Gaussian && b.Delta == 0:
		return nil, errors.New("mech: outpert-gauss is (ε, δ)-DP and needs δ > 0 (for pure ε-DP use outpert)")
	case p.Loss.Tilt > 0 && b.Relation() == privacy.AddRemove:
		// The tilted mean's weights are a softmax over the rows present: adding one row to few
		// moves its gradient by up to 2G, whatever the divisor, so no bound holds without n.
		return nil, errors.New("mech: tilted ERM is supported under replace-one neighbours only: its sensitivity depends on the number of rows, which add/remove keeps private")
	}
	kind := noiseDiscreteLaplace
	switch {
	case m.Gaussian:
		kind = noiseDiscreteGaussian
	case m.ContinuousLaplace:
		kind = noiseContinuousLaplace
	}
	if pl.vectorNoise, err = newVectorNoise(kind, b, pl.dim); err != nil {
		return nil, err
	}
	if m.MaxQueries == 0 {
		m.MaxQueries = defaultMaxQueries
	}
	pl.g, pl.beta = c.Lipschitz, c.Smoothness
	smooth := !math.IsInf(pl.beta, 1)
	if pl.betaF, err = solverSmoothness(p, c); err != nil {
		return nil, err
	}
	pl.smoothForm = smooth && isWhole(p.Domain)
	if m.CertificateShare == 0 {
		m.CertificateShare = nonSmoothCertificate
		if smooth {
			m.CertificateShare = smoothCertificate
		}
	}
	if !(m.CertificateShare > 0) || math.IsInf(m.CertificateShare, 1) {
		return nil, fmt.Errorf("mech: the certificate share must be finite and positive, got %g", m.CertificateShare)
	}
	pl.mech = m

	// The noise's moments per unit of sensitivity, before the grid: E‖z‖ ≤ a1·Δ̃, E‖z‖² ≤ a2·Δ̃².
	d, eps := float64(pl.dim), b.Epsilon
	var a1, a2 float64
	switch pl.noise {
	case noiseDiscreteGaussian:
		a2 = d / (2 * pl.rho)
		a1 = math.Sqrt(a2)
	case noiseDiscreteLaplace:
		a1, a2 = math.Sqrt2*d/eps, 2*d*d/(eps*eps)
	case noiseContinuousLaplace:
		a1, a2 = d/eps, d*(d+1)/(eps*eps)
	}
	share := m.CertificateShare
	certifies := false // at some λ
	bound := func(lambda float64) float64 {
		lg, _, err := pl.sensitivityNumerator(lambda)
		if err != nil {
			return math.Inf(1)
		}
		delta := lg / lambda
		r0 := share * delta
		if !math.IsInf(pl.betaF, 1) {
			if !pl.certifiable(lambda, r0) {
				return math.Inf(1) // the solver cannot certify r₀ at this λ for every dataset
			}
			certifies = true
		}
		sens := delta + 2*r0
		return pl.bounds(lambda, r0, a1*sens, a2*sens*sens)
	}
	ref := pl.g / p.Radius
	pl.lambda = argminLog(bound, minLambdaOverG*ref, maxLambdaOverG*ref)
	switch {
	case math.IsInf(bound(pl.lambda), 1) && !math.IsInf(pl.betaF, 1) && !certifies:
		return nil, fmt.Errorf("mech: output perturbation cannot plan for models as large as the radius D = %g it compares against: "+
			"the regularisation that D allows (λ ≤ %.3g) is too weak for the solver to reach the accuracy its privacy needs "+
			"in %d iterations and floating point: declare a smaller radius, or use noisy-gd", p.Radius, maxLambdaOverG*ref, smoothSolverMaxIter)
	case math.IsInf(bound(pl.lambda), 1):
		return nil, fmt.Errorf("mech: no regularisation gives a finite utility bound for this problem")
	}
	if pl.lg, pl.tiltM, err = pl.sensitivityNumerator(pl.lambda); err != nil {
		return nil, err
	}
	pl.r0 = share * pl.lg / pl.lambda
	if err := pl.planSolver(); err != nil {
		return nil, err
	}
	pl.sens = roundUp(pl.lg/pl.lambda + 2*(pl.r0+pl.rounding))
	if err := pl.planNoise(); err != nil {
		return nil, err
	}
	if !(privacy.Budget{Epsilon: b.Epsilon, Delta: b.Delta}).Meets(pl.guarantee) {
		return nil, fmt.Errorf("mech: internal error: the planned guarantee %v does not meet the budget", pl.guarantee)
	}
	pl.utility = pl.finalUtility()
	return pl, nil
}

// solverSmoothness returns β_F, the smoothness of F_D (the mean loss, or the tilted mean: the
// Hessian of (1/t)·log Σ e^{t·ℓᵢ}/n is Σ pᵢ∇²ℓᵢ + t·Cov_p(∇ℓᵢ) ⪯ (β + t·G²)·I) wherever the
// solvers evaluate its gradient, given the loss's constants c on C. On a bounded C that is
// beyond C: the accelerated method's momentum points y_k = x_k + m(x_k − x_{k−1}), m < 1, with
// x_k ∈ C, have ‖y_k‖ ≤ 3·R_C (R_C = sup_C ‖w‖₂), and its certificate, on which the sensitivity
// rests, needs β_F between y_k and w* (solve.AcceleratedProjected). So there β and G are those
// of the ball of radius 3·R_C: the squared loss's gradients grow with ‖w‖, and a tilt turns
// their spread into curvature. On the whole space c's constants hold everywhere.
func solverSmoothness(p Problem, c loss.Constants) (float64, error) {
	if !isWhole(p.Domain) && !math.IsInf(c.Smoothness, 1) {
		ball, err := geom.NewBall(p.params(), 2, 3*p.Domain.Radius(2), nil)
		if err != nil {
			return 0, err
		}
		q := p
		q.Domain = ball
		if c, err = q.Constants(2); err != nil {
			return 0, err
		}
	}
	return c.Smoothness + p.Loss.Tilt*c.Lipschitz*c.Lipschitz, nil
}

// sensitivityNumerator returns L_g, the Lipschitz constant of F_D′ − F_D (see the type's
// comment): Sensitivity(b, G, n), or the tilted bound 2G/(1 + (n − 1)e^{−tM}) with M the bound
// on the losses over C ∩ {‖w‖ ≤ G/λ} (over C when 0 ∉ C), which it also returns.
func (pl *outpertPlan) sensitivityNumerator(lambda float64) (lg, m float64, err error) {
	p := pl.problem
	if p.Loss.Tilt == 0 {
		return Sensitivity(pl.budget, pl.g, p.N), 0, nil
	}
	radius := math.Inf(1)
	if pl.origin {
		radius = pl.g / lambda
	}
	if m, err = lossBound(p, radius); err != nil {
		return 0, 0, err
	}
	return roundUp(2 * pl.g / (1 + float64(p.N-1)*detmath.Exp(-p.Loss.Tilt*m))), m, nil
}

// acceleratedSteps returns K, a number of iterations after which solve.AcceleratedProjected,
// started from Π_C(0), certifies ‖w − w*‖ ≤ r₀ for every dataset the bounds admit, so that
// whether the solver certifies never depends on the data. With σ = λ, L = β_F + λ, κ = L/σ and
// q = 1 − 1/√κ, its constant-momentum iterates satisfy F(x_k) − F* ≤ q^k·C, C = F(x₀) − F* +
// (σ/2)‖x₀ − w*‖² (Beck 2017, First-Order Methods in Optimization, Theorem 10.42), hence
// ‖x_k − w*‖ ≤ √(2C/σ)·q^{k/2}, ‖y_k − w*‖ ≤ 3√(2C/σ)·q^{(k−1)/2}, and the certificate of
// iteration k, (κ − 1)‖y_{k−1} − x_k‖ ≤ 2(κ − 1)‖y_{k−1} − w*‖, is at most r₀/2 once
// k ≥ 2 + 2·ln(12(κ − 1)√(2C/σ)/r₀)/(−ln q). With 0 ∈ C, x₀ = 0, ‖w*‖ ≤ G/λ and
// C ≤ G·‖w*‖ + (λ/2)‖w*‖² (F_λ(0) − F_λ(w*) ≤ F(0) − F(w*) ≤ G‖w*‖); otherwise ‖x₀ − w*‖ ≤
// 2R_C and C ≤ (G + λR_C)·2R_C + 2λR_C². The solver's rounding allowance κ·4u(‖y‖ + ‖g‖/L +
// ‖x⁺‖) is checked to stay below the other r₀/2 with ‖y‖, ‖x⁺‖ ≤ ‖w*‖ + 3√(2C/σ) + ‖x₀ − w*‖
// and ‖g‖ ≤ G + λ‖y‖; a plan that cannot is refused, as is a K above the iteration cap.
// Plan's search for λ leaves out every λ where this fails (certifiable).
func (pl *outpertPlan) acceleratedSteps() (int, error) {
	k, err := pl.certifyingSteps(pl.lambda, pl.r0)
	return int(k), err
}

// certifiable reports whether acceleratedSteps succeeds at λ = lambda and r₀ = r0.
func (pl *outpertPlan) certifiable(lambda, r0 float64) bool {
	_, err := pl.certifyingSteps(lambda, r0)
	return err == nil
}

// certifyingSteps is acceleratedSteps at λ = lambda and r₀ = r0.
func (pl *outpertPlan) certifyingSteps(lambda, r0 float64) (float64, error) {
	g := pl.g
	smooth := pl.betaF + lambda
	kappa := smooth / lambda
	rc := pl.problem.Domain.Radius(2)
	wstar, d0, c := math.Min(rc, g/lambda), 0.0, 0.0
	if pl.origin {
		d0 = wstar
		c = g*d0 + lambda/2*d0*d0
	} else {
		d0 = 2 * rc
		c = (g+lambda*rc)*d0 + lambda/2*d0*d0
	}
	spread := math.Sqrt(2 * c / lambda)
	y := wstar + 3*spread + d0
	if rounding := kappa * 4 * 0x1p-53 * (2*y + (g+lambda*y)/smooth); !(rounding*(1+0x1p-20) <= r0/2) {
		return 0, fmt.Errorf("mech: output perturbation: the solver's certificate r₀ = %.3g is below what its floating-point rounding allows (%.3g) at λ = %.3g", r0, 2*rounding, lambda)
	}
	rate := -detmath.Log1p(-1 / math.Sqrt(kappa))
	k := 2 + math.Ceil(2*math.Max(0, detmath.Log(12*(kappa-1)*spread/r0))/rate)
	// K is a worst case: the solvers stop at their first certificate, after a few times fewer
	// iterations (the predicted cost), so only the iteration cap bounds it, not MaxQueries.
	if !(k <= smoothSolverMaxIter) {
		return 0, fmt.Errorf("mech: output perturbation: certifying r₀ = %.3g for every dataset takes %.3g iterations of the accelerated method, above the cap of %d", r0, k, smoothSolverMaxIter)
	}
	return k, nil
}

// bounds returns the utility bound at λ for a certificate-and-rounding error rr and noise
// moments m1 ≥ E‖z‖, m2 ≥ E‖z‖²: the Lipschitz bound, or the smaller of it and the smooth
// bound for a smooth loss on the whole space.
func (pl *outpertPlan) bounds(lambda, rr, m1, m2 float64) float64 {
	reg := lambda * pl.problem.Radius * pl.problem.Radius / 2
	lip := reg + pl.g*(rr+m1)
	if !pl.smoothForm {
		return lip
	}
	return math.Min(lip, reg+(pl.betaF+lambda)/2*(rr*rr+m2))
}

// lossBound returns M ≥ ℓᵢ(w) ≥ 0 for every row within the declared bounds and every w ∈ C
// with ‖w‖₂ ≤ radius: with Z = X·sup‖w‖_{q*} (q the norm of the data bound) bounding the
// prediction, φ(−Z) for a margin loss (φ(−Z − ρ·sup‖w‖_{r*}) for the robust loss with radius ρ
// in ℓr), ℓ(Z, −Y) for a regression loss (|z − y| ≤ Z + Y), and log K + √2·X₂·sup‖W‖_F for the
// multinomial loss (ℓ = lse(Wx) − W_y·x ≤ log K + max_k (W_k − W_y)·x). Every loss privopt has
// is non-negative. The bound uses the loss package's inflated feature bound X·(1 + 2·Slack).
func lossBound(p Problem, radius float64) (float64, error) {
	d := p.params()
	sup := func(q float64) float64 { // sup of ‖w‖_q over C ∩ {‖w‖₂ ≤ radius}
		return math.Min(p.Domain.Radius(q), geom.NormBound(radius, 2, q, d))
	}
	x := p.Bounds.X * (1 + 2*loss.Slack)
	if p.Loss.Name == LossMultinomial {
		x2 := geom.NormBound(x, p.Bounds.XNorm, 2, p.Dim)
		return roundUp(detmath.Log(float64(p.Loss.Classes)) + math.Sqrt2*x2*sup(2)), nil
	}
	z := x * sup(geom.Dual(p.Bounds.XNorm))
	s, err := p.Loss.scalar()
	if err != nil {
		return 0, err
	}
	var m float64
	if phi, ok := s.(loss.Margin); ok {
		if p.Loss.RobustRadius > 0 {
			z += p.Loss.RobustRadius * sup(geom.Dual(p.Loss.RobustNorm))
		}
		m = marginLossAt(phi, -z)
	} else {
		m = s.Value(z, -p.Bounds.Y)
	}
	if !(m >= 0) || math.IsInf(m, 1) {
		return 0, fmt.Errorf("mech: the %s loss is unbounded on this domain (bound %g): tilted ERM needs bounded losses", p.Loss.Name, m)
	}
	return roundUp(m), nil
}

// marginLossAt returns φ(m), with detmath's exp and log for the logistic loss so that the
// bound is the same on every platform.
func marginLossAt(phi loss.Margin, m float64) float64 {
	if _, ok := phi.(loss.Logistic); ok {
		return math.Max(-m, 0) + detmath.Log1p(detmath.Exp(-math.Abs(m)))
	}
	return phi.MarginValue(m)
}

// planSolver picks the solver, its work and the rounding allowance of its certificate.
func (pl *outpertPlan) planSolver() error {
	p, lambda := pl.problem, pl.lambda
	n, d := p.N, pl.dim
	smooth := !math.IsInf(pl.betaF, 1)
	rDom := p.Domain.Radius(2)
	if smooth {
		// The certified point is within r₀ + e of w*, and ‖w*‖ ≤ G/λ when 0 ∈ C (≤ R_C always).
		w := rDom
		if pl.origin {
			w = math.Min(rDom, pl.g/lambda)
		}
		w += 2 * pl.r0
		pl.rounding = roundingAllowance(n, d, pl.g, pl.beta, pl.tiltM, lambda, w) / lambda
		pl.solver = solverAccelerated
		if pl.smoothForm {
			pl.solver = solverLBFGS
		}
		pl.solverSteps = int(math.Min(smoothSolverMaxIter, math.Max(1, math.Floor(pl.mech.MaxQueries/float64(n)))))
		var err error
		if pl.certifySteps, err = pl.acceleratedSteps(); err != nil {
			return err
		}
		if pl.solver == solverAccelerated {
			pl.solverSteps = pl.certifySteps
		}
		// Predicted work: the accelerated rate, √κ·log(initial distance/r₀) iterations.
		kappa := (pl.betaF + lambda) / lambda
		steps := math.Ceil(math.Sqrt(kappa) * math.Max(1, detmath.Log((pl.g/lambda+pl.r0)/pl.r0)))
		pl.cost = cost.Cost{Queries: steps * float64(n), Steps: steps}
		return nil
	}
	// Non-smooth: the subgradient method on C, or on the ball ‖w‖ ≤ G/λ that holds w* when C is
	// the whole space; its subgradients on that set have norm at most G + λ·R.
	pl.solver, pl.solverDom = solverSubgradient, p.Domain
	if isWhole(p.Domain) {
		ball, err := geom.NewBall(d, 2, pl.g/lambda, nil)
		if err != nil {
			return err
		}
		pl.solverDom, rDom = ball, pl.g/lambda
	}
	pl.solverLip = roundUp(pl.g + lambda*rDom)
	steps, err := solve.SubgradientSteps(pl.solverLip, lambda, pl.r0)
	if err != nil {
		return fmt.Errorf("mech: the %s loss is not smooth, and the subgradient method's a priori step count for r₀ = %.3g is too large: %w (use a smooth loss such as smooth-hinge)", p.Loss.Name, pl.r0, err)
	}
	pl.solverSteps = steps
	pl.cost = cost.Cost{Queries: float64(steps) * float64(n), Steps: float64(steps)}
	if pl.cost.Queries > pl.mech.MaxQueries {
		return fmt.Errorf("mech: the %s loss is not smooth, and the subgradient method needs %d full passes over the %d examples (%.3g gradient evaluations, above the cap %.3g); use a smooth loss such as smooth-hinge", p.Loss.Name, steps, n, pl.cost.Queries, pl.mech.MaxQueries)
	}
	// Inexact subgradients add ‖e‖·diam to the averaged gap, and a prediction rounded across a
	// kink gives a (2G·γ_d·W)-subgradient: ‖X − x*‖ grows by at most √(2·(that)/λ).
	e := roundingAllowance(n, d, pl.g, 0, pl.tiltM, lambda, rDom)
	kink := 2 * pl.g * float64(d+2) * 2 * unitRoundoff * rDom
	pl.rounding = roundUp(math.Sqrt(2 * (e*2*rDom + kink) / lambda))
	return nil
}

// isWhole reports whether the domain is the whole space.
func isWhole(dom geom.Domain) bool {
	_, ok := dom.(geom.Whole)
	return ok
}

// roundingAllowance bounds the error of a computed full-batch (sub)gradient of F_λ at a point
// of norm at most w: 2⁻⁵⁰·[(n + 16)·G·(2 + tM) + (d + 16)·(β + λ)·w], which is 8u times the
// terms γ_k below with generous k. It covers the summation over n rows (γ_n·G after the
// division by n), the tilt's softmax weights (exponents with error t·M·u, normalised by a sum of
// n terms), the prediction's dot product of d terms (which moves a β-smooth loss's derivative by
// at most β·γ_d·w; β = 0 for a non-smooth loss, whose kinks the caller handles), and the
// evaluation of the scalar derivatives and of λw (a few ulps each), assuming each per-example
// derivative is computed within a few ulps, as pkg/core/loss's are.
func roundingAllowance(n, d int, g, beta, tiltM, lambda, w float64) float64 {
	return 0x1p-50 * (float64(n+16)*g*(2+tiltM) + float64(d+16)*(beta+lambda)*w)
}

// planNoise fixes the grid, the noise scale and the guarantee from the sensitivity Δ̃ (in ℓ2;
// √d·Δ̃ in ℓ1 for the Laplace noise).
func (pl *outpertPlan) planNoise() error {
	return pl.calibrate(pl.budget, pl.sens, roundUp(sqrtUp(float64(pl.dim))*pl.sens))
}

// finalUtility is the utility bound with the planned noise and grid.
func (pl *outpertPlan) finalUtility() Utility {
	m1, m2, gr := pl.moments()
	rr := pl.r0 + pl.rounding + gr
	b := roundUp(pl.bounds(pl.lambda, rr, m1, m2))
	reg := pl.lambda * pl.problem.Radius * pl.problem.Radius / 2
	lip := reg + pl.g*(rr+m1)
	which := fmt.Sprintf("the Lipschitz bound λD²/2 + G·(r₀ + e + g√d/2 + E‖z‖) (Lowy and Razaviyayn, Prop. 2.7 and Thm 3.1; the release is projected onto the domain, a non-expansive map) with λ = %.4g, G = %.4g, E‖z‖ ≤ %.4g", pl.lambda, pl.g, m1)
	if pl.smoothForm && b < lip {
		which = fmt.Sprintf("the smooth bound λD²/2 + ((β_F + λ)/2)·((r₀ + e + g√d/2)² + E‖z‖²) (Lowy and Razaviyayn, Prop. 2.8 and Thm 3.2; ∇F_λ(w*) = 0 on the whole space and the noise has mean zero) with λ = %.4g, β_F = %.4g, E‖z‖² ≤ %.4g, smaller than the Lipschitz bound %.4g", pl.lambda, pl.betaF, m2, lip)
	}
	f := "the mean loss"
	switch {
	case pl.problem.Loss.Tilt > 0:
		f = fmt.Sprintf("the tilted loss (1/t)·log mean e^{t·ℓᵢ}, t = %g", pl.problem.Loss.Tilt)
	case pl.problem.Loss.RobustRadius > 0:
		f = "the mean robust loss"
	}
	return Utility{Bound: b, Statement: fmt.Sprintf("E F_D(ŵ) − min_{w ∈ C, ‖w‖ ≤ D} F_D(w) ≤ %s, with F_D %s, D = %g, and λ chosen to minimise it from public quantities", which, f, pl.problem.Radius)}
}

func (pl *outpertPlan) Guarantee() privacy.Curve { return pl.guarantee }
func (pl *outpertPlan) Utility() Utility         { return pl.utility }
func (pl *outpertPlan) Cost() cost.Cost          { return pl.cost }

func (pl *outpertPlan) Parameters() map[string]float64 {
	ps := map[string]float64{"lambda": pl.lambda, "sensitivity": pl.gridSens, "minimiser_sensitivity": pl.lg / pl.lambda,
		"certificate_r0": pl.r0, "rounding_allowance": pl.rounding, "lipschitz": pl.g, "radius": pl.problem.Radius}
	if !math.IsInf(pl.betaF, 1) {
		ps["smoothness"] = pl.betaF
	}
	if pl.problem.Loss.Tilt > 0 {
		ps["tilt_loss_bound"] = pl.tiltM
	}
	pl.addParameters(ps)
	if pl.solver == solverSubgradient {
		ps["solver_steps"] = float64(pl.solverSteps)
	}
	return ps
}

// solve returns the certified solution w_A of F_λ on ds, with the solver's statistics.
func (pl *outpertPlan) solve(ctx context.Context, ds *data.Dataset) (*solve.Result, loss.Loss, error) {
	l, err := LossOver(pl.budget, pl.problem, ds)
	if err != nil {
		return nil, nil, err
	}
	ridge, err := geom.NewScaledLpRegularizer(2, 1, pl.dim, nil)
	if err != nil {
		return nil, nil, err
	}
	obj, err := loss.NewObjective(l, pl.problem.Loss.Tilt, ridge, pl.lambda)
	if err != nil {
		return nil, nil, err
	}
	prob := solve.Problem{Func: obj.Func, Grad: obj.Grad, FuncGrad: obj.FuncGrad}
	x0 := make([]float64, pl.dim)
	s := solve.Settings{Target: pl.r0, StrongConvexity: pl.lambda, MaxIter: pl.solverSteps, Context: ctx}
	var res *solve.Result
	switch pl.solver {
	case solverLBFGS:
		s.Smoothness = pl.betaF + pl.lambda
		if res, err = solve.LBFGS(prob, x0, s); errors.Is(err, solve.ErrNotCertified) {
			// Whether L-BFGS certifies depends on the data; the accelerated method certifies
			// within its a-priori steps for every dataset (acceleratedSteps).
			s.MaxIter = pl.certifySteps
			res, err = solve.AcceleratedProjected(prob, pl.problem.Domain, x0, s)
		}
	case solverAccelerated:
		s.Smoothness = pl.betaF + pl.lambda
		res, err = solve.AcceleratedProjected(prob, pl.problem.Domain, x0, s)
	default:
		s.Lipschitz = pl.solverLip
		res, err = solve.ProjectedSubgradient(prob, pl.solverDom, x0, s)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, nil, fmt.Errorf("mech: output perturbation: stopped while solving, nothing released: %w", ctxErr)
	}
	if err != nil {
		// With a smooth loss this cannot happen unless the rounding analysis of acceleratedSteps
		// is wrong; the non-smooth path's steps are a-priori too.
		return nil, nil, fmt.Errorf("mech: output perturbation: the solver did not certify ‖w − w*‖ ≤ r₀ = %.3g: %w", pl.r0, err)
	}
	return res, l, nil
}

// Run solves, adds the noise and projects.
func (pl *outpertPlan) Run(ctx context.Context, ds *data.Dataset, r *rng.Rand, progress func(Progress)) (*Release, error) {
	start := time.Now()
	report := func(f float64, stage string) {
		if progress != nil {
			progress(Progress{Fraction: f, Stage: stage})
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	report(0, "solving")
	res, l, err := pl.solve(ctx, ds)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	report(0.9, "adding noise")
	w := make([]float64, pl.dim)
	in := releasing(res.X)
	grid, err := pl.add(r, w, res.X)
	if err != nil {
		return nil, err
	}
	released("output perturbation", in, w, pl.sens, grid)
	if !pl.smoothForm {
		pl.problem.Domain.Project(w, w)
	}
	rep, err := privacy.NewReport(pl.base, privacy.ReportSpec{
		Mechanism: pl.mech.Name() + pl.noiseLabel(), Paper: pl.mech.Paper(),
		Target:       privacy.Budget{Epsilon: pl.budget.Epsilon, Delta: pl.budget.Delta},
		Neighbouring: pl.budget.Relation(),
		Sensitivity: privacy.Sensitivity{Value: pl.gridSens, Of: pl.sensitivityOf(),
			Derivation: pl.sensitivityDerivation()},
		Sampler:    pl.sampler(),
		Randomness: randomness(r),
	})
	if err != nil {
		return nil, err
	}
	rep.Statement += " " + pl.certifiedNote()
	details := map[string]float64{"solver_iterations": float64(res.Stats.Iterations),
		"solver_gradients": float64(res.Stats.GradEvaluations), "solver_certificate_achieved": res.Achieved}
	report(1, "done")
	return &Release{
		Model: newModel(pl.problem, ds, w), Report: rep, Utility: pl.utility, Parameters: pl.Parameters(),
		Diagnostics: diagnose(l, pl.problem, ds, w, start, details),
	}, nil
}

// noiseLabel names the noise in the report's mechanism field.
func (pl *outpertPlan) noiseLabel() string {
	switch pl.noise {
	case noiseDiscreteGaussian:
		return " (discrete Gaussian on a grid)"
	case noiseDiscreteLaplace:
		return " (discrete Laplace on a grid)"
	}
	return " (continuous ℓ2-Laplace: not safe against floating-point attacks)"
}

// sensitivityOf says what the report's sensitivity bounds.
func (pl *outpertPlan) sensitivityOf() string {
	if pl.noise == noiseDiscreteLaplace {
		return "the ℓ1 distance between the rounded solver outputs on neighbouring datasets, in real units"
	}
	if pl.noise == noiseDiscreteGaussian {
		return "the ℓ2 distance between the rounded solver outputs on neighbouring datasets, in real units"
	}
	return "the ℓ2 distance between the solver outputs on neighbouring datasets"
}

// sensitivityDerivation says how the report's sensitivity follows from public constants.
func (pl *outpertPlan) sensitivityDerivation() string {
	lg := meanSensitivityDerivation(pl.budget, pl.g, pl.problem.N)
	if pl.problem.Loss.Tilt > 0 {
		lg = fmt.Sprintf("2G/(1 + (n − 1)e^{−tM}) with G = %.6g, n = %d, t = %g and the loss bound M = %.6g (tilted ERM)", pl.g, pl.problem.N, pl.problem.Loss.Tilt, pl.tiltM)
	}
	s := fmt.Sprintf("Δ̃ = L_g/λ + 2(r₀ + e) = %.6g, with L_g = %s, λ = %.6g, the solver's certificate r₀ = %.6g and the gradient-rounding allowance e = %.3g", pl.sens, lg, pl.lambda, pl.r0, pl.rounding)
	switch pl.noise {
	case noiseDiscreteGaussian:
		s += fmt.Sprintf("; plus the grid's rounding g√d with g = 2^%d", int(math.Round(math.Log2(pl.grid.Spacing()))))
	case noiseDiscreteLaplace:
		s += fmt.Sprintf("; times √d for the ℓ1 norm, plus the grid's rounding g·d with g = 2^%d", int(math.Round(math.Log2(pl.grid.Spacing()))))
	}
	return s
}

// certifiedNote is appended to the report's statement: what the guarantee rests on.
func (pl *outpertPlan) certifiedNote() string {
	s := fmt.Sprintf("The released point is the %s solution of the λ-regularised objective (λ = %.4g), certified within r₀ = %.3g of the exact minimiser; ", pl.solver, pl.lambda, pl.r0)
	switch pl.noise {
	case noiseDiscreteGaussian:
		if pl.gdp {
			s += fmt.Sprintf("discrete Gaussian noise (σ = %.4g) was added on a grid (floating-point safe): with the same noise drawn from a continuous Gaussian and rounded it would be the Gaussian mechanism followed by rounding, exactly μ-GDP with μ = %.6g, and the discrete noise is within total variation %.3g of that, added to δ as (1 + e^ε)·τ. (It is also %.6g-zCDP by the analysis of Canonne, Kamath and Steinke 2020.)", pl.scale, sqrtUp(2*pl.rho), pl.tv, pl.rho)
		} else {
			s += fmt.Sprintf("discrete Gaussian noise (σ = %.4g) was added on a grid (floating-point safe), which gives ρ-zCDP with ρ = %.6g, converted to (ε, δ) by the conversion of Canonne, Kamath and Steinke 2020.", pl.scale, pl.rho)
		}
	case noiseDiscreteLaplace:
		s += fmt.Sprintf("discrete Laplace noise (scale %.4g) was added on a grid (floating-point safe), which gives pure ε-DP with ε = %.6g.", pl.scale, pl.epsActual)
	default:
		s += fmt.Sprintf("continuous ℓ2-Laplace noise (scale %.4g) was added in floating point: the pure ε-DP guarantee holds in exact arithmetic only, and the low-order bits of the release may leak the unnoised solution (Mironov 2012).", pl.scale)
	}
	if !pl.smoothForm {
		s += " The result was projected onto the domain (post-processing)."
	}
	return s
}
