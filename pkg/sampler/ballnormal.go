package sampler

import (
	"math"

	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/rng"
)

// Drawing N(μ, s²I) restricted to an ℓ2 ball B = {x : ‖x − c‖ ≤ R} exactly.
//
// Plain rejection from N(μ, s²I) has no bounded cost: when μ lies outside B its acceptance
// is the Gaussian mass of B, which can be as small as one likes. Instead the draw is
// decomposed. With u = μ − c, M = ‖u‖ and e = u/M (any unit vector when M = 0), write
// x − c = a·e + y with y ⊥ e. Under N(μ, s²I), a ~ N(M, s²) and y ~ N(0, s²I) on e⊥ are
// independent, and y = s·t·v with t ~ χ_{d−1} and v uniform on the unit sphere of e⊥,
// independent of t. The ball is a² + s²t² ≤ R², so, restricted to B:
//   - t has density ∝ t^{d−2}·e^{−t²/2}·A(t) on [0, R/s], where A(t) = P(|a| ≤ ρ(t)) and
//     ρ(t) = √(R² − s²t²);
//   - given t, a is N(M, s²) restricted to [−ρ(t), ρ(t)] (truncNormal);
//   - v is uniform on the sphere of e⊥, independent of both.
//
// The density of t is log-concave for d ≥ 2: (d − 2)·log t − t²/2 is concave, ρ(t) is
// concave, and ρ ↦ log P(|a| ≤ ρ) is concave and increasing (by Prékopa's theorem, since
// {(ρ, a) : |a| ≤ ρ} is convex and the Gaussian law of a is log-concave), so its composition
// with ρ(t) is concave. t is drawn by rejection from the envelope given by the tangents of
// φ = log density at three points (a tangent of a concave function lies above it everywhere,
// so the envelope is valid wherever the points are): the mode t* and the points t_l < t* < t_r
// where φ has dropped by 1 (t_l is omitted when the mode is at 0). The chords through the same
// points lie below φ, which bounds the mass of the density from below; the ratio of that bound
// to the envelope's mass is a lower bound, computed in every call, on the acceptance
// probability, and the call's cap on trials is sized from it, so that a call reaches its cap
// with probability at most ballRadialFailure whatever the points are.
//
// When the points are where they should be, the bound is at least (1 − e^{−1})/(1 + e^{−1})
// ≈ 0.46: on each side of the mode the chord from φ(t*) down to φ(t*) − 1 has mass at least
// (1 − e^{−1})·w, where w is the distance from the mode to the point, while the envelope has
// mass at most w under the flat tangent plus e^{−1}·w beyond the point (by concavity the
// tangent there falls at least as fast as the chord). root always converges (it bisects at
// least every third step), so in exact arithmetic the points are within a relative 1e-9 of
// where they should be and the bound is far above minAcceptanceBound: the branch taken below
// it, which returns the mode as a capped draw, never runs in exact arithmetic, the model in
// which the certified sampler's guarantee is stated. It is kept so that a rounding failure
// cannot hang a run, and it does not withhold the run: nothing released depends on it. The
// tests check the bound over a wide grid of cases against ballMinAcceptance.
//
// Up to plainTries plain draws from N(μ, s²I) come first, and the first that lands in B is
// returned: the result is still exact (rejection sampling with a cap, followed, when the cap is
// reached, by an exact draw), and much cheaper when μ is well inside.

// ballRadialFailure bounds the probability that a radial draw reaches its cap;
// ballMinAcceptance is the least acceptance bound of a radial draw the tests allow.
const (
	ballRadialFailure = 1e-100
	ballMinAcceptance = 0.4
)

// ballFailure bounds the probability that one draw restricted to a ball reaches a cap (the
// radial draw's or the truncated normal's).
var ballFailure = ballRadialFailure + truncFailure

// plainTries is the number of plain Gaussian draws tried before the radial decomposition.
const plainTries = 4

// envelopeMargin is added to the log-envelope so that rounding in φ and its tangents cannot
// put φ above it (it lowers the acceptance by a factor e^{−1e−9}).
const envelopeMargin = 1e-9

// ballNormal draws N(μ, s²I) restricted to an ℓ2 ball. Its scratch space makes draws
// allocation-free; it is not safe for concurrent use.
type ballNormal struct {
	center []float64 // nil for the origin
	radius float64
	e, v   []float64 // scratch: the unit vector e and the direction v
}

