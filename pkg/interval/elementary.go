package interval

import (
	"math"
	"math/big"
	"sync"
)

// Why the bounds below hold.
//
// Ends. exp, log, log(1+·), atanh and log(1+e^·) are increasing, so a lower bound of f(a.Lo) and
// an upper bound of f(a.Hi) enclose f(a); each end is computed by its own rounding (lower: every
// operation toward −∞; upper: toward +∞). Within one end's formula an operand that the formula
// increases with gets a bound from the same side, and one it decreases with (a subtrahend, a
// divisor) from the opposite side. Every operation of rounding bounds its exact result from its
// side (big.Float rounds correctly in the mode, and fix covers the exponent range's ends).
//
// Series. For 0 ≤ t ≤ 1/2 and T_n = t^n/n!, the tail after a term T_n (n ≥ 1) of e^t is
//
//	Σ_{m>n} T_m = T_n·Σ_{j≥1} t^j·n!/(n+j)! ≤ T_n·Σ_{j≥1} (t/(n+1))^j ≤ T_n·(1/4)/(1 − 1/4) = T_n/3;
//
// for 0 ≤ v ≤ 1/2 and T_n = v^(2n+1)/(2n+1), the tail after T_n of atanh v is
//
//	Σ_{m>n} T_m ≤ T_n·Σ_{j≥1} v^(2j) = T_n·v²/(1 − v²) ≤ T_n/3.
//
// All terms are positive. A lower bound is the sum of lower bounds of T_0..T_n (the tail is
// left out); an upper bound is the sum of upper bounds of T_0..T_n plus the upper bound of T_n
// again, which is at least the tail. Summation stops once the last term is below 2^−(p+1) of the
// sum at working precision p, that is below a quarter of the sum's ulp (so rounding the last
// addition up happens to cover the tail, at most 1/12 ulp, already; the bound does not rely on
// it), or once the terms reach the bottom of the exponent range; any stopping point is correct.
//
// ln 2 = 2·atanh(1/3), from 1/3 rounded down for the lower bound and up for the upper
// (atanh is increasing).
//
// exp x. If |x| ≥ 2^31, |log₂ e^x| > 3·10^9 > MaxExp, so e^x and 2^(±2^32) lie beyond the same
// end of the exponent range, and the bound of the latter (after fix) is the answer. Otherwise
// k = round(x/ln 2) in float64 (|k| < 2^32) and r = x − k·ln 2, |r| ≤ 0.35 (correctness only
// needs |r| ≤ 2^7), with k·ln 2 bounded from the side opposite to r's bound: from k·L when
// k ≥ 0 and k·H when k < 0 for an upper bound of r (ln 2 ∈ [L, H]), and the other way for a
// lower bound. This runs at p + 34 bits, where H − L is a few ulps, so that r's error,
// |k|·(H − L) plus two roundings, is about 2^−p. Then t = r/2^8 (exact), |t| ≤ 1/2: e^t from
// the series when t ≥ 0 and as 1/e^{−t} when t < 0 (an upper bound of e^t from a lower bound
// of e^{−t}, rounded up; a lower from an upper, rounded down); e^r = (e^t)^(2^8) by eight
// squarings of a positive bound; e^x = 2^k·e^r by a change of exponent (exact, or fixed at the
// ends of the range).
//
// log z, z > 0 finite. Rounding z to p bits from the bound's side first (log is increasing),
// z = m·2^e with 1/2 ≤ m < 1, and f = m, or f = 2m and e − 1 when m < 0.7071, so that
// 0.7071 ≤ f < 1.4143; then with c = j/64, j = round(64f) ∈ [45, 91] (exact), and g = f/c
// rounded from the bound's side (|g − 1| ≤ 1/90), log z = e·ln 2 + log c + 2·atanh u with
// u = (g − 1)/(g + 1), |u| < 0.0057, so that the series gains 15 bits a term. log c comes from
// a table of bounds computed once per precision by the same formula with c = 1 (logSeries).
// g has p bits with lowest bit at least 2^−p−1, so g − 1 (|g − 1| < 1/2) and g + 1 (< 4) are
// exact at p + 3 bits and u is one rounded division. atanh(−v) = −atanh v, so for u < 0 a lower
// bound of atanh u is minus an upper bound of atanh|u|, and vice versa. e·ln 2 is bounded from
// H when e ≥ 0 and from L when e < 0 for an upper bound, and the other way for a lower.
//
// log(1 + y), 0 ≤ y ≤ 1: 2·atanh u with u = y/(2 + y) ∈ [0, 1/3] (plus rounding): an upper
// bound of u is an upper bound of y over a lower bound of 2 + y, rounded up. log(1 + e^x) is
// log(1 + y) with y = e^x when x ≤ 0 and x + log(1 + y) with y = e^−x when x > 0, y ∈ [0, 1].
//
// Tightness (not needed for correctness; TestWidth measures it). Relative errors: each rounding
// adds 2^−p, a series of N terms about 3N·2^−p, and each squaring doubles the error so far, so
// exp works at prec + 20 bits (2^8 × about 100 roundings) and log and log(1 + ·) at prec + 10.
// log z has no cancellation to fear: |log f| ≤ 0.35, so if e ≠ 0, |log z| ≥ |e·ln 2|/2.
// The final rounding to prec bits adds one ulp at each end.

