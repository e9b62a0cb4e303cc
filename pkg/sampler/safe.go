package sampler

import (
	"context"
	"errors"
	"math"
	"math/big"
	"slices"

	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/interval"
	"github.com/privopt/privopt/pkg/rng"
)

// The floating-point-safe envelope oracle (docs/floating-point.md, "The floating-point-safe
// REM sampler: the argument"). Its run is coupled with the same algorithm in exact real
// arithmetic so that the two differ only on events whose probability the plan bounds
// (Plan.TVFloat):
//
//   - points are a float base plus a double-double offset (the state, y, c′, the proposal's
//     mean and Gaussian part), computed with error-free transformations, so that every rounding
//     is about 2⁻¹⁰⁶ of the step's own magnitudes; the errors before a proposal are shifts of
//     the exact oracle's centre, which do not accumulate;
//   - the envelope is θ-split: a θ share of the oracle's Gaussian moves into f, which makes the
//     acceptance exp(−G) ≤ 1 for any approximate gradient ĝ once G includes E ≥ ê²s²/(2θ), ê
//     the target's bound on ‖ĝ − ∇f(ŵ)‖; the accepted law is then the restricted Gaussian
//     oracle's exactly, whatever ŵ and ĝ are;
//   - every decision u < exp(−G) is the exact one for the proposal (the exact sum of its
//     parts): a float pass with a rigorous error bound decides it unless the uniform's first 53
//     bits fall inside the bound, and then G is enclosed at 320 bits;
//   - normals are double-doubles from rng.NormalPairDD, within 2⁻⁹⁹(1 + |z|) of exact normals;
//   - the final state is rounded to a grid of spacing Plan.Grid with a uniform random offset.

// safeTheta is θ, the share of the oracle's Gaussian moved into f.
const safeTheta = 0x1p-20

// safeFallbackPrec is the precision in bits of the interval fallback of a decision.
const safeFallbackPrec = 320

// safeFunctionTolerance bounds the relative error of detmath's Exp in the decision's float
// path (its tested error is about 2⁻⁵²; the tolerance leaves a factor 2¹² of room).
const safeFunctionTolerance = 0x1p-40

// Enclosed is implemented by targets that bound the rounding of their own evaluations and can
// enclose f, at a point given as the exact sum of float vectors, with interval arithmetic: the
// floating-point-safe envelope oracle needs it. The bounds must hold for every x and every
// dataset the target accepts (they may use the data's computed magnitudes).
type Enclosed interface {
	Target
	Gradient
	// ValueError returns a bound on |v − f(x)| for the value v that Value(x) or Grad(·, x)
	// returned.
	ValueError(x []float64, v float64) float64
	// GradError returns a bound on ‖g − ∇f(x)‖ for the gradient g that Grad(g, x) wrote (f
	// smooth).
	GradError(x, g []float64) float64
	// ValueEnclosure encloses f(p₁ + … + p_k), the parts summed exactly, at precision prec,
	// as the ends of an interval.I (interval.I.Ends).
	ValueEnclosure(prec uint, parts ...[]float64) (lo, hi *big.Int, exp int)
}

// safeChain is the state and scratch space of a floating-point-safe run, beside the chain's:
// offsets are double-doubles (hi + lo), the constants too.
type safeChain struct {
	t                 Enclosed
	oHi, oLo          []float64 // the state's offset from its base ch.x
	ocHi, ocLo        []float64 // c′ − ch.x
	moHi, moLo        []float64 // μ − ŵ
	pHi, pLo          []float64 // the proposal's Gaussian part σζ
	xf                []float64 // the proposal rounded to floats, for the float pass
	spare             [2]float64
	haveSpare         bool
	sqrtH, sigma, inv [2]float64 // √h, σ = s/√(1 − θ′) and 1/(1 − θ′), θ′ = 2s²·c_q
	invSigma          [2]float64 // 1/σ (a box's truncated draws)
	ball              *safeBall  // a ball's scratch space
	tHi, tLo, cq, s2  float64    // s²m = tHi + tLo exactly; c_q; s²
}

// Decisions of safeDecide.
const (
	reject = iota
	accept
	undecided
)

