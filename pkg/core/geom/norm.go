// Package geom holds the geometry of the convex problems privopt solves: ℓp norms and their
// duals, the domains a model lives in (balls, boxes, the whole space) with their Euclidean
// projections, the strongly convex regularizers of Gopi, Lee, Liu, Shen and Tian (Private
// Convex Optimization in General Norms) with their exact ranges, and Schatten-p norms and regularizers for matrix models.
//
// Norm exponents are float64 values p ∈ [1, ∞]; p = math.Inf(1) is the max norm. Every
// quantity a mechanism uses (a modulus of strong convexity, a range Θ, a radius) is computed
// from the declared shape of the problem, never from data.
package geom

import (
	"math"

	"github.com/privopt/privopt/pkg/detmath"
)

// Norm returns ‖x‖_p = (Σ|x_i|^p)^{1/p} for p ∈ [1, ∞), and max_i |x_i| for p = +Inf.
//
// Method: a direct sum for p = 1, a sum of squares for p = 2 (recomputed with scaling by
// max|x_i| when it overflows or underflows), and a sum scaled by max|x_i| for other p, so the
// result neither overflows nor underflows unless the norm itself does. The relative error is
// a few units of rounding per term (at most about len(x)·2⁻⁵³). It returns NaN if x holds a
// NaN or p is not in [1, ∞], and +Inf if x holds an infinity (and no NaN). Norm of an empty
// vector is 0.
func Norm(x []float64, p float64) float64 {
	switch {
	case p == 1:
		s := 0.0
		for _, v := range x {
			s += math.Abs(v)
		}
		return s
	case p == 2:
		s := sumSquares(x)
		// Above 2⁻⁹⁰⁰, squares that underflowed (each below 2⁻¹⁰²²) change the sum by at most
		// len(x)·2⁻¹²² relative.
		if s > 0x1p-900 && s < math.Inf(1) {
			return math.Sqrt(s)
		}
		return scaledNorm(x, 2)
	case p >= 1: // includes +Inf; excludes NaN
		return scaledNorm(x, p)
	}
	return math.NaN()
}

// scaledNorm computes ‖x‖_p for p ∈ [1, ∞] by dividing by m = max|x_i| first.
func scaledNorm(x []float64, p float64) float64 {
	m := 0.0
	for _, v := range x {
		a := math.Abs(v)
		if a != a {
			return math.NaN()
		}
		if a > m {
			m = a
		}
	}
	if m == 0 || math.IsInf(p, 1) || math.IsInf(m, 1) {
		return m
	}
	s := 0.0
	if p == 2 {
		for _, v := range x {
			t := v / m
			s += t * t
		}
		return m * math.Sqrt(s)
	}
	for _, v := range x {
		s += pow(math.Abs(v)/m, p)
	}
	return m * pow(s, 1/p)
}

// Dual returns the dual exponent p* = p/(p−1) of p ∈ [1, ∞], so that ‖·‖_{p*} is the dual
// norm of ‖·‖_p: Dual(1) = +Inf, Dual(+Inf) = 1, Dual(2) = 2. It returns NaN for p < 1 or NaN.
func Dual(p float64) float64 {
	switch {
	case p == 1:
		return math.Inf(1)
	case math.IsInf(p, 1):
		return 1
	case p > 1:
		return p / (p - 1)
	}
	return math.NaN()
}

// NormBound returns sup{‖x‖_to : x ∈ R^d, ‖x‖_from ≤ r}, the exact conversion of a bound
// between ℓp norms: r when to ≥ from, and r·d^{1/to − 1/from} when to < from (attained by the
// vector with d equal entries). It is used to state a Lipschitz constant in the norm a
// mechanism uses when the data bound is declared in another norm. Exponents must be in
// [1, ∞], d ≥ 1 and r ≥ 0 (+Inf allowed); otherwise it returns NaN. The power is computed with
// pow (relative error below 2⁻⁴⁸ for d ≤ 2³²).
func NormBound(r, from, to float64, d int) float64 {
	if !(from >= 1) || !(to >= 1) || d < 1 || !(r >= 0) {
		return math.NaN()
	}
	if to >= from || r == 0 {
		return r
	}
	return r * pow(float64(d), 1/to-1/from)
}

// NormGrad writes into grad a subgradient of ‖·‖_p at x and returns ‖x‖_p, for p ∈ [1, ∞].
// The subgradient g satisfies ⟨g, x⟩ = ‖x‖_p and ‖g‖_{p*} ≤ 1 (= 1 unless x = 0):
// g = sign(x) for p = 1 (0 where x_i = 0); g_i = sign(x_i)(|x_i|/‖x‖_p)^{p−1} for 1 < p < ∞;
// sign(x_j)e_j at the first index j of largest |x_j| for p = ∞; and g = 0 at x = 0 (a valid
// subgradient, since ‖·‖_p ≥ 0). grad and x must have the same length and may be the same
// slice.
func NormGrad(grad, x []float64, p float64) float64 {
	if len(grad) != len(x) {
		panic("geom: NormGrad: length mismatch")
	}
	n := Norm(x, p)
	switch {
	case n == 0 || n != n:
		for i := range grad {
			grad[i] = 0
		}
	case p == 1:
		for i, v := range x {
			grad[i] = sign(v)
		}
	case math.IsInf(p, 1):
		j := 0
		for i, v := range x {
			if math.Abs(v) > math.Abs(x[j]) {
				j = i
			}
		}
		s := sign(x[j])
		for i := range grad {
			grad[i] = 0
		}
		grad[j] = s
	case p == 2:
		for i, v := range x {
			grad[i] = v / n
		}
	default:
		for i, v := range x {
			grad[i] = sign(v) * pow(math.Abs(v)/n, p-1)
		}
	}
	return n
}

// sign returns −1, 0 or 1.
func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// pow is detmath.PortablePow.
func pow(x, y float64) float64 { return detmath.PortablePow(x, y) }
