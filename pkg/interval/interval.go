// Package interval computes rigorous enclosures of real numbers at any precision: every
// operation returns an interval [Lo, Hi] of big.Floats that contains the exact real result for
// every choice of inputs in its input intervals. It is the arithmetic of the certified
// sampler's fallback for deciding "u < e^{−G}" exactly as real arithmetic would when the float64
// path cannot: G, built from float64 inputs with +, −, ×, exp and log, is enclosed at a few
// hundred bits, and Cmp decides as soon as the enclosure is narrow enough.
//
// Each lower end is rounded toward −∞ and each upper end toward +∞ (big.Float's ToNegativeInf
// and ToPositiveInf). Exp, Log and Log1pExp bound their series' truncation errors explicitly;
// the argument is in elementary.go. At precision prec (which must be positive) their result
// for a point input is at most about 4·2^−prec wide relative to it (tested: below
// 2^−(prec−20)). Operations never modify their arguments.
package interval

import (
	"math"
	"math/big"
)

// I is a closed interval [Lo, Hi] of real numbers, Lo ≤ Hi. Make one with Point or FromBig.
// Lo is −∞ or Hi is +∞ only when that bound lies beyond big.Float's exponent range
// (|x| ≥ 2^(2^31−1)), as an upper bound of e^x for x ≥ 2^31 does.
type I struct{ Lo, Hi *big.Float }

// Point returns [x, x] rounded outward to prec bits (exact when prec ≥ 53). x must be finite.
func Point(x float64, prec uint) I {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		panic("interval: Point of a non-finite float64")
	}
	return FromBig(new(big.Float).SetFloat64(x), prec)
}

// FromBig returns [x, x] rounded outward to prec bits (exact when x has at most prec bits).
// x must be finite.
func FromBig(x *big.Float, prec uint) I {
	if x.IsInf() {
		panic("interval: FromBig of an infinity")
	}
	return I{lower(prec).set(x), upper(prec).set(x)}
}

// Add returns an interval of precision prec enclosing {x + y : x ∈ a, y ∈ b}.
func Add(a, b I, prec uint) I {
	return I{lower(prec).add(a.Lo, b.Lo), upper(prec).add(a.Hi, b.Hi)}
}

// Sub returns an interval of precision prec enclosing {x − y : x ∈ a, y ∈ b}.
func Sub(a, b I, prec uint) I {
	return I{lower(prec).sub(a.Lo, b.Hi), upper(prec).sub(a.Hi, b.Lo)}
}

// Neg returns [−a.Hi, −a.Lo], exactly.
func Neg(a I) I {
	return I{neg(a.Hi), neg(a.Lo)}
}

// Mul returns an interval of precision prec enclosing {x·y : x ∈ a, y ∈ b}.
func Mul(a, b I, prec uint) I {
	// x·y is linear in each factor, so its extremes over a×b are at the corners.
	return corners(a, b, lower(prec).mul, upper(prec).mul)
}

// corners returns the interval from the least of lo and the greatest of hi over the four
// corners (x, y) of a×b: the enclosure of an operation whose extremes lie at the corners,
// given its two directed roundings.
func corners(a, b I, lo, hi func(x, y *big.Float) *big.Float) I {
	l, h := lo(a.Lo, b.Lo), hi(a.Lo, b.Lo)
	for _, c := range [3][2]*big.Float{{a.Lo, b.Hi}, {a.Hi, b.Lo}, {a.Hi, b.Hi}} {
		if v := lo(c[0], c[1]); v.Cmp(l) < 0 {
			l = v
		}
		if v := hi(c[0], c[1]); v.Cmp(h) > 0 {
			h = v
		}
	}
	return I{l, h}
}

// MulFloat returns an interval of precision prec enclosing {x·c : x ∈ a}. c must be finite.
func MulFloat(a I, c float64, prec uint) I {
	return Mul(a, Point(c, 53), prec)
}

// Width returns Hi − Lo rounded up (+∞ if an end is infinite).
func (a I) Width() *big.Float {
	return upper(max(a.Lo.Prec(), a.Hi.Prec())).sub(a.Hi, a.Lo)
}

// Cmp decides a comparison of every point of a with x: it returns −1 if every point is below
// x (Hi < x), +1 if every point is above x (Lo > x), and 0 if a contains x, when a is not
// narrow enough to decide.
func (a I) Cmp(x *big.Float) int {
	switch {
	case a.Hi.Cmp(x) < 0:
		return -1
	case a.Lo.Cmp(x) > 0:
		return 1
	}
	return 0
}

// rounding is the arithmetic of one end: each result has precision prec and is rounded toward
// +∞ (up) or −∞, so it bounds the exact result from that side.
type rounding struct {
	prec uint
	up   bool
}

