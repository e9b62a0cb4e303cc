package accounting

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzEvaluate feeds arbitrary parameter strings to the accounting queries: every query either
// answers with finite numbers that encode as JSON, or fails with an InputError; it never panics.
func FuzzEvaluate(f *testing.F) {
	for _, seed := range []string{
		"mu=1;eps=1", "mu=2;delta=1e-6", "eps=1;delta=1e-5;sensitivity=1", "compose-mu=0.3,0.4;delta=1e-6",
		"tradeoff=;mu=1;alpha=0.05", "pure-eps=1;eps=0.5", "mu=1e300;eps=1", "eps=1e300;delta=0.9999999;sensitivity=1e-300",
		"mu=NaN;eps=1", "mu=1;delta=1e-320", "mu=1e155;delta=1e-6", "eps=1;delta=1e-5;sensitivity=1e308",
		"compose-mu=1e308,1e308;delta=1e-6", "delta=0", "compose-mu=1,,2", "mu=-0;eps=-0", "tradeoff=;mu=1e-300;alpha=1e-300",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		p := Params{}
		for _, kv := range strings.Split(query, ";") {
			k, v, _ := strings.Cut(kv, "=")
			if k != "" {
				p[k] = v
			}
		}
		res, err := Evaluate(p)
		if err != nil {
			var in InputError
			if !errors.As(err, &in) {
				t.Fatalf("Evaluate(%v): error %v is not an InputError", p, err)
			}
			return
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("Evaluate(%v) = %+v does not encode: %v", p, res, err)
		}
	})
}