// normal returns the next double-double normal variate (rng.NormalPairDD, two at a time).
func (sc *safeChain) normal(r *rng.Rand) (float64, float64) {
	if sc.haveSpare {
		sc.haveSpare = false
		return sc.spare[0], sc.spare[1]
	}
	aHi, aLo, bHi, bLo := r.NormalPairDD()
	sc.spare, sc.haveSpare = [2]float64{bHi, bLo}, true
	return aHi, aLo
}

// safeConstants returns the double-doubles nearest √h, σ = √(s²/(1 − θ′)), 1/(1 − θ′) and 1/σ
// for the exact reals h = s²/(1 − s²m) and θ′ = 2s²·c_q (each within 2⁻¹⁰⁰ relative: enclosed
// at 160 bits, then rounded to a double-double).
func safeConstants(s2, m, cq float64) (sqrtH, sigma, inv, invSigma [2]float64) {
	const prec = 160
	one := interval.Point(1, prec)
	s2i := interval.Point(s2, prec)
	h := interval.Quo(s2i, interval.Sub(one, interval.MulFloat(s2i, m, prec), prec), prec)
	theta := interval.MulFloat(interval.MulFloat(s2i, 2, prec), cq, prec)
	rest := interval.Sub(one, theta, prec)
	return ddOf(interval.Sqrt(h, prec)), ddOf(interval.Sqrt(interval.Quo(s2i, rest, prec), prec)),
		ddOf(interval.Quo(one, rest, prec)), ddOf(interval.Sqrt(interval.Quo(rest, s2i, prec), prec))
}

// ddOf returns the double-double nearest the midpoint of a.
func ddOf(a interval.I) [2]float64 {
	mid := new(big.Float).SetPrec(a.Lo.Prec()+1).Add(a.Lo, a.Hi)
	mid.SetMantExp(mid, -1)
	hi, _ := mid.Float64()
	lo, _ := new(big.Float).SetPrec(mid.Prec()).Sub(mid, new(big.Float).SetFloat64(hi)).Float64()
	return [2]float64{hi, lo}
}

// safeSteps runs the plan's steps with the floating-point-safe envelope oracle from a fresh
// start and leaves the grid-rounded release in ch.x. The run's state is ch.x + oHi + oLo.
func (ch *chain) safeSteps(ctx context.Context, t Enclosed, p Plan, progress func(fraction float64)) error {
	d := len(ch.x)
	sc := &safeChain{t: t, s2: p.ProposalVar}
	for _, v := range []*[]float64{&sc.oHi, &sc.oLo, &sc.ocHi, &sc.ocLo, &sc.moHi, &sc.moLo, &sc.pHi, &sc.pLo, &sc.xf} {
		*v = make([]float64, d)
	}
	if ch.kind == BallDomain {
		if slices.ContainsFunc(ch.ball.center, func(v float64) bool { return v != 0 }) {
			return errors.New("sampler: the floating-point-safe sampler needs a ball centred at the origin")
		}
		sc.ball = newSafeBall(d)
	}
	m := ch.c.StrongConvexity
	sc.cq = safeTheta / (2 * sc.s2)
	sc.tHi, sc.tLo = twoProd(sc.s2, m)
	sc.sqrtH, sc.sigma, sc.inv, sc.invSigma = safeConstants(sc.s2, m, sc.cq)
	// The start N(0, I/m) restricted to K (the centre is the origin): base 0, offset ζ/√m.
	sd := ddOf(interval.Sqrt(interval.Quo(interval.Point(1, 160), interval.Point(m, 160), 160), 160))
	sqrtM := ddOf(interval.Sqrt(interval.Point(m, 160), 160))
	clear(ch.x)
	ch.safeGaussianPart(sc, sc.oHi, sc.oLo, nil, nil, sd, sqrtM)
	every := max(1, p.Steps/progressEvery)
	for step := 1; step <= p.Steps; step++ {
		// y = x + √h·ξ and c′ = (1 − s²m)·y (that is (y + hm·c)/(1 + hm) with c = 0 and
		// 1 + hm = 1/(1 − s²m)), as a new base and a double-double offset (centre).
		for i := range sc.oHi {
			zh, zl := sc.normal(ch.r)
			ch.x[i], sc.ocHi[i], sc.ocLo[i] = sc.centre(ch.x[i], sc.oHi[i], sc.oLo[i], zh, zl)
			ch.cp[i] = ch.x[i] + sc.ocHi[i]
		}
		if !ch.safeEnvelope(sc, p) {
			ch.stats.CapHits++
			copy(sc.oHi, sc.ocHi) // the exact oracle's cap returns c′ itself
			copy(sc.oLo, sc.ocLo)
		}
		if err := ch.report(ctx, step, p.Steps, every, progress); err != nil {
			return err
		}
	}
	ch.gridRelease(sc.oHi, sc.oLo, p.Grid)
	ch.project(ch.x, ch.x) // post-processing: the grid point may lie just outside a box or ball
	return nil
}

