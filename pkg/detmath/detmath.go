// Package detmath holds the elementary and special functions whose results must be the same,
// bit for bit, on every platform privopt runs on.
//
// The standard library's math.Exp (and math.Erfc, math.Erf and math.Pow, which call it) is
// implemented in assembly on amd64 and in Go elsewhere, and the two differ in the last bit
// for some arguments. privopt promises that a seeded run gives bit-identical releases
// natively and in WebAssembly, and a release's noise scale comes out of the accountant, so
// every function on that path is computed here with the same sequence of IEEE-754 operations
// everywhere: only +, −, ×, ÷, square roots, math.FMA (exact by definition), exact scaling
// by powers of two, and comparisons. Each function is accurate to about one ulp (tested
// against 50-digit values).
package detmath

import "math"

const (
	// ln2Hi + ln2Lo = ln 2 to about 27 digits; ln2Hi has 21 trailing zero bits, so k·ln2Hi is
	// exact for |k| < 2^21.
	ln2Hi    = 0.6931471803691238
	ln2Lo    = 1.9082149292705877e-10
	invLn2   = 1.4426950408889634
	invSqrPi = 0.5641895835477563 // 1/√π
	// expMax and expMin are where e^x overflows and where it underflows to zero.
	expMax = 709.782712893384
	expMin = -745.1332191019412
)

// expTaylor are 1/k! for k = 2..13: the Taylor coefficients of (e^r − 1 − r)/r².
var expTaylor = [...]float64{
	1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320, 1.0 / 362880,
	1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800,
}

// Exp returns e^x. Method: x = k·ln 2 + r with |r| ≤ ln 2 / 2 (Cody–Waite reduction with a
// two-part ln 2), e^r − 1 from its Taylor series to degree 13 (truncation error below 1e-17
// relative), and e^x = 2^k·(1 + (e^r − 1)).
func Exp(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x > expMax:
		return math.Inf(1)
	case x < expMin:
		return 0
	}
	k := math.Floor(x*invLn2 + 0.5)
	r := (x - k*ln2Hi) - k*ln2Lo
	p := expTaylor[len(expTaylor)-1]
	for i := len(expTaylor) - 2; i >= 0; i-- {
		p = p*r + expTaylor[i]
	}
	em1 := r + r*r*p // e^r − 1
	return math.Ldexp(1+em1, int(k))
}

// logSeries are 1/(2k+1) for k = 1..12: log(1+f) = 2·atanh(s) = 2(s + s³/3 + s⁵/5 + …) with
// s = f/(2 + f).
var logSeries = [...]float64{
	1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23, 1.0 / 25,
}

// Log returns the natural logarithm of x. Method: x = m·2^e with m in [√2/2, √2),
// log m = 2·atanh(s) with s = (m − 1)/(m + 1), |s| ≤ 0.1716, summed to s^25 (truncation error
// below 1e-19 relative), and log x = e·ln 2 + log m with the two-part ln 2.
func Log(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	m, e := math.Frexp(x) // x = m·2^e, m in [1/2, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	f := m - 1
	s := f / (2 + f)
	s2 := s * s
	p := logSeries[len(logSeries)-1]
	for i := len(logSeries) - 2; i >= 0; i-- {
		p = p*s2 + logSeries[i]
	}
	// log m = 2s + 2s³·p = f − s·(f − 2s²p·… ) is written as f − (f − 2s − 2s³p) to keep the
	// leading term exact: f − 2s = s·f exactly in real arithmetic.
	logm := f - (s*f - 2*s*s2*p)
	fe := float64(e)
	return fe*ln2Hi + (logm + fe*ln2Lo)
}

// expSquare returns e^{s·x²} for s = ±1 or ±1/2, with the rounding of x² removed
// (x² = hi + lo exactly, by a fused multiply-add). Where x² or the result overflows or
// underflows, the result is the limit (0 or +Inf), never NaN.
func expSquare(s, x float64) float64 {
	hi := x * x
	e := Exp(s * hi)
	if math.IsInf(hi, 0) || e == 0 || math.IsInf(e, 0) {
		return e
	}
	lo := math.FMA(x, x, -hi)
	return e * (1 + s*lo)
}

// ExpNegHalfSquare returns e^{−x²/2} with the rounding of x² removed.
func ExpNegHalfSquare(x float64) float64 { return expSquare(-0.5, x) }

// ExpNegSquare returns e^{−x²} with the rounding of x² removed.
func ExpNegSquare(x float64) float64 { return expSquare(-1, x) }

// cfThreshold is where Erfcx switches from the Chebyshev pieces to the continued fraction.
const cfThreshold = 3.0

