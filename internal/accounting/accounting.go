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

// InputError is an invalid query: unknown or missing parameters, or values out of range.
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

// Evaluate answers a query.
func Evaluate(p Params) (Result, error) {
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

func probability(p Params, name string) (float64, error) {
	v, err := number(p, name)
	if err == nil && !(v > 0 && v < 1) {
		err = inputErrorf("%s must be in (0, 1), got %g", name, v)
	}
	return v, err
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
		Note: "δ(ε) of μ-GDP: the mechanism is (ε, δ)-DP with this δ, and no smaller δ holds"}, nil
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
	g := privacy.GDP{Mu: mu}
	eps, err := g.Epsilon(delta)
	if err != nil {
		return Result{}, err
	}
	std := privacy.GaussianRDP(mu)
	std.Conversion = privacy.Standard
	cks := privacy.GaussianRDP(mu)
	var c Conversions
	if c.Standard, c.StandardOrder, err = std.Convert(delta); err != nil {
		return Result{}, err
	}
	if c.CKS, c.CKSOrder, err = cks.Convert(delta); err != nil {
		return Result{}, err
	}
	return Result{Query: "epsilon", Mu: &mu, Delta: &delta, Epsilon: &eps, Conversions: &c,
		Note: "the smallest ε with δ(ε) ≤ δ for μ-GDP (exact); the Rényi-DP conversions are looser upper bounds, shown for comparison"}, nil
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
		return Result{}, err
	}
	r := Result{Query: "calibrate", Epsilon: &eps, Delta: &delta, Mu: &mu,
		Note: "the largest μ whose μ-GDP curve meets (ε, δ), rounded toward privacy"}
	if _, ok := p["sensitivity"]; ok {
		s, err := positive(p, "sensitivity")
		if err != nil {
			return Result{}, err
		}
		sigma, err := privacy.GaussianSigma(s, eps, delta)
		if err != nil {
			return Result{}, err
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
	g, err := privacy.ComposeGDP(mus...)
	if err != nil {
		return Result{}, err
	}
	r := Result{Query: "compose", Mus: mus, Mu: &g.Mu, Note: "the composition of μᵢ-GDP mechanisms is exactly μ-GDP with μ = √Σμᵢ²"}
	if _, ok := p["delta"]; ok {
		delta, err := probability(p, "delta")
		if err != nil {
			return Result{}, err
		}
		eps, err := g.Epsilon(delta)
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
		Note: "T(α) = Φ(Φ⁻¹(1 − α) − μ): the smallest type II error of any test at type I error α"}, nil
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
		Note: "the tight δ(ε) of pure ε₀-DP: (e^ε₀ − e^ε)/(1 + e^ε₀) below ε₀, 0 from ε₀ on"}, nil
}
