package mech

import (
	"fmt"
	"math"
	"math/big"

	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/loss"
	"github.com/privopt/privopt/pkg/detmath"
	"github.com/privopt/privopt/pkg/interval"
)

// The floating-point-safe sampler's view of REM in ℓp (docs/floating-point.md, "REM in ℓp"):
// the target f = k·F_D + kμ·h with h(w) = (S/2)‖w‖_q² − (σ′/2)‖w‖₂², where kμ is the float
// fl(k·μ) and σ′ = m/(kμ) the exact real that makes f + (m/2)‖w‖² = k·F_D + kμ·(S/2)‖w‖_q²
// exactly for the sampler's float Gaussian part m (q ∈ (1, 2] the regularizer's exponent, a
// float, and S its scale). The remainder is evaluated with detmath's Exp and Log, whose relative
// error the safe sampler takes to be at most τ = 2⁻⁴⁰ (its tolerance for detmath), so that its
// rounding has a bound derived below; its interval form is exact up to the interval's width.

// lpTolerance is τ, the relative error allowed to each detmath.Exp and detmath.Log.
const lpTolerance = 0x1p-40

// lpRemainder evaluates the remainder h(w) = (S/2)‖w‖_q² − (gauss/2)‖w‖₂² of an ℓq regularizer
// centred at the origin and, when grad is not nil, writes ∇h into it. It returns h and N̂, the
// computed ‖w‖_q. With a = |w|, M = max a and tᵢ = aᵢ/M, Σ = Σ tᵢ^q is in [1, d] and
// N = M·Σ^{1/q}; each tᵢ^q = e^{q·log tᵢ} has an absolute error at most (τ + 2u)·y·e^{−y} +
// τ·tᵢ^q ≤ 2τ (y = q·|log tᵢ|), so Σ is within (2d + d)τ relative; Σ^{1/q} = e^{log Σ/q} adds
// (log d + 3)τ, and r = (S/2)N² is within ε_r = (8d + 64)τ relative. The Gaussian part, with
// gauss ≤ S and ‖w‖₂ ≤ ‖w‖_q, is at most r(1 + u) and within (d + 4)u; so |ĥ − h| ≤ 1.05·ε_r·S·N̂²
// (lpRemainderErrors). The gradient's components S·N·sign(wᵢ)·(aᵢ/N)^{q−1} − gauss·wᵢ are each
// within ε_r·(S·N + gauss·|wᵢ|) by the same argument with q − 1 for q, so the error's norm is at
// most ε_r·(√d·S·N + gauss·‖w‖₂) ≤ ε_r·S·(d + 1)·‖w‖₂ (N ≤ √d·‖w‖₂).
func lpRemainder(q, s, gauss float64, w, grad []float64) (h, nq float64) {
	var m, sq float64
	for _, v := range w {
		m = math.Max(m, math.Abs(v))
		sq += v * v
	}
	if m == 0 {
		clear(grad)
		return 0, 0
	}
	var sum float64
	for _, v := range w {
		if v != 0 {
			sum += detmath.Exp(q * detmath.Log(math.Abs(v)/m))
		}
	}
	nq = m * detmath.Exp(detmath.Log(sum)/q)
	for i, v := range w {
		if grad == nil {
			break
		}
		grad[i] = -gauss * v
		if v != 0 {
			g := s * nq * detmath.Exp((q-1)*detmath.Log(math.Abs(v)/nq))
			grad[i] += math.Copysign(g, v)
		}
	}
	return s/2*nq*nq - gauss/2*sq, nq
}

// lpRemainderErrors returns the bounds of lpRemainder's rounding (above): on the value, given
// the computed ‖w‖_q, and the slope c with ‖∇ĥ − ∇h‖ ≤ c·‖w‖₂.
func lpRemainderErrors(s float64, d int, nq float64) (value, slope float64) {
	eps := (8*float64(d) + 64) * lpTolerance
	return 1.05 * eps * s * nq * nq * (1 + 0x1p-20), eps * s * (float64(d) + 1) * (1 + 0x1p-20)
}

// lpRemainderInterval encloses h at the exact point p₁ + … + p_k at precision prec, with
// gauss = m/kμ as the exact quotient of the floats m and kmu.
func lpRemainderInterval(q, s, m, kmu float64, prec uint, parts ...[]float64) interval.I {
	x := interval.SumParts(prec, len(parts[0]), parts)
	zero := new(big.Float).SetPrec(prec)
	power := func(a interval.I, e interval.I) interval.I { // a^e for a ≥ 0 (an interval touching 0 or not)
		if a.Hi.Sign() == 0 {
			return interval.Point(0, prec)
		}
		hi := interval.Exp(interval.Mul(interval.Log(interval.FromBig(a.Hi, prec), prec), e, prec), prec)
		if a.Lo.Sign() <= 0 {
			return interval.I{Lo: zero, Hi: hi.Hi}
		}
		lo := interval.Exp(interval.Mul(interval.Log(interval.FromBig(a.Lo, prec), prec), e, prec), prec)
		return interval.I{Lo: lo.Lo, Hi: hi.Hi}
	}
	qi := interval.Point(q, prec)
	sum, sq := interval.Point(0, prec), interval.Point(0, prec)
	for _, v := range x {
		abs := interval.Abs(v)
		sum = interval.Add(sum, power(abs, qi), prec)
		sq = interval.Add(sq, interval.Mul(abs, abs, prec), prec)
	}
	two := interval.Point(2, prec)
	r := interval.MulFloat(power(sum, interval.Quo(two, qi, prec)), s/2, prec)
	gauss := interval.Quo(interval.Point(m, prec), interval.Point(kmu, prec), prec)
	g := interval.Quo(interval.Mul(gauss, sq, prec), two, prec)
	return interval.Sub(r, g, prec)
}