const expHalvings = 8 // e^r = (e^(r/2^8))^(2^8)

// guard holds the extra working bits: exp's, its argument reduction's (on top of exp's), and
// those of log and log(1 + ·). The bounds hold with any values; the tests also run without
// guard bits, where a rounding in the wrong direction anywhere shows in the result.
var guard = struct{ exp, reduce, log uint }{20, 34, 10}

// Exp returns an interval of precision prec enclosing {e^x : x ∈ a}. Lo stays positive while
// e^a.Lo is representable (a.Lo > −1.4·10^9 or so); Hi is +∞ when e^a.Hi is not.
func Exp(a I, prec uint) I {
	return I{expBound(a.Lo, lower(prec)), expBound(a.Hi, upper(prec))}
}

// Log returns an interval of precision prec enclosing {log x : x ∈ a, x > 0}: Lo is −∞ when
// a.Lo ≤ 0. It panics when a has no positive point.
func Log(a I, prec uint) I {
	if a.Hi.Sign() <= 0 {
		panic("interval: Log of an interval with no positive point")
	}
	lo := lower(prec).new().SetInf(true)
	if a.Lo.Sign() > 0 {
		lo = logBound(a.Lo, lower(prec))
	}
	return I{lo, logBound(a.Hi, upper(prec))}
}

// Log1pExp returns an interval of precision prec enclosing {log(1 + e^x) : x ∈ a}, accurate for
// every finite x: about e^x for x ≪ 0 (Lo becomes 0 only where e^x is below big.Float's
// range, x < −1.4·10^9 or so) and x + e^−x for x ≫ 0.
func Log1pExp(a I, prec uint) I {
	return I{log1pExpBound(a.Lo, lower(prec)), log1pExpBound(a.Hi, upper(prec))}
}

// expBound returns r's bound of e^x.
func expBound(x *big.Float, r rounding) *big.Float {
	switch {
	case x.Sign() == 0:
		return r.new().SetInt64(1)
	case x.IsInf() || x.MantExp(nil) > 31: // |x| ≥ 2^31
		return r.scale(one, x.Sign()*(1<<32)) // and k below: int must have 64 bits
	}
	w := r.more(guard.exp)
	red := w.more(guard.reduce)
	xf, _ := x.Float64()
	k := int(math.Round(xf / math.Ln2))
	lo2, hi2 := ln2(red.prec)
	l := hi2
	if (k >= 0) == r.up {
		l = lo2
	}
	t := red.scale(red.sub(x, red.flip().mul(new(big.Float).SetInt64(int64(k)), l)), -expHalvings)
	var e *big.Float
	if t.Sign() >= 0 {
		e = expSeries(t, w)
	} else {
		e = w.quo(one, expSeries(neg(t), w.flip()))
	}
	for range expHalvings {
		e = w.mul(e, e)
	}
	return r.scale(e, k)
}

// expSeries returns r's bound of e^t for 0 ≤ t ≤ 1/2.
func expSeries(t *big.Float, r rounding) *big.Float {
	term, n := t, new(big.Float)
	return series(r.add(one, t), r, func(i int64) *big.Float {
		term = r.quo(r.mul(term, t), n.SetInt64(i+1))
		return term
	})
}

// series adds the terms next(1), next(2), … (positive, each bounded in r's direction) to s
// until one is negligible, and then, for an upper bound, that last term once more: the tails
// of both series here are at most their last term.
func series(s *big.Float, r rounding, next func(i int64) *big.Float) *big.Float {
	var term *big.Float
	for i := int64(1); ; i++ {
		term = next(i)
		s = r.add(s, term)
		if negligible(term, s, r.prec) {
			break
		}
	}
	if r.up {
		s = r.add(s, term) // the tail is at most the last term
	}
	return s
}