// safeGaussianPart writes into (pHi, pLo) the Gaussian part σζ of a draw from N(μ, σ²I)
// restricted to K, μ = ch.w + (moHi + moLo) (the origin when moHi is nil): standard normals on
// the whole space; on a ball, safeBallPart's draw; on a box, ζᵢ ~ N(0, 1) restricted to
// [(loᵢ − μᵢ)/σ, (hiᵢ − μᵢ)/σ]
// (safeTruncNormal), whose ends are computed within ηᵢ = 2⁻⁹⁷·(|loᵢ − wᵢ| + |moᵢ|)/σ of the
// exact ones. A draw that reached its cap is counted and left at 0 (its probability is in the
// plan's TVCap).
func (ch *chain) safeGaussianPart(sc *safeChain, pHi, pLo, moHi, moLo []float64, sigma, invSigma [2]float64) {
	if ch.kind == BallDomain {
		if ch.safeBallPart(sc, pHi, pLo, moHi, moLo, sigma) {
			ch.stats.CapHits++
		}
		return
	}
	if ch.kind != BoxDomain {
		for i := range pHi {
			zh, zl := sc.normal(ch.r)
			pHi[i], pLo[i] = ddMul(sigma[0], sigma[1], zh, zl)
		}
		return
	}
	end := func(bound, w, mh, ml float64) (truncEnd, float64) {
		if math.IsInf(bound, 0) {
			return truncEnd{bound, 0}, 0
		}
		h, l := twoSum(bound, -w)
		h, l = ddAdd(h, l, -mh, -ml)
		eta := 0x1p-97 * (math.Abs(bound-w) + math.Abs(mh)) * invSigma[0]
		h, l = ddMul(h, l, invSigma[0], invSigma[1])
		return truncEnd{h, l}, eta
	}
	for i := range pHi {
		var w, mh, ml float64
		if moHi != nil {
			w, mh, ml = ch.w[i], moHi[i], moLo[i]
		}
		a, etaA := end(ch.lo[i], w, mh, ml)
		b, etaB := end(ch.hi[i], w, mh, ml)
		d := ch.safeTruncNormal(sc, a, b, math.Max(etaA, etaB))
		if d.capped {
			ch.stats.CapHits++
		}
		pHi[i], pLo[i] = ddMul(sigma[0], sigma[1], d.z[0], d.z[1])
	}
}

// centre returns one coordinate of c′ = (1 − s²m)·(b + o + √h·ξ) as a new base b′ and a
// double-double offset, within about 2⁻¹⁰⁰ of |b|·u + |o| + √h|ξ| of the exact value: with
// s²m = t_hi + t_lo, t_hi·b = p₁ + p₂ and b − p₁ = b′ + e₁ exactly,
// c′ = b′ + (e₁ − p₂ − t_lo·b) + (1 − t)·(o + √h·ξ), with 1 − t a double-double.
func (sc *safeChain) centre(b, oHi, oLo, zHi, zLo float64) (float64, float64, float64) {
	yh, yl := ddMul(sc.sqrtH[0], sc.sqrtH[1], zHi, zLo)
	yh, yl = ddAdd(oHi, oLo, yh, yl)
	p1, p2 := twoProd(sc.tHi, b)
	b1, e1 := twoSum(b, -p1)
	oh, ol := twoSum(1, -sc.tHi)
	oh, ol = ddAdd(oh, ol, -sc.tLo, 0)
	mh, ml := ddMul(oh, ol, yh, yl)
	h, l := ddAdd(mh, ml, e1-p2-sc.tLo*b, 0)
	return b1, h, l
}

