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
// against 50-digit values). The normal distribution's density, tail, log-tail and tail inverse
// (normal.go), which the accountant and the samplers share, are built on them.
package detmath

import "math"

const (
	// ln2Hi + ln2Lo = ln 2 to about 27 digits; ln2Hi has 21 trailing zero bits, so k·ln2Hi is
	// exact for |k| < 2^21.
	ln2Hi    = 0.6931471803691238
	ln2Lo    = 1.9082149292705877e-10
	invSqrPi = 0.5641895835477563 // 1/√π
	// expMax and expMin are where e^x overflows and where it underflows to zero.
	expMax = 709.782712893384
	expMin = -745.1332191019412
)

// Exp returns e^x. Method (Tang 1989): x = (64m + j)·ln2/64 + r with |r| ≤ ln2/128 (a two-part
// ln2/64, so the reduction is exact), e^r − 1 from its Taylor series to degree 6 (truncation
// error below 1e-19 relative), and e^x = 2^m·2^{j/64}·e^r with 2^{j/64} from a table of
// 64 double-double values (exp_log_tables.go, generated with 50-digit arithmetic).
func Exp(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x > expMax:
		return math.Inf(1)
	case x < expMin:
		return 0
	}
	kf := math.Floor(x*invLn2by64 + 0.5)
	r := (x - kf*ln2by64Hi) - kf*ln2by64Lo
	p := r * (1 + r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720))))))
	k := int(kf)
	t := &exp2Table[k&63]
	v := t[0] + (t[0]*p + t[1])
	if m := k >> 6; m > -1022 && m < 1023 {
		return v * math.Float64frombits(uint64(m+1023)<<52) // an exact scaling by 2^m
	}
	return math.Ldexp(v, k>>6) // near overflow or in the subnormal range
}

// log1pSmall returns log(1 + r) for |r| ≤ 1/128 from its Taylor series to degree 9
// (truncation error below 2e-20 relative).
func log1pSmall(r float64) float64 {
	q := -1.0/2 + r*(1.0/3+r*(-1.0/4+r*(1.0/5+r*(-1.0/6+r*(1.0/7+r*(-1.0/8+r*(1.0/9)))))))
	return r + r*r*q
}

// Log returns the natural logarithm of x. Method (after Tang 1990): near 1 (|x − 1| < 1/128),
// log1pSmall(x − 1) with x − 1 exact; otherwise x = m·2^e with m in [√2/2, √2), m in an
// interval of width 1/128 with centre c, and log x = e·ln2 + log c + log(1 + (m − c)/c) with
// log c from a table of double-double values (exp_log_tables.go) and the last term from
// log1pSmall. The error is about one ulp.
func Log(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case x > 1-1.0/128 && x < 1+1.0/128:
		return log1pSmall(x - 1)
	}
	var m float64
	var e int
	if bits := math.Float64bits(x); bits>>52 != 0 { // normal: read the exponent directly
		e = int(bits>>52) - 1022
		m = math.Float64frombits(bits&(1<<52-1) | 1022<<52) // in [1/2, 1)
	} else {
		m, e = math.Frexp(x) // subnormal
	}
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	c := &logTable[int((m-0.5)*128)]
	r := (m - c[0]) * c[1] // m − c is exact
	fe := float64(e)
	return (fe*ln2Hi + c[2]) + (log1pSmall(r) + (fe*ln2Lo + c[3]))
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

// Log1p returns log(1 + y) for y ≥ −1, accurate for tiny |y|: log1pSmall for |y| < 1/128;
// otherwise, with u = 1 + y rounded,
// log(1 + y) = log(u)·y/(u − 1) when u ≠ 1 and y when u = 1 (the quotient corrects the
// rounding of 1 + y; Goldberg 1991, Theorem 4).
func Log1p(y float64) float64 {
	if y > -1.0/128 && y < 1.0/128 {
		return log1pSmall(y)
	}
	u := 1 + y
	switch {
	case u == 1:
		return y
	case math.IsInf(u, 1) || math.IsNaN(u):
		return u
	}
	return Log(u) * (y / (u - 1))
}

// PortablePow returns x^y for x ≥ 0 identically on every platform: math.Pow when y is an
// integer or ±1/2 (repeated multiplication and Sqrt, the same everywhere), else Pow
// (math.Pow's fractional part goes through math.Exp and math.Log, which are assembly on amd64
// and Go elsewhere, so a release would differ between the two in its last bits).
func PortablePow(x, y float64) float64 {
	if y == math.Trunc(y) || y == 0.5 || y == -0.5 {
		return math.Pow(x, y)
	}
	return Pow(x, y)
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
