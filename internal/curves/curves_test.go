package curves

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/plot"
)

// phi is the standard normal distribution function, from math.Erfc (not from pkg/core/privacy).
func phi(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// closedDelta is μ-GDP's privacy curve in closed form (Dong, Roth and Su 2019, Corollary 2.13):
// δ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2).
func closedDelta(mu, eps float64) float64 {
	return phi(-eps/mu+mu/2) - math.Exp(eps)*phi(-eps/mu-mu/2)
}

// closedTradeoff is μ-GDP's tradeoff function in closed form: f(α) = Φ(Φ⁻¹(1 − α) − μ), with
// Φ⁻¹(1 − α) = √2·erfcinv(2α).
func closedTradeoff(mu, alpha float64) float64 {
	return phi(math.Sqrt2*math.Erfcinv(2*alpha) - mu)
}

// near reports whether got is within rel of want, relatively (absolutely below 1e-290).
func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), 1e-290)
}

func TestFieldSet(t *testing.T) {
	var f Field
	f.Set(" 2.5 ", CheckMu)
	if f.Err != "" || f.Value != 2.5 || f.Text != " 2.5 " || f.Invalid() != "false" {
		t.Fatalf("a valid text: %+v", f)
	}
	for text, want := range map[string]string{
		"abc": "Enter a number.", "": "Enter a number.", "1,5": "Enter a number with a point for its decimals (1.5) and no thousands separators.",
		"NaN": "Enter a finite number.", "-Inf": "Enter a finite number.", "1e999": "Enter a number.",
		"-1": "μ must be positive.", "0": "μ must be positive.", "101": "μ above 100 gives no meaningful privacy; enter at most 100.",
	} {
		f.Set(text, CheckMu)
		if f.Err != want || f.Value != 2.5 || f.Text != text || f.Invalid() != "true" {
			t.Errorf("%q: %+v, want the error %q and the last valid value 2.5", text, f, want)
		}
	}
}

func TestChecks(t *testing.T) {
	for _, tc := range []struct {
		check func(float64) string
		ok    []float64
		bad   []float64
	}{
		{CheckMu, []float64{1e-300, 0.5, 100}, []float64{0, -1, 100.5}},
		{CheckEps, []float64{1e-9, 1, 50}, []float64{0, -1, 50.01}},
		{CheckDelta, []float64{1e-300, 1e-6, 0.999}, []float64{0, -1e-6, 1, 2, 1e-301}},
	} {
		for _, v := range tc.ok {
			if msg := tc.check(v); msg != "" {
				t.Errorf("%g refused: %s", v, msg)
			}
		}
		for _, v := range tc.bad {
			if tc.check(v) == "" {
				t.Errorf("%g accepted", v)
			}
		}
	}
}

// The widget's curves are μ-GDP's closed forms, at the points it draws.
func TestCurvesMatchClosedForms(t *testing.T) {
	for _, mu := range []float64{0.1, 0.5, 1, 2, 5} {
		for _, eps := range []float64{0.5, 1, 8} {
			xs, ys, as, ts := sample(privacy.GDP{Mu: mu}, eps)
			if len(xs) != points || xs[0] != 0 || xs[points-1] != EpsMax(eps) || as[0] != 0 || as[points-1] != 1 {
				t.Fatalf("grids: ε from %g to %g, α from %g to %g", xs[0], xs[len(xs)-1], as[0], as[len(as)-1])
			}
			for i := range xs {
				// Below 1e-250 the closed form's Φ underflows before δ does.
				if want := closedDelta(mu, xs[i]); want > 1e-250 && !near(ys[i], want, 1e-9) {
					t.Errorf("μ = %g: δ(%g) = %g, closed form %g", mu, xs[i], ys[i], want)
				}
				if want := closedTradeoff(mu, as[i]); !near(ts[i], want, 1e-9) {
					t.Errorf("μ = %g: T(%g) = %g, closed form %g", mu, as[i], ts[i], want)
				}
			}
		}
	}
}

// The numbers shown are the closed forms', formatted.
func TestNumbers(t *testing.T) {
	for _, tc := range []struct {
		mu, eps, delta       string
		deltaAtEps, epsAtDel string
	}{
		{"1", "1", "1e-6", "0.1269", "4.887"},
		// δ(0.5) of 2-GDP = Φ(0.75) − e^0.5·Φ(−1.25) = 0.59919; ε at δ = 10⁻⁶: 10.997.
		{"2", "0.5", "1e-6", "0.5992", "11"},
		{"0.25", "3", "1e-5", "1.624 × 10⁻³⁴", "0.9263"},
	} {
		w := New()
		w.ApplyQuery(map[string]string{"mu": tc.mu, "eps": tc.eps, "delta": tc.delta})
		mu, eps, delta := w.Mu.Value, w.Eps.Value, w.Delta.Value
		if got := w.DeltaAtEps(); got != tc.deltaAtEps || got != plot.FormatNumber(closedDelta(mu, eps)) {
			t.Errorf("%+v: δ at ε %s, closed form %s", tc, got, plot.FormatNumber(closedDelta(mu, eps)))
		}
		got := w.EpsAtDelta()
		e, err := strconv.ParseFloat(got, 64)
		if got != tc.epsAtDel || err != nil || !(closedDelta(mu, e*(1-1e-3)) > delta && closedDelta(mu, e*(1+1e-3)) < delta) {
			t.Errorf("%+v: ε at δ %s, where the closed form's δ does not cross %g", tc, got, delta)
		}
	}
}

