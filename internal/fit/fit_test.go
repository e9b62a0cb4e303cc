package fit

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/geom"
	"github.com/privopt/privopt/pkg/core/mech"
	"github.com/privopt/privopt/pkg/core/privacy"
)

var binaryFacts = Facts{N: 1000, D: 4, P: 2, Radius: 1, Label: data.LabelBinary}

func spec() Spec {
	return Spec{Loss: "logistic", Domain: Whole, Radius: 5, Mechanism: "rem",
		Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6}}
}

func TestExponentJSON(t *testing.T) {
	for _, tc := range []struct {
		e    Exponent
		json string
	}{{2, "2"}, {1.5, "1.5"}, {Exponent(math.Inf(1)), `"inf"`}} {
		b, err := json.Marshal(tc.e)
		if err != nil || string(b) != tc.json {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tc.e, b, err, tc.json)
		}
		var back Exponent
		if err := json.Unmarshal(b, &back); err != nil || back != tc.e {
			t.Errorf("Unmarshal(%s) = %v, %v", b, back, err)
		}
		parsed, err := ParseExponent(tc.e.String())
		if err != nil || parsed != tc.e {
			t.Errorf("ParseExponent(%q) = %v, %v", tc.e.String(), parsed, err)
		}
	}
	for _, bad := range []string{"0.5", "x", "-inf", "NaN", "+Inf", ""} {
		if _, err := ParseExponent(bad); err == nil {
			t.Errorf("ParseExponent(%q) accepted", bad)
		}
	}
	var e Exponent
	if err := json.Unmarshal([]byte(`"two"`), &e); err == nil {
		t.Error(`"two" accepted as an exponent`)
	}
}

func TestFactsOf(t *testing.T) {
	ds := &data.Dataset{N: 3, D: 2, P: math.Inf(1), Radius: 2,
		Label: data.Label{Kind: data.LabelNumeric, Min: -4, Max: 3}, Categorical: []int{1}}
	f, err := FactsOf(ds, nil)
	want := Facts{N: 3, D: 2, P: Exponent(math.Inf(1)), Radius: 2, Label: data.LabelNumeric, LabelMin: -4, LabelMax: 3, Categorical: []int{1}}
	if err != nil || !reflect.DeepEqual(f, want) {
		t.Errorf("FactsOf = %+v, %v; want %+v", f, err, want)
	}
	ds.Label = data.Label{Kind: data.LabelClass, Classes: []string{"a", "b", "c"}}
	if f, err := FactsOf(ds, nil); err != nil || f.Label != data.LabelClass || len(f.Classes) != 3 {
		t.Errorf("classes: %+v, %v", f, err)
	}
	for _, bad := range []*data.Dataset{{N: 1, D: 1, Radius: 1}, {N: 1, D: 1, Label: data.Label{Kind: data.LabelBinary}}} {
		if _, err := FactsOf(bad, nil); err == nil {
			t.Errorf("FactsOf(%+v) accepted", bad)
		}
	}
}

