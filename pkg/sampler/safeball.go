package sampler

import (
	"math"

	"github.com/privopt/privopt/pkg/detmath"
)

// Gaussian proposals restricted to an ℓ2 ball for the floating-point-safe sampler
// (docs/floating-point.md, "On a ball"). A draw from N(μ, σ²I) restricted to B = {‖x − c‖ ≤ R}
// uses one of two rejection methods, each exact in exact arithmetic for any value of its
// parameters, and each deciding only by comparisons of double-doubles and of exponential
// variates (no special function):
//
//   - plain: x = μ + σζ with ζ ~ N(0, I), accepted when ‖x − c‖ ≤ R;
//   - tilted: with u = μ − c, M = ‖u‖, e = u/M, write x − c = a·e + y with y ⊥ e, w = ‖y‖² and
//     ρ(w) = √(R² − w). For parameters z₀ > 0 and ρ₀ ∈ (0, R], propose y ~ N(0, (σ²/λ)I) on e⊥
//     with λ = 1 + z₀/ρ₀ and a = ρ(w) − δ with δ ~ Exp(κ), κ = z₀/σ²; reject unless w ≤ R² and
//     δ ≤ 2ρ(w), and accept with probability e^{−X},
//     X = (z − z₀)²/(2σ²) + z₀(ρ₀ − ρ(w))²/(2ρ₀σ²), z = M − a.
//
// The tilted method's ratio of target to proposal is exp(h) with h = −z²/(2σ²) +
// (λ − 1)w/(2σ²) + κ(ρ(w) − M + z); the tangent of −z²/(2σ²) at z₀ and that of the concave ρ at
// w₀ = R² − ρ₀² bound it by a constant H, and h − H = −X exactly (with κ and λ as above the
// terms in z and in w cancel; ρ's tangent gap is (ρ₀ − ρ)²/(2ρ₀)). So accepted pairs have the
// restricted Gaussian's law whatever z₀ and ρ₀ are, and the exact run may use the computed
// run's choice of method and parameters, which depend only on the past. The choice maximises a
// lower bound on the acceptance (ballBounds), and a draw stops after safeBallCap proposals: when
// the bound is at least safeBallMinAcceptance, that happens with probability at most
// safeBallFailure. TestSafeBallBound checks that the bound is at least 0.145 wherever
// R ≥ 3σ√d (safeBallMinRadius), which NewSafePlan requires of the oracle's proposals (and of
// the start, the bound itself).

// safeBallMinAcceptance is the least acceptance bound a safe ball draw proceeds with; below
// it the draw is capped at once (never under the plan's conditions: see TestSafeBallBound).
const safeBallMinAcceptance = 0.11

// safeBallMinRadius is the least R/(σ√d) a safe plan allows for its oracle's ball draws.
const safeBallMinRadius = 3

// safeBallFailure bounds the probability that a safe ball draw reaches its cap.
const safeBallFailure = 0x1p-100

// safeBallCap is the number of proposals after which a safe ball draw stops: with an acceptance
// of at least 0.1 the cap is reached with probability at most safeBallFailure.
var safeBallCap = int(math.Ceil(detmath.Log(safeBallFailure) / detmath.Log1p(-0.1)))

// ballMethod is the choice of one safe ball draw.
type ballMethod struct {
	tilted   bool
	z0, rho0 float64 // the tilted method's parameters
	bound    float64 // a lower bound on the method's acceptance
	usable   bool    // bound ≥ safeBallMinAcceptance
}

// lmQuantiles returns Laurent and Massart's quantiles of χ²_k at x = ln 4: P(χ²_k ≥ k + 2√(kx) +
// 2x) ≤ 1/4 and P(χ²_k ≤ k − 2√(kx)) ≤ 1/4.
func lmQuantiles(k float64) (lo, hi float64) {
	x := 2 * math.Ln2
	return math.Max(0, k-2*math.Sqrt(k*x)), k + 2*math.Sqrt(k*x) + 2*x
}

