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
		// Delta, GaussianSigma and Epsilon round toward privacy (up) by relSlack, Tradeoff down.
		// The direction is checked to the digits the reference gives.
		digitsTol := tol
		tol = math.Max(tol, 3*relSlack)
		up := r.Kind != "tradeoff"
		if err != nil || stattest.RelErr(got, want) > tol || (up && got < want*(1-digitsTol)) || (!up && got > want*(1+digitsTol)) {
			t.Errorf("%s %s (%s): got %.17g (err %v), want %s (relative tolerance %.1g)", r.Kind, r.Args, r.Values[1], got, err, r.Values[0], tol)
		}
	}
}

// TestHighPrecisionReference checks δ(ε), log δ(ε), ε(δ), calibration and T(α) against
// values computed with 80-digit arithmetic over μ in [1e-4, 100], ε in [−5, 2000] and δ down
// to 1e-300, and that each is rounded toward privacy past its error: δ(ε) and ε(δ) at or above
// the exact values, the calibrated μ and T(α) at or below.
func TestHighPrecisionReference(t *testing.T) {
	counts := map[string]int{}
	for _, r := range stattest.ReadReference(t, "testdata/gdp-reference.tsv") {
		counts[r.Kind]++
		g := GDP{Mu: r.In["mu"]}
		switch r.Kind {
		case "delta":
			// log δ is an upper bound within relSlack where δ is a double (beyond, within
			// 1e-12 relative), δ an upper bound within 3·relSlack: the evaluation's error is
			// below half of relSlack, by which it is rounded up.
			wantLog, got := stattest.Parse(t, r.Values[1]), g.LogDelta(r.In["eps"])
			if slack := math.Max(relSlack, 1e-12*math.Abs(wantLog)); !(got >= wantLog-1e-15*math.Abs(wantLog) && got <= wantLog+2*slack) {
				t.Errorf("log δ(%s) = %.17g, want %.17g rounded up by at most %.1g", r.Args, got, wantLog, 2*slack)
			}
			if r.Values[0] == "underflow" {
				continue
			}
			if got, want := g.Delta(r.In["eps"]), stattest.Parse(t, r.Values[0]); got < want*(1-0x1p-53) || stattest.RelErr(got, want) > 3*relSlack {
				t.Errorf("δ(%s) = %.17g, want %.17g rounded up: relative error %.2g", r.Args, got, want, stattest.RelErr(got, want))
			}
		case "eps":
			// At least the exact root (above the double nearest to it), so that the exact δ
			// there is at most the target.
			got, err := g.Epsilon(r.In["delta"])
			want := stattest.Parse(t, r.Values[0])
			if err != nil || stattest.RelErr(got, want) > 1e-10 || (want > 0 && got <= want) {
				t.Errorf("ε(%s) = %.17g (%v), want just above %.17g", r.Args, got, err, want)
			}
		case "calib":
			// Below the exact largest μ (below the double nearest to it).
			got, err := CalibrateGDP(r.In["eps"], r.In["delta"])
			want := stattest.Parse(t, r.Values[0])
			if err != nil || stattest.RelErr(got, want) > 1e-9 || got >= want {
				t.Errorf("μ*(%s) = %.17g (%v), want just below %.17g: relative error %.2g", r.Args, got, err, want, stattest.RelErr(got, want))
			}
		case "tradeoff":
			if got, want := g.Tradeoff(r.In["alpha"]), stattest.Parse(t, r.Values[0]); got > want*(1+0x1p-53) || stattest.RelErr(got, want) > 3*relSlack {
				t.Errorf("T(%s) = %.17g, want %.17g rounded down: relative error %.2g", r.Args, got, want, stattest.RelErr(got, want))
			}
		}
	}
	for _, kind := range []string{"delta", "eps", "calib", "tradeoff"} {
		if counts[kind] < 50 {
			t.Errorf("only %d %q rows in the reference table", counts[kind], kind)
		}
	}
}
