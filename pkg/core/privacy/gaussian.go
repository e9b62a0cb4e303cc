package privacy

import (
	"errors"
	"github.com/privopt/privopt/pkg/detmath"
	"math"
)

// GDP is μ-Gaussian differential privacy (Dong, Roth and Su 2019): distinguishing the
// outputs on two neighbouring datasets is at least as hard as distinguishing N(0, 1) from
// N(μ, 1). Its privacy curve is tight: the Gaussian mechanism with sensitivity S and noise σ
// is exactly (S/σ)-GDP, and so is the regularized exponential mechanism with a linear loss.
type GDP struct {
	// Mu is the Gaussian-DP parameter μ > 0.
	Mu float64
}

// NewGDP returns μ-GDP, or an error unless μ is finite and positive.
func NewGDP(mu float64) (GDP, error) {
	if !(mu > 0) || math.IsInf(mu, 1) {
		return GDP{}, errors.New("privacy: μ must be finite and positive, got " + num(mu))
	}
	return GDP{Mu: mu}, nil
}

// newtonBracketed solves h(x) = 0 for a monotone h (increasing or not) with a root in
// [lo, hi], starting at x: Newton steps (eval returns h(x) and the Newton step −h(x)/h′(x)),
// replaced by bisection whenever a step would leave the current bracket, until the step or the
// bracket is below 1e-15 relative.
func newtonBracketed(lo, hi, x float64, increasing bool, eval func(x float64) (h, step float64)) float64 {
	for range 200 {
		h, step := eval(x)
		if (h > 0) == increasing {
			hi = x
		} else {
			lo = x
		}
		next := x + step
		if !(next > lo && next < hi) || math.IsNaN(step) {
			next = lo + (hi-lo)/2
		}
		if math.Abs(next-x) <= 1e-15*x || hi-lo <= 1e-15*hi {
			return next
		}
		x = next
	}
	return x
}

// String describes the guarantee.
func (g GDP) String() string { return "μ-GDP with μ = " + FormatUp(g.Mu, 6) }

// legendre8 are the nodes (on [−1, 1]) and weights of 8-point Gauss–Legendre quadrature.
var legendre8 = [8][2]float64{
	{-0.9602898564975363, 0.1012285362903763},
	{-0.7966664774136267, 0.2223810344533745},
	{-0.5255324099163290, 0.3137066458778873},
	{-0.1834346424956498, 0.3626837833783620},
	{0.1834346424956498, 0.3626837833783620},
	{0.5255324099163290, 0.3137066458778873},
	{0.7966664774136267, 0.2223810344533745},
	{0.9602898564975363, 0.1012285362903763},
}

// erfcxDrop returns erfcx(u) − erfcx(u + h) for h > 0. When h is small relative to
// max(|u|, 1) the difference cancels, so it is integrated instead: ∫_u^{u+h} −erfcx′(t) dt,
// whose integrand is positive and entire, by 8-point Gauss–Legendre (the interval is at most
// a tenth of the integrand's scale, which leaves an error far below double precision).
func erfcxDrop(u, h float64) float64 {
	if h >= 0.1*math.Max(math.Abs(u), 1) {
		return detmath.Erfcx(u) - detmath.Erfcx(u+h)
	}
	mid, half := u+h/2, h/2
	s := 0.0
	for _, nw := range legendre8 {
		s += nw[1] * detmath.ErfcxSlope(mid+half*nw[0])
	}
	return s * half
}

// Delta returns the privacy curve δ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2) (Dong, Roth and Su
// 2019, Corollary 2.13), for every real ε. With c = ε/μ − μ/2 both terms share the factor
// e^{−c²/2}: δ = ½·e^{−c²/2}·[erfcx(c/√2) − erfcx((c + μ)/√2)], which is evaluated without
// cancellation (see erfcxDrop) to about 2e-13 relative accuracy, then rounded up past it
// (deltaUp): the result is at least the exact δ, and positive for every finite ε (LogDelta
// goes further where δ underflows).
func (g GDP) Delta(eps float64) float64 {
	switch {
	case math.IsInf(eps, 1):
		return 0
	case math.IsInf(eps, -1):
		return 1
	}
	c := eps/g.Mu - g.Mu/2
	if c <= -1 {
		// Φ(−c) ≥ 0.84 and the second term is smaller: no harmful cancellation.
		return deltaUp(detmath.NormalTail(c) - detmath.Exp(eps+detmath.LogNormalTail(c+g.Mu)))
	}
	return deltaUp(0.5 * detmath.ExpNegHalfSquare(c) * erfcxDrop(c/math.Sqrt2, g.Mu/math.Sqrt2))
}