func TestProblem(t *testing.T) {
	classes := Facts{N: 50, D: 3, P: 2, Radius: 1, Label: data.LabelClass, Classes: []string{"a", "b", "c"}}
	numeric := Facts{N: 50, D: 3, P: 1, Radius: 2, Label: data.LabelNumeric, LabelMin: -7, LabelMax: 5}
	for _, tc := range []struct {
		name   string
		edit   func(*Spec)
		facts  Facts
		params int     // the domain's dimension
		radius float64 // Problem.Radius
		err    string
	}{
		{"logistic, whole space", func(*Spec) {}, binaryFacts, 4, 5, ""},
		{"ball", func(s *Spec) { s.Domain = Ball; s.Radius = 3 }, binaryFacts, 4, 3, ""},
		{"box: its l2 radius", func(s *Spec) { s.Domain = Box; s.Radius = 3 }, binaryFacts, 4, 6, ""},
		{"multinomial: K·d parameters", func(s *Spec) { s.Loss = "multinomial" }, classes, 9, 5, ""},
		{"huber", func(s *Spec) { s.Loss = "huber"; s.LossParam = 1 }, numeric, 3, 5, ""},
		{"adversarial", func(s *Spec) { s.Robust = 0.1; s.RobustNorm = Exponent(math.Inf(1)) }, binaryFacts, 4, 5, ""},
		{"tilted", func(s *Spec) { s.Tilt = 2 }, binaryFacts, 4, 5, ""},
		{"wrong label", func(s *Spec) { s.Loss = "squared" }, binaryFacts, 0, 0, "does not fit a binary label"},
		{"no parameter", func(s *Spec) { s.Loss = "huber" }, numeric, 0, 0, "huber loss needs its threshold, a positive finite number"},
		{"bad radius", func(s *Spec) { s.Radius = math.Inf(1) }, binaryFacts, 0, 0, "radius"},
		{"bad domain", func(s *Spec) { s.Domain = "simplex" }, binaryFacts, 0, 0, "unknown domain"},
		{"bad robust", func(s *Spec) { s.Robust = -1; s.RobustNorm = 2 }, binaryFacts, 0, 0, "adversarial"},
		{"no data", func(*Spec) {}, Facts{Label: data.LabelBinary}, 0, 0, "no data"},
	} {
		s := spec()
		tc.edit(&s)
		p, err := Problem(s, tc.facts)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if p.Domain.Dim() != tc.params || p.Radius != tc.radius || p.N != tc.facts.N || p.Dim != tc.facts.D {
			t.Errorf("%s: domain of dimension %d, radius %g, N %d, Dim %d", tc.name, p.Domain.Dim(), p.Radius, p.N, p.Dim)
		}
		if p.Bounds.X != tc.facts.Radius || p.Bounds.XNorm != float64(tc.facts.P) {
			t.Errorf("%s: bounds %+v", tc.name, p.Bounds)
		}
	}
	// A numeric label's bound is the larger magnitude of its declared range.
	s := spec()
	s.Loss = "squared"
	if p, err := Problem(s, numeric); err != nil || p.Bounds.Y != 7 {
		t.Errorf("squared: Y = %g, %v; want 7", p.Bounds.Y, err)
	}
	if p, _ := Problem(spec(), binaryFacts); !reflect.DeepEqual(p.Domain, geom.Whole{D: 4}) {
		t.Errorf("whole domain: %#v", p.Domain)
	}
	// The categorical features pass to the problem, which checks them.
	withCategories := binaryFacts
	withCategories.Categorical = []int{1, 2}
	if p, err := Problem(spec(), withCategories); err != nil || !reflect.DeepEqual(p.Categorical, []int{1, 2}) {
		t.Errorf("categorical features %v, %v; want [1 2]", p.Categorical, err)
	}
	withCategories.Categorical = []int{2, 4}
	if _, err := Problem(spec(), withCategories); err == nil || !strings.Contains(err.Error(), "categorical") {
		t.Errorf("categorical features [2 4] of 4: error %v", err)
	}
}

func TestBudget(t *testing.T) {
	b, err := Budget(spec())
	if err != nil || b.Neighbouring != privacy.ReplaceOne {
		t.Errorf("Budget = %+v, %v; want replace-one by default", b, err)
	}
	s := spec()
	s.Budget.Neighbouring = "swap"
	if _, err := Budget(s); err == nil {
		t.Error("an unknown relation accepted")
	}
	s = spec()
	s.Budget.Epsilon = math.NaN()
	if _, err := Budget(s); err == nil {
		t.Error("ε = NaN accepted")
	}
}

func TestOptions(t *testing.T) {
	opts, err := Options("rem")
	want := []Option{{"Sampler", "string"}, {"Objective", "string"}, {"SamplerShare", "float"}, {"FastSteps", "int"}, {"FloatSampler", "bool"}}
	if err != nil || !reflect.DeepEqual(opts, want) {
		t.Errorf("Options(rem) = %v, %v; want %v", opts, err, want)
	}
	if _, err := Options("nope"); err == nil {
		t.Error("an unknown mechanism accepted")
	}
}