// tiltedParams returns the tilted method's z₀ and ρ₀ for a mean at distance m from the centre:
// ρ₀ = ρ(w₀) at the proposal's typical w₀ = σ²(d − 1)/λ, and z₀ = σ·α(g), g = (ρ₀ − m)/σ, with
// α(g) = (√(g² + 4) − g)/2, the rate that maximises the one-dimensional acceptance
// √(2π)Φ(g)·α·e^{−α²/2 − αg} of the exponential proposal (a few fixed-point rounds).
func tiltedParams(m, sigma, radius float64, d int) (z0, rho0 float64) {
	k := float64(d - 1)
	w0 := sigma * sigma * k
	for range 4 {
		rho0 = math.Sqrt(math.Max(0, (radius-math.Sqrt(w0))*(radius+math.Sqrt(w0))))
		g := (rho0 - m) / sigma
		alpha := (math.Sqrt(g*g+4) - g) / 2
		if g > 0 {
			alpha = 2 / (g + math.Sqrt(g*g+4))
		}
		z0 = sigma * alpha
		w0 = sigma * sigma * k / (1 + z0/rho0)
	}
	return z0, rho0
}

// ballBounds returns lower bounds on the acceptance of the plain and tilted methods for a mean
// at distance m from the centre (z₀, ρ₀ the tilted method's parameters):
//   - plain: with w the squared norm of σζ's part orthogonal to u, P(w ≤ σ²q) ≥ 3/4 at
//     Laurent–Massart's upper quantile q, and then ‖x − c‖ ≤ R once |a| ≤ ρ(σ²q), so the
//     acceptance is at least (3/4)·(Φ((ρ − m)/σ) − Φ((−ρ − m)/σ)); and, by the triangle inequality,
//     at least P(‖ζ‖ ≤ (R − m)/σ) ≥ 1 − e^{−x} where d + 2√(dx) + 2x = ((R − m)/σ)²;
//   - tilted: the proposal's w lies between its quantiles with probability at least 1/2 and
//     δ ≤ min(1/κ, 2ρ(w_hi)) with probability 1 − e^{−κδ_hi}; on that set X is at most its value
//     at the corners (z − z₀ is monotone in w and δ, ρ₀ − ρ in w), so the acceptance is at least
//     (1/2)(1 − e^{−κδ_hi})·e^{−X_max}.
//
// One dimension (d = 1) has no w: the factors for it are 1.
func ballBounds(m, sigma, radius float64, d int, z0, rho0 float64) (plain, tilted float64) {
	k := float64(d - 1)
	qLo, qHi := lmQuantiles(k)
	pw, pw2 := 0.75, 0.5
	if d == 1 {
		qLo, qHi, pw, pw2 = 0, 0, 1, 1
	}
	if wHi := sigma * sigma * qHi; wHi < radius*radius {
		rho := math.Sqrt((radius - math.Sqrt(wHi)) * (radius + math.Sqrt(wHi)))
		mass := detmath.NormalTail((m-rho)/sigma) - detmath.NormalTail((m+rho)/sigma)
		plain = pw * mass
	}
	if t := (radius - m) / sigma; t > 0 && t*t > float64(d) {
		rd := math.Sqrt(float64(d))
		y := (math.Sqrt(2*t*t-float64(d)) - rd) / 2 // √x
		plain = math.Max(plain, -math.Expm1(-y*y))
	}
	lambda := 1 + z0/rho0
	kappa := z0 / (sigma * sigma)
	wLo, wHi := sigma*sigma/lambda*qLo, sigma*sigma/lambda*qHi
	if wHi >= radius*radius {
		return plain, 0
	}
	rhoHi := math.Sqrt((radius - math.Sqrt(wLo)) * (radius + math.Sqrt(wLo)))
	rhoLo := math.Sqrt((radius - math.Sqrt(wHi)) * (radius + math.Sqrt(wHi)))
	dHi, pd := 1/kappa, -math.Expm1(-1)
	if dHi > 2*rhoLo {
		dHi = 2 * rhoLo
		pd = -math.Expm1(-kappa * dHi)
	}
	za, zb := m-rhoHi-z0, m-rhoLo+dHi-z0
	ra, rb := rho0-rhoHi, rho0-rhoLo
	x := math.Max(za*za, zb*zb)/(2*sigma*sigma) + z0*math.Max(ra*ra, rb*rb)/(2*rho0*sigma*sigma)
	return plain, pw2 * pd * detmath.Exp(-x)
}