func newBallNormal(center []float64, radius float64, d int) *ballNormal {
	return &ballNormal{center: center, radius: radius, e: make([]float64, d), v: make([]float64, d)}
}

// c returns the i-th coordinate of the centre.
func (b *ballNormal) c(i int) float64 {
	if b.center == nil {
		return 0
	}
	return b.center[i]
}

// draw writes a draw from N(mu, s²I) restricted to the ball into dst and reports whether a
// cap was reached (with probability at most ballFailure; dst is then still in the ball).
func (b *ballNormal) draw(r *rng.Rand, dst, mu []float64, s float64) (capped bool) {
	d := len(dst)
	for range plainTries {
		var n2 float64
		for i := range dst {
			dst[i] = mu[i] + s*r.Normal()
			n2 += (dst[i] - b.c(i)) * (dst[i] - b.c(i))
		}
		if n2 <= b.radius*b.radius {
			return false
		}
	}
	var m2 float64
	for i := range dst {
		m2 += (mu[i] - b.c(i)) * (mu[i] - b.c(i))
	}
	if d == 1 {
		x, capped := truncNormal(r, mu[0], s, b.c(0)-b.radius, b.c(0)+b.radius)
		dst[0] = x
		return capped
	}
	m := math.Sqrt(m2)
	for i := range b.e {
		b.e[i] = 0
		if m > 0 {
			b.e[i] = (mu[i] - b.c(i)) / m
		}
	}
	if m == 0 {
		b.e[0] = 1
	}
	t, capped := radialDraw(r, d, m, s, b.radius)
	rho := math.Sqrt(math.Max(0, (b.radius-s*t)*(b.radius+s*t)))
	a, truncCapped := truncNormal(r, m, s, -rho, rho)
	b.sphereOrthogonal(r)
	var x2 float64
	for i := range dst {
		dst[i] = a*b.e[i] + s*t*b.v[i]
		x2 += dst[i] * dst[i]
	}
	if x := math.Sqrt(x2); x > b.radius { // rounding
		f := b.radius / x * (1 - 0x1p-52)
		for i := range dst {
			dst[i] *= f
		}
	}
	for i := range dst {
		dst[i] += b.c(i)
	}
	return capped || truncCapped
}

// sphereOrthogonal fills b.v with a uniform unit vector orthogonal to b.e: a standard normal
// vector with its component along e removed, normalised (it is zero with probability 0; a
// draw that rounds to zero is drawn again).
func (b *ballNormal) sphereOrthogonal(r *rng.Rand) {
	for {
		var dot float64
		for i := range b.v {
			b.v[i] = r.Normal()
			dot += b.v[i] * b.e[i]
		}
		var n2 float64
		for i := range b.v {
			b.v[i] -= dot * b.e[i]
			n2 += b.v[i] * b.v[i]
		}
		if n2 > 0 {
			n := math.Sqrt(n2)
			for i := range b.v {
				b.v[i] /= n
			}
			return
		}
	}
}

// radial is the log-density φ(t) = (d − 2)·log t − t²/2 + log P(|M + sZ| ≤ ρ(t)) + κ of t on
// [0, R/s], with ρ(t) = √(R² − s²t²) and a constant κ that keeps φ of moderate size: when the
// mean is outside the sphere (u_R = (R − M)/s < 0), log P is about −u_R²/2 at the peak, which
// can be −10¹⁵ or less, where a double has no absolute precision left; κ = u_R²/2 then, and
// −u²/2 + κ is computed as −(u − u_R)(u + u_R)/2 with u − u_R = (ρ − R)/s from ρ − R =
// −s²t²/(R + ρ) (no cancellation).
type radial struct {
	d       int
	m, s, r float64
}

// end is R/s, where ρ vanishes and φ is −∞.
func (q radial) end() float64 { return q.r / q.s }

func (q radial) rho(t float64) float64 {
	return math.Sqrt(math.Max(0, (q.r-q.s*t)*(q.r+q.s*t)))
}

// value returns φ(t).
func (q radial) value(t float64) float64 {
	v, _ := q.logMass(t)
	v -= t * t / 2
	if q.d > 2 {
		v += float64(q.d-2) * detmath.Log(t)
	}
	return v
}

