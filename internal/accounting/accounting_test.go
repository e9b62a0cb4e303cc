package accounting

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/privacy"
)

func TestQueries(t *testing.T) {
	mu, _ := privacy.CalibrateGDP(1, 1e-5)
	sigma, _ := privacy.GaussianSigma(2, 1, 1e-5)
	for _, tc := range []struct {
		p     Params
		query string
		check func(Result) bool
	}{
		{Params{"mu": "1", "eps": "1"}, "delta", func(r Result) bool { return roundedUp(*r.Delta, 0.12693673750664395) }},
		{Params{"mu": "1", "eps": "-2"}, "delta", func(r Result) bool { return roundedUp(*r.Delta, 0.86749642294357747) }},
		{Params{"mu": "2", "delta": "1e-6"}, "epsilon", func(r Result) bool {
			c := r.Conversions
			return math.Abs(*r.Epsilon-10.99715121422) < 1e-10 && *r.Epsilon < c.CKS && c.CKS < c.Standard
		}},
		{Params{"eps": "1", "delta": "1e-5"}, "calibrate", func(r Result) bool { return *r.Mu == mu && r.Sigma == nil }},
		{Params{"eps": "1", "delta": "1e-5", "sensitivity": "2"}, "calibrate", func(r Result) bool { return *r.Sigma == sigma }},
		{Params{"compose-mu": "0.3, 0.4", "delta": "1e-6"}, "compose", func(r Result) bool {
			return math.Abs(*r.Mu-0.5) < 1e-15 && len(r.Mus) == 2 && math.Abs(*r.Epsilon-2.25408465022) < 1e-10
		}},
		{Params{"compose-mu": "1"}, "compose", func(r Result) bool { return r.Epsilon == nil }},
		{Params{"tradeoff": "", "mu": "1", "alpha": "0.01"}, "tradeoff", func(r Result) bool { return math.Abs(*r.Tradeoff-0.907637751926) < 1e-11 }},
		{Params{"pure-eps": "1", "eps": "0.5"}, "pure-delta", func(r Result) bool {
			return roundedUp(*r.Delta, (math.Exp(1)-math.Exp(0.5))/(1+math.Exp(1)))
		}},
	} {
		r, err := Evaluate(tc.p)
		if err != nil || r.Query != tc.query || !tc.check(r) || r.Note == "" {
			t.Errorf("Evaluate(%v) = %+v, %v", tc.p, r, err)
		}
	}
}

func TestInvalidQueries(t *testing.T) {
	for _, tc := range []struct {
		p    Params
		want string
	}{
		{Params{}, "nothing to compute"},
		{Params{"bogus": "1"}, `unknown parameter "bogus"`},
		{Params{"mu": "0", "eps": "1"}, "mu must be positive"},
		{Params{"mu": "-1", "eps": "1"}, "mu must be positive"},
		{Params{"mu": "NaN", "eps": "1"}, "finite number"},
		{Params{"mu": "1", "eps": "Inf"}, "finite number"},
		{Params{"mu": "1", "eps": "abc"}, "finite number"},
		{Params{"mu": "1", "delta": "0"}, "delta must be in (0, 1)"},
		{Params{"mu": "1", "delta": "1"}, "delta must be in (0, 1)"},
		{Params{"eps": "-0.5", "delta": "1e-5"}, "eps must be at least 0"},
		{Params{"eps": "1", "delta": "1e-5", "sensitivity": "0"}, "sensitivity must be positive"},
		{Params{"compose-mu": "1,,2"}, "compose-mu must be a finite number"},
		{Params{"compose-mu": "1", "eps": "2"}, `"eps" does not go with`},
		{Params{"tradeoff": "", "mu": "1"}, "tradeoff needs mu and alpha"},
		{Params{"tradeoff": "", "mu": "1", "alpha": "1.5"}, "alpha must be in [0, 1]"},
		{Params{"pure-eps": "1"}, "pure-eps needs eps"},
		{Params{"mu": "1", "eps": "1", "delta": "0.1"}, `"delta" does not go with`},
		// Issue 20, item 8: answers out of the range of a double.
		{Params{"mu": "1", "delta": "1e-320"}, "delta must be at least 2.2250738585072014e-308"},
		{Params{"mu": "1e155", "delta": "1e-6"}, "mu is so large that ε at delta = 1e-06 is not a finite number"},
		{Params{"mu": "1.4e154", "delta": "0.999"}, "mu is so large that the Rényi-DP conversions at delta = 0.999"},
		{Params{"eps": "1", "delta": "1e-5", "sensitivity": "1e308"}, "sensitivity/μ is so large that σ is not a finite number"},
		{Params{"eps": "100", "delta": "1e-5", "sensitivity": "5e-324"}, "sensitivity/μ is so small that σ is 0"},
		{Params{"compose-mu": "1e308,1e308", "delta": "1e-6"}, "compose-mu is so large that ε at delta = 1e-06 is not a finite number"},
		{Params{"compose-mu": "1.7e308,1.7e308"}, "compose-mu is so large that the composed μ is not a finite number"},
	} {
		_, err := Evaluate(tc.p)
		var in InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Evaluate(%v): error %v, want an InputError containing %q", tc.p, err, tc.want)
		}
	}
}

// The last check of Evaluate refuses any number that is not finite, naming the parameters.
func TestResultFinite(t *testing.T) {
	nan, one := math.NaN(), 1.0
	p := Params{"mu": "1", "eps": "1"}
	for _, r := range []Result{
		{Mu: &one, Delta: &nan},
		{Mus: []float64{1, math.Inf(1)}},
		{Mu: &one, Conversions: &Conversions{Standard: 1, CKS: math.Inf(1)}},
	} {
		err := r.finite(p)
		var in InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), "the answer for eps, mu is not a finite number") {
			t.Errorf("%+v: error %v", r, err)
		}
	}
	if err := (Result{Mu: &one, Delta: &one, Mus: []float64{1}, Conversions: &Conversions{}}).finite(p); err != nil {
		t.Errorf("finite result: %v", err)
	}
}

// roundedUp reports whether a δ is the exact value want rounded up, as the accountant rounds
// it (by about 1e-12 relative): at least want, at most 3e-12 above it.
func roundedUp(got, want float64) bool { return got >= want && got <= want*(1+3e-12) }
