package privacy

import (
	"errors"
	"github.com/privopt/privopt/pkg/detmath"
	"math"
	"strconv"
)

// RDP is a Rényi-DP guarantee (Mironov 2017): for every order α > 1, the Rényi divergence of
// order α between the outputs on neighbouring datasets is at most Eps(α).
type RDP struct {
	// Eps returns the Rényi-DP parameter at order α > 1; it must be non-decreasing in α.
	Eps func(alpha float64) float64
	// Name describes the guarantee, for example "Rényi DP of 0.5-GDP".
	Name string
	// Conversion is how the curve turns into (ε, δ); the zero value is the tighter one.
	Conversion Conversion
	// linear is c > 0 when Eps(α) = c·α (zCDP with ρ = c, μ-GDP's curve with c = μ²/2): the
	// CKS conversion's best order then has a closed characterisation (see linearOrder).
	linear float64
}

// Conversion names a conversion from Rényi DP to (ε, δ)-DP.
type Conversion int

const (
	// CKS is the conversion of Canonne, Kamath and Steinke 2020 (Proposition 12), equivalently
	// Balle et al. 2020 (Theorem 21): (α, τ)-RDP implies (ε, δ)-DP with
	// δ = exp((α − 1)(τ − ε))·(1 − 1/α)^(α−1)/α. It is never worse than Standard.
	CKS Conversion = iota
	// Standard is Mironov 2017, Proposition 3: (α, τ)-RDP implies (τ + log(1/δ)/(α − 1), δ)-DP.
	Standard
)

// String names the conversion.
func (c Conversion) String() string {
	if c == Standard {
		return "Mironov 2017 (Proposition 3)"
	}
	return "Canonne, Kamath and Steinke 2020 (Proposition 12)"
}

// GaussianRDP returns the Rényi-DP curve of μ-GDP (and of the Gaussian mechanism with
// μ = S/σ): Eps(α) = α·μ²/2, exact.
func GaussianRDP(mu float64) RDP {
	c := mu * mu / 2
	return RDP{Eps: func(alpha float64) float64 { return alpha * c }, Name: "Rényi DP of " + FormatUp(mu, 6) + "-GDP", linear: c}
}

// LangevinRDP returns the Rényi-DP curve of the whole trajectory of Langevin diffusion (or
// projected noisy gradient descent) run for time t at inverse temperature β with gradient
// sensitivity Δ (Ganesh, Thakurta and Upadhyay, Lemma 2.2): Eps(α) = α·β²Δ²t/4. It is the
// curve of μ-GDP with μ = βΔ√(t/2), which is the exact guarantee (use GDP for δ(ε)).
func LangevinRDP(beta, gradSensitivity, time float64) RDP {
	mu := beta * gradSensitivity * math.Sqrt(time/2)
	r := GaussianRDP(mu)
	r.Name = "Rényi DP of a Langevin trajectory (β = " + sig(beta, 6) + ", Δ = " + sig(gradSensitivity, 6) + ", t = " + sig(time, 6) + ")"
	return r
}

// PureRDP returns the Rényi-DP curve implied by pure ε-DP: the Rényi divergence of randomized
// response, Eps(α) = log[(sinh(αε) − sinh((α − 1)ε))/sinh(ε)]/(α − 1), which bounds that of
// every ε-DP mechanism (randomized response is the worst case: T. Steinke, "Tight RDP & zCDP
// bounds from pure DP", differentialprivacy.org; it is at most min(ε, αε²/2)), evaluated in
// log space.
func PureRDP(eps float64) RDP {
	return RDP{Eps: func(alpha float64) float64 { return pureRDP(eps, alpha) }, Name: "Rényi DP of " + FormatUp(eps, 6) + "-DP"}
}

// pureRDP evaluates the Rényi divergence of order α between randomized-response outputs:
// with p = e^ε/(1 + e^ε), D_α = log(p^α(1−p)^(1−α) + (1−p)^α p^(1−α))/(α − 1).
func pureRDP(eps, alpha float64) float64 {
	logP := -math.Log1p(detmath.Exp(-eps)) // log p
	logQ := -math.Log1p(detmath.Exp(eps))  // log(1 − p)
	a := alpha*logP + (1-alpha)*logQ       // the larger term
	b := alpha*logQ + (1-alpha)*logP       // b ≤ a
	v := (a + math.Log1p(detmath.Exp(b-a))) / (alpha - 1)
	return math.Min(v, eps)
}

// Sum returns the Rényi-DP curve of the composition: the sum of the curves (Mironov 2017,
// Proposition 1), converted with the first curve's conversion.
func (r RDP) Sum(others ...RDP) RDP {
	parts := append([]RDP{r}, others...)
	return RDP{
		Eps: func(alpha float64) float64 {
			s := 0.0
			for _, p := range parts {
				s += p.Eps(alpha)
			}
			return s
		},
		Name:       "Rényi DP of a composition of " + strconv.Itoa(len(parts)) + " mechanisms",
		Conversion: r.Conversion,
	}
}

// logDeltaAt returns log δ at order α for the (ε, δ)-DP statement that (α, τ)-RDP implies.
//
// It is rounded up by termSlack of its terms' magnitudes (τ's as well as the difference's, for
// τ − ε cancels), past their rounding.
func (r RDP) logDeltaAt(alpha, eps float64) float64 {
	if math.IsInf(eps, 1) {
		return math.Inf(-1)
	}
	tau := r.Eps(alpha)
	a, size := (alpha-1)*(tau-eps), (alpha-1)*(math.Abs(tau)+math.Abs(eps))
	if r.Conversion == Standard {
		return a + termSlack*size
	}
	b, c := (alpha-1)*math.Log1p(-1/alpha), detmath.Log(alpha)
	return a + b - c + termSlack*(size+math.Abs(b)+math.Abs(c))
}

