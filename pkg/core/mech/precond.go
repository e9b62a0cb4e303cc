package mech

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/rng"
)

// secondMoments is the private release of the features' second moments
// v = (1/n)·Σᵢ (x_{i1}², …, x_{id}²), the diagonal of XᵀX/n, rounded to a grid with discrete
// Gaussian noise there, from which noisy-gd builds a diagonal preconditioner.
//
// Sensitivity. Write s(x) = (x₁², …, x_d²), so v = (1/n)·Σᵢ s(xᵢ), and let R₄ bound ‖x‖₄ for
// every row the losses accept (see newSecondMoments). Then ‖s(x)‖₂ = (Σⱼ x_j⁴)^{1/2} = ‖x‖₄² ≤
// R₄², and s(x) ≥ 0 coordinatewise. Replacing one row a by b moves v by (s(a) − s(b))/n, and
// since ⟨s(a), s(b)⟩ ≥ 0, ‖s(a) − s(b)‖₂² = ‖s(a)‖² + ‖s(b)‖² − 2⟨s(a), s(b)⟩ ≤ 2R₄⁴:
// Δ_v = √2·R₄²/n, attained by two rows with disjoint supports at the bound (R₄·e₁ and R₄·e₂).
// Adding or removing a row, the sum being divided by the public n as for the mean gradient,
// moves v by s(a)/n: Δ_v = R₄²/n.
//
// Rounding. The squares of the rows both datasets share are computed identically. A computed
// square is within u = 2⁻⁵³ relative of the exact one, so the differing rows' computed s are
// non-negative with norm at most (1 + u)R₄², and the argument above bounds their difference
// by (1 + u)·Δ_v. Each dataset's computed mean (its squares summed in chunks, loss.Squares) is within 2(n + 3)·u·(1 + u)R₄² of the exact mean
// of its computed squares (the argument of meanGradientRounding, coordinatewise errors being
// at most γ_{n+1}·Σᵢ s_j(xᵢ)), so the computed v of neighbours differ by at most
// Δ_v + u·Δ_v + 4(n + 3)·u·(1 + u)R₄² ≤ Δ_v + meanGradientRounding(n, R₄²) = Δ_v +
// 4(n + 4)·u·R₄². Rounding to the grid of spacing g adds g√d (Grid.L2Sensitivity), and the
// discrete Gaussian of variance σ_g² (grid units) makes the release ρ_v-zCDP with
// ρ_v = (Δ̃/g)²/(2σ_g²), Δ̃ the rounded sensitivity (Canonne, Kamath and Steinke 2020), and
// within total variation τ_v = roundedGaussianTV(d, σ_g²) of the Gaussian mechanism with
// μ_v = √(2ρ_v) followed by rounding, as the noisy steps are (see noisySteps). It composes
// with the steps that follow, which use v̂ only through a preconditioner applied to their
// released drifts (post-processing).
type secondMoments struct {
	n, dim int
	r4sq   float64 // R₄², the squared ℓ4 bound of the rows, which sets Δ_v
	r2     float64 // R₂², the squared ℓ2 bound of the rows, which sets the preconditioner's scale
	power  float64 // γ
	floor  float64 // c_f, the floor of v̂ in units of σ_v
	sens   float64 // Δ_v, rounding included
	grid   rng.Grid
	gsens  float64 // Δ̃: the sensitivity of the rounded v, in real units
	sigma  float64 // σ_v, the noise's standard deviation, in real units
	rho    float64 // ρ_v
	tv     float64 // the discrete noise's total-variation distance from rounded Gaussian noise
}

