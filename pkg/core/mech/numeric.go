package mech

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/rng"
)

// unitRoundoff is u = 2⁻⁵³, the unit roundoff of float64.
const unitRoundoff = 0x1p-53

// releaseGrid returns the grid 2^−k·Z on which noise of scale s (a standard deviation or a
// Laplace scale, in real units) is released: the spacing is g = 2^(e−24) for 2^(e−1) ≤ s < 2^e,
// so s/g ∈ [2²³, 2²⁴), or finer by powers of two until s/g ≥ minUnits. The rounding then
// inflates an ℓ2 sensitivity Δ by g√d, about √d·(s/Δ)·6·10⁻⁸ relative, while |w|/g stays below
// Grid.Release's 2⁵² for every |w| up to 2²⁸·s (less by the extra powers of two).
func releaseGrid(s, minUnits float64) (rng.Grid, error) {
	if !(s > 0) || math.IsInf(s, 1) {
		return rng.Grid{}, fmt.Errorf("mech: the settings ask for noise of scale %g, which privopt cannot release: a setting is extreme (the radius, ε, or a mechanism option such as RidgeScale, StepScale or Clip)", s)
	}
	if !(minUnits >= 0) || math.IsInf(minUnits, 1) {
		return rng.Grid{}, fmt.Errorf("mech: internal error: a grid of %g spacings per noise scale", minUnits)
	}
	_, e := math.Frexp(s) // s = f·2^e, f ∈ [1/2, 1)
	k := 24 - e
	for math.Ldexp(s, k) < minUnits {
		k++
	}
	g, err := rng.NewGrid(k)
	if err != nil {
		return rng.Grid{}, fmt.Errorf("mech: the settings ask for noise of scale %g, outside the range of scales privopt releases on a grid: a setting is extreme (the radius, ε, or a mechanism option such as RidgeScale, StepScale or Clip)", s)
	}
	return g, nil
}

// roundedGaussianTV is an upper bound on the total-variation distance between coords
// independent discrete Gaussians N_Z(0, σ²) and coords independent continuous Gaussians
// N(0, σ²) rounded to the nearest integer, for σ² = sigma2 in grid units: coords·φ(1)/(2σ²)
// (φ the standard normal density; 0.121·coords/σ²).
//
// Proof, for one coordinate. Let f be the density of N(0, σ²), S = Σ_k f(k), so the discrete
// Gaussian is P(k) = f(k)/S, and R(k) = ∫_{k−1/2}^{k+1/2} f the rounded Gaussian. Taylor's
// formula with the Peano kernel K(u) = (1/2 − |u|)²/2 ∈ [0, 1/8] gives
// R(k) − f(k) = ∫_{−1/2}^{1/2} K(u)·f″(k + u) du, so E = Σ_k |R(k) − f(k)| ≤ (1/8)∫|f″| =
// (1/8)·E|Z² − 1|/σ² = φ(1)/(2σ²) (E|Z² − 1| = 4φ(1) for Z standard normal). As Σ_k R(k) = 1,
// |S − 1| ≤ E too, and Σ_k |P(k) − f(k)| = |1 − S|, so Σ_k |P(k) − R(k)| ≤ 2E and the distance,
// half that sum, is at most E. Distances of independent coordinates add up (a coupling
// coordinate by coordinate).
func roundedGaussianTV(coords int, sigma2 float64) float64 {
	const halfPhi1 = 0.12098537 // φ(1)/2 = 0.120985362…, rounded up
	return roundUp(float64(coords) * halfPhi1 / sigma2)
}

// gridUnitsFor returns the fewest grid spacings per σ that keep coords coordinates of discrete
// Gaussian noise within total variation tv of rounded Gaussian noise (roundedGaussianTV).
func gridUnitsFor(coords int, tv float64) float64 {
	return math.Sqrt(roundedGaussianTV(coords, 1) / tv)
}

