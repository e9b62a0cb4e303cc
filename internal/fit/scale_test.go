package fit

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/privopt/privopt/pkg/core/data"
	"github.com/privopt/privopt/pkg/core/privacy"
	"github.com/privopt/privopt/pkg/rng"
)

// regressionSchema has three numeric features declared loosely ([0, 1000], values in [0, 10]),
// one of them declared "scale": "declared", and a numeric label declared in [0, 100] (values
// in [40, 61]).
const regressionSchema = `{"privopt_schema": 1, "norm": {"p": 2, "radius": 1, "bias": 0.7071067811865476, "fit": "scale"},
 "columns": [{"name": "a", "kind": "numeric", "min": 0, "max": 1000},
  {"name": "b", "kind": "numeric", "min": 0, "max": 1000, "scale": "declared"},
  {"name": "c", "kind": "numeric", "min": 0, "max": 1000},
  {"name": "y", "kind": "numeric-label", "min": 0, "max": 100}]}`

// regressionData returns the regression schema and n rows of it, y = 40 + 2a + noise.
func regressionData(t *testing.T, n int) (*data.Schema, *data.Dataset) {
	t.Helper()
	s, err := data.LoadSchema(strings.NewReader(regressionSchema))
	if err != nil {
		t.Fatal(err)
	}
	r := rng.Seeded(7)
	text := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	var b strings.Builder
	b.WriteString("a,b,c,y\n")
	for range n {
		a, c := 10*r.Float64(), 10*r.Float64()
		b.WriteString(strings.Join([]string{text(a), "5", text(c), text(40 + 2*a + r.Float64())}, ",") + "\n")
	}
	ds, _, err := data.Encode(strings.NewReader(b.String()), s)
	if err != nil {
		t.Fatal(err)
	}
	return s, ds
}

func regressionSpec(share float64) Spec {
	return Spec{Loss: "squared", Domain: DefaultDomain("squared"), Radius: 10, Mechanism: "noisy-gd", ScaleShare: share,
		Budget: privacy.Budget{Epsilon: 1, Delta: 1e-6}}
}

// TestScale checks the private ranges' flow: the facts count the columns the schema lets a
// fit scale, the ranges are estimated and set in the schema as used, the rows are rescaled
// (the features to fill [0, 1] far better than the declared bounds, the label to [−1, 1]),
// the inputs are not modified, and the plan beside the ranges meets the budget with more ε
// than basic composition gives.
func TestScale(t *testing.T) {
	s, ds := regressionData(t, 20000)
	f, err := FactsOf(ds, s)
	if err != nil {
		t.Fatal(err)
	}
	if f.Scalable != 3 || !f.LabelScalable {
		t.Fatalf("facts: %d columns to scale, label %v; want 3 (a, c, y) and true", f.Scalable, f.LabelScalable)
	}
	sp := regressionSpec(DefaultScaleShare)
	if !ScalesPrivately(sp, f) || RangesSkipped(sp, f) != "" {
		t.Fatalf("20,000 rows do not scale privately: %s", RangesSkipped(sp, f))
	}
	x0, y0 := slices.Clone(ds.X), slices.Clone(ds.Y)
	sc, err := Scale(sp, f, s, ds, nil, rng.Seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.X, x0) || !slices.Equal(ds.Y, y0) {
		t.Error("Scale modified its input")
	}
	if sc.Ranges == nil || len(sc.Ranges.Intervals) != 3 {
		t.Fatalf("ranges %+v", sc.Ranges)
	}
	for _, c := range sc.Schema.Columns {
		switch c.Name {
		case "a", "c": // values in [0, 10] of [0, 1000]: the range ends near 0.01
			if c.Range == nil || !(c.Range.Hi > 0.008 && c.Range.Hi < 0.012) {
				t.Errorf("%s: range %+v, want one ending near 0.01", c.Name, c.Range)
			}
		case "b":
			if c.Range != nil {
				t.Errorf("b is declared \"scale\": \"declared\" and got the range %+v", c.Range)
			}
		case "y": // values in [40, 61] of [0, 100]
			if c.Range == nil || !(c.Range.Lo > 0.35 && c.Range.Lo < 0.45 && c.Range.Hi > 0.55 && c.Range.Hi < 0.65) {
				t.Errorf("y: range %+v, want about [0.4, 0.6]", c.Range)
			}
		}
	}
	if lo, hi := slices.Min(sc.Train.Y), slices.Max(sc.Train.Y); lo < -1 || hi > 1 || hi-lo < 1.5 {
		t.Errorf("the scaled labels span [%g, %g], want most of [−1, 1]", lo, hi)
	}
	pl, err := Plan(sp, f)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Guarantee(pl, sp, f)
	if err != nil {
		t.Fatal(err)
	}
	if !(privacy.Budget{Epsilon: 1, Delta: 1e-6}).Meets(c) {
		t.Errorf("the model with its ranges: %v does not meet the budget", c)
	}
	if rep := pl.Guarantee().Delta(0.8); !(rep > 1e-6*0.8) {
		t.Errorf("the mechanism got no more than basic composition's (0.8, 8e-7): δ(0.8) = %g", rep)
	}
	rel, err := pl.Run(t.Context(), sc.Train, rng.Seeded(2), nil)
	if err != nil {
		t.Fatalf("the plan does not run on the scaled rows: %v", err)
	}
	if len(rel.Model.Weights) != ds.D {
		t.Errorf("%d weights", len(rel.Model.Weights))
	}
}

// TestScaleGate checks that private ranges are not estimated when their noise would exceed
// n/16 rows, that the label is then mapped from its declared range at no cost, and that the
// mechanism gets the whole budget.
func TestScaleGate(t *testing.T) {
	s, ds := regressionData(t, 300)
	f, err := FactsOf(ds, s)
	if err != nil {
		t.Fatal(err)
	}
	sp := regressionSpec(DefaultScaleShare)
	if ScalesPrivately(sp, f) {
		t.Fatal("300 rows at ε = 1 scale privately")
	}
	if _, err := Ranges(sp, f); err == nil {
		t.Error("Ranges planned without private ranges")
	}
	if why := RangesSkipped(sp, f); !strings.Contains(why, "too large for 300 rows (at most 18.8)") {
		t.Errorf("RangesSkipped = %q", why)
	}
	none := sp
	none.ScaleShare = 0
	if why := RangesSkipped(none, f); why != "" {
		t.Errorf("RangesSkipped without a share = %q", why)
	}
	sc, err := Scale(sp, f, s, ds, nil, rng.Seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Ranges != nil || sc.Schema.Columns[3].Range == nil || *sc.Schema.Columns[3].Range != (data.Range{Lo: 0, Hi: 1}) {
		t.Errorf("ranges %+v, label range %+v; want none and [0, 1]", sc.Ranges, sc.Schema.Columns[3].Range)
	}
	if lo, hi := LabelRange(sp, f); lo != -1 || hi != 1 {
		t.Errorf("label range [%g, %g], want [−1, 1]", lo, hi)
	}
	pl, err := Plan(sp, f)
	if err != nil {
		t.Fatal(err)
	}
	plNone, err := Plan(none, f)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Guarantee().Delta(1) != plNone.Guarantee().Delta(1) {
		t.Error("without private ranges the mechanism does not get the whole budget")
	}
	for _, share := range []float64{-0.1, 1, 0.9} {
		bad := sp
		bad.ScaleShare, bad.EvalShare = share, 0.2
		if _, err := Plan(bad, f); err == nil {
			t.Errorf("scale share %g beside an evaluation share 0.2 accepted", share)
		}
	}
}