// "Use it" enters the largest μ that meets the target, written down and still meeting it.
func TestUseLargestMu(t *testing.T) {
	for _, target := range [][2]string{{"1", "1e-5"}, {"1", "1e-6"}, {"0.3", "1e-9"}, {"2", "0.01"}, {"7", "1e-12"}, {"50", "0.5"}} {
		w := New()
		w.SetEps(target[0])
		w.SetDelta(target[1])
		w.UseLargestMu()
		mu, eps, delta := w.Mu.Value, w.Eps.Value, w.Delta.Value
		if !w.Valid() || !w.Meets() || !strings.Contains(w.Verdict(), "meets the target") || strings.Contains(w.Verdict(), "does not") {
			t.Errorf("target %v: μ = %s does not meet it: %s", target, w.Mu.Text, w.Verdict())
		}
		if !(closedDelta(mu, eps) <= delta*(1+1e-9) && closedDelta(mu*(1+2e-5), eps) > delta) {
			t.Errorf("target %v: μ = %s is not the largest that meets it (6 digits)", target, w.Mu.Text)
		}
	}
	w := New()
	w.SetDelta("1e-5")
	w.UseLargestMu()
	if w.Mu.Text != "0.268051" || w.LargestMuText() != "0.2681" {
		t.Errorf("the largest μ for (1, 10⁻⁵): %s, shown as %s", w.Mu.Text, w.LargestMuText())
	}
	for v, want := range map[float64]string{0.2680515: "0.268051", 0.26805149: "0.268051", 9.999995: "9.99999", 0.09999999: "0.0999999", 2: "2"} {
		if got := roundDown6(v); got != want {
			t.Errorf("roundDown6(%v) = %s, want %s", v, got, want)
		}
	}
}

// The widget opens on the app's target, with μ = 1 compared with it in neutral words.
func TestDefaults(t *testing.T) {
	w := New()
	if w.Mu.Text != "1" || w.Eps.Text != "1" || w.Delta.Text != "1e-6" || !w.Valid() || w.Problem() != "" {
		t.Fatalf("defaults: μ %q, ε %q, δ %q, problem %q", w.Mu.Text, w.Eps.Text, w.Delta.Text, w.Problem())
	}
	if v := w.Verdict(); v != "1-GDP does not meet the target (ε, δ)." {
		t.Errorf("verdict %q", v)
	}
	if len(w.Curve.Paths) != 1 || len(w.Curve.Circles) != 1 || len(w.Tradeoff.Paths) != 3 {
		t.Errorf("the plots: %d and %d paths, %d markers", len(w.Curve.Paths), len(w.Tradeoff.Paths), len(w.Curve.Circles))
	}
	if !hasText(w.Curve, "Privacy curve δ(ε) of 1-GDP") || !hasText(w.Tradeoff, "Tradeoff curve T(α) of 1-GDP") || !hasText(w.Tradeoff, "perfect privacy 1 − α") {
		t.Error("the plots' titles or legend")
	}
}

func hasText(d plot.Drawing, s string) bool {
	for _, t := range d.Texts {
		if t.Text == s {
			return true
		}
	}
	return false
}

// An invalid value is shown with its error, and nothing is computed or drawn from the other
// values or the defaults until it is corrected.
func TestInvalidInputDrawsNothing(t *testing.T) {
	for _, tc := range []struct {
		q             map[string]string
		field, errMsg string
		problem       string
	}{
		{map[string]string{"mu": "abc"}, "mu", "Enter a number.", "No curve is drawn while μ is invalid: correct it above."},
		{map[string]string{"delta": "2"}, "delta", "δ must be between 0 and 1 (exclusive).", "No curve is drawn while δ is invalid: correct it above."},
		{map[string]string{"eps": "-1", "mu": "2"}, "eps", "ε must be positive.", "No curve is drawn while ε is invalid: correct it above."},
		{map[string]string{"mu": "-1", "eps": "x", "delta": "0"}, "mu", "μ must be positive.", "No curve is drawn while μ, ε and δ are invalid: correct them above."},
	} {
		w := New()
		w.ApplyQuery(tc.q)
		f := map[string]*Field{"mu": &w.Mu, "eps": &w.Eps, "delta": &w.Delta}[tc.field]
		if f.Err != tc.errMsg || f.Text != tc.q[tc.field] || w.Valid() || w.Problem() != tc.problem {
			t.Errorf("%v: error %q, text %q, problem %q", tc.q, f.Err, f.Text, w.Problem())
		}
		if len(w.Curve.Paths)+len(w.Curve.Texts)+len(w.Tradeoff.Paths)+len(w.Tradeoff.Texts) != 0 {
			t.Errorf("%v: a plot is drawn for invalid input", tc.q)
		}
		w.SetMu("2")
		w.SetEps("0.5")
		w.SetDelta("1e-6")
		if !w.Valid() || w.Problem() != "" || w.DeltaAtEps() != "0.5992" || len(w.Curve.Paths) != 1 || len(w.Tradeoff.Paths) != 3 {
			t.Errorf("%v corrected: problem %q, δ at ε %s, %d paths", tc.q, w.Problem(), w.DeltaAtEps(), len(w.Curve.Paths))
		}
	}
	w := New()
	w.ApplyQuery(map[string]string{"embed": "curve", "mu": "0.5", "other": "x"})
	if w.Mu.Value != 0.5 || !w.Valid() {
		t.Errorf("other parameters are not ignored: %+v", w.Mu)
	}
}