// chooseBallMethod picks the method with the larger acceptance bound for a mean at distance m
// (the tilted method only for m ≥ R/2, where the mean's direction is well defined).
func chooseBallMethod(m, sigma, radius float64, d int) ballMethod {
	var b ballMethod
	b.z0, b.rho0 = tiltedParams(m, sigma, radius, d)
	plain, tilted := ballBounds(m, sigma, radius, d, b.z0, b.rho0)
	b.bound = plain
	if tilted > plain && m >= radius/2 && b.z0 > 0 && b.rho0 > 0 {
		b.tilted, b.bound = true, tilted
	}
	b.usable = b.bound >= safeBallMinAcceptance
	return b
}

// ddSqrt returns the double-double nearest √(h + l) for h + l ≥ 0 (within about 2⁻¹⁰⁴ relative).
func ddSqrt(h, l float64) (float64, float64) {
	if h <= 0 {
		return 0, 0
	}
	r := math.Sqrt(h)
	p, e := twoProd(r, r)
	return twoSum(r, ((h-p)-e+l)/(2*r))
}

// ddDiv returns the double-double nearest (ah + al)/(bh + bl) (within about 2⁻¹⁰⁰ relative).
func ddDiv(ah, al, bh, bl float64) (float64, float64) {
	q1 := ah / bh
	ph, pl := ddMul(q1, 0, bh, bl)
	rh, rl := ddAdd(ah, al, -ph, -pl)
	return twoSum(q1, (rh+rl)/bh)
}

// safeBall is the scratch space of safe ball draws.
type safeBall struct {
	uHi, uLo []float64 // u = μ − c
	eHi, eLo []float64 // e = u/‖u‖
	zHi, zLo []float64 // the proposal's normals
	yHi, yLo []float64 // the tilted proposal's y
}

func newSafeBall(d int) *safeBall {
	b := &safeBall{}
	for _, v := range []*[]float64{&b.uHi, &b.uLo, &b.eHi, &b.eLo, &b.zHi, &b.zLo, &b.yHi, &b.yLo} {
		*v = make([]float64, d)
	}
	return b
}

// safeBallPart writes into (pHi, pLo) the part p = x − μ of a draw x from N(μ, σ²I) restricted
// to the chain's ball, μ = ch.w + (moHi + moLo) (the origin when moHi is nil). It reports whether
// the draw was capped (p is then 0).
func (ch *chain) safeBallPart(sc *safeChain, pHi, pLo, moHi, moLo []float64, sigma [2]float64) (capped bool) {
	sb, radius := sc.ball, ch.ball.radius
	d := len(pHi)
	var m2h, m2l float64
	for i := range pHi {
		var w, mh, ml float64
		if moHi != nil {
			w, mh, ml = ch.w[i], moHi[i], moLo[i]
		}
		h, l := twoSum(w, -ch.ball.c(i))
		sb.uHi[i], sb.uLo[i] = ddAdd(h, l, mh, ml)
		sq, sqLo := ddMul(sb.uHi[i], sb.uLo[i], sb.uHi[i], sb.uLo[i])
		m2h, m2l = ddAdd(m2h, m2l, sq, sqLo)
	}
	mh, ml := ddSqrt(m2h, m2l)
	method := chooseBallMethod(mh, sigma[0], radius, d)
	if !method.usable {
		clear(pHi)
		clear(pLo)
		return true
	}
	r2h, r2l := twoProd(radius, radius)
	if !method.tilted {
		for range safeBallCap {
			var nh, nl float64
			for i := range pHi {
				zh, zl := sc.normal(ch.r)
				pHi[i], pLo[i] = ddMul(sigma[0], sigma[1], zh, zl)
				xh, xl := ddAdd(sb.uHi[i], sb.uLo[i], pHi[i], pLo[i])
				xh, xl = ddMul(xh, xl, xh, xl)
				nh, nl = ddAdd(nh, nl, xh, xl)
			}
			if ddCmp([2]float64{nh, nl}, [2]float64{r2h, r2l}) <= 0 {
				return false
			}
		}
		clear(pHi)
		clear(pLo)
		return true
	}
	for i := range pHi {
		sb.eHi[i], sb.eLo[i] = ddDiv(sb.uHi[i], sb.uLo[i], mh, ml)
	}
	tl := newTilt(sigma, method.z0, method.rho0)
	for range safeBallCap {
		var th, tlo float64 // ζ·e
		for i := range pHi {
			sb.zHi[i], sb.zLo[i] = sc.normal(ch.r)
			ph, pl := ddMul(sb.zHi[i], sb.zLo[i], sb.eHi[i], sb.eLo[i])
			th, tlo = ddAdd(th, tlo, ph, pl)
		}
		var wh, wl float64
		for i := range pHi {
			ph, pl := ddMul(th, tlo, sb.eHi[i], sb.eLo[i])
			yh, yl := ddAdd(sb.zHi[i], sb.zLo[i], -ph, -pl)
			sb.yHi[i], sb.yLo[i] = ddMul(tl.scale[0], tl.scale[1], yh, yl)
			qh, ql := ddMul(sb.yHi[i], sb.yLo[i], sb.yHi[i], sb.yLo[i])
			wh, wl = ddAdd(wh, wl, qh, ql)
		}
		if ddCmp([2]float64{wh, wl}, [2]float64{r2h, r2l}) > 0 {
			continue
		}
		rh, rl := ddAdd(r2h, r2l, -wh, -wl)
		rh, rl = ddSqrt(rh, rl)
		ex := ch.expDD()
		dh, dl := ddMul(ex[0], ex[1], tl.invKappa[0], tl.invKappa[1])
		if ddCmp([2]float64{dh, dl}, [2]float64{2 * rh, 2 * rl}) > 0 {
			continue
		}
		ah, al := ddAdd(rh, rl, -dh, -dl)
		if ddCmp(ch.expDD(), tl.exponent(mh, ml, ah, al, rh, rl)) <= 0 {
			continue
		}
		for i := range pHi {
			ph, pl := ddMul(ah, al, sb.eHi[i], sb.eLo[i])
			ph, pl = ddAdd(ph, pl, sb.yHi[i], sb.yLo[i])
			pHi[i], pLo[i] = ddAdd(ph, pl, -sb.uHi[i], -sb.uLo[i])
		}
		return false
	}
	clear(pHi)
	clear(pLo)
	return true
}

