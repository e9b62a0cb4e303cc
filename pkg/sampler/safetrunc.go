package sampler

import (
	"math"
	"math/big"

	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/interval"
)

// Truncated normals for the floating-point-safe sampler on a box (docs/floating-point.md, "On a
// box"). safeTruncNormal draws z ~ N(0, 1) restricted to [a, b] by stdTruncNormal's methods,
// in double-double, coupled with the same methods run in exact arithmetic on the exact ends
// a*, b*, which the caller knows within η (|a − a*|, |b − b*| ≤ η). Every method is exact for
// any interval — plain rejection; a uniform proposal accepted with exp((m² − z²)/2) for any
// m ≤ min |z| over the interval (m = 0 when it holds 0, else a lower bound of a*); Robert's
// exponential proposal a + Exp(λ)/λ accepted with exp(−(z − λ)²/2) for any λ > 0 — so the
// exact run may take the computed run's choices of method, m and λ, which depend only on the
// past. With the same random bits the two runs then agree, and their variates differ by at most
// trunc.err (below), except on the events that one comparison or decision goes one way in one
// run and the other way in the other: a variate within the variates' distance of an end, or a
// uniform within the acceptances' distance of an acceptance; truncFlip bounds their
// probability per proposal. The decisions u < e^{−q} are exact for the computed q (decide).

// truncEnd is an end of a truncated normal's interval: a double-double, or an infinity in hi
// (with lo 0).
type truncEnd [2]float64

// truncDraw is a truncated-normal draw: the variate, a bound on its distance from the exact
// run's, and whether the cap was reached.
type truncDraw struct {
	z      [2]float64
	err    float64
	capped bool
}

// ddCmp returns the sign of a − b for double-doubles: exact unless |a − b| is below about
// 2⁻¹⁰⁰·(|a| + |b|) (a comparison whose error the flip bounds count).
func ddCmp(a, b [2]float64) int {
	h, l := ddAdd(a[0], a[1], -b[0], -b[1])
	switch {
	case h > 0 || h == 0 && l > 0:
		return 1
	case h < 0 || h == 0 && l < 0:
		return -1
	}
	return 0
}

// above reports whether z ≤ e.
func (e truncEnd) above(z [2]float64) bool {
	if math.IsInf(e[0], 0) {
		return e[0] > 0
	}
	return ddCmp(z, [2]float64(e)) <= 0
}

// below reports whether e ≤ z.
func (e truncEnd) below(z [2]float64) bool {
	if math.IsInf(e[0], 0) {
		return e[0] < 0
	}
	return ddCmp(z, [2]float64(e)) >= 0
}

// ddDivFloat returns the double-double nearest (h + l)/d (within about 2⁻¹⁰⁴ relative).
func ddDivFloat(h, l, d float64) (float64, float64) {
	q1 := h / d
	p, e := twoProd(q1, d)
	q2 := ((h - p) - e + l) / d
	return twoSum(q1, q2)
}

// uniformDD returns a uniform variate on [0, 1) from 106 random bits, as a double-double: it
// is within 2⁻¹⁰⁶ of the exact uniform whose first 106 bits these are.
func (ch *chain) uniformDD() [2]float64 {
	hi := float64(ch.r.Uint64()>>11) * 0x1p-53
	lo := float64(ch.r.Uint64()>>11) * 0x1p-106
	return [2]float64{hi, lo}
}

// expDD returns an Exp(1) variate E = −ln U as a double-double within 2⁻¹⁰⁰·(1 + E) of the exact
// variate of the same uniform U: U's 192 random bits fix a cell holding it, −ln is enclosed over
// the cell at 200 bits, and the midpoint is returned. A cell too wide for that bound (U below
// about 2⁻⁹⁰) is drawn again: probability below 2⁻⁸⁹ per call, counted by the plan.
func (ch *chain) expDD() [2]float64 {
	const prec = 200
	for {
		m := new(big.Float).SetPrec(prec).SetUint64(ch.r.Uint64())
		for range 2 {
			m.SetMantExp(m, 64)
			m.Add(m, new(big.Float).SetPrec(prec).SetUint64(ch.r.Uint64()))
		}
		if m.Sign() == 0 {
			continue
		}
		lo := new(big.Float).SetPrec(prec).SetMantExp(m, -192)
		hi := new(big.Float).SetPrec(prec).Add(m, big.NewFloat(1))
		hi.SetMantExp(hi, -192)
		e := interval.Neg(interval.Log(interval.I{Lo: lo, Hi: hi}, prec))
		z := ddOf(e)
		w, _ := new(big.Float).Sub(e.Hi, e.Lo).Float64()
		if w <= 0x1p-102*(1+z[0]) {
			return z
		}
	}
}