// termSlack is the relative margin, of the magnitudes of their terms, by which the Rényi
// conversions round toward privacy: far above the few ulps of each term and of Eps(α), a sum
// over up to hundreds of composed parts (2⁻⁴³ ≈ 1.1e-13, about 1,000 ulps).
const termSlack = 0x1p-43

// orders is the grid of Rényi orders the conversions start from: 1 + 10^(k/40) for k from
// −160 to 240 (orders from 1.0001 to 1 000 001).
var orders = func() []float64 {
	var a []float64
	for k := -160; k <= 240; k++ {
		a = append(a, 1+detmath.Exp(float64(k)/40*math.Ln10))
	}
	return a
}()

// minOverOrders minimises f over the Rényi orders: the grid orders, then golden-section
// search in log(α − 1) between the neighbours of the best grid point. Every order gives a
// valid bound, so the search can only sharpen it.
func minOverOrders(f func(alpha float64) float64) (fmin, alpha float64) {
	best := 0
	vals := make([]float64, len(orders))
	for i, a := range orders {
		vals[i] = f(a)
		if vals[i] < vals[best] {
			best = i
		}
	}
	lo := detmath.Log(orders[max(best-1, 0)] - 1)
	hi := detmath.Log(orders[min(best+1, len(orders)-1)] - 1)
	at := func(t float64) float64 { return f(1 + detmath.Exp(t)) }
	const phi = 0.6180339887498949
	for range 60 {
		a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
		if at(a) < at(b) {
			hi = b
		} else {
			lo = a
		}
	}
	fmin, alpha = vals[best], orders[best]
	if t := (lo + hi) / 2; at(t) < fmin {
		fmin, alpha = at(t), 1+detmath.Exp(t)
	}
	return fmin, alpha
}

// Delta returns the δ(ε) that the conversion certifies: the minimum over the orders of the
// δ each order gives (capped at 1). For a linear curve (Eps(α) = c·α) under the CKS conversion
// it is the δ of the minimising order itself (linearOrder), found in a few Newton steps instead
// of the search over the orders.
func (r RDP) Delta(eps float64) float64 {
	if math.IsInf(eps, 1) {
		return 0
	}
	if r.linear > 0 && r.Conversion == CKS {
		if a := linearOrder(r.linear, eps); a > 1 && !math.IsInf(a, 1) {
			return deltaUp(detmath.Exp(math.Min(0, r.logDeltaAt(a, eps))))
		}
	}
	logDelta, _ := minOverOrders(func(a float64) float64 { return r.logDeltaAt(a, eps) })
	return deltaUp(detmath.Exp(math.Min(0, logDelta)))
}

// linearOrder returns the order α > 1 that minimises the CKS bound on log δ(ε) for the curve
// Eps(α) = c·α: log δ(α) = (α − 1)(cα − ε) + (α − 1)·log(1 − 1/α) − log α, whose derivative
// g(α) = 2cα − c − ε + log(1 − 1/α) increases (g′ = 2c + 1/(α(α − 1)) > 0) from −∞ at α = 1
// to +∞, so its root is the unique minimiser. g is concave (g″ < 0), so Newton's iterates from
// a point where g ≤ 0 increase to the root without overshooting it; they start at
// α₀ = (ε + c)/(2c), where the first terms vanish and g(α₀) = log(1 − 1/α₀) < 0 (or just above
// 1 when α₀ ≤ 1). Every order gives a valid bound, so an inexact root only loosens δ.
func linearOrder(c, eps float64) float64 {
	a := math.Max((eps+c)/(2*c), 1+0x1p-40)
	for range 100 {
		g := 2*c*a - c - eps + math.Log1p(-1/a)
		step := -g / (2*c + 1/(a*(a-1)))
		if !(step > 1e-15*a) {
			break
		}
		a += step
	}
	return a
}

// EpsilonAt returns the ε that order α certifies for delta, rounded up by termSlack of its
// terms' magnitudes (as logDeltaAt).
func (r RDP) EpsilonAt(alpha, delta float64) float64 {
	tau := r.Eps(alpha)
	if r.Conversion == Standard {
		b := detmath.Log(1/delta) / (alpha - 1)
		return tau + b + termSlack*(math.Abs(tau)+math.Abs(b))
	}
	b, c := math.Log1p(-1/alpha), (detmath.Log(delta)+detmath.Log(alpha))/(alpha-1)
	return tau + b - c + termSlack*(math.Abs(tau)+math.Abs(b)+math.Abs(c))
}

// Epsilon returns the smallest ε the conversion certifies for delta, minimised over the
// orders, and never below 0.
func (r RDP) Epsilon(delta float64) (float64, error) {
	eps, _, err := r.Convert(delta)
	return eps, err
}

// Convert returns the ε the conversion certifies for delta and the order that achieves it.
func (r RDP) Convert(delta float64) (eps, alpha float64, err error) {
	if !(delta > 0 && delta < 1) {
		return 0, 0, errDelta(delta)
	}
	eps, alpha = minOverOrders(func(a float64) float64 { return r.EpsilonAt(a, delta) })
	if math.IsInf(eps, 1) || math.IsNaN(eps) {
		return 0, 0, errors.New("privacy: the ε of " + r.String() + " at δ = " + num(delta) + " is out of the range of a double")
	}
	return math.Max(eps, 0), alpha, nil
}

// Tradeoff returns a lower bound on the tradeoff function from the converted profile.
func (r RDP) Tradeoff(alpha float64) float64 { return tradeoffFromProfile(r, alpha) }

// String describes the guarantee and its conversion.
func (r RDP) String() string { return r.Name + ", converted by " + r.Conversion.String() }
