// Package accounting answers privacy-accounting queries given as named parameters, for the
// `privopt account` command and the Cloudflare Worker's data-free API, which accept the same
// parameters and return the same JSON. All the mathematics is in pkg/core/privacy.
//
// Queries (parameter names as in the command's flags):
//
//	mu, eps              δ(ε) of μ-GDP
//	mu, delta            the smallest ε with δ(ε) ≤ δ, and the Rényi-DP conversions for comparison
//	eps, delta           the largest μ meeting (ε, δ); with sensitivity, also the smallest σ
//	compose-mu, delta    the composition of μ₁, μ₂, … (comma-separated) and its ε at δ
//	tradeoff, mu, alpha  the tradeoff function T(α) of μ-GDP
//	pure-eps, eps        δ(ε) of pure ε₀-DP
package accounting

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/privopt/privopt/pkg/core/privacy"
)

// Params are the query's parameters by name, as given (strings); "tradeoff" is a flag whose
// value is ignored.
type Params map[string]string

// InputError is an invalid query: unknown or missing parameters, values out of range, or
// values whose answer is not a finite number. Evaluate returns no other error.
type InputError struct{ Msg string }

func (e InputError) Error() string { return e.Msg }

func inputErrorf(format string, args ...any) error { return InputError{fmt.Sprintf(format, args...)} }

// Names are the parameters a query may use.
var Names = []string{"mu", "eps", "delta", "sensitivity", "compose-mu", "tradeoff", "alpha", "pure-eps"}

// Result is the answer to a query. Query names the kind of query; the other fields are set
// as the query needs them.
type Result struct {
	Query       string    `json:"query"`
	Mu          *float64  `json:"mu,omitempty"`
	Mus         []float64 `json:"mus,omitempty"`
	PureEpsilon *float64  `json:"pure_epsilon,omitempty"`
	Epsilon     *float64  `json:"epsilon,omitempty"`
	Delta       *float64  `json:"delta,omitempty"`
	Sensitivity *float64  `json:"sensitivity,omitempty"`
	Sigma       *float64  `json:"sigma,omitempty"`
	Alpha       *float64  `json:"alpha,omitempty"`
	Tradeoff    *float64  `json:"tradeoff,omitempty"`
	// Conversions compares the exact ε with the Rényi-DP conversions (query "epsilon").
	Conversions *Conversions `json:"renyi_conversions,omitempty"`
	// Note says in words what the numbers mean.
	Note string `json:"note"`
}

// Conversions are the ε values certified at δ by the Rényi-DP conversions of μ-GDP, which are
// upper bounds on the exact ε.
type Conversions struct {
	Standard      float64 `json:"mironov_2017"`
	StandardOrder float64 `json:"mironov_2017_order"`
	CKS           float64 `json:"canonne_kamath_steinke_2020"`
	CKSOrder      float64 `json:"canonne_kamath_steinke_2020_order"`
}

// Evaluate answers a query with finite numbers, or fails with an InputError.
func Evaluate(p Params) (Result, error) {
	r, err := evaluate(p)
	if err == nil {
		err = r.finite(p)
	}
	if err != nil {
		return Result{}, err
	}
	return r, nil
}

// finite returns an InputError naming the parameters p unless every number in r is finite:
// the last check, for a value out of the range of a double that no earlier check caught.
func (r Result) finite(p Params) error {
	vs := append([]float64(nil), r.Mus...)
	for _, v := range []*float64{r.Mu, r.PureEpsilon, r.Epsilon, r.Delta, r.Sensitivity, r.Sigma, r.Alpha, r.Tradeoff} {
		if v != nil {
			vs = append(vs, *v)
		}
	}
	if c := r.Conversions; c != nil {
		vs = append(vs, c.Standard, c.StandardOrder, c.CKS, c.CKSOrder)
	}
	if Finite(vs...) {
		return nil
	}
	names := make([]string, 0, len(p))
	for name := range p {
		names = append(names, name)
	}
	sort.Strings(names)
	return inputErrorf("the answer for %s is not a finite number: the values are out of the range of double precision", strings.Join(names, ", "))
}