// newSecondMoments plans the release of v within rho (ρ_v ≤ rho, and within a relative 10⁻⁶
// of it) for n rows of dim features bounded by bounds, on a grid with at least minUnits
// spacings per σ_v, and the preconditioner of power γ and floor c_f·σ_v built from it.
func newSecondMoments(budget privacy.Budget, bounds loss.Bounds, n, dim int, rho, power, floor, minUnits float64) (*secondMoments, error) {
	// The losses accept a row when its computed norm is at most X(1 + Slack); X(1 + 2Slack)
	// bounds its exact norm (see loss.Slack), and NormBound converts that bound to ℓ4 and ℓ2.
	x := bounds.X * (1 + 2*loss.Slack)
	r4, r2 := roundUp(geom.NormBound(x, bounds.XNorm, 4, dim)), roundUp(geom.NormBound(x, bounds.XNorm, 2, dim))
	if !(r4 > 0) || math.IsInf(r2, 1) {
		return nil, fmt.Errorf("mech: the preconditioner needs a finite positive bound on the rows, got %g in ℓ%g", bounds.X, bounds.XNorm)
	}
	m := &secondMoments{n: n, dim: dim, r4sq: roundUp(r4 * r4), r2: r2 * r2, power: power, floor: floor}
	m.sens = roundUp(m.r4sq / float64(n))
	if budget.Relation() != privacy.AddRemove {
		m.sens = roundUp(math.Sqrt2 * m.sens)
	}
	m.sens = roundUp(m.sens + meanGradientRounding(n, m.r4sq))
	scale := math.Sqrt(1 / (2 * rho))
	var err error
	if m.grid, err = releaseGrid(m.sens*scale, minUnits); err != nil {
		return nil, err
	}
	if m.gsens, err = m.grid.L2Sensitivity(m.sens, dim); err != nil {
		return nil, err
	}
	m.sigma = m.gsens * scale * calibrationMargin
	dg, err := m.grid.DiscreteGaussian(m.sigma)
	if err != nil {
		return nil, err
	}
	sg := m.gsens / m.grid.Spacing() // exact: a power-of-two scaling
	m.rho = roundUp(sg * sg / (2 * dg.Sigma2()))
	m.tv = roundedGaussianTV(dim, dg.Sigma2())
	if m.rho > rho {
		return nil, fmt.Errorf("mech: internal error: the second moments' ρ = %g is above the planned %g", m.rho, rho)
	}
	return m, nil
}

// derivation states how Δ_v follows from the neighbouring relation, for the report.
func (m *secondMoments) derivation(b privacy.Budget) string {
	if b.Relation() == privacy.AddRemove {
		return perExample(b, "R₄²", m.n)
	}
	return fmt.Sprintf("√2·R₄²/n with n = %d (replace one example)", m.n)
}

// moments turns the sums of the rows' squares (symmetricMap.squares) into v, in place: each
// divided by the public n.
func (m *secondMoments) moments(sums []float64) []float64 {
	for j := range sums {
		sums[j] /= float64(m.n)
	}
	return sums
}

// release returns v̂ = round(v) + ξ on the grid, v computed in place from the sums of the
// squares of rows that the losses have accepted (so that they obey the bound the sensitivity
// assumes), mapped as noisy-gd maps them (symmetricMap.squares, which checks the mapped rows).
func (m *secondMoments) release(sums []float64, r *rng.Rand) ([]float64, error) {
	v := m.moments(sums)
	noise, err := m.grid.DiscreteGaussian(m.sigma)
	if err != nil {
		return nil, err
	}
	in := releasing(v)
	if err := m.grid.Release(r, v, v, noise); err != nil {
		return nil, fmt.Errorf("mech: the second moments: %w", err)
	}
	released("second moments", in, v, m.sens, m.grid.Spacing())
	return v, nil
}

// scale returns the preconditioner's factor b·a·p_j of each of params parameters (parameter k
// multiplies feature k mod dim, as in the multinomial loss's class-major layout; b = length,
// noisy-gd's StepLength), computed from the release v̂ only: p_j = max(v̂_j, f)^(−γ) with f = c_f·σ_v, and
// a = R₂²/max(Σⱼ p_j·max(v̂_j, 0), R₂^{2(1−γ)}).
//
// Why this a: the step h = 1/β is stable for curvature up to β, and the logistic-type losses
// have ∇²F ≼ (β/R₂²)·XᵀX/n; the preconditioned curvature's largest eigenvalue is at most
// (β/R₂²)·Σⱼ p_j·v_j, so a = R₂²/Σⱼ p_j·v_j keeps the step of length 1/β within that
// curvature, with v̂ in place of v, and b·a the step of length b/β (see NoisyGD). On
// isotropic rows (v_j = R₂²/d) it gives a·p_j = 1, plain descent. The lower bound
// R₂^{2(1−γ)} of the denominator, the value of the sum when one feature carries all of R₂²,
// keeps a finite when the noise hides every v_j. The powers are detmath's, so the scale is
// bit-identical on every platform.
func (m *secondMoments) scale(vhat []float64, params int, length float64) []float64 {
	f := m.floor * m.sigma
	p := make([]float64, m.dim)
	tr := 0.0
	for j, v := range vhat {
		p[j] = detmath.Pow(math.Max(v, f), -m.power)
		tr += p[j] * math.Max(v, 0)
	}
	a := length * (m.r2 / math.Max(tr, detmath.Pow(m.r2, 1-m.power)))
	out := make([]float64, params)
	for k := range out {
		out[k] = a * p[k%m.dim]
	}
	return out
}