// LogDelta returns log δ(ε), finite wherever δ(ε) > 0, including where δ underflows; like
// Delta it is rounded up (by relSlack, past its absolute error of about 1e-13 where δ is a
// double), so that it agrees with log Delta(ε).
func (g GDP) LogDelta(eps float64) float64 {
	c := eps/g.Mu - g.Mu/2
	if c <= -1 || math.IsInf(eps, 0) {
		return detmath.Log(g.Delta(eps))
	}
	return -0.5*c*c + detmath.Log(0.5*erfcxDrop(c/math.Sqrt2, g.Mu/math.Sqrt2)) + relSlack
}

// otherTail returns e^ε·Φ(−ε/μ − μ/2), the probability under the "other" Gaussian of the
// set where the privacy loss exceeds ε; −otherTail(ε) is the derivative of δ(ε).
func (g GDP) otherTail(eps float64) float64 {
	c := eps/g.Mu - g.Mu/2
	if c <= -1 {
		return detmath.Exp(eps + detmath.LogNormalTail(c+g.Mu))
	}
	return 0.5 * detmath.ExpNegHalfSquare(c) * detmath.Erfcx((c+g.Mu)/math.Sqrt2)
}

// Epsilon returns the smallest ε ≥ 0 with δ(ε) ≤ delta, for delta in (0, 1). The result is
// rounded toward privacy: evaluating Delta at it gives at most delta. Method: safeguarded
// Newton iteration on log δ(ε) = log delta, whose derivative is −otherTail(ε)/δ(ε).
func (g GDP) Epsilon(delta float64) (float64, error) {
	if !(delta > 0 && delta < 1) {
		return 0, errors.New("privacy: δ must be in (0, 1), got " + num(delta))
	}
	if g.Delta(0) <= delta {
		return 0, nil
	}
	logTarget := detmath.Log(delta)
	// Bracket: δ(lo) > delta ≥ δ(hi). Start hi from the tail quantile: δ(ε) ≈ Q(c) for large c.
	lo, hi := 0.0, math.Max(g.Mu*(detmath.NormalTailInverse(delta)+g.Mu/2), g.Mu)
	for g.LogDelta(hi) > logTarget {
		lo, hi = hi, 2*hi
		if math.IsInf(hi, 1) {
			return 0, errors.New("privacy: the ε of " + g.String() + " at δ = " + num(delta) + " is out of the range of a double")
		}
	}
	eps := newtonBracketed(lo, hi, hi, false, func(eps float64) (h, step float64) {
		ld := g.LogDelta(eps)
		h = ld - logTarget
		return h, h * detmath.Exp(ld) / g.otherTail(eps) // −h/h′ with h′ = −otherTail/δ
	})
	// Round toward privacy: an ε at or just above the root with δ(ε) ≤ delta.
	if eps = nudge(eps, math.Inf(1), func(e float64) bool { return g.Delta(e) <= delta }); math.IsNaN(eps) {
		return 0, errors.New("privacy: internal error: the ε of " + g.String() + " at δ = " + num(delta) + " did not converge")
	}
	return eps, nil
}

// Tradeoff returns the tradeoff function T(α) = Φ(Φ⁻¹(1 − α) − μ): the smallest type II error
// of any test of the two neighbouring datasets at type I error α ∈ [0, 1]. It is computed as
// Q(μ − x) with x = NormalTailInverse(α), accurate in both tails (to about 4e-14 relative),
// then rounded down past it (tradeoffDown).
func (g GDP) Tradeoff(alpha float64) float64 {
	switch {
	case alpha <= 0:
		return 1
	case alpha >= 1:
		return 0
	}
	return tradeoffDown(detmath.NormalTail(g.Mu-detmath.NormalTailInverse(alpha)), 0)
}

