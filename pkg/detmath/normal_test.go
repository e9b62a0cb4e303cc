package detmath

import (
	"github.com/privopt/privopt/internal/stattest"
	"math"
	"testing"
)

// TestNormalFunctionsReference checks erfcx, Q, log Q and the tail inverse against 60-digit
// values, to 2e-15 relative (erfcx, Q, log Q) and 1e-14 (the inverse) — a few ulps.
func TestNormalFunctionsReference(t *testing.T) {
	counts := map[string]int{}
	for _, r := range stattest.ReadReference(t, "testdata/normal-reference.tsv") {
		counts[r.Kind]++
		want := stattest.Parse(t, r.Values[0])
		var got, tol float64
		switch r.Kind {
		case "erfcx":
			got, tol = Erfcx(r.In["x"]), 2e-15
		case "tail":
			got, tol = NormalTail(r.In["x"]), 2e-15
			if cdf := NormalCDF(-r.In["x"]); cdf != got {
				t.Errorf("NormalCDF(−x) = %g differs from NormalTail(x) = %g", cdf, got)
			}
		case "logtail":
			got, tol = LogNormalTail(r.In["x"]), 2e-15
		case "tailinv":
			got, tol = NormalTailInverse(r.In["p"]), 1e-14
		}
		if stattest.RelErr(got, want) > tol && math.Abs(got-want) > 1e-300 {
			t.Errorf("%s(%s) = %.17g, want %.17g: relative error %.2g", r.Kind, r.Args, got, want, stattest.RelErr(got, want))
		}
	}
	if len(counts) != 4 {
		t.Errorf("reference kinds: %v", counts)
	}
}

func TestNormalEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"Q(+Inf)", NormalTail(math.Inf(1)), 0},
		{"Q(−Inf)", NormalTail(math.Inf(-1)), 1},
		{"log Q(+Inf)", LogNormalTail(math.Inf(1)), math.Inf(-1)},
		{"Q⁻¹(0)", NormalTailInverse(0), math.Inf(1)},
		{"Q⁻¹(1)", NormalTailInverse(1), math.Inf(-1)},
		{"Q⁻¹(1/2)", NormalTailInverse(0.5), 0},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %g, want %g", tc.name, tc.got, tc.want)
		}
	}
	for _, bad := range []float64{-0.1, 1.1, math.NaN()} {
		if !math.IsNaN(NormalTailInverse(bad)) {
			t.Errorf("NormalTailInverse(%g) is not NaN", bad)
		}
	}
	// Round trips over the whole range of p.
	for e := -307.0; e < 0; e += 0.37 {
		p := math.Pow(10, e)
		// Q's relative condition number is about x², so the round trip loses that much.
		x := NormalTailInverse(p)
		if back := NormalTail(x); stattest.RelErr(back, p) > 1e-15*math.Max(1, x*x) && p > 1e-300 {
			t.Errorf("Q(Q⁻¹(%g)) = %g", p, back)
		}
	}
}