// lpSafe reports whether REM in ℓp can run the floating-point-safe sampler with regularizer r:
// a Gaussian one (no remainder), or an ℓq one centred at the origin with q ∈ (1, 2].
func lpSafe(r geom.Regularizer, gaussian bool) bool {
	if gaussian {
		return true
	}
	lp, ok := r.(*geom.LpRegularizer)
	return ok && lp.Center() == nil && lp.Q() > 1 && lp.Q() <= 2
}

// lpUnsafe says why lpSafe is false for the regularizer r.
func lpUnsafe(r geom.Regularizer) string {
	if lp, ok := r.(*geom.LpRegularizer); ok {
		return fmt.Sprintf("the ℓq regularizer's remainder has rounding bounds centred at the origin with q in (1, 2] (here q = %g)", lp.Q())
	}
	return "a Schatten-p regularizer (p below 2) has no rounding bounds for its singular values"
}

// The remLpTarget is sampler.Enclosed in a safe run: the loss's bounds (loss.Enclosing) and the
// remainder's.

func (t *remLpTarget) lpParams() (q, s float64) {
	lp := t.reg.(*geom.LpRegularizer)
	return lp.Q(), lp.Scale()
}

// safeValue returns f(x) and, when grad is not nil, writes ∇f(x) into it, with the loss's
// EnclosedMean and lpRemainder.
func (t *remLpTarget) safeValue(grad, x []float64) float64 {
	l := t.loss.(loss.Enclosing)
	v := t.k * l.EnclosedMean(grad, x)
	for i := range grad {
		grad[i] *= t.k
	}
	if t.reg == nil {
		return v
	}
	q, s := t.lpParams()
	var hg []float64
	if grad != nil {
		hg = t.scratch
	}
	h, _ := lpRemainder(q, s, t.gauss, x, hg)
	for i := range grad {
		grad[i] += t.kmu * hg[i]
	}
	return v + t.kmu*h
}

func (t *remLpTarget) ValueError(x []float64, v float64) float64 {
	l := t.loss.(loss.Enclosing)
	if t.reg == nil {
		return scaledMeanError(l, t.k, x, v)
	}
	q, s := t.lpParams()
	h, nq := lpRemainder(q, s, t.gauss, x, nil)
	fv := (v - t.kmu*h) / t.k // the loss's mean, within rounding
	hErr, _ := lpRemainderErrors(s, len(x), nq)
	return (t.k*l.MeanError(x, fv*(1+0x1p-50)) + t.kmu*hErr + 0x1p-52*(math.Abs(v)+math.Abs(t.kmu*h))) * (1 + 0x1p-40)
}

// GradError adds to the loss's bound (scaled by remGradRounding) the remainder's and the
// rounding of the sum, u·(‖k∇F̂‖ + ‖kμ∇ĥ‖) ≤ u·k(G + μ·L_h), twice for safety.
func (t *remLpTarget) GradError(x, g []float64) float64 {
	floor, _ := remGradRounding(t.k, t.g2, t.loss.(loss.Enclosing).GradError(x), 0)
	if t.reg == nil {
		return floor
	}
	_, s := t.lpParams()
	_, slope := lpRemainderErrors(s, len(x), 0)
	var sq float64
	for _, v := range x {
		sq += v * v
	}
	return (floor + t.kmu*slope*math.Sqrt(sq)*(1+0x1p-40) + 0x1p-52*t.constants.Lipschitz) * (1 + 0x1p-40)
}

func (t *remLpTarget) ValueEnclosure(prec uint, parts ...[]float64) (lo, hi *big.Int, exp int) {
	l := t.loss.(loss.Enclosing)
	mlo, mhi, mexp := l.MeanEnclosure(prec, parts...)
	v := interval.MulFloat(interval.FromEnds(mlo, mhi, mexp, prec), t.k, prec)
	if t.reg != nil {
		q, s := t.lpParams()
		v = interval.Add(v, interval.MulFloat(lpRemainderInterval(q, s, t.constants.StrongConvexity, t.kmu, prec, parts...), t.kmu, prec), prec)
	}
	return v.Ends()
}