// CalibrateGDP returns the largest μ for which μ-GDP satisfies the target (eps, delta):
// δ_μ(eps) ≤ delta, with eps ≥ 0 and delta in (0, 1). It is rounded toward privacy (Delta at
// the returned μ is at most delta) and is within a few ulps of the exact largest μ. Method:
// safeguarded Newton iteration on log δ_μ(eps) = log delta in μ, using dδ/dμ = φ(eps/μ − μ/2).
func CalibrateGDP(eps, delta float64) (float64, error) {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return 0, errors.New("privacy: ε must be finite and at least 0, got " + num(eps))
	}
	if !(delta > 0 && delta < 1) {
		return 0, errors.New("privacy: δ must be in (0, 1), got " + num(delta))
	}
	logTarget := detmath.Log(delta)
	logDelta := func(mu float64) float64 { return GDP{Mu: mu}.LogDelta(eps) }
	// Bracket [lo, hi] with δ_lo ≤ delta < δ_hi, starting from the classical sufficient μ.
	lo := eps / math.Sqrt(2*detmath.Log(1.25/delta))
	if lo == 0 {
		lo = 1e-3
	}
	lo = math.Min(lo, 0x1p1000) // finite, so that halving and doubling it mean something
	// Every loop is bounded: halving or doubling a float64 reaches 0 or +Inf within about 2,100
	// steps, where δ is 0 or 1 and the loops end; the bounds only make that explicit.
	for k := 0; logDelta(lo) > logTarget; k++ {
		if lo /= 2; k == maxCalibrationSteps || lo == 0 {
			return 0, errors.New("privacy: no μ > 0 meets " + target(eps, delta))
		}
	}
	hi := 2 * lo
	for k := 0; logDelta(hi) <= logTarget; k++ {
		if lo, hi = hi, 2*hi; k == maxCalibrationSteps || math.IsInf(hi, 1) {
			return 0, errors.New("privacy: every μ meets " + target(eps, delta) + ": the budget does not bound the noise")
		}
	}
	mu := newtonBracketed(lo, hi, lo, true, func(mu float64) (h, step float64) {
		ld := logDelta(mu)
		h = ld - logTarget
		return h, -h * detmath.Exp(ld) / detmath.NormalPDF(eps/mu-mu/2) // −h/h′ with h′ = φ(ε/μ − μ/2)/δ
	})
	if !(mu > 0) || math.IsInf(mu, 1) {
		return 0, errors.New("privacy: no finite μ > 0 meets " + target(eps, delta) + ": ε is too large for the Gaussian curve to be evaluated")
	}
	if mu = nudge(mu, 0, func(m float64) bool { return (GDP{Mu: m}).Delta(eps) <= delta }); !(mu > 0) {
		return 0, errors.New("privacy: internal error: the GDP calibration for " + target(eps, delta) + " did not converge")
	}
	return mu, nil
}

// maxCalibrationSteps bounds every loop of the calibrations: more than a float64's range takes
// to halve or double to 0 or +Inf, and than any bisection to the last bit.
const maxCalibrationSteps = 4096

// GaussianSigma returns the smallest noise scale σ for which the Gaussian mechanism with L2
// sensitivity S satisfies (eps, delta)-DP: σ = S/μ* with μ* = CalibrateGDP(eps, delta) (the
// analytic Gaussian mechanism of Balle and Wang 2018). It is rounded toward privacy: the
// mechanism with the returned σ has δ(eps) ≤ delta.
func GaussianSigma(sensitivity, eps, delta float64) (float64, error) {
	if !(sensitivity > 0) || math.IsInf(sensitivity, 1) {
		return 0, errors.New("privacy: the sensitivity must be finite and positive, got " + num(sensitivity))
	}
	mu, err := CalibrateGDP(eps, delta)
	if err != nil {
		return 0, err
	}
	sigma := sensitivity / mu
	if !(sigma > 0) || math.IsInf(sigma, 1) {
		return 0, errors.New("privacy: σ = " + num(sensitivity) + "/" + num(mu) + " is out of the range of a double")
	}
	if sigma = nudge(sigma, math.Inf(1), func(s float64) bool { return (GDP{Mu: sensitivity / s}).Delta(eps) <= delta }); math.IsNaN(sigma) {
		return 0, errors.New("privacy: internal error: the Gaussian σ for " + target(eps, delta) + " did not converge")
	}
	return sigma, nil
}

// GaussianMechanism returns the privacy of the Gaussian mechanism with L2 sensitivity S and
// noise standard deviation σ: exactly (S/σ)-GDP.
func GaussianMechanism(sensitivity, sigma float64) (GDP, error) {
	if !(sensitivity > 0) || !(sigma > 0) || math.IsInf(sensitivity, 1) || math.IsInf(sigma, 1) {
		return GDP{}, errors.New("privacy: sensitivity and σ must be finite and positive, got " + num(sensitivity) + " and " + num(sigma))
	}
	return NewGDP(sensitivity / sigma)
}
