package rng

import (
	"github.com/privopt/privopt/pkg/detmath"

	"fmt"
	"math"
)

// UnitSphere fills dst with a point uniform on the unit sphere S^(d−1) of R^d, d = len(dst) ≥ 1
// (for d = 1, ±1). It does not allocate.
//
// Method: a standard normal vector divided by its Euclidean norm (the normal law is rotation
// invariant); the all-zero vector, which has probability 2^(−53·d), is redrawn. Exactness:
// that of Normal plus one rounding per coordinate.
func (r *Rand) UnitSphere(dst []float64) error {
	if len(dst) == 0 {
		return fmt.Errorf("rng: UnitSphere: dimension 0: %w", ErrInvalid)
	}
	r.unitSphere(dst)
	return nil
}

func (r *Rand) unitSphere(dst []float64) {
	for {
		s := 0.0
		for i := range dst {
			x := r.Normal()
			dst[i] = x
			s += x * x
		}
		if s > 0 {
			n := math.Sqrt(s)
			for i := range dst {
				dst[i] /= n
			}
			return
		}
	}
}

// UnitBall fills dst with a point uniform in the closed Euclidean unit ball of R^d,
// d = len(dst) ≥ 1. It does not allocate.
//
// Method: a uniform direction (UnitSphere) times the radius U^(1/d), computed as e^(−E/d) with
// E standard exponential (−E has the law of ln U), so P(radius ≤ t) = t^d.
func (r *Rand) UnitBall(dst []float64) error {
	if len(dst) == 0 {
		return fmt.Errorf("rng: UnitBall: dimension 0: %w", ErrInvalid)
	}
	r.unitSphere(dst)
	rad := detmath.Exp(-r.Exp() / float64(len(dst)))
	for i := range dst {
		dst[i] *= rad
	}
	return nil
}

// LpBall fills dst with a point uniform in the unit ball of the ℓp norm of R^d,
// {x : Σ|x_i|^p ≤ 1}, for p ≥ 1 (p = +Inf gives the cube [−1, 1]^d); d = len(dst) ≥ 1.
// It does not allocate.
//
// Method: Barthe, Guédon, Mendelson and Naor (Ann. Probab. 2005): with y_1…y_d independent with
// density ∝ exp(−|t|^p) and W standard exponential independent of them,
// y/(Σ|y_i|^p + W)^(1/p) is uniform in the ℓp ball. Here |y_i|^p = G_i ~ Gamma(1/p, 1) with a
// random sign, so x_i = ±(G_i/S)^(1/p) with S = Σ G_i + W, computed in logarithms (the G_i
// underflow for large p; their logarithms do not). For p = +Inf the coordinates are independent
// uniforms on [−1, 1). It returns an error wrapping ErrInvalid for p < 1, NaN, or d = 0.
func (r *Rand) LpBall(dst []float64, p float64) error {
	if len(dst) == 0 {
		return fmt.Errorf("rng: LpBall: dimension 0: %w", ErrInvalid)
	}
	if !(p >= 1) {
		return fmt.Errorf("rng: LpBall: p = %v: must be ≥ 1: %w", p, ErrInvalid)
	}
	if math.IsInf(p, 1) {
		for i := range dst {
			dst[i] = 2*r.Float64() - 1
		}
		return nil
	}
	a := 1 / p
	s := r.Exp()
	for i := range dst {
		var lg float64
		if a < 1 {
			lg = r.logGammaSmall(a)
		} else {
			lg = detmath.Log(r.gammaMT(a))
		}
		dst[i] = lg
		s += detmath.Exp(lg)
	}
	ls := detmath.Log(s)
	for i := range dst {
		v := detmath.Exp((dst[i] - ls) * a)
		if r.bit() {
			v = -v
		}
		dst[i] = v
	}
	return nil
}

// L2Laplace fills dst with the ℓ2-Laplace vector of scale b: density ∝ exp(−‖z‖₂/b) on R^d,
// d = len(dst) ≥ 1. It does not allocate. It returns an error wrapping ErrInvalid unless
// 0 < d·b ≤ MaxScale.
//
// Method: a uniform direction (UnitSphere) times a radius ~ Gamma(d, b): in polar coordinates
// the density of the radius is ∝ ρ^(d−1)·e^(−ρ/b) (Lowy and Razaviyayn 2021, Eq. 4). So
// E‖z‖ = d·b and E‖z‖² = d(d+1)·b². With b = Δ/ε for ℓ2 sensitivity Δ, z added to a vector
// gives ε-DP, in exact arithmetic.
//
// Not floating-point safe for releases: the float64 result leaks the unnoised vector through
// its low-order bits (Mironov 2012). There is no exact integer analogue that is practical:
// sampling exp(−‖z‖₂/b) on Z^d exactly needs Bernoulli trials with irrational parameters
// (‖z‖₂ is a square root), and rejection from a product of discrete Laplaces accepts with a
// probability exponentially small in d. For a floating-point-safe pure-ε release use Grid with
// DiscreteLaplace per coordinate and the ℓ1 sensitivity √d·Δ (plus rounding): its expected
// squared norm is at most 2d²Δ²/ε² (that of the continuous Laplace of scale √d·Δ/ε), a
// factor 2d/(d+1) < 2 above the ℓ2-Laplace's d(d+1)Δ²/ε².
func (r *Rand) L2Laplace(dst []float64, b float64) error {
	if len(dst) == 0 {
		return fmt.Errorf("rng: L2Laplace: dimension 0: %w", ErrInvalid)
	}
	if !(b > 0 && float64(len(dst))*b <= MaxScale) {
		return fmt.Errorf("rng: L2Laplace: scale %v in dimension %d: d·b must be in (0, 2^1000]: %w", b, len(dst), ErrInvalid)
	}
	r.unitSphere(dst)
	rad := b * r.gammaMT(float64(len(dst)))
	for i := range dst {
		dst[i] *= rad
	}
	return nil
}