func TestMechanism(t *testing.T) {
	m, err := Mechanism("rem", map[string]string{"Sampler": "mala", "FastSteps": "100", "SamplerShare": "0.2"})
	want := mech.REM{Sampler: mech.SampleMALA, FastSteps: 100, SamplerShare: 0.2}
	if err != nil || !reflect.DeepEqual(m, want) {
		t.Errorf("Mechanism = %#v, %v; want %#v", m, err, want)
	}
	if def, _ := mech.ByName("rem"); !reflect.DeepEqual(def, mech.REM{}) {
		t.Errorf("the registered mechanism changed: %#v", def)
	}
	for _, tc := range []struct {
		options map[string]string
		err     string
	}{
		{map[string]string{"FastSteps": "many"}, `setting FastSteps: "many" is not an integer`},
		{map[string]string{"SamplerShare": "NaN"}, "not a finite number"},
		{map[string]string{"Temperature": "1"}, "setting Temperature: no such setting"},
		{map[string]string{"sampler": "mala"}, "no such setting"}, // names are exact
	} {
		if _, err := Mechanism("rem", tc.options); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: error %v, want %q", tc.options, err, tc.err)
		}
	}
}

// Plan gives the planned mechanism's own guarantee, and its errors are the mechanism's.
func TestPlan(t *testing.T) {
	s := spec()
	s.Options = map[string]string{"Sampler": "mala", "FastSteps": "50"}
	pl, err := Plan(s, binaryFacts)
	if err != nil {
		t.Fatal(err)
	}
	if d := pl.Guarantee().Delta(1); !(d <= 1e-6) {
		t.Errorf("δ(1) = %g above the budget", d)
	}
	if pl.Parameters()["sampler_steps"] != 50 {
		t.Errorf("the option was not applied: %v", pl.Parameters())
	}
	s.Budget.Delta = 0
	if _, err := Plan(s, binaryFacts); err == nil || !strings.Contains(err.Error(), "δ > 0") {
		t.Errorf("REM with δ = 0: %v", err)
	}
}