// meanOffset returns one coordinate of μ − ŵ = [(b + oc − ŵ) − s²ĝ]/(1 − θ′) as a
// double-double, within about 2⁻¹⁰⁰ of the terms' magnitudes: b − ŵ and s²ĝ are exact pairs.
func (sc *safeChain) meanOffset(b, w, ocHi, ocLo, g float64) (float64, float64) {
	a1, a2 := twoSum(b, -w)
	h, l := ddAdd(a1, a2, ocHi, ocLo)
	g1, g2 := twoProd(sc.s2, g)
	h, l = ddAdd(h, l, -g1, -g2)
	return ddMul(h, l, sc.inv[0], sc.inv[1])
}

// safeEnvelope is one call of the θ-split envelope oracle at c′ = ch.x + oc. On acceptance
// it moves the base to the envelope point ŵ and the offset to the proposal's, and reports
// true; false when the cap was reached.
func (ch *chain) safeEnvelope(sc *safeChain, p Plan) bool {
	w := ch.w
	// ŵ in ch.w, ĝ in ch.g, f(ŵ) in ch.fw; on the whole space exact prox iterates stay within
	// 2s²L of c′, and the plan's bounds assume 3s²L; on a box or a ball they stay in it.
	clamp := 3 * sc.s2 * ch.c.Lipschitz
	if ch.kind == BoxDomain || ch.kind == BallDomain {
		clamp = math.Inf(1)
	}
	ch.proxPoint(p.ProxSteps, sc.s2, clamp)
	// Any ĝ keeps the law exact; one no longer than f's Lipschitz bound is still within ê of
	// ∇f(ŵ) (projection onto a ball holding ∇f(ŵ) is non-expansive) and bounds the terms.
	clampNorm(ch.g, ch.c.Lipschitz)
	e := sc.t.GradError(w, ch.g)
	fwErr := sc.t.ValueError(w, ch.fw)
	bigE := roundUp(e * e / (4 * sc.cq)) // ê²s²/(2θ′) with θ′ = 2s²c_q
	// μ − ŵ = [(c′ − ŵ) − s²ĝ]/(1 − θ′) in double-double: (b − ŵ) + oc − s²ĝ has large terms
	// that nearly cancel (ŵ is close to the proximal point c′ − s²∇f).
	for i := range sc.moHi {
		sc.moHi[i], sc.moLo[i] = sc.meanOffset(ch.x[i], w[i], sc.ocHi[i], sc.ocLo[i], ch.g[i])
	}
	for range p.TrialCap {
		ch.stats.Trials++
		ch.safeGaussianPart(sc, sc.pHi, sc.pLo, sc.moHi, sc.moLo, sc.sigma, sc.invSigma)
		switch ch.safeDecide(sc, bigE, fwErr) {
		case accept:
			ch.stats.Accepted++
			for i := range sc.oHi {
				sc.oHi[i], sc.oLo[i] = ddAdd(sc.moHi[i], sc.moLo[i], sc.pHi[i], sc.pLo[i])
			}
			copy(ch.x, w)
			return true
		}
	}
	return false
}

// safeDecide draws the uniform of one trial and decides u < exp(−G) for the proposal
// x = ŵ + mo + p, G(x) = f(x) − f(ŵ) − ĝ·(x − ŵ) + c_q‖x − ŵ‖² + E, exactly (decide, with
// safeEnclosure's float enclosure and safeIntervalEnclosure's).
func (ch *chain) safeDecide(sc *safeChain, bigE, fwErr float64) int {
	lo, hi := ch.safeEnclosure(sc, bigE, fwErr)
	return ch.decide(lo, hi, func(prec uint) interval.I { return ch.safeIntervalEnclosure(sc, bigE, prec) })
}

