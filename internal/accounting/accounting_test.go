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
		{Params{"mu": "1", "eps": "1"}, "delta", func(r Result) bool { return math.Abs(*r.Delta-0.12693673750664395) < 1e-15 }},
		{Params{"mu": "1", "eps": "-2"}, "delta", func(r Result) bool { return math.Abs(*r.Delta-0.86749642294357747) < 1e-15 }},
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
		{Params{"tradeoff": "", "mu": "1", "alpha": "0.01"}, "tradeoff", func(r Result) bool { return math.Abs(*r.Tradeoff-0.907637751926) < 1e-12 }},
		{Params{"pure-eps": "1", "eps": "0.5"}, "pure-delta", func(r Result) bool {
			return math.Abs(*r.Delta-(math.Exp(1)-math.Exp(0.5))/(1+math.Exp(1))) < 1e-15
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
	} {
		_, err := Evaluate(tc.p)
		var in InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Evaluate(%v): error %v, want an InputError containing %q", tc.p, err, tc.want)
		}
	}
}
