package privacy

import (
	"errors"
	"github.com/privopt/privopt/pkg/detmath"
	"math"
)

// PureDP is pure ε-differential privacy: (ε, 0)-DP. Its worst case is randomized response
// with parameter ε, which gives the tight profile and tradeoff function below.
type PureDP struct {
	// Eps is the privacy parameter ε > 0.
	Eps float64
}

// NewPureDP returns pure ε-DP, or an error unless ε is finite and positive.
func NewPureDP(eps float64) (PureDP, error) {
	if !(eps > 0) || math.IsInf(eps, 1) {
		return PureDP{}, errors.New("privacy: ε must be finite and positive, got " + num(eps))
	}
	return PureDP{Eps: eps}, nil
}

// Delta returns the tight privacy profile of ε-DP: δ(ε′) = (e^ε − e^ε′)/(1 + e^ε) for ε′ < ε
// and 0 otherwise, computed as −expm1(ε′ − ε)/(1 + e^{−ε}) to keep full relative accuracy.
func (p PureDP) Delta(eps float64) float64 {
	if eps >= p.Eps {
		return 0
	}
	return deltaUp(-math.Expm1(eps-p.Eps) / (1 + detmath.Exp(-p.Eps)))
}

// Epsilon returns the smallest ε′ ≥ 0 with δ(ε′) ≤ delta: the inverse of Delta,
// ε′ = ε + log(1 − δ(1 + e^{−ε})), rounded up so that Delta at it is at most delta.
func (p PureDP) Epsilon(delta float64) (float64, error) {
	if !(delta > 0 && delta < 1) {
		return 0, errDelta(delta)
	}
	e := math.Max(0, p.Eps+math.Log1p(-delta*(1+detmath.Exp(-p.Eps))))
	return nudge(e, math.Inf(1), func(e float64) bool { return p.Delta(e) <= delta }), nil
}

// Tradeoff returns the tradeoff function of ε-DP: T(α) = max(0, 1 − e^ε·α, e^{−ε}·(1 − α))
// (Dong, Roth and Su 2019, equation (6) with δ = 0).
func (p PureDP) Tradeoff(alpha float64) float64 {
	return ApproxDP{Eps: p.Eps}.Tradeoff(alpha)
}

// String describes the guarantee.
func (p PureDP) String() string { return "pure ε-DP with ε = " + FormatUp(p.Eps, 6) }

// ApproxDP is a single (ε, δ)-DP guarantee, as a curve: the tightest profile and tradeoff
// function implied by (ε, δ)-DP alone (Kairouz, Oh and Viswanath 2015; Dong, Roth and Su 2019,
// equation (6)).
type ApproxDP struct {
	Eps, Del float64
}

// NewApproxDP returns the (ε, δ)-DP guarantee, with ε ≥ 0 finite and δ in [0, 1).
func NewApproxDP(eps, delta float64) (ApproxDP, error) {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return ApproxDP{}, errors.New("privacy: ε must be finite and at least 0, got " + num(eps))
	}
	if !(delta >= 0 && delta < 1) {
		return ApproxDP{}, errors.New("privacy: δ must be in [0, 1), got " + num(delta))
	}
	return ApproxDP{Eps: eps, Del: delta}, nil
}

// Delta returns δ(ε′) = δ + (1 − δ)·(e^ε − e^ε′)/(1 + e^ε) for ε′ < ε and δ for ε′ ≥ ε: the
// profile of the tradeoff function below.
func (a ApproxDP) Delta(eps float64) float64 {
	if eps >= a.Eps {
		return a.Del
	}
	return deltaUp(a.Del + (1-a.Del)*(-math.Expm1(eps-a.Eps))/(1+detmath.Exp(-a.Eps)))
}

// Epsilon returns the smallest ε′ ≥ 0 with δ(ε′) ≤ delta; below the guarantee's own δ no ε′
// suffices, which is an error.
func (a ApproxDP) Epsilon(delta float64) (float64, error) {
	if !(delta > 0 && delta < 1) {
		return 0, errDelta(delta)
	}
	if delta < a.Del {
		return 0, errors.New("privacy: an (ε, " + num(a.Del) + ")-DP guarantee never reaches δ = " + num(delta))
	}
	// Solve δ + (1 − δ)·(1 − e^{ε′−ε})/(1 + e^{−ε}) = delta for ε′.
	r := (delta - a.Del) / (1 - a.Del) * (1 + detmath.Exp(-a.Eps))
	e := math.Max(0, a.Eps+math.Log1p(-math.Min(r, 1)))
	return nudge(e, math.Inf(1), func(e float64) bool { return a.Delta(e) <= delta }), nil
}

// Tradeoff returns f_{ε,δ}(α) = max(0, 1 − δ − e^ε·α, e^{−ε}·(1 − δ − α)).
func (a ApproxDP) Tradeoff(alpha float64) float64 {
	if alpha >= 1 {
		return 0
	}
	return tradeoffAt(math.Max(alpha, 0), a.Eps, a.Del)
}

// String describes the guarantee.
func (a ApproxDP) String() string {
	return "(ε, δ)-DP with ε = " + FormatUp(a.Eps, 6) + ", δ = " + FormatUp(a.Del, 3)
}