// erfcxTail returns r(x) for x ≥ cfThreshold, where erfcx(x) = 1/(√π·(x + r(x))): the tail of
// Laplace's continued fraction erfc(x) = e^{−x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))),
// evaluated backwards from a depth that gives full double precision for x ≥ 3.
func erfcxTail(x float64) float64 {
	depth := 8
	switch {
	case x < 4:
		depth = 40
	case x < 6:
		depth = 24
	case x < 10:
		depth = 14
	}
	t := x
	for k := depth; k >= 2; k-- {
		t = x + float64(k)/2/t
	}
	return 0.5 / t
}

// Erfcx returns the scaled complementary error function erfcx(x) = e^{x²}·erfc(x), with full
// relative accuracy for every x ≥ 0: Chebyshev expansions on [k/2, (k+1)/2] below 3 (their
// coefficients are generated with 50-digit arithmetic by internal/gen/erfcx_cheb.py), Laplace's
// continued fraction above. For x < 0 it is 2·e^{x²} − erfcx(−x), which overflows to +Inf
// below about −26.6.
func Erfcx(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x < 0:
		return 2*expSquare(1, x) - Erfcx(-x)
	case x < cfThreshold:
		k := int(2 * x)
		return chebyshev(erfcxCheb[k], 4*x-float64(2*k+1))
	case math.IsInf(x, 1):
		return 0
	default:
		return invSqrPi / (x + erfcxTail(x))
	}
}

// chebyshev evaluates Σ c_j T_j(t) by Clenshaw's recurrence.
func chebyshev(c []float64, t float64) float64 {
	var b1, b2 float64
	for j := len(c) - 1; j >= 1; j-- {
		b1, b2 = 2*t*b1-b2+c[j], b1
	}
	return t*b1 - b2 + c[0]
}

// ErfcxSlope returns −erfcx′(x) = 2/√π − 2x·erfcx(x), which is positive for every x. Above
// x = 3 the difference would cancel, so it is computed from the continued fraction as
// (2/√π)·r/(x + r), with erfcx(x) = 1/(√π(x + r)).
func ErfcxSlope(x float64) float64 {
	if x < cfThreshold {
		return 2*invSqrPi - 2*x*Erfcx(x)
	}
	r := erfcxTail(x)
	return 2 * invSqrPi * r / (x + r)
}

// Erfc returns the complementary error function, e^{−x²}·erfcx(x) for x ≥ 0 (full relative
// accuracy; it underflows to 0 above about 26.5) and 2 − erfc(−x) for x < 0.
func Erfc(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x < 0:
		return 2 - Erfc(-x)
	case math.IsInf(x, 1) || x > 27.3:
		return 0
	}
	return expSquare(-1, x) * Erfcx(x)
}

// Erf returns the error function: its Taylor series (2/√π)·Σ (−1)ⁿ x^{2n+1}/(n!(2n+1)) for
// |x| < 1/2, where it keeps full relative accuracy, and 1 − erfc(x) beyond.
func Erf(x float64) float64 {
	ax := math.Abs(x)
	switch {
	case math.IsNaN(x):
		return x
	case ax >= 0.5:
		return math.Copysign(1-Erfc(ax), x)
	}
	x2 := x * x
	term, sum := x, x // term = (−1)ⁿ x^{2n+1}/n!
	for n := 1; n < 30; n++ {
		term *= -x2 / float64(n)
		add := term / float64(2*n+1)
		sum += add
		if math.Abs(add) < 1e-18*math.Abs(sum) {
			break
		}
	}
	return 2 * invSqrPi * sum
}

// Log1p returns log(1 + y) for y ≥ −1, accurate for tiny |y|: with u = 1 + y rounded,
// log(1 + y) = log(u)·y/(u − 1) when u ≠ 1 and y when u = 1 (the quotient corrects the
// rounding of 1 + y; Goldberg 1991, Theorem 4).
func Log1p(y float64) float64 {
	u := 1 + y
	switch {
	case u == 1:
		return y
	case math.IsInf(u, 1) || math.IsNaN(u):
		return u
	}
	return Log(u) * (y / (u - 1))
}

// Pow returns x^y for x > 0 as e^{y·log x} (its relative error grows like |y·log x|·2⁻⁵³),
// x^y = 1 for y = 0, and 0 or +Inf for x = 0 (by the sign of y); NaN for x < 0.
func Pow(x, y float64) float64 {
	switch {
	case y == 0:
		return 1
	case x == 0 && y > 0:
		return 0
	case x == 0:
		return math.Inf(1)
	case x < 0 || math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	}
	return Exp(y * Log(x))
}