// decide draws a uniform u and decides u < e for a real e in [lo, hi] exactly: from the
// enclosure when u's first 53 bits lie outside it, else from exact(safeFallbackPrec), an
// enclosure of e at that precision, against 192 more bits of u; undecided (counted as a
// rejection, and in the plan's bound) only when even that cannot separate them.
func (ch *chain) decide(lo, hi float64, exact func(prec uint) interval.I) int {
	j := ch.r.Uint64() >> 11 // u ∈ [j, j + 1)·2⁻⁵³
	uLo, uHi := float64(j)*0x1p-53, float64(j+1)*0x1p-53
	switch {
	case uHi <= lo:
		return accept
	case uLo >= hi:
		return reject
	}
	ch.stats.Fallbacks++
	prec := uint(safeFallbackPrec)
	pe := exact(prec)
	// u = (j + v)·2⁻⁵³ with v's first 192 bits drawn: u ∈ [uLo, uLo + 2⁻²⁴⁵].
	ub := new(big.Float).SetPrec(prec).SetUint64(j)
	for range 3 {
		ub.SetMantExp(ub, 64)
		ub.Add(ub, new(big.Float).SetPrec(prec).SetUint64(ch.r.Uint64()))
	}
	ub.SetMantExp(ub, -(53 + 192))
	ubHi := new(big.Float).SetPrec(prec).Add(ub, new(big.Float).SetMantExp(big.NewFloat(1), -(53+192)))
	switch {
	case ubHi.Cmp(pe.Lo) <= 0:
		return accept
	case ub.Cmp(pe.Hi) >= 0:
		return reject
	}
	ch.stats.Undecided++
	return undecided
}

// safeEnclosure returns lo ≤ exp(−G) ≤ hi for the current proposal from a float64 pass and
// a rigorous bound on its rounding.
func (ch *chain) safeEnclosure(sc *safeChain, bigE, fwErr float64) (lo, hi float64) {
	w, g, fw := ch.w, ch.g, ch.fw
	// q = x − ŵ = mo + p rounded to q̂ (within 3u·Σ|parts|), xf = fl(ŵ + q̂) (within
	// 4u·(|ŵ| + Σ|parts|) of x, coordinate by coordinate).
	var sumW, lin, linAbs, quad, quadAbs float64
	for i := range sc.xf {
		q := (sc.moHi[i] + sc.pHi[i]) + (sc.moLo[i] + sc.pLo[i])
		parts := math.Abs(sc.moHi[i]) + math.Abs(sc.pHi[i]) + math.Abs(sc.moLo[i]) + math.Abs(sc.pLo[i])
		sc.xf[i] = w[i] + q
		sumW += math.Abs(w[i]) + parts
		lin += g[i] * q
		linAbs += math.Abs(g[i]) * parts
		quad += q * q
		quadAbs += parts * parts
	}
	fx := ch.value(sc.xf)
	fxErr := sc.t.ValueError(sc.xf, fx)
	gHat := fx - fw - lin + sc.cq*quad + bigE
	// |Ĝ − G| ≤ the values' errors + L·‖xf − x‖₁ + the linear term's (d products and sums
	// of rounded q̂: γ_{d+4}) + the quadratic term's (γ_{d+8}) + the final sum's (five terms).
	d := float64(len(sc.xf))
	errG := fxErr + fwErr + ch.c.Lipschitz*4*0x1p-53*sumW +
		(d+4)*0x1p-53*linAbs + (d+8)*0x1p-53*sc.cq*quadAbs +
		5*0x1p-53*(math.Abs(fx)+math.Abs(fw)+math.Abs(lin)+sc.cq*quad+bigE)
	errG = roundUp(errG * (1 + 0x1p-30))
	// The additive 2⁻¹⁰⁰⁰ covers Exp's loss of relative accuracy where it underflows; a NaN
	// (never expected) makes both comparisons of safeDecide false.
	hi = detmath.Exp(-(gHat-errG))*(1+safeFunctionTolerance) + 0x1p-1000
	lo = detmath.Exp(-(gHat+errG))*(1-safeFunctionTolerance) - 0x1p-1000
	return lo, hi
}

// safeIntervalEnclosure encloses exp(−G) for the current proposal with interval arithmetic
// at prec bits, at the exact point ŵ + mo + p.
func (ch *chain) safeIntervalEnclosure(sc *safeChain, bigE float64, prec uint) interval.I {
	w, g := ch.w, ch.g
	value := func(parts ...[]float64) interval.I {
		lo, hi, exp := sc.t.ValueEnclosure(prec, parts...)
		return interval.FromEnds(lo, hi, exp, prec)
	}
	gi := interval.Sub(value(w, sc.moHi, sc.moLo, sc.pHi, sc.pLo), value(w), prec)
	for i := range sc.moHi {
		qi := interval.Point(sc.moHi[i], prec)
		for _, v := range []float64{sc.moLo[i], sc.pHi[i], sc.pLo[i]} {
			qi = interval.Add(qi, interval.Point(v, prec), prec)
		}
		gi = interval.Sub(gi, interval.MulFloat(qi, g[i], prec), prec)
		gi = interval.Add(gi, interval.MulFloat(interval.Mul(qi, qi, prec), sc.cq, prec), prec)
	}
	gi = interval.Add(gi, interval.Point(bigE, prec), prec)
	return interval.Exp(interval.Neg(gi), prec)
}

