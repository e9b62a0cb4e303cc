package statement

import (
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// adult returns the schema of examples/adult-lr.schema.json and facts like those of its
// encoding of testdata/adult/adult.data: n = 32561 rows, a binary label.
func adult(t *testing.T) (*data.Schema, fit.Facts) {
	t.Helper()
	f, err := os.Open("../../examples/adult-lr.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := data.LoadSchema(f)
	if err != nil {
		t.Fatal(err)
	}
	return s, fit.Facts{N: 32561, D: len(s.Features()), P: 2, Radius: s.Norm.Radius, Bias: s.Norm.Bias, Label: data.LabelBinary}
}

// adultSpec returns logistic-regression settings on the ball of radius 5.
func adultSpec(mechanism string, eps, delta float64, nb privacy.Neighbouring) fit.Spec {
	return fit.Spec{Loss: "logistic", Domain: fit.Ball, Radius: 5, Mechanism: mechanism,
		Budget: privacy.Budget{Epsilon: eps, Delta: delta, Neighbouring: nb}}
}

// planned returns the input of models releases planned with spec on facts: the plan's
// guarantee composed models times, and a report per model from that guarantee (sampler
// error already folded in) with the given randomness.
func planned(t *testing.T, s *data.Schema, spec fit.Spec, facts fit.Facts, models int, rnd privacy.Randomness) Input {
	t.Helper()
	pl, err := fit.Plan(spec, facts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fit.Budget(spec)
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]privacy.Curve, models)
	reports := make([]privacy.Report, models)
	for i := range parts {
		parts[i] = pl.Guarantee()
		reports[i], err = privacy.NewReport(pl.Guarantee(), privacy.ReportSpec{
			Mechanism: spec.Mechanism, Paper: "the mechanism's paper",
			Target:       privacy.Budget{Epsilon: b.Epsilon, Delta: b.Delta},
			Neighbouring: b.Neighbouring,
			Sensitivity:  privacy.Sensitivity{Value: 1e-4, Of: "the noisy query", Derivation: "from public constants"},
			Sampler:      privacy.SamplerStatus{Exact: true},
			Randomness:   rnd,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	c, err := privacy.Compose(parts...)
	if err != nil {
		t.Fatal(err)
	}
	return Input{Schema: s, Settings: spec, Facts: facts, Curve: c, Reports: reports}
}

func of(t *testing.T, in Input) Statements {
	t.Helper()
	st, err := Of(in)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// phi and phiInv are the standard normal CDF and its inverse.
func phi(x float64) float64    { return 0.5 * math.Erfc(-x/math.Sqrt2) }
func phiInv(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }

func checkRates(t *testing.T, got []AttackerBound) {
	t.Helper()
	if len(got) != len(AttackerRates) {
		t.Fatalf("%d bounds, want %d", len(got), len(AttackerRates))
	}
	for i, b := range got {
		if b.FalsePositiveRate != AttackerRates[i] {
			t.Errorf("bound %d at α = %g, want %g", i, b.FalsePositiveRate, AttackerRates[i])
		}
	}
}

// The bound of μ-GDP is exact: 1 − T(α) = Φ(Φ⁻¹(α) + μ).
func TestAttackerGDP(t *testing.T) {
	s, facts := adult(t)
	spec := adultSpec("outpert-gauss", 1, 1e-6, privacy.ReplaceOne)
	in := planned(t, s, spec, facts, 1, privacy.OSSeeded)
	mu, err := privacy.CalibrateGDP(1, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 2, 5} {
		mus := make([]float64, k)
		for i := range mus {
			mus[i] = mu
		}
		g, err := privacy.ComposeGDP(mus...)
		if err != nil {
			t.Fatal(err)
		}
		in.Curve, in.Reports = g, slices.Repeat(in.Reports[:1], k)
		st := of(t, in)
		checkRates(t, st.Attacker)
		for _, b := range st.Attacker {
			want := phi(phiInv(b.FalsePositiveRate) + g.Mu)
			if math.Abs(b.TruePositiveRateBound-want) > 1e-9 {
				t.Errorf("%d models (μ = %g), α = %g: bound %.12g, want Φ(Φ⁻¹(α) + μ) = %.12g", k, g.Mu, b.FalsePositiveRate, b.TruePositiveRateBound, want)
			}
		}
	}
	// A planned Gaussian curve with a sampler's error bounds no less than its base μ-GDP.
	in = planned(t, s, adultSpec("noisy-gd", 1, 1e-6, privacy.ReplaceOne), facts, 1, privacy.OSSeeded)
	base := in.Curve.(privacy.WithSamplerError).Base.(privacy.GDP)
	for _, b := range of(t, in).Attacker {
		if exact := phi(phiInv(b.FalsePositiveRate) + base.Mu); b.TruePositiveRateBound < exact-1e-12 || b.TruePositiveRateBound > 1 {
			t.Errorf("noisy-gd, α = %g: bound %g below the base's %g", b.FalsePositiveRate, b.TruePositiveRateBound, exact)
		}
	}
}

// The bound of pure ε-DP is 1 − T(α) = min(1, e^ε·α, 1 − e^{−ε}(1 − α)); k models together are
// bounded at least as tightly as pure kε-DP.
func TestAttackerPure(t *testing.T) {
	s, facts := adult(t)
	pure := func(eps, a float64) float64 {
		return math.Min(1, math.Min(math.Exp(eps)*a, 1-math.Exp(-eps)*(1-a)))
	}
	for _, eps := range []float64{0.1, 1, 3} {
		in := planned(t, s, adultSpec("outpert", eps, 0, privacy.ReplaceOne), facts, 1, privacy.OSSeeded)
		st := of(t, in)
		checkRates(t, st.Attacker)
		for _, b := range st.Attacker {
			if want := pure(eps, b.FalsePositiveRate); math.Abs(b.TruePositiveRateBound-want) > 1e-12 {
				t.Errorf("ε = %g, α = %g: bound %.15g, want %.15g", eps, b.FalsePositiveRate, b.TruePositiveRateBound, want)
			}
		}
	}
	in := planned(t, s, adultSpec("expmech", 1, 0, privacy.AddRemove), withPublicN(facts, 40000), 3, privacy.OSSeeded)
	for _, b := range of(t, in).Attacker {
		a := b.FalsePositiveRate
		if b.TruePositiveRateBound > pure(3, a)+1e-12 || b.TruePositiveRateBound < a {
			t.Errorf("3 × 1-DP, α = %g: bound %g outside [α, %g]", a, b.TruePositiveRateBound, pure(3, a))
		}
	}
}

func withPublicN(f fit.Facts, n int) fit.Facts {
	f.PublicN = n
	return f
}

// allowed lists, for each object of the registry's schema (deployments-schema.yaml of
// opendp/deployments-registry-data at 3e9c812, whose objects allow no other property), the
// properties it allows.
var allowed = map[string][]string{
	"":                        {"url_slug", "status", "tier", "deployment"},
	"deployment":              {"basic", "dp_variant", "privacy_loss", "deployment_model", "accounting", "implementation", "administrative"},
	"deployment.basic":        {"name", "data_curators", "intended_use", "data_product_type", "data_product_region", "description", "publication_date", "data_product_sector"},
	"deployment.dp_variant":   {"variant_name", "data_domain", "unprotected_quantities"},
	"deployment.privacy_loss": {"privacy_unit", "privacy_unit_details", "privacy_parameters", "privacy_parameters_details"},
	"deployment.privacy_loss.privacy_parameters": {"epsilon", "delta", "rho"},
	"deployment.deployment_model":                {"model_name", "model_name_details", "actors", "release_type", "release_type_details", "data_source_type", "data_source_type_details", "access_type", "access_type_details"},
	"deployment.accounting":                      {"post_processing", "composition"},
	"deployment.implementation":                  {"preprocessing_and_hyperparameter_tuning", "mechanisms", "justification"},
	"deployment.administrative":                  {"sources", "notes", "registry_authors"},
}

// enums lists the schema's enumerations of the fields the entry sets.
var enums = map[string][]string{
	"status":                                       {"Converted", "Draft", "Pending", "Changes Required", "Approved", "Approved (Update Requested)", "Approved (Pending)"},
	"deployment.basic.data_product_type":           {"Summary statistics", "Machine learning model", "Dataset", "Synthetic data", "Interactive API", "SQL queries"},
	"deployment.dp_variant.variant_name":           {"Pure DP", "Approximate DP", "Zero-concentrated DP", "Renyi DP", "Custom"},
	"deployment.deployment_model.model_name":       {"Local", "Central", "Shuffle", "Federated", "Varies"},
	"deployment.deployment_model.release_type":     {"One release", "Many releases"},
	"deployment.deployment_model.data_source_type": {"Static", "Dynamic"},
	"deployment.deployment_model.access_type":      {"Interactive", "Non-interactive"},
}

// parseEntry unmarshals the YAML and checks it against the registry's schema: only allowed
// properties, the required ones present, enumerated values in their enumeration.
func parseEntry(t *testing.T, text string) map[string]any {
	t.Helper()
	var e map[string]any
	if err := yaml.Unmarshal([]byte(text), &e); err != nil {
		t.Fatalf("the entry does not parse: %v\n%s", err, text)
	}
	var walk func(path string, m map[string]any)
	walk = func(path string, m map[string]any) {
		for k, v := range m {
			p := strings.TrimPrefix(path+"."+k, ".")
			if !slices.Contains(allowed[path], k) {
				t.Errorf("%s: not a property of the registry's schema", p)
			}
			if sub, ok := v.(map[string]any); ok {
				walk(p, sub)
			}
			if vals, ok := enums[p]; ok && !slices.Contains(vals, v.(string)) {
				t.Errorf("%s = %v: not in the schema's enumeration %v", p, v, vals)
			}
		}
	}
	walk("", e)
	for _, p := range []string{"url_slug", "status", "tier", "deployment.basic.name", "deployment.basic.data_curators",
		"deployment.basic.description", "deployment.basic.intended_use", "deployment.basic.data_product_type",
		"deployment.basic.data_product_region", "deployment.basic.publication_date", "deployment.administrative.registry_authors"} {
		if _, ok := lookup(e, p); !ok {
			t.Errorf("the required field %s is missing", p)
		}
	}
	if v, _ := lookup(e, "tier"); v != 3 {
		t.Errorf("tier = %v, want 3", v)
	}
	return e
}

// lookup returns the value at a dotted path.
func lookup(m map[string]any, path string) (any, bool) {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func str(t *testing.T, e map[string]any, path string) string {
	t.Helper()
	v, ok := lookup(e, path)
	if !ok {
		t.Errorf("%s is missing", path)
		return ""
	}
	s, _ := v.(string)
	return s
}

func TestRegistry(t *testing.T) {
	s, facts := adult(t)
	for _, tc := range []struct {
		name    string
		mech    string
		delta   float64
		nb      privacy.Neighbouring
		models  int
		variant string
		metric  string
		measure string
	}{
		{"gaussian, replace-one", "noisy-gd", 1e-6, privacy.ReplaceOne, 1, "Approximate DP", "ChangeOneDistance", "SmoothedMaxDivergence"},
		{"gaussian, add/remove", "noisy-gd", 1e-6, privacy.AddRemove, 1, "Approximate DP", "SymmetricDistance", "SmoothedMaxDivergence"},
		{"pure, replace-one", "outpert", 0, privacy.ReplaceOne, 1, "Pure DP", "ChangeOneDistance", "output measure MaxDivergence"},
		{"pure at δ > 0, add/remove", "expmech", 1e-6, privacy.AddRemove, 1, "Pure DP", "SymmetricDistance", "output measure MaxDivergence"},
		{"3 gaussian models", "outpert-gauss", 1e-6, privacy.ReplaceOne, 3, "Approximate DP", "ChangeOneDistance", "SmoothedMaxDivergence"},
		{"3 pure models", "expmech", 0, privacy.ReplaceOne, 3, "Pure DP", "ChangeOneDistance", "output measure MaxDivergence"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := planned(t, s, adultSpec(tc.mech, 1, tc.delta, tc.nb), withPublicN(facts, 40000), tc.models, privacy.OSSeeded)
			e := parseEntry(t, of(t, in).Registry)
			if v := str(t, e, "status"); v != "Draft" {
				t.Errorf("status %q, want Draft", v)
			}
			if v := str(t, e, "deployment.dp_variant.variant_name"); v != tc.variant {
				t.Errorf("variant %q, want %q", v, tc.variant)
			}
			for path, want := range map[string]string{
				"deployment.basic.data_product_type":           "Machine learning model",
				"deployment.deployment_model.model_name":       "Central",
				"deployment.deployment_model.release_type":     "One release",
				"deployment.deployment_model.data_source_type": "Static",
				"deployment.deployment_model.access_type":      "Non-interactive",
			} {
				if v := str(t, e, path); v != want {
					t.Errorf("%s = %q, want %q", path, v, want)
				}
			}
			if d := str(t, e, "deployment.privacy_loss.privacy_unit_details"); !strings.Contains(d, tc.metric) {
				t.Errorf("privacy_unit_details does not name %s: %q", tc.metric, d)
			}
			if d := str(t, e, "deployment.privacy_loss.privacy_parameters_details"); !strings.Contains(d, tc.measure) {
				t.Errorf("privacy_parameters_details does not name %s: %q", tc.measure, d)
			}
			rows := "n = 32561"
			if tc.nb == privacy.AddRemove {
				rows = "N = 40000"
			}
			for _, path := range []string{"deployment.dp_variant.data_domain", "deployment.privacy_loss.privacy_unit_details"} {
				if d := str(t, e, path); !strings.Contains(d, rows) {
					t.Errorf("%s does not state %s: %q", path, rows, d)
				}
			}
			params, ok := lookup(e, "deployment.privacy_loss.privacy_parameters")
			if !ok {
				t.Fatal("no privacy_parameters")
			}
			p := params.(map[string]any)
			eps := toFloat(p["epsilon"])
			delta, hasDelta := p["delta"]
			switch {
			case tc.variant == "Pure DP":
				if hasDelta {
					t.Errorf("pure DP with δ = %v", delta)
				}
				if eps != float64(tc.models) || in.Curve.Delta(eps) != 0 {
					t.Errorf("ε = %g, want %d with δ(ε) = 0 (δ(ε) = %g)", eps, tc.models, in.Curve.Delta(eps))
				}
			default:
				d := toFloat(delta)
				if d != tc.delta {
					t.Errorf("δ = %v, want %g", delta, tc.delta)
				}
				if in.Curve.Delta(eps) > d {
					t.Errorf("the curve gives δ = %g at the stated ε = %g, above the stated δ", in.Curve.Delta(eps), eps)
				}
				if tc.models == 1 && eps != 1 {
					t.Errorf("one model states ε = %g, want its budget 1", eps)
				}
				if exact, _ := in.Curve.Epsilon(d); tc.models > 1 && !(eps >= exact && eps <= exact*1.001) {
					t.Errorf("%d models state ε = %g, want the curve's %g rounded up", tc.models, eps, exact)
				}
			}
		})
	}
}

// toFloat returns a YAML number as decoded into an any: an int or a float64.
func toFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

func TestNotPrivate(t *testing.T) {
	s, facts := adult(t)
	check := func(t *testing.T, in Input, reason string) {
		t.Helper()
		st := of(t, in)
		if !strings.HasPrefix(st.Plain, "NO PRIVACY IS CLAIMED") || !strings.Contains(st.Plain, reason) {
			t.Errorf("the plain statement does not say first that no privacy is claimed, and why (%q):\n%s", reason, st.Plain)
		}
		for _, claim := range []string{"Guarantee:", "Attacker's view"} {
			if strings.Contains(st.Plain, claim) {
				t.Errorf("the plain statement of a release that is not private has %q", claim)
			}
		}
		if !strings.HasPrefix(st.Registry, "# Differential Privacy") || !strings.Contains(strings.SplitN(st.Registry, "\nurl_slug", 2)[0], "NO PRIVACY IS CLAIMED") {
			t.Errorf("the registry entry's head comment does not say that no privacy is claimed:\n%s", st.Registry)
		}
		e := parseEntry(t, st.Registry)
		for _, p := range []string{"deployment.dp_variant.variant_name", "deployment.privacy_loss.privacy_parameters"} {
			if v, ok := lookup(e, p); ok {
				t.Errorf("a release that is not private has %s = %v", p, v)
			}
		}
		if d := str(t, e, "deployment.basic.description"); !strings.HasPrefix(d, "NO PRIVACY IS CLAIMED") {
			t.Errorf("the description does not start by saying that no privacy is claimed: %q", d)
		}
		for _, b := range st.Attacker {
			if b.TruePositiveRateBound != 1 {
				t.Errorf("α = %g: bound %g, want 1 (no privacy claimed)", b.FalsePositiveRate, b.TruePositiveRateBound)
			}
		}
	}
	t.Run("seeded", func(t *testing.T) {
		in := planned(t, s, adultSpec("noisy-gd", 1, 1e-6, privacy.ReplaceOne), facts, 1, privacy.SeededNotPrivate)
		if in.Reports[0].Private {
			t.Fatal("a seeded report is private")
		}
		check(t, in, "user-chosen seed")
	})
	t.Run("one seeded model of three", func(t *testing.T) {
		in := planned(t, s, adultSpec("outpert", 1, 0, privacy.ReplaceOne), facts, 3, privacy.OSSeeded)
		seeded := planned(t, s, adultSpec("outpert", 1, 0, privacy.ReplaceOne), facts, 1, privacy.SeededNotPrivate)
		in.Reports[1] = seeded.Reports[0]
		check(t, in, "model 2 came from a user-chosen seed")
	})
	// Private models with seeded ranges or a seeded evaluation: a model is only as private as
	// what it was fitted with, and an evaluation is part of the release.
	t.Run("seeded ranges", func(t *testing.T) {
		in := planned(t, s, adultSpec("noisy-gd", 1, 1e-6, privacy.ReplaceOne), facts, 1, privacy.OSSeeded)
		seeded := planned(t, s, adultSpec("noisy-gd", 1, 1e-6, privacy.ReplaceOne), facts, 1, privacy.SeededNotPrivate)
		in.Ranges = &seeded.Reports[0]
		check(t, in, "the private ranges' random numbers came from a user-chosen seed")
	})
	t.Run("seeded evaluation", func(t *testing.T) {
		in := planned(t, s, adultSpec("noisy-gd", 1, 1e-6, privacy.ReplaceOne), facts, 2, privacy.OSSeeded)
		seeded := planned(t, s, adultSpec("noisy-gd", 1, 1e-6, privacy.ReplaceOne), facts, 1, privacy.SeededNotPrivate)
		in.Evaluations = []privacy.Report{in.Reports[0], seeded.Reports[0]}
		check(t, in, "a private evaluation's random numbers came from a user-chosen seed")
	})
	t.Run("uncertified sampler", func(t *testing.T) {
		in := planned(t, s, adultSpec("outpert", 1, 0, privacy.ReplaceOne), facts, 1, privacy.OSSeeded)
		rep := &in.Reports[0]
		rep.Sampler, rep.Private = privacy.SamplerStatus{}, false
		check(t, in, "does not certify its mixing")
	})
}

// Under add/remove the observed number of rows is private: it must appear in no statement,
// while the declared N does; under replace-one n is public and stated.
func TestOnlyPublicNumbers(t *testing.T) {
	s, facts := adult(t)
	const observed, declared = 31337, 45678
	facts.N = observed
	for _, mechanism := range []string{"noisy-gd", "outpert", "expmech"} {
		for _, nb := range []privacy.Neighbouring{privacy.AddRemove, privacy.ReplaceOne} {
			spec := adultSpec(mechanism, 1, 1e-6, nb)
			spec.PublicN = declared
			for _, rnd := range []privacy.Randomness{privacy.OSSeeded, privacy.SeededNotPrivate} {
				st := of(t, planned(t, s, spec, facts, 2, rnd))
				text := st.Plain + "\n" + st.Registry
				forms := []string{strconv.Itoa(observed), "31,337", "31 337", "3.1337e"}
				for _, f := range forms {
					if nb == privacy.AddRemove && strings.Contains(text, f) {
						t.Errorf("%s, %s, %s: the observed number of rows appears as %q", mechanism, nb, rnd, f)
					}
				}
				want, absent := "N = 45678", "n = 31337"
				if nb == privacy.ReplaceOne {
					want, absent = "n = 31337", "45678"
				}
				if !strings.Contains(st.Plain, want) || !strings.Contains(st.Registry, want) {
					t.Errorf("%s, %s, %s: %q is not stated", mechanism, nb, rnd, want)
				}
				if strings.Contains(text, absent) {
					t.Errorf("%s, %s, %s: %q is stated", mechanism, nb, rnd, absent)
				}
			}
		}
	}
}

func TestPlain(t *testing.T) {
	s, facts := adult(t)
	in := planned(t, s, adultSpec("noisy-gd", 1, 1e-6, privacy.ReplaceOne), facts, 1, privacy.OSSeeded)
	st := of(t, in)
	eps, err := in.Curve.Epsilon(1e-6)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"NIST SP 800-226",
		"(ε = 1, δ = 1e-06)-differentially private",
		"one row of the training CSV file, which is taken to be one person's record",
		"protected only as a group",
		"replace-one", "n = 32561",
		"ε = " + up(eps) + " at δ = 1e-06",
		"δ = " + up(in.Curve.Delta(1)) + " at ε = 1",
		"At a false-positive rate of 1 %", "guesses at random",
		`"capital-gain" (numeric, declared range [0, 99999])`,
		`"sex" (categorical: "Female", "Male")`,
		`"Y" (the label, positive for ">50K", ">50K."`,
		"‖x‖_2 ≤ 1", "the loss (logistic)", "the ℓ2 ball of radius 5", "the mechanism (noisy-gd)",
		"the released model weights and its privacy report",
		"anything released separately", "add up with this release's", "local diagnostics", "user-chosen seed",
	} {
		if !strings.Contains(st.Plain, want) {
			t.Errorf("the plain statement lacks %q:\n%s", want, st.Plain)
		}
	}
	if strings.Contains(st.Plain, "exact arithmetic") {
		t.Error("a release on a grid is said to hold in exact arithmetic only")
	}
	// A report that says its guarantee holds in exact arithmetic only is not covered there.
	in.Reports[0].Statement += " The guarantee is proven for the sampler in exact arithmetic, and does not cover the low-order bits."
	st = of(t, in)
	if !strings.Contains(st.Plain, "proven in exact arithmetic only") || !strings.Contains(st.Registry, "proven in exact arithmetic only") {
		t.Errorf("the exact-arithmetic caveat is missing:\n%s\n%s", st.Plain, st.Registry)
	}
	// Several models: the guarantee is for all of them together.
	in = planned(t, s, adultSpec("noisy-gd", 1, 1e-6, privacy.AddRemove), withPublicN(facts, 40000), 4, privacy.OSSeeded)
	st = of(t, in)
	for _, want := range []string{"4 linear models", "for all 4 models together", "their privacy reports", "N = 40000", "had their row been left out"} {
		if !strings.Contains(st.Plain, want) {
			t.Errorf("4 models: the plain statement lacks %q:\n%s", want, st.Plain)
		}
	}
}

func TestErrors(t *testing.T) {
	s, facts := adult(t)
	good := func() Input {
		return planned(t, s, adultSpec("noisy-gd", 1, 1e-6, privacy.ReplaceOne), facts, 1, privacy.OSSeeded)
	}
	unconfirmed := *s
	unconfirmed.Columns = slices.Clone(s.Columns)
	unconfirmed.Columns[0].Derived = []string{"min"}
	for _, tc := range []struct {
		name string
		edit func(*Input)
		err  string
	}{
		{"no schema", func(in *Input) { in.Schema = nil }, "no schema"},
		{"no curve", func(in *Input) { in.Curve = nil }, "no privacy curve"},
		{"no report", func(in *Input) { in.Reports = nil }, "no model report"},
		{"unconfirmed schema", func(in *Input) { in.Schema = &unconfirmed }, "not confirmed"},
		{"add/remove without N", func(in *Input) { in.Settings.Budget.Neighbouring = privacy.AddRemove }, "declared public number of rows"},
		{"other relation", func(in *Input) {
			in.Settings.Budget.Neighbouring, in.Settings.PublicN = privacy.AddRemove, 40000
		}, "relation"},
		{"curve above the budget", func(in *Input) { in.Curve = privacy.GDP{Mu: 2} }, "above the target"},
		{"pure budget, Gaussian curve", func(in *Input) { in.Settings.Budget.Delta = 0 }, "pure"},
		{"bad budget", func(in *Input) { in.Settings.Budget.Epsilon = -1 }, "ε"},
	} {
		in := good()
		tc.edit(&in)
		if _, err := Of(in); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
		}
	}
}

func TestRoundUp(t *testing.T) {
	for _, x := range []float64{1, 0.1, 0.3, 1.0000001, 2.718281828, 9.9999, 1e-6, 3.0713e-05, 123456789, 0.023200631252642157} {
		for _, sig := range []int{3, 4, 6} {
			r := roundUp(x, sig)
			if r < x || r > x*(1+2*math.Pow(10, float64(1-sig))) {
				t.Errorf("roundUp(%g, %d) = %g", x, sig, r)
			}
			if s := strconv.FormatFloat(r, 'e', -1, 64); len(strings.TrimLeft(strings.Split(s, "e")[0], "0.")) > sig+1 {
				t.Errorf("roundUp(%g, %d) = %s has more than %d digits", x, sig, s, sig)
			}
		}
	}
	if roundUp(0, 3) != 0 {
		t.Error("roundUp(0) ≠ 0")
	}
}

// A release with private ranges and private evaluations says so where it says what is
// released, what is covered, which constants come from the data, how its parts compose and by
// which mechanisms; a release of models alone says none of it.
func TestBesideTheModels(t *testing.T) {
	s, facts := adult(t)
	spec := adultSpec("noisy-gd", 1, 1e-6, privacy.ReplaceOne)
	alone := planned(t, s, spec, facts, 1, privacy.OSSeeded)
	with := planned(t, s, spec, facts, 1, privacy.OSSeeded)
	ranges, evaluation := alone.Reports[0], alone.Reports[0]
	ranges.Mechanism, evaluation.Mechanism = "private ranges (test)", "private evaluation (test)"
	with.Ranges, with.Evaluations = &ranges, []privacy.Report{evaluation}
	with.Settings.ScaleShare, with.Settings.EvalShare, with.Facts.Scalable = 0.2, 0.1, 2 // two columns ranged
	for _, c := range []struct {
		in   Input
		want bool
	}{{alone, false}, {with, true}} {
		st := of(t, c.in)
		plain := strings.Split(st.Plain, "\n\n")
		also := "" // the paragraph on what is released and covered beside the models
		if k := slices.IndexFunc(plain, func(p string) bool { return strings.HasPrefix(p, "Also released and covered:") }); k >= 0 {
			also = plain[k]
		}
		e := parseEntry(t, st.Registry)
		for what, has := range map[string]bool{
			"released: ranges":          strings.Contains(also, "the private ranges of 2 columns") && strings.Contains(also, "20 % of the budget"),
			"released: evaluation":      strings.Contains(also, "private evaluation") && strings.Contains(also, "(10 % of the budget)"),
			"constants from the data":   strings.Contains(str(t, e, "deployment.implementation.preprocessing_and_hyperparameter_tuning"), "The only constants computed from the data are the private ranges"),
			"composition":               strings.HasPrefix(str(t, e, "deployment.accounting.composition"), "Released together: 1 linear model"),
			"mechanism: ranges":         strings.Contains(str(t, e, "deployment.implementation.mechanisms"), "private ranges (test)"),
			"mechanism: evaluation":     strings.Contains(str(t, e, "deployment.implementation.mechanisms"), "private evaluation (test)"),
			"no constant (models only)": strings.Contains(str(t, e, "deployment.implementation.preprocessing_and_hyperparameter_tuning"), "No constant is computed from the data"),
		} {
			if want := c.want != (what == "no constant (models only)"); has != want {
				t.Errorf("ranges and evaluation %v: %s: %v, want %v", c.want, what, has, want)
			}
		}
	}
}
