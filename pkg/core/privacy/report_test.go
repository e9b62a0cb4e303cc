package privacy

import (
	"encoding/json"
	"strings"
	"testing"
)

func testSpec() ReportSpec {
	return ReportSpec{
		Mechanism:    "gaussian-output-perturbation",
		Paper:        "Lowy and Razaviyayn 2021",
		Target:       Budget{Epsilon: 1, Delta: 1e-6},
		Neighbouring: ReplaceOne,
		Sensitivity:  Sensitivity{Value: 0.01, Of: "the L2 distance between minimizers", Derivation: "2G/(λn)"},
		Sampler:      SamplerStatus{Exact: true, Statement: "no sampler"},
		Randomness:   OSSeeded,
	}
}

func TestReportJSONIsStable(t *testing.T) {
	mu, _ := CalibrateGDP(1, 1e-6)
	r, err := NewReport(GDP{Mu: mu}, testSpec())
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	// The field order is part of the format.
	order := []string{`"version":"privopt-report/1"`, `"mechanism"`, `"paper"`, `"guarantee":{"kind":"gaussian-dp","mu":0.2`,
		`"target":{"epsilon":1,"delta":0.000001}`, `"achieved":{"epsilon":1,"delta":`, `"neighbouring":"replace-one"`,
		`"sensitivity"`, `"sampler":{"exact":true`, `"randomness":"os-seeded"`, `"private":true`, `"statement"`, `"curve":[{"epsilon":0,`}
	rest := s
	for _, want := range order {
		i := strings.Index(rest, want)
		if i < 0 {
			t.Fatalf("report JSON lacks or misorders %s:\n%s", want, s)
		}
		rest = rest[i+len(want):]
	}
	if r.Achieved.Delta > 1e-6 || len(r.Curve) != len(ReportEpsilons) {
		t.Errorf("achieved %g, %d curve points", r.Achieved.Delta, len(r.Curve))
	}
	var back Report
	if err := json.Unmarshal(out, &back); err != nil || back.Guarantee.Mu != r.Guarantee.Mu {
		t.Errorf("round trip: %v", err)
	}
}

func TestReportRefusesAndLabels(t *testing.T) {
	spec := testSpec()
	if _, err := NewReport(GDP{Mu: 1}, spec); err == nil || !strings.Contains(err.Error(), "above the target") {
		t.Errorf("a 1-GDP release passed a (1, 1e-6) budget: %v", err)
	}
	mu, _ := CalibrateGDP(1, 1e-6)
	// A certified sampler error is folded in; with the whole δ used by the mechanism, the
	// folded curve exceeds the budget.
	spec.Sampler = SamplerStatus{Certified: true, TV: 1e-8, Statement: "proximal sampler"}
	if _, err := NewReport(GDP{Mu: mu}, spec); err == nil {
		t.Error("the sampler error was not counted")
	}
	dm, tv, _ := SplitDelta(1, 1e-6, 0.1)
	muSplit, _ := CalibrateGDP(1, dm)
	spec.Sampler.TV = tv
	r, err := NewReport(GDP{Mu: muSplit}, spec)
	if err != nil || !r.Private || !strings.Contains(r.Statement, "total-variation error") {
		t.Errorf("split budget: %v, %+v", err, r)
	}
	spec.Sampler = SamplerStatus{Statement: "MALA"}
	r, err = NewReport(GDP{Mu: mu}, spec)
	if err != nil || r.Private || !strings.HasPrefix(r.Statement, "This release is NOT private: its sampler's mixing is not certified") {
		t.Errorf("uncertified: %v, %+v", err, r)
	}
	spec.Randomness = SeededNotPrivate
	r, err = NewReport(GDP{Mu: mu}, spec)
	if err != nil || r.Private || !strings.Contains(r.Statement, "Mixing is not certified") || !strings.HasPrefix(r.Statement, "This release is NOT private") {
		t.Errorf("uncertified, seeded: %v, %+v", err, r)
	}
	// A seeded report says first that it is not private (issue 20's item 13).
	spec.Sampler = SamplerStatus{Exact: true}
	if r, err = NewReport(GDP{Mu: mu}, spec); err != nil || !strings.HasPrefix(r.Statement, "This release is NOT private: its random numbers came from a user-chosen seed") ||
		strings.HasPrefix(r.Statement, "The release is") {
		t.Errorf("seeded: %v, %q", err, r.Statement)
	}
	for _, bad := range []func(*ReportSpec){
		func(s *ReportSpec) { s.Neighbouring = "swap-two" },
		func(s *ReportSpec) { s.Randomness = "dice" },
		func(s *ReportSpec) { s.Target.Epsilon = 0 },
		func(s *ReportSpec) { s.Target.Delta = 1 },
		func(s *ReportSpec) { s.Sampler = SamplerStatus{Exact: true, TV: 0.1} },
	} {
		s := testSpec()
		bad(&s)
		if _, err := NewReport(GDP{Mu: 0.01}, s); err == nil {
			t.Errorf("invalid spec accepted: %+v", s)
		}
	}
}

func TestReportEpsilonsIncludeTarget(t *testing.T) {
	for _, target := range []float64{0.3, 1, 25} {
		es := reportEpsilons(target)
		found := false
		for i, e := range es {
			found = found || e == target
			if i > 0 && es[i-1] >= e {
				t.Errorf("target %g: not increasing: %v", target, es)
			}
		}
		if !found {
			t.Errorf("target %g missing from %v", target, es)
		}
	}
}

// TestSigUp: privacy parameters are printed rounded up, never below the value.
func TestSigUp(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		n    int
		want string
	}{
		{0.2366144, 6, "0.236615"}, {0.2366140, 6, "0.236614"}, {1.234e-7, 3, "1.24e-07"}, {9.9922004736e-07, 3, "1e-06"}, {9.9922004736e-07, 4, "9.993e-07"},
		{9.999e-7, 3, "1e-06"}, {1e-6, 3, "1e-06"}, {0.9996, 2, "1"}, {123456, 3, "1.24e+05"}, {0, 3, "0"},
	} {
		if got := FormatUp(tc.v, tc.n); got != tc.want {
			t.Errorf("FormatUp(%g, %d) = %s, want %s", tc.v, tc.n, got, tc.want)
		}
	}
	if got := (ApproxDP{Eps: 1.0000004, Del: 1.234e-7}).String(); got != "(ε, δ)-DP with ε = 1.00001, δ = 1.24e-07" {
		t.Errorf("ApproxDP's String: %s", got)
	}
}