// atanhBound returns r's bound of atanh v for |v| ≤ 1/2.
func atanhBound(v *big.Float, r rounding) *big.Float {
	switch v.Sign() {
	case 0:
		return r.new()
	case -1:
		return neg(atanhBound(neg(v), r.flip()))
	}
	v2 := r.mul(v, v)
	p, n := v, new(big.Float) // p bounds v^(2i+1)
	return series(r.set(v), r, func(i int64) *big.Float {
		p = r.mul(p, v2)
		return r.quo(p, n.SetInt64(2*i+1))
	})
}

// negligible reports whether term < 2^−(prec+1)·s (s > 0, term ≥ 0), or whether term is at the
// bottom of the exponent range, where the terms stop decreasing (any stopping point is correct).
func negligible(term, s *big.Float, prec uint) bool {
	e := term.MantExp(nil)
	return term.Sign() == 0 || e < s.MantExp(nil)-int(prec)-1 || e == big.MinExp
}

// logBound returns r's bound of log z for z > 0.
func logBound(z *big.Float, r rounding) *big.Float {
	if z.IsInf() {
		return r.new().SetInf(false)
	}
	w := r.more(guard.log)
	f := new(big.Float)
	e := w.set(z).MantExp(f)
	if f.Cmp(big.NewFloat(0.7071)) < 0 {
		f.SetMantExp(f, 1)
		e--
	}
	ff, _ := f.Float64()
	j := int(math.Round(ff * logTableSize))
	c := big.NewFloat(float64(j) / logTableSize) // exact
	logc := logTable(j, w)
	logf := w.add(logc, logSeries(w.quo(f, c), w))
	lo2, hi2 := ln2(w.prec)
	l := lo2
	if (e >= 0) == r.up {
		l = hi2
	}
	return r.set(w.add(w.mul(new(big.Float).SetInt64(int64(e)), l), logf))
}

// logSeries returns r's bound of log g = 2·atanh((g − 1)/(g + 1)) for g of r.prec bits in
// [0.7, 1.5).
func logSeries(g *big.Float, r rounding) *big.Float {
	num := new(big.Float).SetPrec(r.prec+3).Sub(g, one) // exact
	den := new(big.Float).SetPrec(r.prec+3).Add(g, one) // exact
	return r.scale(atanhBound(r.quo(num, den), r), 1)
}

// logTableSize is the denominator of the table's points c = j/64.
const logTableSize = 64

// logTableCache holds bounds of log(j/64), j = 45 … 91, at the largest precision asked for.
var logTableCache struct {
	sync.Mutex
	prec   uint
	lo, hi [92]*big.Float
}

// logTable returns r's bound of log(j/64) at precision r.prec.
func logTable(j int, r rounding) *big.Float {
	c := &logTableCache
	c.Lock()
	defer c.Unlock()
	if c.prec < r.prec {
		d, u := rounding{r.prec, false}, rounding{r.prec, true}
		for k := 45; k <= 91; k++ {
			x := big.NewFloat(float64(k) / logTableSize) // exact
			c.lo[k], c.hi[k] = logSeries(x, d), logSeries(x, u)
		}
		c.prec = r.prec
	}
	if r.up {
		return r.set(c.hi[j])
	}
	return r.set(c.lo[j])
}

// log1pBound returns r's bound of log(1 + y) for 0 ≤ y ≤ 1.
func log1pBound(y *big.Float, r rounding) *big.Float {
	u := r.quo(y, r.flip().add(two, y))
	return r.scale(atanhBound(u, r), 1)
}

// log1pExpBound returns r's bound of log(1 + e^x).
func log1pExpBound(x *big.Float, r rounding) *big.Float {
	w := r.more(guard.log)
	if x.Sign() <= 0 {
		return r.set(log1pBound(expBound(x, w), w))
	}
	return r.add(x, log1pBound(expBound(neg(x), w), w))
}

// ln2Cache holds bounds of ln 2 at the largest precision asked for so far.
var ln2Cache struct {
	sync.Mutex
	lo, hi *big.Float
}

// ln2 returns bounds lo ≤ ln 2 ≤ hi of precision prec.
func ln2(prec uint) (lo, hi *big.Float) {
	c := &ln2Cache
	c.Lock()
	defer c.Unlock()
	if c.lo == nil || c.lo.Prec() < prec {
		d, u := rounding{prec, false}, rounding{prec, true}
		three := big.NewFloat(3)
		c.lo = d.scale(atanhBound(d.quo(one, three), d), 1)
		c.hi = u.scale(atanhBound(u.quo(one, three), u), 1)
	}
	return rounding{prec, false}.set(c.lo), rounding{prec, true}.set(c.hi)
}