// slope returns φ′(t) for 0 < t < R/s.
func (q radial) slope(t float64) float64 {
	_, dRho := q.logMass(t)
	v := -t - dRho*q.s*q.s*t/q.rho(t)
	if q.d > 2 {
		v += float64(q.d-2) / t
	}
	return v
}

const logSqrt2Pi = 0.91893853320467274178 // log √(2π)

// logMass returns log P(|M + sZ| ≤ ρ) + κ at ρ = ρ(t), and its derivative in ρ. With
// u = (ρ − M)/s and v = (−ρ − M)/s = u − Δ, Δ = 2ρ/s, P = Φ(u) − Φ(v), and for u ≤ 0 it is
// written ϕ(u)·I with I = (Φ(u) − Φ(v))/ϕ(u), computed without cancellation:
//   - when Δ·(|u| + Δ) ≤ 1, I = ∫₀^Δ exp(u·w − w²/2) dw by 8-point Gauss–Legendre quadrature
//     (the exponent varies by at most 1);
//   - otherwise I = (Φ(u)/ϕ(u))·(1 − e^D) with D = log Φ(v) − log Φ(u) =
//     −2ρM/s² + r(v) − r(u), r(x) = log Φ(x) + x²/2 (= log(erfcx(−x/√2)/2) for x < −1, where
//     log Φ has a slope of at least max(|x|, 0.79) on x ≤ 0, so D ≤ −0.79·Δ and ≤ −Δ·|u| is
//     not small).
//
// The derivative is (ϕ(u) + ϕ(v))/(s·P) = (1 + e^{−2ρM/s²})/(s·I). For u > 0,
// P = 1 − Q(u) − Φ(v) directly.
func (q radial) logMass(t float64) (value, slope float64) {
	rho := q.rho(t)
	if !(rho > 0) {
		return math.Inf(-1), math.Inf(1)
	}
	m, s := q.m, q.s
	u := (rho - m) / s
	delta := 2 * rho / s
	v := u - delta
	if u > 0 {
		p := -(detmath.NormalTail(u) + detmath.NormalTail(-v))
		return detmath.Log1p(p), (normalDensity(u) + normalDensity(v)) / (s * (1 + p))
	}
	var ratio float64 // I
	if delta*(-u+delta) <= 1 {
		ratio = gaussLegendreExp(u, delta)
	} else {
		d := -2*rho*m/(s*s) + logPhiRest(v) - logPhiRest(u)
		ratio = detmath.Exp(logPhiRest(u)+logSqrt2Pi) * -math.Expm1(d)
	}
	quad := -u * u / 2
	if uR := (q.r - m) / s; uR < 0 {
		gap := q.s * q.s * t * t / (q.r + rho) // R − ρ
		quad = -(-gap / s) * (u + uR) / 2
	}
	value = quad - logSqrt2Pi + detmath.Log(ratio)
	slope = (1 + detmath.Exp(-2*rho*m/(s*s))) / (s * ratio)
	return value, slope
}

// normalDensity is ϕ(x).
func normalDensity(x float64) float64 { return detmath.Exp(-x*x/2 - logSqrt2Pi) }

// logPhiRest returns log Φ(x) + x²/2 for x ≤ 0, accurate for every x.
func logPhiRest(x float64) float64 {
	if x < -1 {
		return detmath.Log(detmath.Erfcx(-x/math.Sqrt2) / 2)
	}
	return detmath.LogNormalTail(-x) + x*x/2
}

// Nodes and weights of 8-point Gauss–Legendre quadrature on [−1, 1] (positive half).
var (
	glNodes   = [4]float64{0.18343464249564980494, 0.52553240991632898582, 0.79666647741362673959, 0.96028985649753623168}
	glWeights = [4]float64{0.36268378337836198297, 0.31370664587788728734, 0.22238103445337447054, 0.10122853629037625915}
)

// gaussLegendreExp returns ∫₀^Δ exp(u·w − w²/2) dw by 8-point Gauss–Legendre quadrature.
func gaussLegendreExp(u, delta float64) float64 {
	half := delta / 2
	var sum float64
	for k, x := range glNodes {
		for _, w := range [2]float64{half * (1 - x), half * (1 + x)} {
			sum += glWeights[k] * detmath.Exp(u*w-w*w/2)
		}
	}
	return sum * half
}