// evaluate answers a query, without the final check that every number is finite.
func evaluate(p Params) (Result, error) {
	for name := range p {
		if !known(name) {
			return Result{}, inputErrorf("unknown parameter %q (known: %s)", name, strings.Join(Names, ", "))
		}
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := p[n]; !ok {
				return false
			}
		}
		return true
	}
	only := func(names ...string) error {
		allowed := map[string]bool{}
		for _, n := range names {
			allowed[n] = true
		}
		var extra []string
		for n := range p {
			if !allowed[n] {
				extra = append(extra, n)
			}
		}
		if len(extra) > 0 {
			sort.Strings(extra)
			return inputErrorf("parameter %q does not go with %s", extra[0], strings.Join(names, ", "))
		}
		return nil
	}
	switch {
	case has("tradeoff"):
		if !has("mu", "alpha") {
			return Result{}, inputErrorf("tradeoff needs mu and alpha")
		}
		if err := only("tradeoff", "mu", "alpha"); err != nil {
			return Result{}, err
		}
		return tradeoff(p)
	case has("compose-mu"):
		if err := only("compose-mu", "delta"); err != nil {
			return Result{}, err
		}
		return compose(p)
	case has("pure-eps"):
		if err := only("pure-eps", "eps"); err != nil {
			return Result{}, err
		}
		if !has("eps") {
			return Result{}, inputErrorf("pure-eps needs eps")
		}
		return pureDelta(p)
	case has("mu", "eps"):
		if err := only("mu", "eps"); err != nil {
			return Result{}, err
		}
		return gdpDelta(p)
	case has("mu", "delta"):
		if err := only("mu", "delta"); err != nil {
			return Result{}, err
		}
		return gdpEpsilon(p)
	case has("eps", "delta"):
		if err := only("eps", "delta", "sensitivity"); err != nil {
			return Result{}, err
		}
		return calibrate(p)
	}
	return Result{}, inputErrorf("nothing to compute: give mu and eps, mu and delta, eps and delta, compose-mu, tradeoff with mu and alpha, or pure-eps with eps")
}

func known(name string) bool {
	for _, n := range Names {
		if n == name {
			return true
		}
	}
	return false
}

// number parses a finite number.
func number(p Params, name string) (float64, error) {
	s, ok := p[name]
	if !ok {
		return 0, inputErrorf("%s is missing", name)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, inputErrorf("%s must be a finite number, got %q", name, s)
	}
	return v, nil
}

func positive(p Params, name string) (float64, error) {
	v, err := number(p, name)
	if err == nil && !(v > 0) {
		err = inputErrorf("%s must be positive, got %g", name, v)
	}
	return v, err
}

func nonNegative(p Params, name string) (float64, error) {
	v, err := number(p, name)
	if err == nil && v < 0 {
		err = inputErrorf("%s must be at least 0, got %g", name, v)
	}
	return v, err
}

// smallestNormal is the smallest normal double, 2⁻¹⁰²²: below it 1/δ overflows and δ loses
// precision, so the conversions could not be computed.
const smallestNormal = 0x1p-1022

func probability(p Params, name string) (float64, error) {
	v, err := number(p, name)
	switch {
	case err != nil:
	case !(v > 0 && v < 1):
		err = inputErrorf("%s must be in (0, 1), got %g", name, v)
	case v < smallestNormal:
		err = inputErrorf("%s must be at least %v (the smallest normal double), got %g", name, smallestNormal, v)
	}
	return v, err
}

// Finite reports whether every v is a finite number, which JSON can encode.
func Finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// epsilonAt returns the exact ε of μ-GDP at delta; name is the parameter that gave μ, blamed
// when ε is out of the range of a double (delta, at least the smallest normal double, cannot
// be the cause).
func epsilonAt(g privacy.GDP, delta float64, name string) (float64, error) {
	eps, err := g.Epsilon(delta)
	if err != nil || !Finite(eps) {
		return 0, inputErrorf("%s is so large that ε at delta = %g is not a finite number", name, delta)
	}
	return eps, nil
}

func gdpDelta(p Params) (Result, error) {
	mu, err := positive(p, "mu")
	if err != nil {
		return Result{}, err
	}
	eps, err := number(p, "eps")
	if err != nil {
		return Result{}, err
	}
	d := privacy.GDP{Mu: mu}.Delta(eps)
	return Result{Query: "delta", Mu: &mu, Epsilon: &eps, Delta: &d,
		Note: "δ(ε) of μ-GDP, rounded up by about 1e-12 relative past its evaluation's error: the mechanism is (ε, δ)-DP with this δ, and with no δ below the exact value"}, nil
}

func gdpEpsilon(p Params) (Result, error) {
	mu, err := positive(p, "mu")
	if err != nil {
		return Result{}, err
	}
	delta, err := probability(p, "delta")
	if err != nil {
		return Result{}, err
	}
	eps, err := epsilonAt(privacy.GDP{Mu: mu}, delta, "mu")
	if err != nil {
		return Result{}, err
	}
	std := privacy.GaussianRDP(mu)
	std.Conversion = privacy.Standard
	cks := privacy.GaussianRDP(mu)
	var c Conversions
	var errStd, errCKS error
	c.Standard, c.StandardOrder, errStd = std.Convert(delta)
	c.CKS, c.CKSOrder, errCKS = cks.Convert(delta)
	if errStd != nil || errCKS != nil {
		return Result{}, inputErrorf("mu is so large that the Rényi-DP conversions at delta = %g are not finite numbers", delta)
	}
	return Result{Query: "epsilon", Mu: &mu, Delta: &delta, Epsilon: &eps, Conversions: &c,
		Note: "the smallest ε with δ(ε) ≤ δ for μ-GDP (exact, then rounded up as δ(ε) is); the Rényi-DP conversions are looser upper bounds, shown for comparison"}, nil
}

