package privacy

import (
	"errors"
	"math"

	"github.com/privopt/privopt/pkg/detmath"
)

// Stopping is the law of the number of runs K in private selection by random stopping: a
// truncated negative binomial distribution of Papernot and Steinke 2022 with γ ∈ (0, 1) and
// η = 1, the geometric P(K = k) = γ(1 − γ)^(k−1), or η = 0 (Logarithmic), the logarithmic
// P(K = k) = (1 − γ)^k/(k·log(1/γ)), for k ≥ 1. At the same mean the logarithmic costs less
// privacy but puts more mass on K = 1.
type Stopping struct {
	Gamma       float64
	Logarithmic bool
}

// Mean returns E[K]: 1/γ, or (1 − γ)/(γ·log(1/γ)) for the logarithmic.
func (s Stopping) Mean() float64 {
	if s.Logarithmic {
		return (1 - s.Gamma) / (s.Gamma * -detmath.Log(s.Gamma))
	}
	return 1 / s.Gamma
}

// String names the law and its mean.
func (s Stopping) String() string {
	law := "geometric"
	if s.Logarithmic {
		law = "logarithmic"
	}
	return law + " number of runs (mean " + sig(s.Mean(), 4) + ")"
}

// RandomStopping returns the Rényi-DP curve of private selection by a random number of runs
// (Papernot and Steinke 2022, "Hyperparameter Tuning with Rényi Differential Privacy",
// Theorem 2): an algorithm Q that is ρ-zCDP is run K times on the same data, each time with
// fresh randomness, K drawn independently of the data from s, and only the best of the K
// outputs under a fixed total order of Q's outputs is released (neither K nor the other
// outputs). The release is (λ, ε′(λ))-RDP for every λ > 1 with
//
//	ε′(λ) = ρλ + (1 + η)·min over λ̂ ≥ 1 of [ρ(λ̂ − 1) + log(1/γ)/λ̂] + log E[K]/(λ − 1),
//
// the theorem's ε + (1 + η)(1 − 1/λ̂)ε̂ + (1 + η)log(1/γ)/λ̂ + log E[K]/(λ − 1) with ε = ρλ,
// ε̂ = ρλ̂ (at λ̂ = 1 the KL divergence, at most ρ). The minimum is at λ̂ = √(log(1/γ)/ρ) when
// that is at least 1 (value 2√(ρ·log(1/γ)) − ρ), else at λ̂ = 1 (value log(1/γ)). ρ must be
// positive and finite and γ in (0, 1).
func RandomStopping(rho float64, s Stopping) (RDP, error) {
	if !(rho > 0) || math.IsInf(rho, 1) {
		return RDP{}, errors.New("privacy: ρ must be positive and finite, got " + num(rho))
	}
	if !(s.Gamma > 0 && s.Gamma < 1) {
		return RDP{}, errors.New("privacy: the stopping probability γ must be in (0, 1), got " + num(s.Gamma))
	}
	l := -detmath.Log(s.Gamma) // log(1/γ)
	inner := l                 // at λ̂ = 1
	if l > rho {
		inner = 2*math.Sqrt(rho*l) - rho
	}
	weight := 2.0 // 1 + η
	if s.Logarithmic {
		weight = 1
	}
	// log E[K] ≥ 0 (E[K] ≥ 1 for either law) is computed within a few roundings; 2⁻⁵⁰ covers
	// them where it is near 0, and every term is rounded up by a relative 2⁻⁴⁰, far above the
	// few roundings of each.
	logMean := detmath.Log(s.Mean()) + 0x1p-50
	const up = 1 + 0x1p-40
	return RDP{
		Eps: func(alpha float64) float64 {
			return (rho*alpha + weight*inner + logMean/(alpha-1)) * up
		},
		Name: "Rényi DP of the best of a " + s.String() + " of a " + FormatUp(rho, 6) + "-zCDP algorithm",
	}, nil
}

// CalibrateRandomStopping returns the largest ρ (to a relative 1e-9) such that
// RandomStopping(ρ, s) meets the target (eps, delta) when evaluated, with eps > 0 finite and
// delta in (0, 1); an error when no ρ does (the term log(1/γ)/(λ − 1) alone exceeds the
// target).
func CalibrateRandomStopping(s Stopping, eps, delta float64) (float64, error) {
	if err := (Budget{Epsilon: eps, Delta: delta}).Validate(); err != nil {
		return 0, err
	}
	if delta == 0 {
		return 0, errors.New("privacy: private selection by random stopping needs δ > 0")
	}
	meets := func(rho float64) bool {
		c, err := RandomStopping(rho, s)
		return err == nil && c.Delta(eps) <= delta
	}
	// The ρ of a single ρ-zCDP run at the target bounds the answer from above.
	hi, err := CalibrateZCDP(eps, delta)
	if err != nil {
		return 0, err
	}
	lo := hi
	for !meets(lo) {
		if lo /= 2; lo < 1e-300 {
			return 0, errors.New("privacy: no ρ lets the best of a " + s.String() + " meet " + target(eps, delta))
		}
	}
	for hi/lo > 1+1e-9 {
		if mid := math.Sqrt(lo * hi); meets(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}