// tangent is the line φ(p) + φ′(p)(t − p) through a point of φ.
type tangent struct{ at, value, slope float64 }

func (l tangent) eval(t float64) float64 { return l.value + l.slope*(t-l.at) }

// envelopePiece is the envelope exp(value + slope·(t − lo)) on [lo, hi], with its mass.
type envelopePiece struct{ lo, hi, value, slope, mass float64 }

// radialEnvelope is the rejection envelope of a radial draw: at most three tangents give at
// most four pieces (between the ends and the three pairwise intersections).
type radialEnvelope struct {
	peak   float64 // φ(t*): the pieces are relative to exp(peak)
	pieces [4]envelopePiece
	count  int
	mass   float64 // the envelope's mass
	lower  float64 // a lower bound on the mass of exp(φ − peak)
}

// minAcceptanceBound is the least acceptance bound a radial draw proceeds with; below it (a
// rounding failure: never in exact arithmetic, see the comment at the top of the file) the draw
// returns the mode as a capped draw.
const minAcceptanceBound = 1e-6

// radialDraw draws t with density ∝ exp(φ(t)) on [0, R/s] (see the comment at the top of the
// file). It returns the draw and whether it reached its cap (with probability at most
// ballRadialFailure; it then returns the mode).
func radialDraw(r *rng.Rand, d int, m, s, radius float64) (t float64, capped bool) {
	q := radial{d: d, m: m, s: s, r: radius}
	top := q.mode()
	env := q.envelope(top)
	acceptance := env.lower / env.mass
	if !(acceptance >= minAcceptanceBound) {
		return top, true
	}
	trialCap := int(math.Ceil(detmath.Log(ballRadialFailure) / detmath.Log1p(-math.Min(acceptance, 1-1e-16))))
	for range trialCap {
		u := r.Float64() * env.mass
		k := 0
		for k < env.count-1 && u > env.pieces[k].mass {
			u -= env.pieces[k].mass
			k++
		}
		p := env.pieces[k]
		t := p.sample(r.Float64())
		if r.Float64() < detmath.Exp(q.value(t)-env.peak-(p.value+p.slope*(t-p.lo))) {
			return t, false
		}
	}
	return top, true
}

// sample draws from the density ∝ exp(slope·t) on [lo, hi] by inversion, with w uniform.
func (p envelopePiece) sample(w float64) float64 {
	length := p.hi - p.lo
	switch {
	case math.Abs(p.slope)*length < 1e-12:
		return p.lo + w*length
	case p.slope < 0:
		return math.Min(p.hi, p.lo+detmath.Log1p(w*math.Expm1(p.slope*length))/p.slope)
	default:
		return math.Max(p.lo, p.hi+detmath.Log1p(w*math.Expm1(-p.slope*length))/p.slope)
	}
}

// expMass returns ∫ exp(a + b·x) dx over [0, L].
func expMass(a, b, length float64) float64 {
	if math.Abs(b)*length < 1e-12 {
		return detmath.Exp(a) * length
	}
	if b < 0 {
		return detmath.Exp(a) * -math.Expm1(b*length) / -b
	}
	return detmath.Exp(a+b*length) * -math.Expm1(-b*length) / b
}

// mode returns the maximiser of φ on [0, R/s]: 0 when d = 2 (then φ′(t) = −t − (positive)·t
// ≤ 0), else the root of the decreasing φ′, searched from √(d − 2), the mode without the ball.
func (q radial) mode() float64 {
	if q.d == 2 {
		return 0
	}
	return root(q.slope, 0, q.end(), math.Min(math.Sqrt(float64(q.d-2)), q.end()/2))
}