// TestProblemSize: under replace-one the problem has the observed number of rows; under
// add/remove the declared public N (the spec's before the schema's), which must cover the
// rows, and never the observed number.
func TestProblemSize(t *testing.T) {
	addRemove := func(publicN int) Spec {
		s := spec()
		s.Mechanism = "noisy-gd"
		s.Budget.Neighbouring, s.PublicN = privacy.AddRemove, publicN
		return s
	}
	schemaN := binaryFacts
	schemaN.PublicN = 1500
	for _, tc := range []struct {
		name  string
		s     Spec
		f     Facts
		n     int
		error string
	}{
		{"replace-one: the observed n", spec(), schemaN, 1000, ""},
		{"add/remove: the spec's N", addRemove(2000), schemaN, 2000, ""},
		{"add/remove: the schema's N", addRemove(0), schemaN, 1500, ""},
		{"add/remove: N = n", addRemove(1000), binaryFacts, 1000, ""},
		{"add/remove: no N", addRemove(0), binaryFacts, 0, "declare one"},
		{"add/remove: N below n", addRemove(999), binaryFacts, 0, "the data has 1000 rows, more than the declared public number of rows N = 999"},
		{"add/remove: negative N", addRemove(-5), binaryFacts, 0, "from 1 to 10¹⁵"},
		{"add/remove: N = 10¹⁵", addRemove(MaxPublicN), binaryFacts, MaxPublicN, ""},
		{"add/remove: N above 10¹⁵", addRemove(MaxPublicN + 1), binaryFacts, 0, "from 1 to 10¹⁵"},
	} {
		n, err := ProblemSize(tc.s, tc.f)
		if tc.error != "" {
			if err == nil || !strings.Contains(err.Error(), tc.error) {
				t.Errorf("%s: %d, %v; want an error containing %q", tc.name, n, err, tc.error)
			}
			if _, err := Problem(tc.s, tc.f); err == nil {
				t.Errorf("%s: Problem accepted it", tc.name)
			}
			continue
		}
		p, err := Problem(tc.s, tc.f)
		if err != nil || n != tc.n || p.N != tc.n {
			t.Errorf("%s: ProblemSize %d, Problem.N %d (%v); want %d", tc.name, n, p.N, err, tc.n)
		}
		if _, err := Plan(tc.s, tc.f); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// Two datasets of different sizes under the same declared N give the same plan.
	small, large := binaryFacts, binaryFacts
	small.N, large.N = 900, 1000
	p1, err1 := Plan(addRemove(1200), small)
	p2, err2 := Plan(addRemove(1200), large)
	if err1 != nil || err2 != nil || !reflect.DeepEqual(p1.Parameters(), p2.Parameters()) {
		t.Errorf("plans of 900 and 1000 rows under N = 1200 differ: %v %v, %v, %v", p1, p2, err1, err2)
	}
}

// TestPlanBesideEvaluation: with a share of the budget for a private evaluation, the plan and
// the evaluation compose within the budget under both relations; the mechanism gets more ε
// than basic composition's (1 − s)·ε when the guarantees are Gaussian (noisy-gd) and exactly
// that when they are pure (outpert: pure ε adds up); bad shares are refused.
func TestPlanBesideEvaluation(t *testing.T) {
	for _, tc := range []struct {
		mech     string
		delta    float64
		relation privacy.Neighbouring
		more     bool
	}{
		{"noisy-gd", 1e-6, privacy.ReplaceOne, true},
		{"noisy-gd", 1e-6, privacy.AddRemove, true},
		{"outpert", 0, privacy.ReplaceOne, false},
	} {
		s := Spec{Loss: "logistic", Domain: Whole, Radius: 5, Mechanism: tc.mech, EvalShare: 0.2, PublicN: 2000,
			Budget: privacy.Budget{Epsilon: 1, Delta: tc.delta, Neighbouring: tc.relation}}
		pl, err := Plan(s, binaryFacts)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Evaluation(s, binaryFacts, mech.HeldOut{Rows: 300})
		if err != nil {
			t.Fatal(err)
		}
		c, err := privacy.Compose(pl.Guarantee(), ev.Guarantee())
		if err != nil {
			t.Fatal(err)
		}
		if !(privacy.Budget{Epsilon: 1, Delta: tc.delta}).Meets(c) {
			t.Errorf("%s %s: %v does not meet the budget", tc.mech, tc.relation, c)
		}
		basic := s
		basic.EvalShare = 0
		basic.Budget.Epsilon, basic.Budget.Delta = 0.8, 0.8*tc.delta
		plBasic, err := Plan(basic, binaryFacts)
		if err != nil {
			t.Fatal(err)
		}
		gained := pl.Guarantee().Delta(0.8) > plBasic.Guarantee().Delta(0.8)
		if gained != tc.more {
			t.Errorf("%s %s: δ(0.8) %g beside the evaluation, %g at the basic share: more ε given %v, want %v",
				tc.mech, tc.relation, pl.Guarantee().Delta(0.8), plBasic.Guarantee().Delta(0.8), gained, tc.more)
		}
	}
	for _, share := range []float64{-0.1, 1, math.NaN()} {
		s := spec()
		s.EvalShare = share
		if _, err := Plan(s, binaryFacts); err == nil {
			t.Errorf("share %g accepted", share)
		}
	}
	if _, err := EvaluationBudget(spec()); err == nil {
		t.Error("an evaluation budget for no share")
	}
}

// TestTogetherAtLargeEpsilon: with private ranges and a private evaluation, noisy-gd, REM and
// outpert-gauss plan and their releases meet the budget at every ε, large ones included
// (there, folding the discrete releases' or the sampler's total variation at the total ε would
// exceed δ, and the basic composition of the parts at their own budgets is the tighter
// guarantee), and several models together are at least as private as basic composition says.
func TestTogetherAtLargeEpsilon(t *testing.T) {
	f := binaryFacts
	f.N, f.Scalable = 100000, 4
	// Every mechanism whose guarantee folds a discretisation's or a sampler's error into δ:
	// REM and outpert-gauss once failed from ε = 20 on with private ranges ("internal error:
	// … do not compose"), where the exact composition folds the error at the total ε.
	for _, c := range []struct {
		mech string
		eps  float64
	}{{"noisy-gd", 0.5}, {"noisy-gd", 1}, {"noisy-gd", 8}, {"noisy-gd", 20}, {"noisy-gd", 50}, {"noisy-gd", 1000},
		{"rem", 1}, {"rem", 20}, {"rem", 100}, {"outpert-gauss", 1}, {"outpert-gauss", 20}, {"outpert-gauss", 100}} {
		eps := c.eps
		s := Spec{Loss: "logistic", Domain: Whole, Radius: 5, Mechanism: c.mech, EvalShare: 0.1, ScaleShare: 0.2,
			Budget: privacy.Budget{Epsilon: eps, Delta: 1e-6}}
		if c.mech == "rem" && eps > 8 {
			// The safe sampler's floating-point term exceeds the sampler's share of δ there
			// (about δ/(1 + e^ε)), and the plan says which setting runs the float64 sampler.
			if _, err := Plan(s, f); err == nil || !strings.Contains(err.Error(), "FloatSampler=true") {
				t.Errorf("rem at ε = %g: %v, want a refusal that names FloatSampler", eps, err)
			}
			s.Options = map[string]string{"FloatSampler": "true"}
		}
		if !ScalesPrivately(s, f) {
			t.Fatalf("ε = %g: no private ranges", eps)
		}
		pl, err := Plan(s, f)
		if err != nil {
			t.Fatalf("%s at ε = %g: %v", c.mech, eps, err)
		}
		one, err := Guarantee(pl, s, f)
		if err != nil {
			t.Fatal(err)
		}
		if d := one.Delta(eps); !(d <= 1e-6) {
			t.Errorf("%s at ε = %g: δ = %g", c.mech, eps, d)
		}
		three, err := Together(pl, s, f, 3)
		if err != nil {
			t.Fatal(err)
		}
		if d := three.Delta(3 * eps); !(d <= 3e-6) {
			t.Errorf("%s at ε = %g: three models at (3ε, 3δ) have δ = %g", c.mech, eps, d)
		}
	}
}

// TestRangedFeatures: the facts of a schema list the numeric features it gives a private range
// and those a private scaling would range (features, never the label or a categorical column),
// with the rows' scale factor; the problem marks the first always and the second only when the
// spec estimates ranges, so noisy-gd spreads exactly those (mech.Problem.Ranged).
func TestRangedFeatures(t *testing.T) {
	s, err := data.LoadSchema(strings.NewReader(`{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.5, "fit": "scale"},
 "columns": [
  {"name": "a", "kind": "numeric", "min": 0, "max": 10},
  {"name": "c", "kind": "categorical", "categories": ["u", "v"]},
  {"name": "b", "kind": "numeric", "min": 0, "max": 1, "private_range": {"lo": 0.25, "hi": 0.5}},
  {"name": "e", "kind": "numeric", "min": 0, "max": 5, "scale": "declared"},
  {"name": "y", "kind": "numeric-label", "min": 0, "max": 9}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := data.Encode(strings.NewReader("a,c,b,e,y\n1,u,0.3,2,4\n5,v,0.4,1,8\n"), s)
	if err != nil {
		t.Fatal(err)
	}
	f, err := FactsOf(ds, s)
	if err != nil {
		t.Fatal(err)
	}
	// Features: a, c=u, c=v, b, e, (bias).
	if !reflect.DeepEqual(f.RangedFeatures, []int{3}) || !reflect.DeepEqual(f.ScalableFeatures, []int{0}) || f.Scale != ds.Scale || !(f.Scale > 0) {
		t.Fatalf("facts: ranged %v, scalable %v, scale %g (the rows' %g)", f.RangedFeatures, f.ScalableFeatures, f.Scale, ds.Scale)
	}
	sp := Spec{Loss: "squared", Domain: Whole, Radius: 5, Mechanism: "noisy-gd", Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6}}
	for _, tc := range []struct {
		share float64
		want  []int
	}{{0, []int{3}}, {DefaultScaleShare, []int{0, 3}}} {
		sp.ScaleShare = tc.share
		p, err := Problem(sp, f)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p.Ranged, tc.want) || p.Scale != f.Scale {
			t.Errorf("scale share %g: ranged %v, want %v; scale %g", tc.share, p.Ranged, tc.want, p.Scale)
		}
	}
}

// TestPlanRefusesWhatItCannotCompute: a setting too extreme for a plan's arithmetic is refused
// when planning, before any data is read, not when the release is written (langevin's utility
// bound at a radius of 1e100 was NaN, and writing the release failed after the fit).
func TestPlanRefusesWhatItCannotCompute(t *testing.T) {
	s := spec()
	s.Mechanism, s.Radius = "langevin", 1e100
	if _, err := Plan(s, binaryFacts); err == nil || !strings.Contains(err.Error(), "too extreme") {
		t.Errorf("langevin at radius 1e100: %v", err)
	}
	s.Radius = 10
	if _, err := Plan(s, binaryFacts); err != nil {
		t.Errorf("langevin at radius 10: %v", err)
	}
}