// discretizationStatus is the sampler status of discrete Gaussian releases under the Gaussian
// accounting: no sampler of a distribution, but the noise (σ_g² = sigma2 grid units, the
// smallest of the releases) within total variation tv of rounded Gaussian noise, certified.
func discretizationStatus(what string, sigma2, tv float64) privacy.SamplerStatus {
	return privacy.SamplerStatus{Certified: true, TV: tv, Statement: fmt.Sprintf(
		"no sampler of a distribution: %s; the exact discrete Gaussian noise (σ_g ≥ %.4g grid spacings) is within total variation %.3g of Gaussian noise rounded to the grid, whose μ-GDP is exact (0.121·d/σ_g² per release of d coordinates)",
		what, math.Sqrt(sigma2), tv)}
}

// meanGradientRounding returns an absolute bound on how far rounding can move the distance
// between the computed mean gradients of two neighbouring datasets beyond the exact
// sensitivity, when each per-example gradient has norm at most G: 4(n + 4)·2⁻⁵³·G.
//
// Why: the per-example gradients of the rows the datasets share are computed identically; each
// dataset's sum of at most n + 1 terms has a rounding error of at most γ_{n+1}·Σ‖∇ℓᵢ‖ ≤
// γ_{n+1}·(n+1)·G, γ_k = ku/(1 − ku) ≤ 2ku (recursive or blocked summation alike), so after
// the division by n (one more rounding) the two computed means are each within 2(n + 3)·u·G of
// the exact ones. Scaling a mean gradient by a step size adds u per coordinate, covered by the
// extra 2u·G.
func meanGradientRounding(n int, g float64) float64 {
	return 4 * float64(n+4) * unitRoundoff * g
}

// argminLog returns a minimiser of f on [lo, hi] (0 < lo < hi): the best of 241 points
// spaced evenly in log x, refined by golden-section search between its neighbours. For a
// unimodal f in log x (every convex f of x is) it is the minimiser to about 1e-12 relative;
// otherwise it is the best point found. Only +, −, ×, ÷ and detmath's exp and log are used,
// so the result is bit-identical on every platform.
func argminLog(f func(x float64) float64, lo, hi float64) float64 {
	const points = 241
	a, b := detmath.Log(lo), detmath.Log(hi)
	step := (b - a) / (points - 1)
	at := func(t float64) float64 { return f(detmath.Exp(t)) }
	best, bestVal := 0, math.Inf(1)
	for i := range points {
		if v := at(a + float64(i)*step); v < bestVal {
			best, bestVal = i, v
		}
	}
	l, h := a+float64(max(best-1, 0))*step, a+float64(min(best+1, points-1))*step
	const phi = 0.6180339887498949
	for range 80 {
		x, y := h-phi*(h-l), l+phi*(h-l)
		if at(x) < at(y) {
			h = y
		} else {
			l = x
		}
	}
	t := a + float64(best)*step
	if m := (l + h) / 2; at(m) < bestVal {
		t = m
	}
	return detmath.Exp(t)
}

// sqrtUp returns a float64 at least √x (x ≥ 0).
func sqrtUp(x float64) float64 {
	s := math.Sqrt(x)
	if math.FMA(s, s, -x) < 0 {
		s = math.Nextafter(s, math.Inf(1))
	}
	return s
}

// calibrationMargin enlarges a noise scale computed from a sensitivity and a privacy target, so
// that the privacy recomputed from the scale actually used (after the discrete samplers round
// their parameters up, and after a few roundUp steps) stays within the target despite the
// rounding of each operation: 2⁻⁴⁰ relative, far above the few ulps those operations can lose.
const calibrationMargin = 1 + 0x1p-40

// roundUp returns x enlarged by 2⁻⁵⁰ relative: above the exact value of an expression of a few
// correctly rounded operations whose float64 result is x.
func roundUp(x float64) float64 { return x * (1 + 0x1p-50) }