func calibrate(p Params) (Result, error) {
	eps, err := nonNegative(p, "eps")
	if err != nil {
		return Result{}, err
	}
	delta, err := probability(p, "delta")
	if err != nil {
		return Result{}, err
	}
	mu, err := privacy.CalibrateGDP(eps, delta)
	if err != nil {
		return Result{}, inputErrorf("eps and delta cannot be calibrated: %s", strings.TrimPrefix(err.Error(), "privacy: "))
	}
	r := Result{Query: "calibrate", Epsilon: &eps, Delta: &delta, Mu: &mu,
		Note: "the largest μ whose μ-GDP curve meets (ε, δ), rounded toward privacy"}
	if _, ok := p["sensitivity"]; ok {
		s, err := positive(p, "sensitivity")
		if err != nil {
			return Result{}, err
		}
		// CalibrateGDP has succeeded, so GaussianSigma can only fail on σ = s/μ.
		sigma, err := privacy.GaussianSigma(s, eps, delta)
		switch {
		case err != nil && s/mu == 0:
			return Result{}, inputErrorf("sensitivity/μ is so small that σ is 0 (sensitivity %g, μ %g)", s, mu)
		case err != nil:
			return Result{}, inputErrorf("sensitivity/μ is so large that σ is not a finite number (sensitivity %g, μ %g)", s, mu)
		}
		r.Sensitivity, r.Sigma = &s, &sigma
		r.Note += "; σ is the smallest noise standard deviation of the Gaussian mechanism with this L2 sensitivity (analytic Gaussian mechanism)"
	}
	return r, nil
}

func compose(p Params) (Result, error) {
	var mus []float64
	for _, part := range strings.Split(p["compose-mu"], ",") {
		v, err := positive(Params{"compose-mu": part}, "compose-mu")
		if err != nil {
			return Result{}, err
		}
		mus = append(mus, v)
	}
	// The values are finite and positive, so ComposeGDP can only fail on an overflow.
	g, err := privacy.ComposeGDP(mus...)
	if err != nil {
		return Result{}, inputErrorf("compose-mu is so large that the composed μ is not a finite number")
	}
	r := Result{Query: "compose", Mus: mus, Mu: &g.Mu, Note: "the composition of μᵢ-GDP mechanisms is exactly μ-GDP with μ = √Σμᵢ²"}
	if _, ok := p["delta"]; ok {
		delta, err := probability(p, "delta")
		if err != nil {
			return Result{}, err
		}
		eps, err := epsilonAt(g, delta, "compose-mu")
		if err != nil {
			return Result{}, err
		}
		r.Delta, r.Epsilon = &delta, &eps
	}
	return r, nil
}

func tradeoff(p Params) (Result, error) {
	mu, err := positive(p, "mu")
	if err != nil {
		return Result{}, err
	}
	alpha, err := number(p, "alpha")
	if err == nil && !(alpha >= 0 && alpha <= 1) {
		err = inputErrorf("alpha must be in [0, 1], got %g", alpha)
	}
	if err != nil {
		return Result{}, err
	}
	t := privacy.GDP{Mu: mu}.Tradeoff(alpha)
	return Result{Query: "tradeoff", Mu: &mu, Alpha: &alpha, Tradeoff: &t,
		Note: "T(α) = Φ(Φ⁻¹(1 − α) − μ), rounded down by about 1e-12 relative: the smallest type II error of any test at type I error α"}, nil
}

func pureDelta(p Params) (Result, error) {
	e0, err := positive(p, "pure-eps")
	if err != nil {
		return Result{}, err
	}
	eps, err := number(p, "eps")
	if err != nil {
		return Result{}, err
	}
	d := privacy.PureDP{Eps: e0}.Delta(eps)
	return Result{Query: "pure-delta", PureEpsilon: &e0, Epsilon: &eps, Delta: &d,
		Note: "the tight δ(ε) of pure ε₀-DP: (e^ε₀ − e^ε)/(1 + e^ε₀) below ε₀ (rounded up by about 1e-12 relative), 0 from ε₀ on"}, nil
}