// tilt holds the tilted method's constants as double-doubles: the proposal's scale σ/√λ =
// σ·√(ρ₀/(ρ₀ + z₀)), 1/κ = σ²/z₀, 1/(2σ²) and z₀/(2ρ₀σ²).
type tilt struct {
	z0, rho0                    float64
	scale, invKappa, half, curv [2]float64
}

func newTilt(sigma [2]float64, z0, rho0 float64) tilt {
	t := tilt{z0: z0, rho0: rho0}
	s2h, s2l := ddMul(sigma[0], sigma[1], sigma[0], sigma[1])
	sumH, sumL := twoSum(rho0, z0)
	fh, fl := ddDiv(rho0, 0, sumH, sumL)
	fh, fl = ddSqrt(fh, fl)
	t.scale[0], t.scale[1] = ddMul(sigma[0], sigma[1], fh, fl)
	t.invKappa[0], t.invKappa[1] = ddDivFloat(s2h, s2l, z0)
	t.half[0], t.half[1] = ddDiv(0.5, 0, s2h, s2l)
	ch, cl := ddDivFloat(t.half[0], t.half[1], rho0)
	t.curv[0], t.curv[1] = ddMul(ch, cl, z0, 0)
	return t
}

// exponent returns X = (M − a − z₀)²/(2σ²) + z₀(ρ₀ − ρ)²/(2ρ₀σ²) (double-doubles in, out).
func (t tilt) exponent(mh, ml, ah, al, rh, rl float64) [2]float64 {
	gh, gl := ddAdd(mh, ml, -ah, -al)
	gh, gl = ddAdd(gh, gl, -t.z0, 0)
	gh, gl = ddMul(gh, gl, gh, gl)
	gh, gl = ddMul(gh, gl, t.half[0], t.half[1])
	vh, vl := ddAdd(t.rho0, 0, -rh, -rl)
	vh, vl = ddMul(vh, vl, vh, vl)
	vh, vl = ddMul(vh, vl, t.curv[0], t.curv[1])
	xh, xl := ddAdd(gh, gl, vh, vl)
	return [2]float64{xh, xl}
}