// clampDistance moves w onto the ℓ2 ball of radius r around c when it lies outside.
func clampDistance(w, c []float64, r float64) {
	s := 0.0
	for i := range w {
		s += (w[i] - c[i]) * (w[i] - c[i])
	}
	if n := math.Sqrt(s); n > r {
		f := r / n * (1 - 0x1p-50)
		for i := range w {
			w[i] = c[i] + f*(w[i]-c[i])
		}
	}
}

// twoSum returns s = fl(a + b) and the exact error e = a + b − s (Knuth).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// twoProd returns p = fl(a·b) and the exact error e = a·b − p (math.FMA is exact).
func twoProd(a, b float64) (p, e float64) {
	p = a * b
	return p, math.FMA(a, b, -p)
}

// ddAdd returns the double-double nearest (ah + al) + (bh + bl) ("sloppy" addition: within
// 2⁻¹⁰⁰·(|a| + |b|) of the exact sum).
func ddAdd(ah, al, bh, bl float64) (float64, float64) {
	s, e := twoSum(ah, bh)
	e += al + bl
	return twoSum(s, e)
}

// ddMul returns the double-double nearest (ah + al)·(bh + bl) (within 2⁻¹⁰⁰·|a|·|b|).
func ddMul(ah, al, bh, bl float64) (float64, float64) {
	p, e := twoProd(ah, bh)
	e += ah*bl + al*bh
	return twoSum(p, e)
}

// clampNorm scales v onto the ℓ2 ball of radius r when it lies outside.
func clampNorm(v []float64, r float64) {
	n := math.Sqrt(dotSelf(v))
	if n > r {
		s := r / n * (1 - 0x1p-50)
		for i := range v {
			v[i] *= s
		}
	}
}

func dotSelf(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return s
}

// roundUp returns x enlarged by a relative 2⁻⁵⁰, which covers the rounding of the few
// operations that computed the bound x.
func roundUp(x float64) float64 { return x * (1 + 0x1p-50) }

// gridRelease replaces the run's state ch.x + hi + lo by its rounding to the grid
// {U + g·k : k ∈ Zᵈ}, U drawn now uniformly from the multiples of g·2⁻¹²⁸ in [0, g) (within
// 2⁻¹²⁸ of a uniform offset in total variation, coordinate by coordinate), computed exactly
// from the three vectors: x_i ↦ U_i + g·⌊(x_i − U_i)/g⌋, rounded to float64 at the end (a
// function of the grid point).
func (ch *chain) gridRelease(hi, lo []float64, g float64) {
	const prec = 2200 // exact sums of float64 values of any exponents
	for i := range ch.x {
		u := new(big.Float).SetPrec(prec).SetUint64(ch.r.Uint64())
		u.SetMantExp(u, 64)
		u.Add(u, new(big.Float).SetUint64(ch.r.Uint64()))
		u.SetMantExp(u, -128)
		u.Mul(u, new(big.Float).SetFloat64(g)) // exact: g is a power of two
		x := new(big.Float).SetPrec(prec).SetFloat64(ch.x[i])
		x.Add(x, new(big.Float).SetFloat64(hi[i]))
		x.Add(x, new(big.Float).SetFloat64(lo[i]))
		x.Sub(x, u)
		x.Quo(x, new(big.Float).SetFloat64(g))
		k, _ := x.Int(nil)
		if x.Sign() < 0 && !x.IsInt() {
			k.Sub(k, big.NewInt(1)) // Int truncates towards zero
		}
		x.SetInt(k)
		x.Mul(x, new(big.Float).SetFloat64(g))
		x.Add(x, u)
		ch.x[i], _ = x.Float64()
	}
}