func lower(prec uint) rounding { return newRounding(prec, false) }
func upper(prec uint) rounding { return newRounding(prec, true) }

func newRounding(prec uint, up bool) rounding {
	if prec == 0 {
		panic("interval: precision 0")
	}
	return rounding{prec, up}
}

// flip returns the opposite direction at the same precision.
func (r rounding) flip() rounding { return rounding{r.prec, !r.up} }

// more returns the same direction with extra bits.
func (r rounding) more(extra uint) rounding { return rounding{r.prec + extra, r.up} }

func (r rounding) new() *big.Float {
	mode := big.ToNegativeInf
	if r.up {
		mode = big.ToPositiveInf
	}
	return new(big.Float).SetPrec(r.prec).SetMode(mode)
}

// fix corrects the only cases in which big.Float rounds against the mode: a result beyond the
// exponent range becomes ±Inf, and one below it ±0, whatever the mode; Acc then says it lies
// on the wrong side of the exact result, and fix replaces it by a power of two on the right
// side.
func (r rounding) fix(z *big.Float) *big.Float {
	if r.up && z.Acc() == big.Below || !r.up && z.Acc() == big.Above {
		// Overflow: |exact| ≥ 2^MaxExp, and ±2^(MaxExp−1) is on the safe side of it.
		// Underflow: 0 < |exact| < 2^(MinExp−1), the smallest positive Float.
		v := new(big.Float).SetMantExp(one, big.MaxExp-1)
		if !z.IsInf() {
			v.SetMantExp(one, big.MinExp-1)
		}
		if z.Signbit() { // ±Inf and ±0 keep the exact result's sign
			v.Neg(v)
		}
		z.Set(v) // exact: a power of two
	}
	return z
}

func (r rounding) set(x *big.Float) *big.Float    { return r.fix(r.new().Set(x)) }
func (r rounding) sub(x, y *big.Float) *big.Float { return r.add(x, neg(y)) }
func (r rounding) quo(x, y *big.Float) *big.Float { return r.fix(r.new().Quo(x, y)) }

// add returns x + y rounded. big.Float's Add takes time and memory in proportion to the
// difference of the exponents (2^31 for 1e300 + e^−1e300), so a y far below x is replaced by a
// stand-in of its sign just below x's last bit at precision q = max(r.prec, x's precision):
// with |y| and the stand-in below 2^(ex−q−1) (x = m·2^ex), the exact sums x + y and x + stand-in
// both lie strictly between x and its q-bit neighbour on y's side, where no r.prec-bit number
// lies, so they round alike.
func (r rounding) add(x, y *big.Float) *big.Float {
	if x.Sign() != 0 && y.Sign() != 0 && !x.IsInf() && !y.IsInf() {
		if x.MantExp(nil) < y.MantExp(nil) {
			x, y = y, x
		}
		ex, q := x.MantExp(nil), int(max(r.prec, x.Prec()))
		if y.MantExp(nil) < ex-q-1 { // |y| < 2^(ex−q−2)
			stand := new(big.Float).SetMantExp(one, ex-q-2)
			if y.Sign() < 0 {
				stand.Neg(stand)
			}
			y = stand
		}
	}
	return r.fix(r.new().Add(x, y))
}

// mul returns x·y rounded; a zero factor gives 0 even against an infinite one (the infinite
// end only stands for large finite numbers).
func (r rounding) mul(x, y *big.Float) *big.Float {
	if x.Sign() == 0 || y.Sign() == 0 {
		return r.new()
	}
	return r.fix(r.new().Mul(x, y))
}

// scale returns x·2^k rounded.
func (r rounding) scale(x *big.Float, k int) *big.Float {
	z := r.set(x)
	return r.fix(z.SetMantExp(z, k))
}

// neg returns −x exactly.
func neg(x *big.Float) *big.Float { return new(big.Float).Neg(x) }

var (
	one = big.NewFloat(1)
	two = big.NewFloat(2)
)

// SumParts encloses, coordinate by coordinate, the exact sum p₁ + … + p_k of d-vectors of
// floats (a point held as a base and offsets) at precision prec.
func SumParts(prec uint, d int, parts [][]float64) []I {
	x := make([]I, d)
	for j := range x {
		x[j] = Point(0, prec)
		for _, p := range parts {
			x[j] = Add(x[j], Point(p[j], prec), prec)
		}
	}
	return x
}

// Abs encloses {|x| : x ∈ a}.
func Abs(a I) I {
	switch {
	case a.Lo.Sign() >= 0:
		return a
	case a.Hi.Sign() <= 0:
		return Neg(a)
	}
	top := a.Hi
	if n := new(big.Float).Neg(a.Lo); n.Cmp(top) > 0 {
		top = n
	}
	return I{Lo: new(big.Float), Hi: top}
}