// root returns the root in (lo, hi) of a decreasing function f, positive near lo and negative
// near hi (where it may be infinite), to a relative precision of about 1e-9: the envelope is
// valid wherever its points are, and their precision only moves the acceptance bound, which
// every draw computes. It brackets the root by doubling steps from the guess (halving towards
// lo, or towards hi by the remaining distance), then narrows the bracket by regula falsi with
// the Illinois modification, bisecting where a value is not finite and at every third step:
// once bracketed away from lo = 0 the bracket is at most as wide as its upper end, and it is
// halved at least 66 times in the 200 steps, so the precision is always reached.
func root(f func(float64) float64, lo, hi, guess float64) float64 {
	flo, fhi := math.Inf(1), math.Inf(-1)
	if fg := f(guess); fg > 0 {
		lo, flo = guess, fg
		for step := guess - lo + math.Max(guess, 1e-300); hi-lo > 1e-9*hi; step *= 2 {
			x := lo + step
			if x >= hi {
				break
			}
			if fx := f(x); fx > 0 {
				lo, flo = x, fx
			} else {
				hi, fhi = x, fx
				break
			}
		}
	} else {
		hi, fhi = guess, fg
		for x := guess / 2; x > lo; x /= 2 {
			if fx := f(x); fx > 0 {
				lo, flo = x, fx
				break
			} else {
				hi, fhi = x, fx
			}
		}
	}
	side := 0
	for k := range 200 {
		if hi-lo <= 1e-9*hi {
			break
		}
		x := lo + (hi-lo)/2
		if k%3 != 2 && !math.IsInf(flo, 0) && !math.IsInf(fhi, 0) {
			if fx := (lo*fhi - hi*flo) / (fhi - flo); fx > lo && fx < hi {
				x = fx
			}
		}
		fx := f(x)
		switch {
		case fx > 0:
			lo, flo = x, fx
			if side == 1 {
				fhi /= 2
			}
			side = 1
		case fx < 0:
			hi, fhi = x, fx
			if side == -1 {
				flo /= 2
			}
			side = -1
		default:
			return x
		}
	}
	return lo + (hi-lo)/2
}

// envelope returns the envelope exp(min of the tangents at t_l, t* = top and t_r, plus
// envelopeMargin) on [0, R/s], relative to exp(φ(t*)), and the mass under the chords through
// the same points, a lower bound on the mass of exp(φ − φ(t*)).
func (q radial) envelope(top float64) radialEnvelope {
	end := q.end()
	env := radialEnvelope{peak: q.value(top)}
	drop := func(t float64) float64 { return q.value(t) - (env.peak - 1) } // 1 at the mode
	var points [3]float64
	n := 0
	if top > 0 && drop(0) < 0 {
		rise := func(t float64) float64 { return drop(top - t) } // decreasing in t
		points[n] = top - root(rise, 0, top, math.Min(1, top/2))
		n++
	}
	points[n] = top
	points[n+1] = top + root(func(t float64) float64 { return drop(top + t) }, 0, end-top, math.Min(1, (end-top)/2))
	n += 2
	var lines [3]tangent
	for k, p := range points[:n] {
		lines[k] = tangent{at: p, value: q.value(p) - env.peak + envelopeMargin}
		if p > 0 { // at 0 (the mode when d = 2) the slope is 0
			lines[k].slope = q.slope(p)
		}
		if k > 0 {
			a := points[k-1]
			fa, fb := q.value(a)-env.peak, q.value(p)-env.peak
			env.lower += expMass(fa, (fb-fa)/(p-a), p-a)
		}
	}
	// Breakpoints: the ends and every pairwise intersection inside; on each interval between
	// consecutive breakpoints one tangent is the least.
	cuts := [5]float64{0, end}
	nc := 2
	for i := range n {
		for j := i + 1; j < n; j++ {
			li, lj := lines[i], lines[j]
			if ds := li.slope - lj.slope; ds != 0 {
				x := (lj.value - li.value + li.slope*li.at - lj.slope*lj.at) / ds
				if x > 0 && x < end {
					cuts[nc] = x
					nc++
				}
			}
		}
	}
	sortFloats(cuts[:nc])
	for k := 1; k < nc; k++ {
		lo, hi := cuts[k-1], cuts[k]
		if !(hi > lo) {
			continue
		}
		mid := lo + (hi-lo)/2
		best := lines[0]
		for _, l := range lines[1:n] {
			if l.eval(mid) < best.eval(mid) {
				best = l
			}
		}
		p := envelopePiece{lo: lo, hi: hi, value: best.eval(lo), slope: best.slope}
		p.mass = expMass(p.value, p.slope, hi-lo)
		env.pieces[env.count] = p
		env.count++
		env.mass += p.mass
	}
	return env
}

// sortFloats sorts a short slice in place (insertion sort: at most five entries).
func sortFloats(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}
