package rng

import (
	"github.com/privopt/privopt/pkg/detmath"

	"fmt"
	"math"
)

// MaxScale bounds the scale parameters of Laplace, Gamma and L2Laplace (and Gamma's shape and
// mean): 2^1000 ≈ 1.07e301. Below it a draw overflows to +Inf only with probability below
// e^(−2^24): an overflow needs a deviation of 2^24 times the scale.
const MaxScale = 0x1p1000

// Laplace returns a variate with density exp(−|x|/b)/(2b): b times a standard exponential,
// with a random sign. Exactness as for Exp. It returns an error wrapping ErrInvalid unless
// 0 < b ≤ MaxScale.
//
// Not for values a mechanism releases: a float64 Laplace sample leaks the unnoised value
// through its low-order bits (Mironov 2012); release through Grid with DiscreteLaplace instead.
func (r *Rand) Laplace(b float64) (float64, error) {
	if !(b > 0 && b <= MaxScale) {
		return 0, fmt.Errorf("rng: Laplace: scale %v: must be in (0, 2^1000]: %w", b, ErrInvalid)
	}
	x := b * r.Exp()
	if r.bit() {
		return -x, nil
	}
	return x, nil
}

// Gamma returns a variate with density x^(shape−1)·e^(−x/scale)/(Γ(shape)·scale^shape), x > 0
// (mean shape·scale). It returns an error wrapping ErrInvalid unless shape, scale and their
// product shape·scale lie in (0, MaxScale].
//
// Method: Marsaglia and Tsang (2000). For shape a ≥ 1: with d = a − 1/3 and c = 1/√(9d),
// propose x standard normal, y = c·x > −1, and accept d·(1+y)³ when
// −E < x²/2 + d·(1 − v + ln v), v = (1+y)³, E standard exponential (−E has the law of ln U).
// The exponent is evaluated as (x²/2)·(1 − 9dc²) + d·R(y) with
// R(y) = 3·(ln(1+y) − y + y²/2 − y³/3) summed as a series for |y| < 0.1, and 1 − 9dc² computed
// with fused multiply-adds; this removes the cancellation that makes the textbook formula lose
// all accuracy for huge shapes, so every shape up to MaxScale works. Exactness: the accepted law is
// Gamma(d + 1/3) for any c > 0, so the only errors are the rounding of d = a − 1/3 (relative
// 2^−53) and of the acceptance test (~1e-16).
// For a < 1: Gamma(a) = Gamma(a+1)·U^(1/a) (Marsaglia–Tsang), computed in logarithms as
// ln Gamma(a+1) − E/a, so the lower tail is not truncated by the resolution of U. Results below
// the smallest float64 (2^−1074) are rounded to it or to 0, as any float64 result must be; for
// tiny shapes that is common: P(X < 2^−1074) ≈ (2^−1074/scale)^a/Γ(a+1), 6e-4 for a = 0.01 and
// 0.47 for a = 0.001 at scale 1.
// Cost (measured): 1.03 to 1.08 attempts (a normal and an exponential each) per variate for
// shape ≥ 1, one more exponential for shape < 1.
func (r *Rand) Gamma(shape, scale float64) (float64, error) {
	if !(shape > 0 && shape <= MaxScale && scale > 0 && scale <= MaxScale && shape*scale <= MaxScale) {
		return 0, fmt.Errorf("rng: Gamma: shape %v, scale %v: each and their product must be in (0, 2^1000]: %w",
			shape, scale, ErrInvalid)
	}
	if shape >= 1 {
		return scale * r.gammaMT(shape), nil
	}
	lg := r.logGammaSmall(shape)
	if g := detmath.Exp(lg); g >= 0x1p-1022 {
		return scale * g, nil
	}
	return detmath.Exp(lg + detmath.Log(scale)), nil
}

// gammaMT returns a Gamma(a, 1) variate for a ≥ 1 by the Marsaglia–Tsang method (see Gamma).
func (r *Rand) gammaMT(a float64) float64 {
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	e := oneMinus9dc2(d, c)
	for {
		x := r.Normal()
		y := c * x
		if y <= -1 {
			continue
		}
		if -r.Exp() < 0.5*x*x*e+d*gammaR(y) {
			w := 1 + y
			return d * (w * w * w)
		}
	}
}

// logGammaSmall returns the logarithm of a Gamma(a, 1) variate for 0 < a < 1:
// ln Gamma(a+1) − E/a with E standard exponential.
func (r *Rand) logGammaSmall(a float64) float64 {
	return detmath.Log(r.gammaMT(a+1)) - r.Exp()/a
}

// oneMinus9dc2 returns 1 − 9·d·c² for float64 d and c with 9dc² ≈ 1, to about 1e-30 absolute:
// each product is split into its rounded value and exact error by math.FMA.
func oneMinus9dc2(d, c float64) float64 {
	q := 9 * d
	qlo := math.FMA(9, d, -q)
	p := c * c
	plo := math.FMA(c, c, -p)
	h := q * p
	hlo := math.FMA(q, p, -h)
	return ((1 - h) - hlo) - (q*plo + qlo*p)
}

// gammaR returns R(y) = 3·(ln(1+y) − y + y²/2 − y³/3) = 3·Σ_{j≥4} (−1)^(j+1)·y^j/j for y > −1.
// For |y| < 0.1 it sums the series to j = 20 (truncation below 1e-17 relative); otherwise it
// evaluates the closed form, whose cancellation there costs at most three digits of a value
// that is then multiplied by d ≤ 100·x²/9, which is harmless.
func gammaR(y float64) float64 {
	if math.Abs(y) >= 0.1 {
		return 3 * (detmath.Log1p(y) - y + y*y/2 - y*y*y/3)
	}
	s := 0.0
	for j := 20; j >= 4; j-- {
		s = s*y + gammaRSeries[j-4]
	}
	y2 := y * y
	return 3 * s * y2 * y2
}

// gammaRSeries holds (−1)^(j+1)/j for j = 4, …, 20.
var gammaRSeries = [...]float64{-1.0 / 4, 1.0 / 5, -1.0 / 6, 1.0 / 7, -1.0 / 8, 1.0 / 9, -1.0 / 10,
	1.0 / 11, -1.0 / 12, 1.0 / 13, -1.0 / 14, 1.0 / 15, -1.0 / 16, 1.0 / 17, -1.0 / 18, 1.0 / 19,
	-1.0 / 20}