// expDDFailure bounds the probability that expDD draws again (U < 2⁻⁸⁹ on its cell).
const expDDFailure = 0x1p-89

// decideExp reports whether a fresh uniform u lies below e^{−q}, q = qHi + qLo, exactly for
// that q (decide with a float enclosure of e^{−q}).
func (ch *chain) decideExp(qHi, qLo float64) int {
	e := detmath.Exp(-qHi)
	t := 2 * math.Abs(qLo)
	lo := e*(1-safeFunctionTolerance)*(1-t) - 0x1p-1000
	hi := e*(1+safeFunctionTolerance)*(1+t) + 0x1p-1000
	return ch.decide(lo, hi, func(prec uint) interval.I {
		q := interval.Add(interval.Point(qHi, prec), interval.Point(qLo, prec), prec)
		return interval.Exp(interval.Neg(q), prec)
	})
}

// safeTruncNormal draws from N(0, 1) restricted to [a, b] (a < b), whose ends are within eta
// of the exact run's, as stdTruncNormal does (the same methods and cap; see above).
func (ch *chain) safeTruncNormal(sc *safeChain, a, b truncEnd, eta float64) truncDraw {
	if !math.IsInf(b[0], 0) && b[0] <= 0 {
		d := ch.safeTruncNormal(sc, truncEnd{-b[0], -b[1]}, truncEnd{-a[0], -a[1]}, eta)
		d.z = [2]float64{-d.z[0], -d.z[1]}
		return d
	}
	width := b[0] - a[0] // +Inf for an infinite end
	if a[0] < 0 {
		if width > 1 {
			for range truncCap {
				zh, zl := sc.normal(ch.r)
				z := [2]float64{zh, zl}
				if a.below(z) && b.above(z) {
					return truncDraw{z: z, err: eta + 0x1p-98*(1+math.Abs(zh))}
				}
			}
			return truncDraw{capped: true}
		}
		// A uniform proposal on [a, b] ∋ 0 accepted with e^{−z²/2}.
		return ch.truncUniform(a, b, 0, eta)
	}
	if width*(b[0]+a[0]) <= 2 {
		// In the tail a ≥ 0: a uniform proposal accepted with e^{(m² − z²)/2}, m ≤ a* ≤ z.
		return ch.truncUniform(a, b, math.Max(0, (a[0]+a[1])*(1-0x1p-50)-eta*(1+0x1p-50)), eta)
	}
	// Robert's exponential proposal z = a + E/λ.
	lambda := (a[0] + math.Sqrt(a[0]*a[0]+4)) / 2
	for range truncCap {
		e := ch.expDD()
		qh, ql := ddDivFloat(e[0], e[1], lambda)
		zh, zl := ddAdd(a[0], a[1], qh, ql)
		z := [2]float64{zh, zl}
		if !b.above(z) {
			continue
		}
		dh, dl := ddAdd(zh, zl, -lambda, 0)
		sh, sl := ddMul(dh, dl, dh, dl)
		if ch.decideExp(sh/2, sl/2) == accept {
			return truncDraw{z: z, err: eta + 0x1p-97*(1+math.Abs(zh)+e[0]/lambda)}
		}
	}
	return truncDraw{capped: true}
}

// truncUniform draws z uniformly on [a, b] (finite) and accepts it with e^{(m² − z²)/2}.
func (ch *chain) truncUniform(a, b truncEnd, m, eta float64) truncDraw {
	wh, wl := ddAdd(b[0], b[1], -a[0], -a[1])
	for range truncCap {
		u := ch.uniformDD()
		ph, pl := ddMul(wh, wl, u[0], u[1])
		zh, zl := ddAdd(a[0], a[1], ph, pl)
		// q = (z − m)(z + m)/2
		xh, xl := ddAdd(zh, zl, -m, 0)
		yh, yl := ddAdd(zh, zl, m, 0)
		qh, ql := ddMul(xh, xl, yh, yl)
		if ch.decideExp(qh/2, ql/2) == accept {
			return truncDraw{z: [2]float64{zh, zl}, err: eta + 0x1p-97*(1+math.Abs(zh)+math.Abs(a[0])+math.Abs(b[0]))}
		}
	}
	return truncDraw{capped: true}
}
