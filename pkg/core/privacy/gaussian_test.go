package privacy

import (
	"github.com/privopt/privopt/internal/stattest"
	"math"
	"strings"
	"testing"
)

// inaccurateReference lists the rows of the public table whose values are wrong beyond some
// digit, with the value recomputed with 50-digit arithmetic (mpmath) for the double inputs.
var inaccurateReference = map[string]string{
	// The table's 0.0087517681458096156 (from a float64 test) is off by 2.4e-15 relative.
	"delta mu=0.1 eps=0.1": "0.0087517681458095944882",
	// The table's 1.75463333189606e-8 is off by 9.6e-14 relative.
	"delta mu=0.2 eps=1": "1.7546333318962354025e-8",
}

// TestPublicReference checks every row of the reference table from public test suites
// (dp_accounting, Google's differential-privacy library, Balle and Wang, Dong, Roth and Su) to
// the digits it gives, as far as double arithmetic can hold them (1e-15 relative), except the rows in
// inaccurateReference, which are checked against their recomputed values.
func TestPublicReference(t *testing.T) {
	rows := stattest.ReadReference(t, "testdata/gaussian-dp.tsv")
	if len(rows) != 16 {
		t.Fatalf("%d reference rows, want 16", len(rows))
	}
	for _, r := range rows {
		value := r.Values[0]
		if fixed, ok := inaccurateReference[r.Kind+" "+r.Args]; ok {
			if got := stattest.Parse(t, value); stattest.RelErr(got, stattest.Parse(t, fixed)) > 1e-12 {
				t.Errorf("%s %s: the table says %s, the recomputation %s: not the known inaccuracy", r.Kind, r.Args, value, fixed)
			}
			value = fixed
		}
		want := stattest.Parse(t, value)
		digits := len(strings.TrimLeft(strings.ReplaceAll(strings.Split(r.Values[0], "e")[0], ".", ""), "0"))
		tol := math.Max(0.6*math.Pow(10, float64(1-digits)), 1e-15)
		var got float64
		var err error
		switch r.Kind {
		case "delta":
			got = GDP{Mu: r.In["mu"]}.Delta(r.In["eps"])
		case "sigma":
			got, err = GaussianSigma(r.In["sensitivity"], r.In["eps"], r.In["delta"])
		case "eps":
			got, err = GDP{Mu: r.In["mu"]}.Epsilon(r.In["delta"])
		case "tradeoff":
			got = GDP{Mu: r.In["mu"]}.Tradeoff(r.In["alpha"])
		default:
			t.Fatalf("unknown kind %q", r.Kind)
		}
		if err != nil || stattest.RelErr(got, want) > tol {
			t.Errorf("%s %s (%s): got %.17g (err %v), want %s (relative tolerance %.1g)", r.Kind, r.Args, r.Values[1], got, err, r.Values[0], tol)
		}
	}
}

// TestHighPrecisionReference checks δ(ε), log δ(ε), ε(δ), calibration and T(α) against
// values computed with 80-digit arithmetic over μ in [1e-4, 100], ε in [−5, 2000] and δ down
// to 1e-300: relative error at most 1e-10 (log δ: 1e-12).
func TestHighPrecisionReference(t *testing.T) {
	counts := map[string]int{}
	for _, r := range stattest.ReadReference(t, "testdata/gdp-reference.tsv") {
		counts[r.Kind]++
		g := GDP{Mu: r.In["mu"]}
		switch r.Kind {
		case "delta":
			if wantLog := stattest.Parse(t, r.Values[1]); stattest.RelErr(g.LogDelta(r.In["eps"]), wantLog) > 1e-12 && math.Abs(g.LogDelta(r.In["eps"])-wantLog) > 1e-13 {
				t.Errorf("log δ(%s) = %.17g, want %.17g", r.Args, g.LogDelta(r.In["eps"]), wantLog)
			}
			if r.Values[0] == "underflow" {
				continue
			}
			if got, want := g.Delta(r.In["eps"]), stattest.Parse(t, r.Values[0]); stattest.RelErr(got, want) > 1e-10 {
				t.Errorf("δ(%s) = %.17g, want %.17g: relative error %.2g", r.Args, got, want, stattest.RelErr(got, want))
			}
		case "eps":
			got, err := g.Epsilon(r.In["delta"])
			want := stattest.Parse(t, r.Values[0])
			if err != nil || stattest.RelErr(got, want) > 1e-10 {
				t.Errorf("ε(%s) = %.17g (%v), want %.17g", r.Args, got, err, want)
			}
			if g.Delta(got) > r.In["delta"] {
				t.Errorf("ε(%s) = %g is not private: δ(ε) = %g", r.Args, got, g.Delta(got))
			}
		case "calib":
			got, err := CalibrateGDP(r.In["eps"], r.In["delta"])
			want := stattest.Parse(t, r.Values[0])
			if err != nil || stattest.RelErr(got, want) > 1e-9 {
				t.Errorf("μ*(%s) = %.17g (%v), want %.17g: relative error %.2g", r.Args, got, err, want, stattest.RelErr(got, want))
			}
			if d := (GDP{Mu: got}).Delta(r.In["eps"]); d > r.In["delta"] {
				t.Errorf("μ*(%s) = %g is not private: δ = %g", r.Args, got, d)
			}
		case "tradeoff":
			if got, want := g.Tradeoff(r.In["alpha"]), stattest.Parse(t, r.Values[0]); stattest.RelErr(got, want) > 1e-10 {
				t.Errorf("T(%s) = %.17g, want %.17g: relative error %.2g", r.Args, got, want, stattest.RelErr(got, want))
			}
		}
	}
	for _, kind := range []string{"delta", "eps", "calib", "tradeoff"} {
		if counts[kind] < 50 {
			t.Errorf("only %d %q rows in the reference table", counts[kind], kind)
		}
	}
}
