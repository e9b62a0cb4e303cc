package privacy

import (
	"errors"
	"math"

	"github.com/privopt/privopt/pkg/detmath"
)

// ZCDP returns ρ-zero-concentrated differential privacy (Bun and Steinke 2016) as a Rényi-DP
// curve: the Rényi divergence of every order α > 1 is at most α·ρ. It is the guarantee of the
// discrete Gaussian mechanism (Canonne, Kamath and Steinke 2020): integer noise N_Z(0, σ²) added
// to a vector of integer ℓ2 sensitivity Δ gives ρ = Δ²/(2σ²), and T adaptive steps of it add up
// (ρ = Σρᵢ). Converted to (ε, δ) by the CKS conversion (the zero Conversion). It is the same
// curve as GaussianRDP(√(2ρ)), which does not claim the continuous Gaussian's exact μ-GDP
// profile. ρ must be finite and at least 0 (0 is perfect privacy).
func ZCDP(rho float64) (RDP, error) {
	if !(rho >= 0) || math.IsInf(rho, 1) {
		return RDP{}, errors.New("privacy: ρ must be finite and at least 0, got " + num(rho))
	}
	return RDP{Eps: func(alpha float64) float64 { return alpha * rho }, Name: FormatUp(rho, 6) + "-zCDP", linear: rho}, nil
}

// CalibrateZCDP returns the largest ρ (to a relative 1e-12) for which ρ-zCDP, converted by the
// CKS conversion with the orders RDP.Delta searches, satisfies the target (eps, delta), with
// eps > 0 finite and delta in (0, 1). It is rounded toward privacy: ZCDP(ρ).Delta(eps) ≤ delta
// holds when evaluated at the returned ρ.
//
// Method: a bracket [lo, hi] with lo meeting the target and hi not, started from the closed form
// of Mironov's conversion, ρ₀ = (√(L + ε) − √L)² with L = log(1/δ) (the ρ at which
// ρ + 2√(ρL) = ε; the CKS conversion is never worse, so ρ₀ meets the target), and 2^k·ρ₀. Each
// step evaluates the point where log δ(ρ), interpolated linearly between the ends, reaches
// log δ_target (regula falsi with the Illinois modification; the midpoint when that is not
// strictly inside), and then a probe 1e-12 (relative) beyond it on the other side, which closes
// the bracket once the interpolation has found the root: a dozen evaluations of δ(ρ), against
// forty for bisection.
func CalibrateZCDP(eps, delta float64) (float64, error) {
	if err := (Budget{Epsilon: eps, Delta: delta}).Validate(); err != nil {
		return 0, err
	}
	if delta == 0 {
		return 0, errors.New("privacy: zCDP needs δ > 0 to meet an (ε, δ) target")
	}
	logTarget := detmath.Log(delta)
	excess := func(rho float64) (float64, bool) { // log δ(ρ) − log δ_target, and whether ρ meets
		c, err := ZCDP(rho)
		if err != nil { // ρ out of ZCDP's range: treated as not meeting the target
			return math.Inf(1), false
		}
		d := c.Delta(eps)
		return detmath.Log(d) - logTarget, d <= delta
	}
	l := -logTarget
	root := math.Sqrt(l+eps) - math.Sqrt(l)
	if root < 1e-8*eps {
		// √(l + ε) − √l cancels when ε ≪ l (it is 0 from ε ≈ 1e-16·l: ρ₀ = 0 never
		// terminated the doubling below); ε/(√(l + ε) + √l) is the same number without
		// cancellation. Moderate ε keep the plain form, whose bits the pinned releases use.
		root = eps / (math.Sqrt(l+eps) + math.Sqrt(l))
	}
	lo := min(max(root*root, math.SmallestNonzeroFloat64), math.MaxFloat64) // finite, positive
	flo, ok := excess(lo)
	for k := 0; !ok; k++ { // never taken in exact arithmetic; a guard against rounding
		lo /= 2
		if lo < 1e-300 || k == maxCalibrationSteps {
			return 0, errors.New("privacy: no ρ meets " + target(eps, delta))
		}
		flo, ok = excess(lo)
	}
	hi := 2 * lo
	fhi, ok := excess(hi)
	for ok {
		lo, flo, hi = hi, fhi, 2*hi
		if math.IsInf(hi, 1) {
			return 0, errors.New("privacy: every ρ meets " + target(eps, delta))
		}
		fhi, ok = excess(hi)
	}
	const tol = 1e-12
	side := 0 // which end the last step moved: −1 for lo, +1 for hi
	for iter := 0; hi-lo > tol*lo; iter++ {
		if iter == maxCalibrationSteps {
			return 0, errors.New("privacy: internal error: the zCDP calibration for " + target(eps, delta) + " did not converge")
		}
		x := lo + (hi-lo)/2
		if t := -flo / (fhi - flo); iter < 50 && t > 0 && t < 1 && !math.IsInf(flo, 0) && !math.IsInf(fhi, 0) {
			x = lo + (hi-lo)*t
		}
		fx, ok := excess(x)
		if ok {
			if side == -1 {
				fhi /= 2 // the Illinois modification: the stale end's value is halved
			}
			side = -1
			lo, flo = x, fx
			if probe := x * (1 + tol); probe < hi {
				if fp, ok := excess(probe); ok {
					lo, flo = probe, fp
				} else {
					hi, fhi = probe, fp
				}
			}
		} else {
			if side == +1 {
				flo /= 2
			}
			side = +1
			hi, fhi = x, fx
			if probe := x * (1 - tol); probe > lo {
				if fp, ok := excess(probe); ok {
					lo, flo = probe, fp
				} else {
					hi, fhi = probe, fp
				}
			}
		}
	}
	return lo, nil
}
