package privacy

import (
	"fmt"
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
		return RDP{}, fmt.Errorf("privacy: ρ must be finite and at least 0, got %g", rho)
	}
	return RDP{Eps: func(alpha float64) float64 { return alpha * rho }, Name: fmt.Sprintf("%.6g-zCDP", rho)}, nil
}

// CalibrateZCDP returns the largest ρ (to a relative 1e-12) for which ρ-zCDP, converted by the
// CKS conversion with the orders RDP.Delta searches, satisfies the target (eps, delta), with
// eps > 0 finite and delta in (0, 1). It is rounded toward privacy: ZCDP(ρ).Delta(eps) ≤ delta
// holds when evaluated at the returned ρ.
//
// Method: bisection on log ρ between the closed form of Mironov's conversion,
// ρ₀ = (√(L + ε) − √L)² with L = log(1/δ) (the ρ at which ρ + 2√(ρL) = ε; the CKS conversion
// is never worse, so ρ₀ meets the target), and a ρ found by doubling at which the target fails.
func CalibrateZCDP(eps, delta float64) (float64, error) {
	if err := (Budget{Epsilon: eps, Delta: delta}).Validate(); err != nil {
		return 0, err
	}
	if delta == 0 {
		return 0, fmt.Errorf("privacy: zCDP needs δ > 0 to meet an (ε, δ) target")
	}
	meets := func(rho float64) bool {
		c, _ := ZCDP(rho)
		return c.Delta(eps) <= delta
	}
	l := -detmath.Log(delta)
	root := math.Sqrt(l+eps) - math.Sqrt(l)
	lo := root * root
	for !meets(lo) { // never taken in exact arithmetic; a guard against rounding
		lo /= 2
		if lo < 1e-300 {
			return 0, fmt.Errorf("privacy: no ρ meets (ε = %g, δ = %g)", eps, delta)
		}
	}
	hi := 2 * lo
	for meets(hi) {
		lo, hi = hi, 2*hi
		if math.IsInf(hi, 1) {
			return 0, fmt.Errorf("privacy: every ρ meets (ε = %g, δ = %g)", eps, delta)
		}
	}
	for hi-lo > 1e-12*lo {
		mid := lo + (hi-lo)/2
		if meets(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}
