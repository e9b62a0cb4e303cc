package ui

import (
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/curves"
)

// TestBudgetGuidance: the privacy step explains ε and δ with the chosen plan's attack reading,
// warns before a run when δ is not far below 1/n, when ε is large and when the runs together
// let an attacker find most members, states the runs' composition both ways, and the results
// call a weak release "private, but weakly".
func TestBudgetGuidance(t *testing.T) {
	t.Parallel()
	a, h := demoApp(t, 1)
	a.SetMechanism("noisy-gd")
	h.settle(a)
	if w := a.BudgetWarnings(); len(w) != 0 {
		t.Errorf("ε = 1, δ = 1e-6: warnings %q", w)
	}
	help := a.BudgetHelp()
	if !strings.Contains(help, "e^ε times") || !strings.Contains(help, "finds at most") || !strings.Contains(help, "the release:") {
		t.Errorf("the budget's help: %q", help)
	}
	// The attack reading of noisy-gd's μ-GDP curve at ε = 1: 1 − T(0.05) between 5 % and e·5 %.
	if f := float64(a.Plans.Curves.Found); !(f > 0.05 && f < 0.136) {
		t.Errorf("found %g at 5 %% false positives", f)
	}

	a.SetDelta("0.5")
	h.settle(a)
	if w := a.BudgetWarnings(); len(w) != 1 || !strings.Contains(w[0], "1/n = 1/4000") {
		t.Errorf("δ = 0.5: warnings %q", w)
	}
	html := render(t, &Root{Widget: curves.New(), App: a})
	if !strings.Contains(html, `id="budget-warnings"`) || !strings.Contains(html, `id="budget-help"`) {
		t.Error("the warnings or the help are not shown")
	}
	if testing.Short() {
		t.Skip("planning every mechanism at ε = 50 takes seconds: the rest runs under go test without -short (./build.sh test)")
	}
	a.SetDelta("1e-6")
	a.SetEps("50")
	h.settle(a)
	if w := a.BudgetWarnings(); len(w) != 1 || !strings.Contains(w[0], "ε = 50 says little") {
		t.Errorf("ε = 50: warnings %q", w)
	}
	// Unseeded, the release is private, but the verdict says the budget is weak.
	a.SetOption("MaxSteps", "5")
	h.settle(a)
	a.Run()
	h.settle(a)
	if text, class := a.Verdict(); class != "warn" || !strings.Contains(text, "weakly") {
		t.Errorf("ε = 50: verdict %q (%s); %v %q", text, class, a.RunErrors(), a.RunErr)
	}
	// The report leads with its plain summary; the derivation is one click away. The model's
	// fit has 80 % of the budget typed (the private ranges the rest), and the summary says so.
	if s := a.ReportSummary(); len(s) != 3 || !strings.HasPrefix(s[0], "Protected:") || !strings.Contains(s[1], "finds at most 100.0 %") ||
		!strings.Contains(s[0], "For one model's fit, on its share of the budget (ε = 40; the whole release's guarantee is stated below)") ||
		!strings.HasPrefix(s[2], "Not covered:") {
		t.Errorf("ε = 50: summary %q", s)
	}
	html = render(t, &Root{Widget: curves.New(), App: a})
	if i, j := strings.Index(html, `id="report-summary"`), strings.Index(html, `<details id="derivation">`); i < 0 || j < i ||
		j > strings.Index(html, `id="report-statement"`) {
		t.Error("the summary does not come before the derivation, or the derivation is not behind a click")
	}

	// Eight runs at ε = 3: composition is stated both ways and warned about.
	a.SetEps("3")
	a.SetRuns("8")
	h.settle(a)
	composed := a.ComposedText()
	if !strings.Contains(composed, "δ = 1 × 10⁻⁶)-differentially private, and (ε = 3, δ = ") || !strings.Contains(a.BudgetHelp(), "the 8 runs together") {
		t.Errorf("8 runs: %q; help %q", composed, a.BudgetHelp())
	}
	if w := a.BudgetWarnings(); len(w) != 1 || !strings.Contains(w[0], "make fewer runs") {
		t.Errorf("8 runs at ε = 3: warnings %q (found %v)", w, a.Plans.Curves.ComposedFound)
	}
}

// TestPlainWords: the page words the planning packages' errors and identifiers, and shows a
// yes/no setting as a checkbox.
func TestPlainWords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"mech: exact Gibbs sampling needs a bounded domain (a box or an ℓp ball), not geom.Whole": "Exact Gibbs sampling needs a bounded domain (a box or an ℓp ball), not the whole space",
		"fit: mechanism \"rem\", setting X: no such setting":                                      "Mechanism \"rem\", setting X: no such setting",
		"mech: auto varies *geom.Box":                                                             "Auto varies a box",
		"":                                                                                        "",
	} {
		if got := plainError(in); got != want {
			t.Errorf("plainError(%q) = %q, want %q", in, got, want)
		}
	}
	if got := words("sampler_cap_hits"); got != "sampler cap hits" {
		t.Errorf("words: %q", got)
	}
	a, h := demoApp(t, 1)
	a.SetMechanism("noisy-gd")
	h.settle(a)
	html := render(t, &Root{Widget: curves.New(), App: a})
	if !strings.Contains(html, `type="checkbox" id="option-NoPrecondition"`) || strings.Contains(html, "rho_zcdp") {
		t.Error("noisy-gd's NoPrecondition is not a checkbox, or a parameter's identifier reaches the page")
	}
	a.SetOption("NoPrecondition", "true")
	h.settle(a)
	if a.OptionText["NoPrecondition"] != "true" || a.spec().Options["NoPrecondition"] != "true" {
		t.Errorf("the checked box: %q", a.OptionText["NoPrecondition"])
	}
	a.SetMechanism("expmech")
	h.settle(a)
	for _, r := range a.PlanRows() {
		if strings.Contains(r.Error, "mech:") || strings.Contains(r.Error, "geom.") {
			t.Errorf("%s: %q", r.Name, r.Error)
		}
	}
}
