package detmath

import (
	"math"
)

// This file holds the normal-distribution functions the accountant (pkg/core/privacy) and the
// samplers are built on, written for full relative accuracy in the tails (down to 1e-300 and
// beyond, in log space), where the textbook formulas cancel or underflow, and on this
// package's functions so that every result is the same bit for bit on every platform.

const invSqrt2Pi = 0.3989422804014327 // 1/√(2π)

// invSqrt2Hi + invSqrt2Lo is 1/√2 to about 32 digits.
const (
	invSqrt2Hi = 0.7071067811865476
	invSqrt2Lo = -4.833646656726457e-17
)

// NormalPDF returns φ(x) = exp(−x²/2)/√(2π).
func NormalPDF(x float64) float64 {
	return invSqrt2Pi * ExpNegHalfSquare(x)
}

// NormalCDF returns Φ(x), the standard normal distribution function, with full relative
// accuracy in the lower tail (it underflows to 0 below about −38.5; LogNormalTail keeps going).
func NormalCDF(x float64) float64 {
	return NormalTail(-x)
}

// NormalTail returns Q(x) = 1 − Φ(x) = P[Z > x] for a standard normal Z, with full relative
// accuracy everywhere. Below x = 3√2 it is ½·erfc(u) with u = x/√2 corrected for the rounding
// of u (erfc is steep there); above, ½·exp(−x²/2)·erfcx(x/√2), where erfcx varies slowly.
func NormalTail(x float64) float64 {
	switch {
	case math.IsInf(x, 1):
		return 0
	case math.IsInf(x, -1):
		return 1
	case x < 3*math.Sqrt2:
		u := x * invSqrt2Hi
		du := math.FMA(x, invSqrt2Hi, -u) + x*invSqrt2Lo // x/√2 − u
		return 0.5 * (Erfc(u) - 2/math.SqrtPi*ExpNegSquare(u)*du)
	default:
		return 0.5 * ExpNegHalfSquare(x) * Erfcx(x/math.Sqrt2)
	}
}

// LogNormalTail returns log Q(x), finite for every finite x (Q(x) itself underflows for
// x > 38.5).
func LogNormalTail(x float64) float64 {
	switch {
	case x < 0:
		return math.Log1p(-NormalTail(-x))
	case x < 1:
		return Log(NormalTail(x))
	case math.IsInf(x, 1):
		return math.Inf(-1)
	default:
		return -0.5*x*x + Log(0.5*Erfcx(x/math.Sqrt2))
	}
}

// millsRatio returns Q(x)/φ(x) = √(π/2)·erfcx(x/√2), finite for all x > −37.
func millsRatio(x float64) float64 {
	return math.Sqrt(math.Pi/2) * Erfcx(x/math.Sqrt2)
}

// NormalTailInverse returns the x with Q(x) = p, that is Φ⁻¹(1 − p), for p in (0, 1), with
// full relative accuracy for p as small as the smallest double. For p < 1/4: Newton's method
// on log Q(x) = log p (whose derivative is −1/millsRatio(x)), started from the leading terms
// of the tail asymptotics. For p in [1/4, 1/2): Newton's method on ½·erf(x/√2) = ½ − p
// (exact for p ≥ 1/4), which keeps full relative accuracy near the median where Q(x) ≈ ½
// would not. Above 1/2, by symmetry. It returns +Inf for p = 0, −Inf for p = 1 and NaN
// outside [0, 1].
func NormalTailInverse(p float64) float64 {
	switch {
	case !(p >= 0 && p <= 1):
		return math.NaN()
	case p == 0:
		return math.Inf(1)
	case p == 1:
		return math.Inf(-1)
	case p > 0.5:
		return -NormalTailInverse(1 - p) // 1 − p is exact for p in [0.5, 1]
	case p == 0.5:
		return 0
	case p >= 0.25:
		target := 0.5 - p
		x := math.Sqrt(2*math.Pi) * target
		for range 50 {
			step := (0.5*Erf(x*invSqrt2Hi) - target) / NormalPDF(x)
			x -= step
			if math.Abs(step) <= 1e-16*x {
				break
			}
		}
		return x
	}
	logp := Log(p)
	var x float64
	if p < 0.1 {
		t := -2 * logp
		x = math.Sqrt(t - Log(t) - Log(2*math.Pi))
	} else {
		x = math.Sqrt(2*math.Pi) * (0.5 - p)
	}
	for range 50 {
		step := (LogNormalTail(x) - logp) * millsRatio(x)
		x += step
		if math.Abs(step) <= 1e-15*math.Max(1, math.Abs(x)) {
			break
		}
	}
	return x
}
